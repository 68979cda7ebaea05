/** `rllm sft`: supervised fine-tuning on a JSONL file of {messages} rows. */
import { join } from "node:path";
import { Command } from "commander";
import { LocalBackend } from "../backends/local/backend.js";
import { renderSft } from "../backends/local/chat-format.js";
import {
  backendOptions,
  ConfigError,
  type ConfigLayer,
  loadConfig,
  type RllmConfig,
} from "../config/index.js";
import { resolveCheckpoint } from "../trainer/checkpoint-path.js";
import { loadSftFile, runSft, type SftRenderer, type SftStepMetrics } from "../trainer/sft.js";
import { SFT_FLAGS } from "./flag-tables.js";
import { addFlags, type FlagValues, flagLayer } from "./flags.js";
import { createLog } from "./log.js";
import { runStamp } from "./run-dir.js";

/** The parsed flags of `rllm sft` (its table: SFT_FLAGS in flag-tables.ts). */
type SftFlags = FlagValues<typeof SFT_FLAGS>;

/** The config layer of `rllm sft`'s flags. */
export function sftFlagsToConfig(f: SftFlags): ConfigLayer {
  return flagLayer(SFT_FLAGS, f);
}

export function sftCommand(): Command {
  const cmd = new Command("sft").description(
    "Supervised fine-tuning: cross-entropy on the assistant tokens of {messages} rows (JSONL).",
  );
  return addFlags(cmd, SFT_FLAGS).action(async (flags: SftFlags) => {
    const config = loadConfig({ file: flags.config, flags: sftFlagsToConfig(flags) });
    await runSftCommand(config);
  });
}

function fmt(m: SftStepMetrics, total: number): string {
  const val = m["val/loss"] !== undefined ? `  val ${m["val/loss"].toFixed(4)}` : "";
  return `step ${m.step}/${total}  loss ${m.loss.toFixed(4)}${val}  lr ${m.lr.toExponential(2)}  ${Math.round(m.tokens_per_s)} tok/s`;
}

export async function runSftCommand(
  config: RllmConfig,
  io: { log: (line: string) => void; signal?: AbortSignal } = { log: createLog().info },
): Promise<{ model?: string; steps: number; firstLoss: number; lastLoss: number }> {
  const sft = config.sft;
  if (!sft.trainFile)
    throw new ConfigError("rllm sft needs --train-file (JSONL rows of {messages})");
  if (config.backend.name !== "local")
    throw new ConfigError(`--backend ${config.backend.name}: rllm sft supports the local backend`);
  const output = sft.output ?? join("runs", `sft-${runStamp()}`);
  const { checkpoint } = config.backend;
  const backend = await LocalBackend.create({
    ...backendOptions(config.backend),
    checkpoint: checkpoint && resolveCheckpoint(checkpoint),
  });
  const ac = new AbortController();
  const onSigint = () => {
    io.log("interrupted: finishing the step and saving the model");
    ac.abort();
  };
  process.once("SIGINT", onSigint);
  try {
    const opts = {
      render: ((messages, tools) => renderSft(messages, { tools })) satisfies SftRenderer,
      maxSeqLen: backend.modelConfig.maxSeqLen,
      overlong: sft.overlong,
    };
    const train = loadSftFile(sft.trainFile, opts);
    const val = sft.valFile ? loadSftFile(sft.valFile, opts) : undefined;
    io.log(
      `sft: ${train.length} rows${val ? `, ${val.length} validation rows` : ""}; ${backend.layout.reduce((a, p) => a + p.size, 0).toLocaleString("en-US")} parameters; output ${output}`,
    );
    const r = await runSft({
      backend,
      train,
      val,
      epochs: sft.epochs,
      batchSize: sft.batchSize,
      maxSteps: sft.maxSteps,
      optim: config.optim,
      seed: sft.seed,
      output,
      saveFreq: sft.saveFreq,
      valFreq: sft.valFreq,
      signal: io.signal ?? ac.signal,
      onStep: (m, total) => io.log(fmt(m, total)),
    });
    io.log(
      `sft: ${r.steps} steps, loss ${r.firstLoss.toFixed(4)} → ${r.lastLoss.toFixed(4)}${r.valLoss !== undefined ? `, val ${r.valLoss.toFixed(4)}` : ""}; model saved to ${r.model ?? "(nothing: no step ran)"}`,
    );
    return r;
  } finally {
    process.off("SIGINT", onSigint);
    await backend.close();
  }
}

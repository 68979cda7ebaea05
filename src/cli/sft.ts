/**
 * `rllm sft`: supervised fine-tuning on a JSONL file of {messages} rows, on the configured backend
 * (created through the registry). Rows are rendered in the backend's chat format — the local
 * model's ChatML (renderSft), a torch model's own chat template (hf/sft.ts) — and the rest,
 * runSft (trainer/sft.ts), is the same for every backend.
 */
import { join } from "node:path";
import { Command } from "commander";
import { renderSft } from "../backends/local/chat-format.js";
import { backendDefinition } from "../backends/registry.js";
import type { TrainingBackend } from "../backends/spi.js";
import { ConfigError, type ConfigLayer, loadConfig, type RllmConfig } from "../config/index.js";
import { loadSftRenderer } from "../hf/sft.js";
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

/** What a backend's SFT rows need: its chat format, its context and a line about the model. */
interface SftSetup {
  render: SftRenderer;
  maxSeqLen: number;
  model: string;
}

/** The local model's ChatML rows (renderSft) and its GptConfig's context. */
async function localSetup(backend: TrainingBackend): Promise<SftSetup> {
  const { LocalBackend } = await import("../backends/local/backend.js");
  if (!(backend instanceof LocalBackend))
    throw new Error("the local backend is not a LocalBackend");
  const params = backend.layout.reduce((a, p) => a + p.size, 0);
  return {
    render: (messages, tools) => renderSft(messages, { tools }),
    maxSeqLen: backend.modelConfig.maxSeqLen,
    model: `${params.toLocaleString("en-US")} parameters`,
  };
}

/**
 * The torch model's rows in its own chat template (hf/sft.ts), from the directory that has its
 * tokenizer: the model's, a full checkpoint's, or a LoRA checkpoint's base model's.
 */
async function torchSetup(backend: TrainingBackend): Promise<SftSetup> {
  const [{ TorchBackend }, { localModelDir }, { readTorchManifest }] = await Promise.all([
    import("../backends/torch/backend.js"),
    import("../backends/torch/serve.js"),
    import("../backends/torch/checkpoint.js"),
  ]);
  if (!(backend instanceof TorchBackend))
    throw new Error("the torch backend is not a TorchBackend");
  const { checkpoint, model } = backend.config;
  let dir: string;
  if (checkpoint) {
    const m = await readTorchManifest(checkpoint);
    dir = m.kind === "full" ? checkpoint : localModelDir(m.baseModel);
  } else dir = localModelDir(model!);
  const { info } = backend;
  return {
    render: await loadSftRenderer(dir),
    maxSeqLen: info.maxSeqLen,
    model: `${info.architecture}, ${info.trainableParams.toLocaleString("en-US")} of ${info.numParams.toLocaleString("en-US")} parameters trained, ${info.dtype} on ${info.device}; chat template of ${dir}`,
  };
}

const SETUPS: Record<string, (backend: TrainingBackend) => Promise<SftSetup>> = {
  local: localSetup,
  torch: torchSetup,
};

export async function runSftCommand(
  config: RllmConfig,
  io: { log: (line: string) => void; signal?: AbortSignal } = { log: createLog().info },
): Promise<{ model?: string; steps: number; firstLoss: number; lastLoss: number }> {
  const sft = config.sft;
  if (!sft.trainFile)
    throw new ConfigError("rllm sft needs --train-file (JSONL rows of {messages})");
  const name = config.backend.name;
  const setup = SETUPS[name];
  if (!setup)
    throw new ConfigError(
      `--backend ${name}: rllm sft renders rows for the ${Object.keys(SETUPS).join(" and ")} backends`,
    );
  const { checkpoint } = config.backend;
  if (name === "torch" && !config.backend.model && !checkpoint)
    throw new ConfigError(
      "rllm sft --backend torch needs --model DIR|HUB_ID (the Hugging Face model to fine-tune) or --checkpoint DIR (one a torch run saved)",
    );
  const output = sft.output ?? join("runs", `sft-${runStamp()}`);
  const backend = await backendDefinition(name).create(
    { ...config.backend, checkpoint: checkpoint && resolveCheckpoint(checkpoint) },
    { log: io.log },
  );
  const ac = new AbortController();
  const onSigint = () => {
    io.log("interrupted: finishing the step and saving the model");
    ac.abort();
  };
  process.once("SIGINT", onSigint);
  try {
    const { render, maxSeqLen, model } = await setup(backend);
    const opts = { render, maxSeqLen, overlong: sft.overlong };
    const train = loadSftFile(sft.trainFile, opts);
    const val = sft.valFile ? loadSftFile(sft.valFile, opts) : undefined;
    io.log(
      `sft: ${train.length} rows${val ? `, ${val.length} validation rows` : ""}; backend ${name}, ${model}; output ${output}`,
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

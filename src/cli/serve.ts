/**
 * `rllm model serve`: serve a backend's model as an OpenAI-compatible sampler in vLLM's wire
 * shapes, in the foreground until SIGINT/SIGTERM. Point the gateway at it with
 * `rllm gateway --upstream vllm=http://HOST:PORT`.
 *
 *   --checkpoint DIR        either backend: the registry's serve (resolveCheckpoint: a checkpoint,
 *                           a training step or a run directory)
 *   --backend torch --model M   the Hugging Face model M as it is (weight version 0)
 *   --backend local         an untrained local model (noise; said so)
 *
 * `--model` and `--checkpoint` together are refused: a checkpoint names its own model.
 */
import type { Command } from "commander";
import { backendDefinition } from "../backends/registry.js";
import type { ServedCheckpoint } from "../backends/spi.js";
import { backendOptions, ConfigError, loadConfig, type RllmConfig } from "../config/index.js";
import { resolveCheckpoint } from "../trainer/checkpoint-path.js";
import { SERVE_FLAGS } from "./flag-tables.js";
import { addFlags, type FlagValues, flagLayer } from "./flags.js";
import { createLog } from "./log.js";

/** The parsed flags of `rllm model serve` (its table: SERVE_FLAGS in flag-tables.ts). */
export type ModelServeFlags = FlagValues<typeof SERVE_FLAGS>;

export interface ModelServer {
  baseURL: string;
  /** The model name it answers to. */
  model: string;
  weightVersion: number;
  /** Stops serving and removes the signal handlers. */
  close(): Promise<void>;
}

type Section<N extends string> = Extract<RllmConfig["backend"], { name: N }>;

/** Serves what the flags name, prints its URL and closes it on SIGINT/SIGTERM. */
export async function runModelServe(flags: ModelServeFlags): Promise<ModelServer> {
  const log = createLog({ write: (l) => console.log(l) });
  const { warn } = createLog({ write: (l) => console.warn(l) });
  const section = loadConfig({ flags: flagLayer(SERVE_FLAGS, flags) }).backend;
  const ctx = { log: log.info };
  let served: ServedCheckpoint;
  let what: string;
  if (section.checkpoint) {
    if (section.name === "torch" && section.model)
      throw new ConfigError(
        "--model and --checkpoint: a checkpoint names its own model; pass one of them",
      );
    const dir = resolveCheckpoint(section.checkpoint);
    served = await backendDefinition(section.name).serve!(dir, section, ctx);
    what = `checkpoint ${dir}`;
  } else if (section.name === "torch") {
    served = await serveTorchModel(section, ctx);
    what = `${section.model} as it is`;
  } else {
    served = await serveUntrainedLocal(section);
    what = "an untrained model";
    warn(
      `rllm model serve: no --checkpoint, serving a freshly initialised model (seed ${section.seed}): it is untrained and its output is noise. Pass --checkpoint DIR to serve trained weights.`,
    );
  }
  log.info(
    `rllm model serve: "${served.model}" (weight version ${served.weightVersion}, ${section.name} backend, ${what}) on ${served.baseURL}`,
  );
  log.info(
    `  use it through the gateway: rllm gateway --upstream vllm=${served.baseURL.replace(/\/v1$/, "")}`,
  );
  const onSignal = (signal: NodeJS.Signals) => {
    log.info(`rllm model serve: ${signal}, closing`);
    void close().then(() => process.exit(0));
  };
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await served.close();
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  return {
    baseURL: served.baseURL,
    model: served.model,
    weightVersion: served.weightVersion,
    close,
  };
}

/** `--backend torch --model M`: M's own weights. */
async function serveTorchModel(
  section: Section<"torch">,
  ctx: { log: (line: string) => void },
): Promise<ServedCheckpoint> {
  if (!section.model)
    throw new ConfigError(
      "rllm model serve --backend torch needs --model DIR|HUB_ID (a Hugging Face model) or --checkpoint DIR (one a torch run saved)",
    );
  const { serveTorchModel: serve } = await import("../backends/torch/serve.js");
  return serve(section.model, backendOptions(section), ctx);
}

/** `--backend local` without a checkpoint: a fresh model of the section's config and seed. */
async function serveUntrainedLocal(section: Section<"local">): Promise<ServedCheckpoint> {
  const [{ DEFAULT_GPT_CONFIG, Gpt }, { serveLocalWeights }] = await Promise.all([
    import("../backends/local/model.js"),
    import("../backends/local/sampler.js"),
  ]);
  const config = { ...DEFAULT_GPT_CONFIG, ...section.model };
  const params = new Gpt(config, { seed: section.seed }).paramData.slice();
  return serveLocalWeights(config, params, 0, section.sampler);
}

/** Adds `serve` to the `rllm model` command. */
export function registerServeCommand(modelCmd: Command): Command {
  const serve = modelCmd
    .command("serve")
    .description(
      "Serve a model as an OpenAI-compatible server in vLLM's shapes: a checkpoint of either backend, a Hugging Face model (--backend torch --model), or an untrained local model.",
    );
  addFlags(serve, SERVE_FLAGS).action(async (flags: ModelServeFlags) => {
    await runModelServe(flags);
  });
  return modelCmd;
}

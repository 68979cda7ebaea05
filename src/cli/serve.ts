/**
 * `rllm model serve`: serve the local model (a checkpoint, or a fresh untrained one) as an
 * OpenAI-compatible sampler in vLLM's wire shapes, in the foreground until SIGINT/SIGTERM.
 * Point the gateway at it with `rllm gateway --upstream vllm=http://HOST:PORT`.
 */
import type { Command } from "commander";
import { DEFAULT_GPT_CONFIG, Gpt, type GptConfig } from "../backends/local/model.js";
import { LocalSampler } from "../backends/local/sampler.js";
import { loadLocalCheckpoint } from "../backends/local/weights.js";
import { resolveCheckpoint } from "../trainer/checkpoint-path.js";
import { SERVE_FLAGS } from "./flag-tables.js";
import { addFlags } from "./flags.js";
import { createLog } from "./log.js";

export interface ModelServeOptions {
  /** A checkpoint directory written by the local backend (saveCheckpoint). */
  checkpoint?: string;
  port: number;
  host?: string;
  /** Seed of the fresh model's initialisation when there is no checkpoint (default 0). */
  seed?: number;
  /** Served model name (default "rllm-local"). */
  model?: string;
  workers?: number;
}

export interface ModelServer {
  sampler: LocalSampler;
  /** Stops serving and removes the signal handlers. */
  close(): Promise<void>;
}

/** Loads the weights, starts the sampler, prints its URL and closes it on SIGINT/SIGTERM. */
export async function runModelServe(opts: ModelServeOptions): Promise<ModelServer> {
  const log = createLog({ write: (l) => console.log(l) });
  const { warn } = createLog({ write: (l) => console.warn(l) });
  let config: GptConfig;
  let params: Float32Array;
  let weightVersion = 0;
  if (opts.checkpoint) {
    const ckpt = await loadLocalCheckpoint(resolveCheckpoint(opts.checkpoint));
    config = ckpt.config;
    params = ckpt.params;
    weightVersion = ckpt.checkpoint.weightVersion;
  } else {
    config = { ...DEFAULT_GPT_CONFIG };
    params = new Gpt(config, { seed: opts.seed ?? 0 }).paramData.slice();
    warn(
      `rllm model serve: no --checkpoint, serving a freshly initialised model (seed ${opts.seed ?? 0}): it is untrained and its output is noise. Pass --checkpoint DIR to serve trained weights.`,
    );
  }
  const sampler = await LocalSampler.start({
    config,
    params,
    weightVersion,
    port: opts.port,
    ...(opts.host !== undefined ? { host: opts.host } : {}),
    ...(opts.model !== undefined ? { modelName: opts.model } : {}),
    ...(opts.workers !== undefined ? { workers: opts.workers } : {}),
  });
  log.info(
    `rllm model serve: "${sampler.modelName}" (weight version ${sampler.weightVersion}, context ${config.maxSeqLen} tokens) on ${sampler.baseURL}`,
  );
  log.info(`  use it through the gateway: rllm gateway --upstream vllm=${originOf(sampler)}`);
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
    await sampler.close();
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  return { sampler, close };
}

function originOf(s: LocalSampler): string {
  return s.baseURL.replace(/\/v1$/, "");
}

/** Adds `serve` to the `rllm model` command. */
export function registerServeCommand(modelCmd: Command): Command {
  const serve = modelCmd
    .command("serve")
    .description(
      "Serve the local model (a checkpoint, or a fresh untrained one) as an OpenAI-compatible server in vLLM's shapes.",
    );
  addFlags(serve, SERVE_FLAGS).action(async (o: ModelServeOptions) => {
    await runModelServe(o);
  });
  return modelCmd;
}

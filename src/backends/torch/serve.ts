/**
 * Starting torch workers, and serving: what the backend (its sampler()) and `rllm eval` / `rllm
 * model serve` (serveTorchCheckpoint, serveTorchModel) share.
 *
 *   const w = await startWorker(config, "trainer", ctx);
 *   const s = await launchSampler(config, ctx, { model, adapter, servingDir, weightVersion });
 *
 * Decided here, once: `device: "auto"` is cuda when the worker's torch sees one; `dtype: "auto"`
 * is bfloat16 on cuda, float32 on cpu; asking for cuda where there is none is an error naming the
 * knob. The sampler's tokenizer and chat template come from a local model directory: a Hub id is
 * looked up in the Hugging Face cache (HF_HUB_CACHE, else HF_HOME/hub, else
 * ~/.cache/huggingface/hub) at the revision `refs/main` names.
 */
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { z } from "zod";
import type { BackendContext, ServedCheckpoint } from "../spi.js";
import { readTorchManifest } from "./checkpoint.js";
import { inProcessSampler, type TorchBackendConfig } from "./config.js";
import { TorchSampler } from "./generator.js";
import { resolvePython } from "./python-env.js";
import { distributedLaunch, otherNodeCommand } from "./torchrun.js";
import { type WorkerHello, WorkerProcess, type WorkerRole } from "./worker.js";

/** What `init` answers (trainer and sampler alike). */
export const InitResultSchema = z.object({
  architecture: z.string(),
  vocabSize: z.number().int().positive(),
  maxSeqLen: z.number().int().positive(),
  numParams: z.number().int().nonnegative(),
  trainableParams: z.number().int().nonnegative(),
  dtype: z.string(),
  device: z.string(),
  eosTokenIds: z.array(z.number().int()),
});
export type InitResult = z.infer<typeof InitResultSchema>;

export function parseInit(result: Record<string, unknown>, role: WorkerRole): InitResult {
  const r = InitResultSchema.safeParse(result);
  if (!r.success)
    throw new Error(
      `the torch ${role} worker's init reply does not follow python/PROTOCOL.md: ${r.error.issues
        .map((i) => `${i.path.join(".")}: ${i.message}`)
        .join("; ")}`,
    );
  return r.data;
}

export function resolveDevice(
  device: TorchBackendConfig["device"],
  hello: WorkerHello,
): "cpu" | "cuda" {
  if (device === "auto") return hello.cuda ? "cuda" : "cpu";
  if (device === "cuda" && !hello.cuda)
    throw new Error(
      `backend.device is "cuda" but the worker's torch ${hello.torch} sees no CUDA device; set backend.device to "cpu" or "auto"`,
    );
  return device;
}

export function resolveDtype(
  dtype: TorchBackendConfig["dtype"],
  device: "cpu" | "cuda",
): "float32" | "bfloat16" {
  if (dtype !== "auto") return dtype;
  return device === "cuda" ? "bfloat16" : "float32";
}

/**
 * A worker of `role` with the config's interpreter and timeouts; the trainer under torchrun when
 * the config asks for more than one process (torchrun.ts), logging the `rllm worker` line each
 * other node runs.
 */
export function startWorker(
  config: TorchBackendConfig,
  role: WorkerRole,
  ctx: BackendContext,
): Promise<WorkerProcess> {
  const debug = process.env.RLLM_LOG_LEVEL?.toLowerCase() === "debug";
  const distributed = distributedLaunch(config, role);
  if (distributed && config.rdzvEndpoint)
    for (let node = 1; node < config.nnodes; node++)
      ctx.log(
        `torch trainer: waiting for node ${node} of ${config.nnodes}; on it, run: ${otherNodeCommand({ ...distributed, rdzvEndpoint: config.rdzvEndpoint, nodeRank: node })}`,
      );
  return WorkerProcess.start({
    python: resolvePython(config.python),
    role,
    startupTimeoutMs: config.timeouts.startupS * 1000,
    log: ctx.log,
    ...(debug ? { debug: ctx.log } : {}),
    ...(distributed ? { distributed } : {}),
  });
}

/** `model` itself when it is a directory, else the Hub id's snapshot in the HF cache. */
export function localModelDir(model: string, env: NodeJS.ProcessEnv = process.env): string {
  if (existsSync(model)) return resolve(model);
  const hub =
    env.HF_HUB_CACHE ?? join(env.HF_HOME ?? join(homedir(), ".cache", "huggingface"), "hub");
  const repo = join(hub, `models--${model.replaceAll("/", "--")}`);
  try {
    const dir = join(repo, "snapshots", readFileSync(join(repo, "refs", "main"), "utf8").trim());
    if (existsSync(join(dir, "tokenizer.json"))) return dir;
  } catch {
    // not in the cache: the error below
  }
  throw new Error(
    `${model} is neither a directory nor a Hub model whose tokenizer is in the Hugging Face cache (${hub}); the sampler needs its tokenizer.json and chat template: download them (e.g. \`hf download ${model}\`) or pass a model directory`,
  );
}

export interface SamplerStart {
  /** The weights: a model directory or Hub id. */
  model: string;
  /** A peft adapter directory on top of `model`, or null. */
  adapter: string | null;
  /** The directory with the tokenizer and chat template. */
  servingDir: string;
  weightVersion: number;
}

/** A sampler worker initialised on `start`, served over HTTP. */
export async function launchSampler(
  config: TorchBackendConfig,
  ctx: BackendContext,
  start: SamplerStart,
): Promise<TorchSampler> {
  const timeoutMs = config.timeouts.callS * 1000;
  const samplerConfig = inProcessSampler(config); // before any worker starts
  const [servingResult, workerResult] = await Promise.allSettled([
    import("../../hf/serving.js").then((m) => m.loadServing(start.servingDir)),
    startWorker(config, "sampler", ctx),
  ]);
  if (workerResult.status === "rejected") throw workerResult.reason;
  const worker = workerResult.value;
  try {
    if (servingResult.status === "rejected") throw servingResult.reason;
    const serving = servingResult.value;
    const device = resolveDevice(config.device, worker.hello!);
    const info = parseInit(
      await worker.call(
        "init",
        {
          model: start.model,
          device,
          dtype: resolveDtype(config.dtype, device),
          seed: config.seed,
          adapter: start.adapter,
          maxBatch: samplerConfig.maxBatch,
          weightVersion: start.weightVersion,
        },
        { timeoutMs },
      ),
      "sampler",
    );
    return await TorchSampler.start({
      worker,
      tokenizer: serving.tokenizer,
      renderChat: serving.renderChat,
      vocabSize: info.vocabSize,
      maxSeqLen: info.maxSeqLen,
      weightVersion: start.weightVersion,
      callTimeoutMs: timeoutMs,
      config: samplerConfig,
    });
  } catch (e) {
    await worker.close();
    throw e;
  }
}

/** Serves a checkpoint a torch run saved: full, its directory; LoRA, the base model + adapter. */
export async function serveTorchCheckpoint(
  checkpoint: string,
  config: TorchBackendConfig,
  ctx: BackendContext,
): Promise<ServedCheckpoint> {
  const dir = resolve(checkpoint);
  const m = await readTorchManifest(dir);
  const full = m.kind === "full";
  const s = await launchSampler(config, ctx, {
    model: full ? dir : m.baseModel,
    adapter: full ? null : dir,
    servingDir: full ? dir : localModelDir(m.baseModel),
    weightVersion: m.weightVersion,
  });
  return {
    baseURL: s.baseURL,
    model: s.modelName,
    weightVersion: m.weightVersion,
    kind: "vllm",
    close: () => s.close(),
  };
}

/** Serves a model directory or Hub id as it is (no checkpoint: weight version 0). */
export async function serveTorchModel(
  model: string,
  config: TorchBackendConfig,
  ctx: BackendContext,
): Promise<ServedCheckpoint> {
  const s = await launchSampler(config, ctx, {
    model: existsSync(model) ? resolve(model) : model,
    adapter: null,
    servingDir: localModelDir(model),
    weightVersion: 0,
  });
  return {
    baseURL: s.baseURL,
    model: s.modelName,
    weightVersion: 0,
    kind: "vllm",
    close: () => s.close(),
  };
}

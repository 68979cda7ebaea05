/**
 * On-disk checkpoints of a backend's model (and optionally its optimizer): a directory with
 *
 *   model.safetensors      the weights (F32), with `{"format": "pt"}` metadata so PyTorch and
 *                          transformers open it as they open any safetensors file
 *   optimizer.safetensors  AdamW moments, tensors `m.<param>` and `v.<param>` (when given)
 *   rllm.json              the manifest: format version, model config, tokenizer, optimizer step
 *                          and hyperparameters, weight version, and the sha256 of each file
 *
 * A save is atomic: everything is written (and fsynced) into a sibling temp directory that is then
 * renamed into place, so a crash or a failed write never leaves a half checkpoint where a resume
 * would find it. A load verifies every checksum before trusting a byte.
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdir, open, readFile, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { parseSafetensors, serializeSafetensors, type Tensor } from "./safetensors.js";

export const CHECKPOINT_FORMAT = "rllm-checkpoint";
export const CHECKPOINT_FORMAT_VERSION = 1;
export const MODEL_FILE = "model.safetensors";
export const OPTIMIZER_FILE = "optimizer.safetensors";
export const MANIFEST_FILE = "rllm.json";

export interface Float32Tensor {
  shape: number[];
  data: Float32Array;
}

export interface OptimizerState {
  /** Number of optimizer steps taken (AdamW's bias correction needs it to resume exactly). */
  step: number;
  /** lr, betas, eps, weight decay, schedule…: recorded so a resume can check or reuse them. */
  hyperparameters?: Record<string, unknown>;
  /** First moments, keyed like the model tensors. */
  m: Record<string, Float32Tensor>;
  /** Second moments, keyed like the model tensors. */
  v: Record<string, Float32Tensor>;
}

export interface Checkpoint {
  tensors: Record<string, Float32Tensor>;
  /** The model's architecture config (JSON-serializable). */
  config: Record<string, unknown>;
  /** The tokenizer's own description (e.g. `byteTokenizer.describe()`). */
  tokenizer?: Record<string, unknown> | null;
  /** The weight version the sampler served these weights as. */
  weightVersion?: number;
  optimizer?: OptimizerState;
  /** Anything else a caller wants back on load (trainer position, RNG state, …). */
  extra?: Record<string, unknown>;
}

export interface FileRecord {
  sha256: string;
  bytes: number;
}

export interface CheckpointManifest {
  format: typeof CHECKPOINT_FORMAT;
  formatVersion: number;
  createdAt: string;
  weightVersion: number;
  model: { config: Record<string, unknown>; file: typeof MODEL_FILE };
  tokenizer: Record<string, unknown> | null;
  optimizer: {
    step: number;
    hyperparameters: Record<string, unknown>;
    file: typeof OPTIMIZER_FILE;
  } | null;
  files: Record<string, FileRecord>;
  extra: Record<string, unknown>;
}

export interface LoadedCheckpoint extends Checkpoint {
  weightVersion: number;
  tokenizer: Record<string, unknown> | null;
  extra: Record<string, unknown>;
  manifest: CheckpointManifest;
}

export interface SaveOptions {
  /**
   * Called after each file is written into the temp directory. Tests use it to inject a failure
   * midway; a throw aborts the save and leaves the destination as it was.
   */
  onFileWritten?: (file: string) => void | Promise<void>;
}

export class CheckpointError extends Error {
  override name = "CheckpointError";
}

function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/** Write and fsync, so the rename that publishes the directory never outruns the data. */
async function writeDurably(path: string, bytes: Uint8Array): Promise<void> {
  const fh = await open(path, "w");
  try {
    await fh.writeFile(bytes);
    await fh.sync();
  } finally {
    await fh.close();
  }
}

async function syncDir(path: string): Promise<void> {
  try {
    const fh = await open(path, "r");
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch {
    // Directory fsync is not supported everywhere (e.g. some filesystems); the rename still holds.
  }
}

function asTensors(src: Record<string, Float32Tensor>, prefix = ""): Record<string, Tensor> {
  const out: Record<string, Tensor> = {};
  for (const [name, t] of Object.entries(src)) {
    out[prefix + name] = { dtype: "F32", shape: t.shape, data: t.data };
  }
  return out;
}

function checkOptimizer(
  tensors: Record<string, Float32Tensor>,
  opt: OptimizerState,
  where: string,
): void {
  if (!Number.isSafeInteger(opt.step) || opt.step < 0) {
    throw new CheckpointError(
      `${where}: optimizer step must be a non-negative integer, got ${opt.step}`,
    );
  }
  for (const moment of ["m", "v"] as const) {
    const names = Object.keys(opt[moment]).sort();
    const want = Object.keys(tensors).sort();
    if (names.join("\0") !== want.join("\0")) {
      const missing = want.filter((n) => !(n in opt[moment]));
      const unknown = names.filter((n) => !(n in tensors));
      throw new CheckpointError(
        `${where}: optimizer "${moment}" does not match the model tensors (missing: ${missing.join(", ") || "none"}; unknown: ${unknown.join(", ") || "none"})`,
      );
    }
    for (const n of names) {
      const a = opt[moment][n]!.shape.join("x");
      const b = tensors[n]!.shape.join("x");
      if (a !== b)
        throw new CheckpointError(
          `${where}: optimizer "${moment}.${n}" has shape ${a}, the parameter ${b}`,
        );
    }
  }
}

/**
 * Write a checkpoint to `dir` atomically. An existing checkpoint at `dir` is replaced only once
 * the new one is complete; a directory there that is not a checkpoint is never overwritten.
 */
export async function saveCheckpoint(
  dir: string,
  ckpt: Checkpoint,
  options: SaveOptions = {},
): Promise<CheckpointManifest> {
  const target = resolve(dir);
  if (ckpt.optimizer) checkOptimizer(ckpt.tensors, ckpt.optimizer, `saving ${target}`);
  if ((await exists(target)) && !(await exists(join(target, MANIFEST_FILE)))) {
    throw new CheckpointError(
      `refusing to replace ${target}: it exists and is not an rllm checkpoint (no ${MANIFEST_FILE}); choose another directory or remove it`,
    );
  }
  const parent = dirname(target);
  await mkdir(parent, { recursive: true });
  const tag = `${process.pid}-${randomBytes(4).toString("hex")}`;
  const tmp = join(parent, `.${basename(target)}.tmp-${tag}`);
  await mkdir(tmp);
  try {
    const files: Record<string, FileRecord> = {};
    const put = async (name: string, bytes: Uint8Array) => {
      await writeDurably(join(tmp, name), bytes);
      files[name] = { sha256: sha256(bytes), bytes: bytes.length };
      await options.onFileWritten?.(name);
    };
    await put(MODEL_FILE, serializeSafetensors(asTensors(ckpt.tensors), { format: "pt" }));
    if (ckpt.optimizer) {
      const opt = ckpt.optimizer;
      const bytes = serializeSafetensors(
        { ...asTensors(opt.m, "m."), ...asTensors(opt.v, "v.") },
        { step: String(opt.step) },
      );
      await put(OPTIMIZER_FILE, bytes);
    }
    const manifest: CheckpointManifest = {
      format: CHECKPOINT_FORMAT,
      formatVersion: CHECKPOINT_FORMAT_VERSION,
      createdAt: new Date().toISOString(),
      weightVersion: ckpt.weightVersion ?? 0,
      model: { config: ckpt.config, file: MODEL_FILE },
      tokenizer: ckpt.tokenizer ?? null,
      optimizer: ckpt.optimizer
        ? {
            step: ckpt.optimizer.step,
            hyperparameters: ckpt.optimizer.hyperparameters ?? {},
            file: OPTIMIZER_FILE,
          }
        : null,
      files,
      extra: ckpt.extra ?? {},
    };
    // The manifest goes last: a directory with a valid rllm.json has all its files.
    await writeDurably(
      join(tmp, MANIFEST_FILE),
      Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`),
    );
    await options.onFileWritten?.(MANIFEST_FILE);
    await syncDir(tmp);
    await publish(tmp, target, tag);
    await syncDir(parent);
    return manifest;
  } catch (e) {
    await rm(tmp, { recursive: true, force: true });
    throw e;
  }
}

/** Rename tmp to target; an old checkpoint there is moved aside first and removed only after. */
async function publish(tmp: string, target: string, tag: string): Promise<void> {
  if (!(await exists(target))) {
    await rename(tmp, target);
    return;
  }
  const old = join(dirname(target), `.${basename(target)}.old-${tag}`);
  await rename(target, old);
  try {
    await rename(tmp, target);
  } catch (e) {
    await rename(old, target);
    throw e;
  }
  await rm(old, { recursive: true, force: true });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

async function readVerified(
  dir: string,
  name: string,
  record: FileRecord | undefined,
): Promise<Uint8Array> {
  if (!record || typeof record.sha256 !== "string") {
    throw new CheckpointError(
      `${dir}/${MANIFEST_FILE} lists no checksum for ${name}; the manifest is damaged — re-save the checkpoint`,
    );
  }
  let bytes: Uint8Array;
  try {
    bytes = await readFile(join(dir, name));
  } catch {
    throw new CheckpointError(
      `${dir} is missing ${name}; the checkpoint is incomplete — restore the file or use another checkpoint`,
    );
  }
  const got = sha256(bytes);
  if (got !== record.sha256 || bytes.length !== record.bytes) {
    throw new CheckpointError(
      `${dir}/${name} fails its checksum (sha256 ${got.slice(0, 12)}…, ${bytes.length} bytes; manifest says ${record.sha256.slice(0, 12)}…, ${record.bytes} bytes): the file is corrupt or was changed after saving — restore it or use another checkpoint`,
    );
  }
  return bytes;
}

function float32Tensors(
  where: string,
  tensors: Record<string, Tensor>,
): Record<string, Float32Tensor> {
  const out: Record<string, Float32Tensor> = {};
  for (const [name, t] of Object.entries(tensors)) {
    if (!(t.data instanceof Float32Array) || t.dtype !== "F32") {
      throw new CheckpointError(
        `${where}: tensor "${name}" is ${t.dtype}; rllm checkpoints hold F32 tensors only`,
      );
    }
    out[name] = { shape: t.shape, data: t.data };
  }
  return out;
}

function parseOrWrap(where: string, bytes: Uint8Array): Record<string, Tensor> {
  try {
    return parseSafetensors(bytes).tensors;
  } catch (e) {
    throw new CheckpointError(`${where}: ${(e as Error).message}`);
  }
}

/**
 * ROOT/rllm.json parsed, for any backend's loader: a missing file is a CheckpointError that says
 * `${root} has no rllm.json: ${missing}`, and text that is not JSON one that calls it damaged.
 */
export async function readManifestJson(root: string, missing: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(join(root, MANIFEST_FILE), "utf8");
  } catch {
    throw new CheckpointError(`${root} has no ${MANIFEST_FILE}: ${missing}`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new CheckpointError(
      `${root}/${MANIFEST_FILE} is not valid JSON (${(e as Error).message}); the checkpoint is damaged`,
    );
  }
}

/** Read and verify a checkpoint written by `saveCheckpoint`. */
export async function loadCheckpoint(dir: string): Promise<LoadedCheckpoint> {
  const root = resolve(dir);
  if (!(await exists(root))) {
    throw new CheckpointError(
      `no checkpoint at ${root}: the directory does not exist; pass a directory that holds ${MANIFEST_FILE}`,
    );
  }
  const raw = await readManifestJson(
    root,
    "it is not an rllm checkpoint (pass the checkpoint directory itself, e.g. checkpoints/step-100)",
  );
  if (isObject(raw) && raw.format !== CHECKPOINT_FORMAT && typeof raw.backend === "string") {
    throw new CheckpointError(
      `${root} is a checkpoint of the ${raw.backend} backend, which this loader cannot read; use it with --backend ${raw.backend}`,
    );
  }
  if (!isObject(raw) || raw.format !== CHECKPOINT_FORMAT) {
    throw new CheckpointError(
      `${root}/${MANIFEST_FILE} is not an rllm checkpoint manifest (format is not "${CHECKPOINT_FORMAT}")`,
    );
  }
  if (raw.formatVersion !== CHECKPOINT_FORMAT_VERSION) {
    const v = raw.formatVersion;
    const hint =
      typeof v === "number" && v > CHECKPOINT_FORMAT_VERSION
        ? "it was written by a newer rllm — upgrade rllm to load it"
        : "this rllm cannot read it — re-save it with a matching rllm version";
    throw new CheckpointError(
      `${root} has checkpoint format version ${JSON.stringify(v)}, this rllm reads version ${CHECKPOINT_FORMAT_VERSION}: ${hint}`,
    );
  }
  const manifest = raw as unknown as CheckpointManifest;
  if (!isObject(manifest.files) || !isObject(manifest.model) || !isObject(manifest.model.config)) {
    throw new CheckpointError(
      `${root}/${MANIFEST_FILE} lacks "files" or "model.config"; the manifest is damaged — re-save the checkpoint`,
    );
  }
  const modelBytes = await readVerified(root, MODEL_FILE, manifest.files[MODEL_FILE]);
  const tensors = float32Tensors(
    `${root}/${MODEL_FILE}`,
    parseOrWrap(`${root}/${MODEL_FILE}`, modelBytes),
  );
  const out: LoadedCheckpoint = {
    tensors,
    config: manifest.model.config,
    tokenizer: manifest.tokenizer ?? null,
    weightVersion: manifest.weightVersion ?? 0,
    extra: manifest.extra ?? {},
    manifest,
  };
  if (manifest.optimizer) {
    const where = `${root}/${OPTIMIZER_FILE}`;
    const bytes = await readVerified(root, OPTIMIZER_FILE, manifest.files[OPTIMIZER_FILE]);
    const all = float32Tensors(where, parseOrWrap(where, bytes));
    const m: Record<string, Float32Tensor> = {};
    const v: Record<string, Float32Tensor> = {};
    for (const [name, t] of Object.entries(all)) {
      if (name.startsWith("m.")) m[name.slice(2)] = t;
      else if (name.startsWith("v.")) v[name.slice(2)] = t;
      else
        throw new CheckpointError(
          `${where}: unexpected tensor "${name}" (expected m.<param> or v.<param>)`,
        );
    }
    const optimizer: OptimizerState = {
      step: manifest.optimizer.step,
      hyperparameters: manifest.optimizer.hyperparameters ?? {},
      m,
      v,
    };
    checkOptimizer(tensors, optimizer, where);
    out.optimizer = optimizer;
  }
  return out;
}

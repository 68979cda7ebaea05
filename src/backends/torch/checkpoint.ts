/**
 * A torch checkpoint: the directory the trainer worker's `save` writes (a Hugging Face model
 * directory for full fine-tuning, a peft adapter directory for LoRA; `trainer_state.pt` and
 * `worker.json` beside), plus `rllm.json`, the manifest that makes it an rllm checkpoint wherever
 * a command takes `--checkpoint` (trainer/checkpoint-path.ts looks for that file):
 *
 *   { format: "rllm-torch-checkpoint", formatVersion: 1, backend: "torch", createdAt,
 *     weightVersion, step, kind: "full" | "lora", baseModel, lora, dtype,
 *     reference: { model }, files }
 *
 * `baseModel` is what the run started from (an absolute directory or a Hub id): a LoRA
 * checkpoint's adapter applies to it. `reference` is the reference policy of a KL penalty, as the
 * worker holds it: LoRA's is the base model (the adapter disabled), full fine-tuning's the weights
 * the run was created from.
 *
 * Decided here, once: a save is atomic — the worker writes into a sibling temp directory, the
 * manifest goes in last, and only then is it renamed into place (an old checkpoint there is moved
 * aside and removed after); a directory there that is not an rllm checkpoint is never replaced.
 * Reading refuses the local backend's checkpoints, and the local backend refuses these
 * (backends/checkpoint/checkpoint.ts reads `backend`), each naming the backend to use.
 */
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { z } from "zod";
import {
  CHECKPOINT_FORMAT,
  CheckpointError,
  MANIFEST_FILE,
  readManifestJson,
} from "../checkpoint/checkpoint.js";

export const TORCH_CHECKPOINT_FORMAT = "rllm-torch-checkpoint";
const FORMAT_VERSION = 1;

const LoraSchema = z.strictObject({
  rank: z.number().int().min(1),
  alpha: z.number().positive(),
  dropout: z.number().min(0).max(1),
  targetModules: z.union([z.literal("all-linear"), z.array(z.string())]),
});

export const TorchManifestSchema = z.strictObject({
  format: z.literal(TORCH_CHECKPOINT_FORMAT),
  formatVersion: z.literal(FORMAT_VERSION),
  backend: z.literal("torch"),
  createdAt: z.string(),
  weightVersion: z.number().int().nonnegative(),
  step: z.number().int().nonnegative(),
  kind: z.enum(["full", "lora"]),
  baseModel: z.string().min(1),
  lora: LoraSchema.nullable(),
  dtype: z.string(),
  reference: z.strictObject({ model: z.string().min(1) }),
  files: z.array(z.string()),
});
export type TorchManifest = z.infer<typeof TorchManifestSchema>;

/** Reads and checks DIR/rllm.json; a local checkpoint or a damaged manifest is a clear error. */
export async function readTorchManifest(dir: string): Promise<TorchManifest> {
  const root = resolve(dir);
  if (!existsSync(root))
    throw new CheckpointError(`no checkpoint at ${root}: the directory does not exist`);
  const raw = await readManifestJson(
    root,
    "it is not a checkpoint of the torch backend (pass the directory a torch run saved, e.g. RUN/checkpoints/step-N/backend; a plain Hugging Face directory goes in backend.model)",
  );
  const r = raw as { format?: unknown; backend?: unknown; extra?: { backend?: unknown } };
  if (r?.format === CHECKPOINT_FORMAT) {
    const other = typeof r.extra?.backend === "string" ? r.extra.backend : "local";
    throw new CheckpointError(
      `${root} is a checkpoint of the ${other} backend, not the torch backend's; use it with --backend ${other} (or export its weights to a Hugging Face directory for backend.model)`,
    );
  }
  const parsed = TorchManifestSchema.safeParse(raw);
  if (!parsed.success)
    throw new CheckpointError(
      `${root}/${MANIFEST_FILE} is not a torch checkpoint manifest (${parsed.error.issues
        .map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`)
        .join("; ")}); the checkpoint is damaged or from another rllm version`,
    );
  return parsed.data;
}

/**
 * Saves atomically into `dir`: `write(tmp)` fills a sibling temp dir and returns the file names it
 * wrote; the manifest goes in last; then the rename.
 */
export async function saveTorchCheckpoint(
  dir: string,
  manifest: Omit<TorchManifest, "format" | "formatVersion" | "backend" | "createdAt" | "files">,
  write: (tmp: string) => Promise<string[]>,
): Promise<TorchManifest> {
  const target = resolve(dir);
  if (existsSync(target) && !existsSync(join(target, MANIFEST_FILE)))
    throw new CheckpointError(
      `refusing to replace ${target}: it exists and is not an rllm checkpoint (no ${MANIFEST_FILE}); choose another directory or remove it`,
    );
  await mkdir(dirname(target), { recursive: true });
  const tag = `${process.pid}-${randomBytes(4).toString("hex")}`;
  const tmp = join(dirname(target), `.${basename(target)}.tmp-${tag}`);
  await mkdir(tmp);
  try {
    const files = await write(tmp);
    const full: TorchManifest = {
      format: TORCH_CHECKPOINT_FORMAT,
      formatVersion: FORMAT_VERSION,
      backend: "torch",
      createdAt: new Date().toISOString(),
      ...manifest,
      files,
    };
    await writeFile(join(tmp, MANIFEST_FILE), `${JSON.stringify(full, null, 2)}\n`);
    if (existsSync(target)) {
      const old = join(dirname(target), `.${basename(target)}.old-${tag}`);
      await rename(target, old);
      await rename(tmp, target);
      await rm(old, { recursive: true, force: true });
    } else await rename(tmp, target);
    return full;
  } catch (e) {
    await rm(tmp, { recursive: true, force: true });
    throw e;
  }
}

/**
 * The local model's weights as named tensors and back, its config schema, and reading a local
 * checkpoint: what the backend, the sampler server and `rllm model serve` share.
 */

import {
  CheckpointError,
  type Float32Tensor,
  type LoadedCheckpoint,
  loadCheckpoint,
} from "../checkpoint/checkpoint.js";
import { GptConfigSchema } from "./config.js";
import { type GptConfig, gptParamLayout, type ParamInfo } from "./model.js";
import { byteTokenizer } from "./tokenizer.js";

/** Named tensors viewing `flat` (no copy), one per parameter of `layout`. */
export function tensorsFromFlat(
  layout: readonly ParamInfo[],
  flat: Float32Array,
): Record<string, Float32Tensor> {
  const out: Record<string, Float32Tensor> = {};
  for (const p of layout)
    out[p.name] = { shape: [...p.shape], data: flat.subarray(p.offset, p.offset + p.size) };
  return out;
}

/** One flat buffer from named tensors; every parameter must be there with its shape. */
export function flatFromTensors(
  layout: readonly ParamInfo[],
  tensors: Record<string, Float32Tensor>,
  where: string,
): Float32Array {
  const names = new Set(layout.map((p) => p.name));
  const unknown = Object.keys(tensors).filter((n) => !names.has(n));
  const missing = layout.filter((p) => !(p.name in tensors)).map((p) => p.name);
  if (unknown.length || missing.length)
    throw new CheckpointError(
      `${where}: the tensors do not match the model config (missing: ${missing.join(", ") || "none"}; unknown: ${unknown.join(", ") || "none"})`,
    );
  const size = layout.reduce((a, p) => a + p.size, 0);
  const flat = new Float32Array(size);
  for (const p of layout) {
    const t = tensors[p.name]!;
    if (t.shape.join("x") !== p.shape.join("x"))
      throw new CheckpointError(
        `${where}: tensor ${p.name} has shape [${t.shape}], the model config needs [${p.shape}]`,
      );
    flat.set(t.data, p.offset);
  }
  return flat;
}

export interface LocalCheckpoint {
  config: GptConfig;
  layout: ParamInfo[];
  params: Float32Array;
  checkpoint: LoadedCheckpoint;
}

/** Reads a checkpoint of the local backend: its config, tokenizer check and flat weights. */
export async function loadLocalCheckpoint(dir: string): Promise<LocalCheckpoint> {
  const checkpoint = await loadCheckpoint(dir);
  const parsed = GptConfigSchema.safeParse(checkpoint.config);
  if (!parsed.success)
    throw new CheckpointError(
      `${dir}: not a local-backend checkpoint (model config: ${parsed.error.issues
        .map((i) => `${i.path.join(".") || "config"}: ${i.message}`)
        .join("; ")})`,
    );
  const tok = checkpoint.tokenizer;
  const want = byteTokenizer.describe();
  if (tok && JSON.stringify(tok) !== JSON.stringify(want))
    throw new CheckpointError(
      `${dir}: its tokenizer (${JSON.stringify(tok)}) is not the local backend's byte-level tokenizer`,
    );
  const config = parsed.data as GptConfig;
  const layout = gptParamLayout(config);
  const params = flatFromTensors(layout, checkpoint.tensors, `${dir}/model.safetensors`);
  return { config, layout, params, checkpoint };
}

/**
 * Cross-implementation: the local backend's GPT (TypeScript + wasm) and the torch backend's worker
 * (PyTorch, transformers' GPT-NeoX) on the same weights — a seeded local model with RoPE, exported
 * with exportLocalAsHf — compute the same logprobs, the same PPO loss (KL and entropy bonus) and
 * the same gradients, to 1e-4 relative (gradients: norm-wise per tensor). Two implementations
 * written apart agreeing is how we know both are right.
 *
 * Twice: at the exported weights (the policy is its own KL reference), then after one optimizer
 * step of the local backend, whose new weights the torch backend loads while keeping the original
 * as its reference — so the KL term is live. Local gradients are mapped to the Hugging Face layout
 * with the exporter itself (a gradient is laid out as its parameter: the same transposes and qkv
 * permutation). One torch worker (fp32, CPU, full fine-tuning).
 */
import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type LossSpec, LossSpecSchema } from "../../algorithms/loss.js";
import type { Datum } from "../../types/index.js";
import { readSafetensorsFile, type Tensor } from "../checkpoint/safetensors.js";
import { LocalBackend } from "../local/backend.js";
import { exportLocalAsHf } from "../local/export-hf.js";
import type { GptConfig } from "../local/heap.js";
import { loadLocalCheckpoint } from "../local/weights.js";
import { TorchBackend } from "./backend.js";
import { callWithTensors } from "./tensors.js";

const TOL = 1e-4;
const tmp = mkdtempSync(join(tmpdir(), "rllm-cross-"));
let local: LocalBackend;
let torch: TorchBackend;
let config: GptConfig;

before(async () => {
  local = await LocalBackend.create({
    model: { dModel: 64, nLayers: 2, nHeads: 4, maxSeqLen: 64, positional: "rope" },
    seed: 7,
    initStd: 0.1,
    trainWorkers: 1,
  });
  await local.save(join(tmp, "a-local"));
  config = (await loadLocalCheckpoint(join(tmp, "a-local"))).config;
  await exportLocalAsHf(join(tmp, "a-local"), join(tmp, "a-hf"));
  torch = await TorchBackend.create({
    model: join(tmp, "a-hf"),
    device: "cpu",
    dtype: "float32",
    seed: 0,
  });
});
after(async () => {
  await Promise.all([local?.close(), torch?.close()]);
  rmSync(tmp, { recursive: true, force: true });
});

/** Rows of seeded random tokens; the first 3 masked out, advantages ±1 and 0.5. */
function batch(seed: number): Datum[] {
  let s = seed;
  const rand = () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s / 2 ** 31;
  };
  return [17, 9, 30, 4].map((n, i) => {
    const tokens = Array.from({ length: n }, () => Math.floor(rand() * 256));
    return {
      tokens,
      lossMask: tokens.map((_, t) => (t < 3 ? 0 : 1)),
      advantages: tokens.map(() => [1, -1, 0.5, -0.5][i]!),
      samplingLogprobs: [],
    } as unknown as Datum;
  });
}

/** Sampling logprobs near the policy's (±0.3: some PPO ratios clip, most do not). */
async function withSamplingLogprobs(datums: Datum[], seed: number): Promise<Datum[]> {
  const lp = await local.computeLogprobs(datums);
  let s = seed;
  return datums.map((d, i) => ({
    ...d,
    samplingLogprobs: lp[i]!.map((x, t) => {
      s = (s * 1103515245 + 12345) % 2 ** 31;
      return t === 0 ? 0 : x + 0.6 * (s / 2 ** 31 - 0.5);
    }),
  }));
}

const LOSS: LossSpec = LossSpecSchema.parse({
  kind: "ppo",
  kl: { coef: 0.5, estimator: "k3" },
  entropyCoef: 0.05,
  aggregation: "token-mean",
});

function relative(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let diff = 0;
  let norm = 0;
  for (let i = 0; i < b.length; i++) {
    diff += (a[i]! - b[i]!) ** 2;
    norm += b[i]! ** 2;
  }
  return Math.sqrt(diff) / Math.max(Math.sqrt(norm), 1e-30);
}

async function assertSameLogprobs(datums: Datum[]): Promise<void> {
  const [l, t] = await Promise.all([local.computeLogprobs(datums), torch.computeLogprobs(datums)]);
  l.forEach((row, i) => {
    for (let k = 1; k < row.length; k++)
      assert.ok(
        Math.abs(t[i]![k]! - row[k]!) <= TOL * Math.abs(row[k]!),
        `row ${i} token ${k}: local ${row[k]}, torch ${t[i]![k]}`,
      );
  });
}

/** The local accumulated gradient under the Hugging Face names, through the exporter. */
async function localGradients(tag: string): Promise<Record<string, Tensor>> {
  const dir = join(tmp, `grad-${tag}`);
  await exportLocalAsHf({ config, params: local.accumulatedGrad }, dir);
  return (await readSafetensorsFile(join(dir, "model.safetensors"))).tensors;
}

async function torchGradients(): Promise<Record<string, Tensor>> {
  const { tensors } = await callWithTensors(torch["trainer"], "gradients", {}, null, {
    timeoutMs: 60_000,
  });
  assert.ok(tensors, "the gradients reply names its tensors");
  return tensors;
}

/** forwardBackward on both: the same loss and metrics, the same gradient per tensor. */
async function assertSameStep(
  datums: Datum[],
  tag: string,
): Promise<{ loss: number; kl: number; clipped: number }> {
  const [l, t] = await Promise.all([
    local.forwardBackward(datums, LOSS),
    torch.forwardBackward(datums, LOSS),
  ]);
  assert.ok(
    Math.abs(t.loss - l.loss) <= TOL * Math.abs(l.loss),
    `loss: local ${l.loss}, torch ${t.loss}`,
  );
  const [lg, tg] = [await localGradients(tag), await torchGradients()];
  assert.deepEqual(Object.keys(tg).sort(), Object.keys(lg).sort(), "the same parameters");
  const errors: Record<string, number> = {};
  for (const [name, g] of Object.entries(lg)) {
    assert.deepEqual(tg[name]!.shape, g.shape, name);
    errors[name] = relative(tg[name]!.data as Float32Array, g.data as Float32Array);
    assert.ok(errors[name]! <= TOL, `${name}: ‖torch − local‖/‖local‖ = ${errors[name]}`);
  }
  for (const key of [
    "loss/kl_mean",
    "loss/entropy_mean",
    "loss/ratio_mean",
    "loss/clip_fraction",
  ]) {
    const [a, b] = [l.metrics[key], t.metrics[key]];
    assert.ok(a !== undefined && b !== undefined, `both report ${key}`);
    assert.ok(Math.abs(b - a) <= TOL * Math.abs(a) + 1e-7, `${key}: local ${a}, torch ${b}`);
  }
  return {
    loss: l.loss,
    kl: l.metrics["loss/kl_mean"]!,
    clipped: l.metrics["loss/clip_fraction"]!,
  };
}

test("at the exported weights: the same logprobs, loss and gradients", async () => {
  const datums = await withSamplingLogprobs(batch(1), 2);
  await assertSameLogprobs(datums);
  const r = await assertSameStep(datums, "a");
  assert.ok(r.loss !== 0);
  assert.ok(Math.abs(r.kl) < 1e-6, `the policy is its own reference: KL ${r.kl}`);
  assert.ok(r.clipped > 0 && r.clipped < 1, `some PPO ratios clip, not all: ${r.clipped}`);
});

test("after a step (a live KL term against the exported weights): the same again", async () => {
  // the local gradient of the previous test takes the step; the torch worker's is thrown away
  await local.optimStep({ lr: 0.01, beta1: 0.9, beta2: 0.95, eps: 1e-8, weightDecay: 0 });
  await torch.optimStep({ lr: 0, beta1: 0.9, beta2: 0.95, eps: 1e-8, weightDecay: 0 });
  // the torch checkpoint (reference: the exported weights) with the stepped local weights
  await local.save(join(tmp, "b-local"));
  await exportLocalAsHf(join(tmp, "b-local"), join(tmp, "b-hf"));
  await torch.save(join(tmp, "b-torch"));
  copyFileSync(join(tmp, "b-hf", "model.safetensors"), join(tmp, "b-torch", "model.safetensors"));
  await torch.load(join(tmp, "b-torch"));
  const datums = await withSamplingLogprobs(batch(3), 4);
  await assertSameLogprobs(datums);
  const r = await assertSameStep(datums, "b");
  assert.ok(r.kl > 1e-3, `the KL term is live: ${r.kl}`);
});

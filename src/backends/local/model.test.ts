import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { type LossSpecInput, LossSpecSchema, referenceLoss } from "../../algorithms/loss.js";
import { mulberry32 } from "../../random.js";
import { gelu, geluGrad } from "./functional.js";
import { type LossDatum, lossAndGrad } from "./loss-and-grad.js";
import { Gpt, type GptConfig } from "./model.js";
import { AdamW, decayMask } from "./optim.js";

const TINY: GptConfig = {
  vocabSize: 16,
  dModel: 8,
  nLayers: 2,
  nHeads: 2,
  maxSeqLen: 8,
  mlpRatio: 4,
  positional: "learned",
  tiedHead: true,
};

/**
 * A tiny model with every parameter O(0.1–1) (biases and LN parameters perturbed off their init),
 * so that every gradient entry is well above the float32 noise of a finite difference.
 */
function tinyModel(config: GptConfig, kernel: "wasm" | "js" = "wasm"): Gpt {
  const model = new Gpt(config, { seed: 1, initStd: 0.3, kernel });
  const rand = mulberry32(99);
  const w = model.paramData;
  for (const p of model.params) {
    if (p.kind === "linear" || p.kind === "embedding") continue;
    for (let i = p.offset; i < p.offset + p.size; i++) w[i] = w[i]! + 0.4 * (rand() - 0.5);
  }
  return model;
}

/** Two rows of different lengths (5 and 4: the second is padded), some tokens masked out. */
function tinyDatums(model: Gpt): LossDatum[] {
  const rows = [
    [3, 1, 4, 1, 5],
    [9, 2, 6, 5],
  ];
  const masks = [
    [0, 1, 1, 1, 1],
    [0, 0, 1, 1],
  ];
  const advantages = [
    [0, 1, -1, 1, -1],
    [0, 0, -1, 1],
  ];
  // current log π, so that the sampling logprobs can put chosen tokens inside/outside the clip range
  const lp = rows.map((r) => Array.from(model.tokenLogprobs(Int32Array.from(r), 1, r.length)));
  // log r_t = logπ − logμ: ±0.5 puts a token outside the PPO range [0.8, 1.2], ±0.05 inside
  const logRatio = [
    [0, 0.5, -0.5, 0.05, 0.5],
    [0, 0, 0.5, -0.05],
  ];
  return rows.map((tokens, i) => ({
    tokens,
    lossMask: masks[i]!,
    advantages: advantages[i]!,
    // log π_old sets the ratio r_t; log μ differs from it so that the TIS weight varies around 1
    proximalLogprobs: lp[i]!.map((x, t) => x - logRatio[i]![t]!),
    samplingLogprobs: lp[i]!.map((x, t) => x - logRatio[i]![t]! - 0.3 * Math.sin(t + i)),
    refLogprobs: lp[i]!.map((x, t) => x + 0.4 * Math.cos(3 * t + i)),
  }));
}

/**
 * Finite differences in float32: central differences D(ε) = (L(θ+ε) − L(θ−ε))/2ε with
 * Richardson extrapolation (4·D(ε/2) − D(ε))/3, ε = 2e-2, on parameters of size ~0.1–1. The
 * truncation error is O(ε⁴) (≈ 1e-6 relative); the round-off is the float32 noise of the loss
 * (~1e-7·|L| summed over a few hundred ops, ≈ 1e-6) divided by 2·(ε/2), times 4/3 ≈ 1e-4 absolute.
 * Hence the test: |g − g_fd| ≤ 1e-3 + 1e-2·|g_fd|; the relative error reported is over entries
 * with |g_fd| > 1e-2, where the round-off alone allows ≈ 1e-2.
 */
function gradCheck(
  config: GptConfig,
  specInput: LossSpecInput,
): { maxRel: number; checked: number } {
  const spec = LossSpecSchema.parse(specInput);
  const model = tinyModel(config);
  const datums = tinyDatums(model);
  model.zeroGrad();
  const res = lossAndGrad(model, datums, spec);
  // CISPO's value holds the clipped weight under a stop-gradient, so its derivative is not the
  // specified gradient; the finite differences run on the surrogate with the weight frozen at θ₀:
  //   f(θ) = L(θ) + Σ sᵢ·m·w·A·log π(θ)·(clip(r(θ)) − clip(r(θ₀)))
  const weights = (lps: number[][]) =>
    datums.map((d, i) =>
      lps[i]!.map((lp, t) => {
        if (spec.kind !== "cispo") return 0;
        const r = Math.exp(lp - (d.proximalLogprobs?.[t] ?? d.samplingLogprobs[t]!));
        return Math.min(1 + spec.clipHigh, Math.max(1 - spec.clipLow, r));
      }),
    );
  const w0 = weights(res.logprobs);
  const rowMask = datums.map((d) => d.lossMask.slice(1).reduce((a, b) => a + b, 0));
  const tokensSum = rowMask.reduce((a, b) => a + b, 0);
  const scale = (i: number) =>
    spec.aggregation === "token-mean"
      ? 1 / tokensSum
      : spec.aggregation === "seq-mean-token-sum"
        ? 1 / datums.length
        : 1 / (datums.length * rowMask[i]!);
  const objective = (): number => {
    const r = lossAndGrad(model, datums, spec);
    const w = weights(r.logprobs);
    let f = r.loss;
    datums.forEach((d, i) => {
      for (let t = 1; t < d.tokens.length; t++) {
        if (d.lossMask[t] === 0) continue;
        f += scale(i) * d.advantages[t]! * r.logprobs[i]![t]! * (w[i]![t]! - w0[i]![t]!);
      }
    });
    return f;
  };
  assert.ok(Number.isFinite(res.loss));
  // the glue matches the reference loss on the same logprobs
  const { entropy } = model.forward(
    Int32Array.from([...datums[0]!.tokens, ...datums[1]!.tokens, 0]),
    2,
    5,
  );
  const ref = referenceLoss(
    spec,
    datums.map((d, i) => ({
      logprobs: res.logprobs[i]!,
      samplingLogprobs: [...d.samplingLogprobs],
      proximalLogprobs: d.proximalLogprobs ? [...d.proximalLogprobs] : undefined,
      refLogprobs: d.refLogprobs ? [...d.refLogprobs] : undefined,
      advantages: [...d.advantages],
      mask: [...d.lossMask],
      entropy: Array.from(entropy.subarray(i * 5, i * 5 + d.tokens.length)),
    })),
  );
  assert.ok(Math.abs(ref.loss - res.loss) < 1e-6, `loss ${res.loss} vs reference ${ref.loss}`);
  // and reports the reference's metrics (one implementation: algorithms/loss.ts LossMetrics)
  assert.deepEqual(Object.keys(res.metrics).sort(), Object.keys(ref.metrics).sort());
  for (const [k, v] of Object.entries(ref.metrics))
    assert.ok(Math.abs(res.metrics[k]! - v) < 1e-6, `${k}: ${res.metrics[k]} vs reference ${v}`);

  const grad = model.gradData.slice();
  const eps = 2e-2;
  const rand = mulberry32(7);
  let maxRel = 0;
  let checked = 0;
  for (const p of model.params) {
    for (let s = 0; s < 3; s++) {
      const i = p.offset + Math.floor(rand() * p.size);
      const w = model.paramData;
      const x = w[i]!;
      const central = (e: number): number => {
        w[i] = x + e;
        const lp = objective();
        w[i] = x - e;
        const lm = objective();
        w[i] = x;
        return (lp - lm) / (2 * e);
      };
      // Richardson: D(ε) = g + c·ε² + O(ε⁴), so (4·D(ε/2) − D(ε))/3 = g + O(ε⁴)
      const fd = (4 * central(eps / 2) - central(eps)) / 3;
      const g = grad[i]!;
      assert.ok(
        Math.abs(g - fd) <= 1e-3 + 1e-2 * Math.abs(fd),
        `${p.name}[${i - p.offset}]: backward ${g}, finite difference ${fd}`,
      );
      if (Math.abs(fd) > 1e-2) {
        maxRel = Math.max(maxRel, Math.abs(g - fd) / Math.abs(fd));
        checked++;
      }
    }
  }
  return { maxRel, checked };
}

describe("gpt model", () => {
  const specs: [string, LossSpecInput][] = [
    ["cross_entropy", { kind: "cross_entropy" }],
    ["importance_sampling + tisCap", { kind: "importance_sampling", tisCap: 1.2 }],
    ["ppo (clip-higher, some tokens clipped)", { kind: "ppo", clipLow: 0.2, clipHigh: 0.28 }],
    ["cispo", { kind: "cispo" }],
    ["ppo + KL k3", { kind: "ppo", kl: { coef: 0.5, estimator: "k3" } }],
    ["cross_entropy + KL k2", { kind: "cross_entropy", kl: { coef: 0.5, estimator: "k2" } }],
    ["importance_sampling + entropy bonus", { kind: "importance_sampling", entropyCoef: 0.3 }],
    [
      "cispo + entropy + k1, seq-mean-token-mean",
      {
        kind: "cispo",
        entropyCoef: 0.2,
        kl: { coef: 0.3, estimator: "k1" },
        aggregation: "seq-mean-token-mean",
      },
    ],
    [
      "cross_entropy, seq-mean-token-sum",
      { kind: "cross_entropy", aggregation: "seq-mean-token-sum" },
    ],
  ];
  for (const positional of ["learned", "rope"] as const) {
    for (const [name, spec] of specs) {
      test(`gradient check (${positional}): ${name}`, (t) => {
        const { maxRel, checked } = gradCheck({ ...TINY, positional }, spec);
        t.diagnostic(`max relative error ${maxRel.toExponential(2)} over ${checked} entries`);
        assert.ok(checked > 20);
      });
    }
  }

  test("ppo batch has clipped tokens", () => {
    const model = tinyModel(TINY);
    const res = lossAndGrad(model, tinyDatums(model), { kind: "ppo" });
    assert.ok(res.metrics["loss/clip_fraction"]! > 0 && res.metrics["loss/clip_fraction"]! < 1);
  });

  test("same seed → identical logits; another seed → different", () => {
    const cfg: GptConfig = { ...TINY, positional: "rope", dModel: 16 };
    const tokens = Int32Array.from([1, 2, 3, 4, 5, 6, 7, 8]);
    const a = new Gpt(cfg, { seed: 5 }).forward(tokens, 2, 4).logits.slice();
    const b = new Gpt(cfg, { seed: 5 }).forward(tokens, 2, 4).logits.slice();
    const c = new Gpt(cfg, { seed: 6 }).forward(tokens, 2, 4).logits.slice();
    assert.deepEqual(a, b);
    assert.notDeepEqual(a, c);
  });

  test("wasm and js kernels agree", () => {
    const tokens = Int32Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const a = tinyModel(TINY, "wasm");
    const b = tinyModel(TINY, "js");
    assert.ok(a.usesWasm);
    const la = a.forward(tokens, 2, 5).logits;
    const lb = b.forward(tokens, 2, 5).logits;
    let d = 0;
    for (let i = 0; i < la.length; i++) d = Math.max(d, Math.abs(la[i]! - lb[i]!));
    assert.ok(d < 1e-5, `max diff ${d}`);
  });

  test("a batch row's logprobs do not depend on the other rows or on padding", () => {
    const model = tinyModel(TINY);
    const one = model.tokenLogprobs(Int32Array.from([9, 2, 6, 5]), 1, 4);
    const two = model.tokenLogprobs(Int32Array.from([3, 1, 4, 1, 5, 9, 2, 6, 5, 0]), 2, 5);
    assert.equal(one[0], 0);
    for (let t = 0; t < 4; t++) assert.ok(Math.abs(one[t]! - two[5 + t]!) < 1e-5);
  });

  test("GELU: the Padé tanh is within 1e-6 of Math.tanh; geluGrad is its derivative", () => {
    for (let x = -6; x <= 6; x += 0.01) {
      const exact = 0.5 * x * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (x + 0.044715 * x ** 3)));
      assert.ok(Math.abs(gelu(x) - exact) < 1e-6, `gelu(${x})`);
      const fd = (gelu(x + 1e-5) - gelu(x - 1e-5)) / 2e-5;
      assert.ok(Math.abs(geluGrad(x) - fd) < 1e-3, `geluGrad(${x}): ${geluGrad(x)} vs ${fd}`);
    }
  });

  test("a batch split over two calls with the batch's denominators = one call", () => {
    const model = tinyModel(TINY);
    const datums = tinyDatums(model);
    for (const aggregation of [
      "token-mean",
      "seq-mean-token-sum",
      "seq-mean-token-mean",
    ] as const) {
      const spec: LossSpecInput = { kind: "ppo", aggregation, kl: { coef: 0.1 }, entropyCoef: 0.1 };
      model.zeroGrad();
      const whole = lossAndGrad(model, datums, spec).loss;
      const g1 = model.gradData.slice();
      model.zeroGrad();
      const denominators = { tokens: 6, rows: 2 };
      const a = lossAndGrad(model, datums.slice(0, 1), spec, denominators).loss;
      const b = lossAndGrad(model, datums.slice(1), spec, denominators).loss;
      const g2 = model.gradData;
      assert.ok(Math.abs(whole - a - b) < 1e-6, `${aggregation}: ${whole} vs ${a} + ${b}`);
      for (let i = 0; i < g1.length; i++) assert.ok(Math.abs(g1[i]! - g2[i]!) < 1e-5, aggregation);
    }
  });

  test("a fresh model trains a batch of 64 rows × 59 tokens (its workspace once overflowed)", () => {
    // the countdown recipe's model; 64 × 59 was a real step's shape in a train worker and sized
    // the GEMM workspace for K = 3,776 while a K = 128 product needed more (memory out of bounds)
    const config: GptConfig = {
      vocabSize: 264,
      dModel: 128,
      nLayers: 2,
      nHeads: 4,
      maxSeqLen: 96,
      mlpRatio: 4,
      positional: "rope",
      tiedHead: true,
    };
    const m = new Gpt(config, { seed: 0 });
    const datums: LossDatum[] = Array.from({ length: 64 }, (_, b) => {
      const tokens = Array.from({ length: 59 }, (_, t) => (b * 31 + t * 7) % 264);
      return {
        tokens,
        lossMask: tokens.map((_, t) => (t >= 30 ? 1 : 0)),
        advantages: tokens.map(() => (b % 2 ? 0.5 : -0.5)),
        samplingLogprobs: tokens.map(() => -5),
      };
    });
    m.zeroGrad();
    const r = lossAndGrad(m, datums, { kind: "ppo" });
    assert.ok(Number.isFinite(r.loss));
    assert.ok(m.gradData.some((g) => g !== 0));
  });

  test("misaligned datums and a KL without reference logprobs are refused", () => {
    const model = tinyModel(TINY);
    const d = {
      tokens: [1, 2, 3],
      lossMask: [0, 1, 1],
      advantages: [0, 1, 1],
      samplingLogprobs: [0, -1, -1],
    };
    assert.throws(
      () => lossAndGrad(model, [{ ...d, advantages: [0, 1] }], { kind: "ppo" }),
      /advantages has 2/,
    );
    assert.throws(
      () => lossAndGrad(model, [d], { kind: "ppo", kl: { coef: 0.1 } }),
      /reference logprobs/,
    );
  });

  test("SFT on a repeated pattern drives the loss down within 100 AdamW steps", (t) => {
    const cfg: GptConfig = { ...TINY, dModel: 32, nHeads: 4, maxSeqLen: 16, positional: "rope" };
    const model = new Gpt(cfg, { seed: 3 });
    const pattern = [3, 7, 1, 12, 5, 9];
    const datums: LossDatum[] = Array.from({ length: 8 }, (_, i) => {
      const tokens = Array.from({ length: 16 }, (_, j) => pattern[(i + j) % pattern.length]!);
      const zeros = tokens.map(() => 0);
      return {
        tokens,
        lossMask: tokens.map((_, j) => (j === 0 ? 0 : 1)),
        advantages: zeros,
        samplingLogprobs: zeros,
      };
    });
    const opt = new AdamW(model.numParams, decayMask(model.params, model.numParams));
    let first = 0;
    let last = 0;
    for (let step = 0; step < 100; step++) {
      model.zeroGrad();
      const { loss } = lossAndGrad(model, datums, { kind: "cross_entropy" });
      if (step === 0) first = loss;
      last = loss;
      opt.step(model.paramData, model.gradData, { lr: 1e-2, weightDecay: 0.1, maxGradNorm: 1 });
    }
    t.diagnostic(`cross-entropy ${first.toFixed(3)} → ${last.toFixed(4)}`);
    assert.ok(last < first / 20, `loss ${first} → ${last}`);
  });

  test("profile: while set, forward, backward and decode steps charge their phases to it", () => {
    const model = tinyModel({ ...TINY, positional: "rope" });
    const profile = { ms: {} as Record<string, number> };
    model.profile = profile;
    lossAndGrad(model, tinyDatums(model), { kind: "cross_entropy" });
    for (const phase of ["embedding", "layernorm", "attention", "gelu", "head", "softmax/vocab"])
      assert.ok((profile.ms[phase] ?? -1) >= 0, `phase ${phase} timed`);
    assert.ok("gemm" in profile.ms && "rope" in profile.ms);
    profile.ms = {};
    model.prefill([[1, 2, 3]]);
    model.decodeStep(Int32Array.from([4]));
    assert.ok("attention" in profile.ms && "head" in profile.ms);
    // unset: nothing more is charged, and another model never charged this profile
    model.profile = undefined;
    profile.ms = {};
    model.decodeStep(Int32Array.from([5]));
    tinyModel(TINY).forward(Int32Array.from([1, 2, 3, 4]), 1, 4);
    assert.deepEqual(profile.ms, {});
    // the option sets it at construction
    const other = new Gpt(TINY, { profile });
    other.forward(Int32Array.from([1, 2, 3, 4]), 1, 4);
    assert.ok("head" in profile.ms);
  });
});

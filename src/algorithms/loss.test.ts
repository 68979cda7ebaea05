/**
 * The reference loss, pinned by hand-computed values (each beside its formula) and by a finite
 * difference check of its gradient, so that backends can be tested against it with confidence.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  type LossRow,
  type LossSpec,
  type LossSpecInput,
  LossSpecSchema,
  referenceLoss,
  tokenLoss,
} from "./loss.js";

const TOL = 1e-9;
const near = (a: number, b: number, tol = TOL, what = "") =>
  assert.ok(Math.abs(a - b) <= tol, `${what} got ${a}, expected ${b}`);
const spec = (input: LossSpecInput): LossSpec => LossSpecSchema.parse(input);

test("the spec schema: defaults per kind, strict keys", () => {
  assert.deepEqual(spec({ kind: "ppo" }), {
    kind: "ppo",
    clipLow: 0.2,
    clipHigh: 0.2,
    entropyCoef: 0,
    aggregation: "token-mean",
  });
  assert.deepEqual(spec({ kind: "cispo" }), {
    kind: "cispo",
    clipLow: 1,
    clipHigh: 0.28,
    entropyCoef: 0,
    aggregation: "token-mean",
  });
  assert.deepEqual(spec({ kind: "importance_sampling", kl: { coef: 0.1 } }).kl, {
    coef: 0.1,
    estimator: "k3",
  });
  // A knob the kind does not have is an error, not a silent no-op.
  assert.throws(
    () => spec({ kind: "importance_sampling", clipHigh: 0.28 } as LossSpecInput),
    /clipHigh/,
  );
  assert.throws(() => spec({ kind: "cross_entropy", tisCap: 2 } as LossSpecInput), /tisCap/);
  assert.throws(() => spec({ kind: "ppo", tisCap: 0.5 }), /at least 1/);
  assert.throws(() => spec({ kind: "grpo" } as unknown as LossSpecInput));
  assert.throws(() => spec({ kind: "ppo", aggregation: "sum" } as unknown as LossSpecInput));
});

test("cross_entropy: ℓ = −log π_θ, ∂ = −1", () => {
  const t = tokenLoss(spec({ kind: "cross_entropy" }), {
    logprob: -0.7,
    samplingLogprob: -5,
    advantage: 9,
  });
  near(t.value, 0.7);
  near(t.grad, -1);
});

test("importance_sampling: ℓ = −r·A with r = exp(log π_θ − log μ)", () => {
  // r = exp(−1 − (−1.2)) = e^0.2;  ℓ = −2·e^0.2
  const t = tokenLoss(spec({ kind: "importance_sampling" }), {
    logprob: -1,
    samplingLogprob: -1.2,
    advantage: 2,
  });
  near(t.ratio, Math.exp(0.2));
  near(t.value, -2 * Math.exp(0.2));
  near(t.grad, -2 * Math.exp(0.2));
});

test("ppo: ℓ = max(−r·A, −clip(r, 1−ε_low, 1+ε_high)·A); zero gradient where clipped", () => {
  const ppo = spec({ kind: "ppo" });
  // inside the range: r = e^0.1, A = 1 → ℓ = −e^0.1, ∂ = −e^0.1
  let t = tokenLoss(ppo, { logprob: -1, samplingLogprob: -1.1, advantage: 1 });
  near(t.value, -Math.exp(0.1));
  near(t.grad, -Math.exp(0.1));
  assert.equal(t.clipped, false);
  // A > 0, r = e^0.5 > 1.2: the clipped term −1.2 is the max → ℓ = −1.2, ∂ = 0
  t = tokenLoss(ppo, { logprob: -0.5, samplingLogprob: -1, advantage: 1 });
  near(t.value, -1.2);
  assert.equal(t.grad, 0);
  assert.equal(t.clipped, true);
  // A < 0, r = e^0.5: −r·A = e^0.5 > −1.2·A = 1.2 → unclipped, ∂ = −r·A = e^0.5
  t = tokenLoss(ppo, { logprob: -0.5, samplingLogprob: -1, advantage: -1 });
  near(t.value, Math.exp(0.5));
  near(t.grad, Math.exp(0.5));
  // A < 0, r = e^−0.5 ≈ 0.607 < 0.8: clipped term 0.8 > 0.607 → ℓ = 0.8, ∂ = 0
  t = tokenLoss(ppo, { logprob: -1.5, samplingLogprob: -1, advantage: -1 });
  near(t.value, 0.8);
  assert.equal(t.grad, 0);
  // clip-higher: ε_high = 0.28 lets r = e^0.2 ≈ 1.221 through where 0.2 would clip it
  t = tokenLoss(spec({ kind: "ppo", clipHigh: 0.28 }), {
    logprob: -0.8,
    samplingLogprob: -1,
    advantage: 1,
  });
  near(t.value, -Math.exp(0.2));
  assert.equal(t.clipped, false);
  assert.equal(tokenLoss(ppo, { logprob: -0.8, samplingLogprob: -1, advantage: 1 }).clipped, true);
});

test("cispo: ℓ = −sg(clip(r, 1−ε_low, 1+ε_high))·A·log π_θ; every token keeps a gradient", () => {
  const cispo = spec({ kind: "cispo" });
  // r = e^0.5 > 1.28 → weight 1.28; ℓ = −1.28·1·(−0.5) = 0.64; ∂ = −1.28
  let t = tokenLoss(cispo, { logprob: -0.5, samplingLogprob: -1, advantage: 1 });
  near(t.value, 0.64);
  near(t.grad, -1.28);
  assert.equal(t.clipped, true);
  // ε_low = 1: no lower bound; r = e^−3 stays as it is
  t = tokenLoss(cispo, { logprob: -4, samplingLogprob: -1, advantage: 2 });
  near(t.value, -Math.exp(-3) * 2 * -4);
  near(t.grad, -Math.exp(-3) * 2);
  assert.equal(t.clipped, false);
});

test("truncated IS: w = min(exp(log π_old − log μ), C) multiplies the policy term", () => {
  const is = spec({ kind: "importance_sampling", tisCap: 2 });
  // π_old/μ = e^1 ≈ 2.718 → w = 2; r = exp(−1 − (−1)) = 1; ℓ = −2·1·1
  let t = tokenLoss(is, { logprob: -1, samplingLogprob: -2, proximalLogprob: -1, advantage: 1 });
  assert.equal(t.tisWeight, 2);
  near(t.value, -2);
  near(t.grad, -2);
  // under the cap: π_old/μ = e^0.5
  t = tokenLoss(is, { logprob: -1, samplingLogprob: -1.5, proximalLogprob: -1, advantage: 1 });
  near(t.tisWeight, Math.exp(0.5));
  // without a proximal policy π_old = μ and w = 1
  t = tokenLoss(is, { logprob: -1, samplingLogprob: -2, advantage: 1 });
  assert.equal(t.tisWeight, 1);
  near(t.value, -Math.exp(1));
  // ppo: w·max(...) — the clipped branch is scaled too
  t = tokenLoss(spec({ kind: "ppo", tisCap: 1.5 }), {
    logprob: -0.5,
    samplingLogprob: -2,
    proximalLogprob: -1,
    advantage: 1,
  });
  // w = min(e^1, 1.5) = 1.5; r = e^0.5 > 1.2 → clipped: ℓ = 1.5·(−1.2)
  near(t.value, -1.8);
  assert.equal(t.grad, 0);
});

test("KL to the reference: k1, k2, k3 with δ = log π_ref − log π_θ", () => {
  // logprob −1, ref −1.5: δ = −0.5. IS term is 0 (A = 0), so ℓ = β·k
  const base = { logprob: -1, samplingLogprob: -1, refLogprob: -1.5, advantage: 0 };
  const withKl = (estimator: "k1" | "k2" | "k3") =>
    tokenLoss(spec({ kind: "importance_sampling", kl: { coef: 0.1, estimator } }), base);
  let t = withKl("k1"); // k1 = −δ = 0.5, ∂ = 1
  near(t.kl, 0.5);
  near(t.value, 0.05);
  near(t.grad, 0.1);
  t = withKl("k2"); // k2 = ½δ² = 0.125, ∂ = −δ = 0.5
  near(t.kl, 0.125);
  near(t.value, 0.0125);
  near(t.grad, 0.05);
  t = withKl("k3"); // k3 = e^δ − δ − 1 = e^−0.5 − 0.5, ∂ = 1 − e^−0.5
  near(t.kl, Math.exp(-0.5) - 0.5);
  near(t.value, 0.1 * (Math.exp(-0.5) - 0.5));
  near(t.grad, 0.1 * (1 - Math.exp(-0.5)));
  assert.throws(
    () =>
      tokenLoss(spec({ kind: "ppo", kl: { coef: 0.1 } }), {
        logprob: -1,
        samplingLogprob: -1,
        advantage: 1,
      }),
    /no reference logprobs/,
  );
});

test("entropy bonus: ℓ −= c_H·H (value only; the gradient holds H fixed)", () => {
  const s = spec({ kind: "cross_entropy", entropyCoef: 0.01 });
  const t = tokenLoss(s, { logprob: -1, samplingLogprob: -1, advantage: 0, entropy: 2 });
  near(t.value, 1 - 0.02);
  near(t.grad, -1);
  assert.throws(
    () => tokenLoss(s, { logprob: -1, samplingLogprob: -1, advantage: 0 }),
    /entropies/,
  );
});

test("aggregation: token-mean, seq-mean-token-sum, seq-mean-token-mean", () => {
  // cross_entropy so ℓ = −log π: row A has ℓ = [1, 3]; row B ℓ = [5] and a masked token; row C
  // is fully masked (it does not count in N).
  const rows: LossRow[] = [
    { logprobs: [-1, -3], samplingLogprobs: [0, 0], advantages: [0, 0], mask: [1, 1] },
    { logprobs: [-9, -5], samplingLogprobs: [0, 0], advantages: [0, 0], mask: [0, 1] },
    { logprobs: [-7], samplingLogprobs: [0], advantages: [0], mask: [0] },
  ];
  const run = (aggregation: "token-mean" | "seq-mean-token-sum" | "seq-mean-token-mean") =>
    referenceLoss({ kind: "cross_entropy", aggregation }, rows);
  // token-mean: (1 + 3 + 5)/3 = 3; ∂ = −1/3 per token
  let r = run("token-mean");
  near(r.loss, 3);
  assert.deepEqual(r.perToken, [[1, 3], [0, 5], [0]]);
  assert.deepEqual(r.grad, [[-1 / 3, -1 / 3], [0, -1 / 3], [0]]);
  // seq-mean-token-sum: (4 + 5)/2 = 4.5; ∂ = −1/2
  r = run("seq-mean-token-sum");
  near(r.loss, 4.5);
  assert.deepEqual(r.grad, [[-0.5, -0.5], [0, -0.5], [0]]);
  // seq-mean-token-mean: (4/2 + 5/1)/2 = 3.5; ∂ = −1/(2·2) in row A, −1/(2·1) in row B
  r = run("seq-mean-token-mean");
  near(r.loss, 3.5);
  assert.deepEqual(r.grad, [[-0.25, -0.25], [0, -0.5], [0]]);
  assert.equal(r.metrics["loss/tokens"], 3);
  // nothing masked in: L = 0
  assert.equal(referenceLoss({ kind: "ppo" }, [rows[2]!]).loss, 0);
  assert.equal(referenceLoss({ kind: "ppo" }, []).loss, 0);
});

test("the reference gradient matches finite differences of the loss", () => {
  let seed = 7;
  const rand = () => {
    seed = (seed * 1664525 + 1013904223) % 4294967296;
    return seed / 4294967296;
  };
  const rows: LossRow[] = Array.from({ length: 3 }, () => {
    const n = 2 + Math.floor(rand() * 4);
    const logprobs = Array.from({ length: n }, () => -0.1 - rand() * 3);
    return {
      logprobs,
      samplingLogprobs: logprobs.map((l) => l + (rand() - 0.5) * 0.6),
      proximalLogprobs: logprobs.map((l) => l + (rand() - 0.5) * 0.4),
      refLogprobs: logprobs.map((l) => l + (rand() - 0.5)),
      advantages: Array.from({ length: n }, () => rand() * 2 - 1),
      mask: Array.from({ length: n }, (_, t) => (t === 0 ? 0 : 1)),
      entropy: Array.from({ length: n }, () => rand()),
    };
  });
  // cispo's value holds sg(weight)·log π, whose derivative is not the surrogate's gradient by
  // construction, so it is checked by hand above rather than here.
  const specs: LossSpecInput[] = [
    { kind: "cross_entropy", kl: { coef: 0.05, estimator: "k3" } },
    { kind: "importance_sampling", tisCap: 1.1, kl: { coef: 0.2, estimator: "k2" } },
    { kind: "ppo", clipHigh: 0.28, kl: { coef: 0.1, estimator: "k1" }, entropyCoef: 0.01 },
    { kind: "ppo", aggregation: "seq-mean-token-mean", tisCap: 1.2 },
    { kind: "importance_sampling", aggregation: "seq-mean-token-sum" },
  ];
  const h = 1e-6;
  for (const s of specs) {
    const { grad } = referenceLoss(s, rows);
    rows.forEach((row, i) => {
      row.logprobs.forEach((_, t) => {
        const bump = (d: number) =>
          referenceLoss(
            s,
            rows.map((r, j) =>
              j === i ? { ...r, logprobs: r.logprobs.map((l, u) => (u === t ? l + d : l)) } : r,
            ),
          ).loss;
        const fd = (bump(h) - bump(-h)) / (2 * h);
        near(grad[i]![t]!, fd, 1e-6, `${JSON.stringify(s)} row ${i} token ${t}:`);
      });
    });
  }
});

test("reference metrics and input checks", () => {
  const r = referenceLoss({ kind: "ppo" }, [
    {
      logprobs: [-0.5, -1, -1],
      samplingLogprobs: [-1, -1, -1],
      advantages: [1, 1, 1],
      mask: [1, 1, 1],
    },
  ]);
  near(r.metrics["loss/clip_fraction"]!, 1 / 3);
  near(r.metrics["loss/ratio_mean"]!, (Math.exp(0.5) + 2) / 3);
  // ℓ = [−1.2, −1, −1] → token-mean −3.2/3
  near(r.loss, -3.2 / 3);
  assert.throws(
    () =>
      referenceLoss({ kind: "ppo" }, [
        { logprobs: [-1, -1], samplingLogprobs: [-1], advantages: [1, 1], mask: [1, 1] },
      ]),
    /row 0: samplingLogprobs has 1 entries but logprobs has 2/,
  );
});

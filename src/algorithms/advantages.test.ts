/**
 * Reference values for every estimator, written out by hand from the formula beside each case
 * (ε = 1e-6, sample std unless stated), plus the degenerate cases and two properties.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { mulberry32 as rng } from "../random.js";
import {
  type AdvantageEstimator,
  discountedReturns,
  distillationAdvantages,
  drGrpo,
  EstimatorRegistry,
  estimatorForRole,
  estimators,
  grpo,
  PRECOMPUTED,
  prpo,
  reinforce,
  reinforcePlusPlusBaseline,
  rloo,
} from "./advantages.js";

const EPS = 1e-6;
const TOL = 1e-9;

function close(actual: number[][], expected: number[][], tol = TOL): void {
  assert.equal(actual.length, expected.length, "number of groups");
  actual.forEach((group, g) => {
    assert.equal(group.length, expected[g]!.length, `size of group ${g}`);
    group.forEach((a, i) => {
      const e = expected[g]![i]!;
      assert.ok(Math.abs(a - e) <= tol, `group ${g}, item ${i}: got ${a}, expected ${e}`);
    });
  });
}

// ── GRPO: Âᵢ = (rᵢ − mean(r)) / (std(r) + ε) ────────────────────────────────────────────────

test("grpo: binary group [1,0,0,0]", () => {
  // mean = 0.25; deviations 0.75, −0.25 ×3; Σ dev² = 0.5625 + 3·0.0625 = 0.75
  // sample std = √(0.75/3) = 0.5
  const s = 0.5;
  close(grpo([[1, 0, 0, 0]]), [
    [0.75 / (s + EPS), -0.25 / (s + EPS), -0.25 / (s + EPS), -0.25 / (s + EPS)],
  ]);
});

test("grpo: graded group [1,2,3,4] and several groups at once", () => {
  // mean = 2.5; deviations ±1.5, ±0.5; Σ dev² = 2·2.25 + 2·0.25 = 5; sample std = √(5/3)
  const s = Math.sqrt(5 / 3);
  close(
    grpo([
      [1, 2, 3, 4],
      [1, 0],
    ]),
    [
      [-1.5 / (s + EPS), -0.5 / (s + EPS), 0.5 / (s + EPS), 1.5 / (s + EPS)],
      // mean 0.5, Σ dev² = 0.5, sample std = √(0.5/1) = √0.5
      [0.5 / (Math.sqrt(0.5) + EPS), -0.5 / (Math.sqrt(0.5) + EPS)],
    ],
  );
});

test("grpo: population std, epsilon and normStd options", () => {
  // population std of [1,0,0,0] = √(0.75/4) = √0.1875
  const sp = Math.sqrt(0.1875);
  close(grpo([[1, 0, 0, 0]], { std: "population" }), [
    [0.75 / (sp + EPS), -0.25 / (sp + EPS), -0.25 / (sp + EPS), -0.25 / (sp + EPS)],
  ]);
  // ε = 0: 0.75 / 0.5 = 1.5 exactly
  close(grpo([[1, 0, 0, 0]], { epsilon: 0 }), [[1.5, -0.5, -0.5, -0.5]]);
  // normStd false: rᵢ − mean
  close(grpo([[1, 0, 0, 0]], { normStd: false }), [[0.75, -0.25, -0.25, -0.25]]);
});

test("grpo: degenerate cases — all equal, group of one, empty, NaN", () => {
  // All-equal: exactly 0, even where the mean carries rounding error (0.1·3 ≠ 0.3).
  assert.deepEqual(grpo([[0.1, 0.1, 0.1]]), [[0, 0, 0]]);
  assert.deepEqual(grpo([[1, 1]]), [[0, 0]]);
  // A group of one: r − mean(r) = 0.
  assert.deepEqual(grpo([[7]]), [[0]]);
  assert.deepEqual(grpo([[]]), [[]]);
  assert.deepEqual(grpo([]), []);
  assert.throws(() => grpo([[1, Number.NaN]]), /reward 1 of group 0 is NaN/);
  assert.throws(() => grpo([[1], [Number.POSITIVE_INFINITY]]), /reward 0 of group 1 is Infinity/);
});

test("grpo property: each group's advantages sum to zero", () => {
  const rand = rng(1);
  for (let trial = 0; trial < 200; trial++) {
    const groups = Array.from({ length: 1 + Math.floor(rand() * 4) }, () =>
      Array.from({ length: 1 + Math.floor(rand() * 8) }, () =>
        rand() < 0.5 ? Math.round(rand()) : rand() * 10 - 5,
      ),
    );
    for (const adv of grpo(groups)) {
      const sum = adv.reduce((a, b) => a + b, 0);
      assert.ok(Math.abs(sum) < TOL, `sum ${sum}`);
    }
  }
});

// ── Dr. GRPO: Âᵢ = rᵢ − mean(r) ─────────────────────────────────────────────────────────────

test("dr_grpo: no std division, whatever normStd says", () => {
  close(drGrpo([[1, 2, 3, 4]], { normStd: true }), [[-1.5, -0.5, 0.5, 1.5]]);
  close(drGrpo([[1, 0, 0, 0]]), [[0.75, -0.25, -0.25, -0.25]]);
  assert.deepEqual(drGrpo([[3]]), [[0]]);
  assert.deepEqual(drGrpo([[2, 2, 2]]), [[0, 0, 0]]);
  assert.throws(() => drGrpo([[Number.NaN]]), /dr_grpo.*NaN/);
});

// ── RLOO: Âᵢ = rᵢ − (1/(n−1)) Σ_{j≠i} rⱼ ───────────────────────────────────────────────────

test("rloo: leave-one-out baseline", () => {
  close(rloo([[1, 0, 0, 0]]), [[1 - 0 / 3, 0 - 1 / 3, 0 - 1 / 3, 0 - 1 / 3]]);
  // [1,2,3,4]: 1 − (2+3+4)/3 = −2;  2 − (1+3+4)/3 = −2/3;  3 − (1+2+4)/3 = 2/3;  4 − (1+2+3)/3 = 2
  close(rloo([[1, 2, 3, 4]]), [[-2, -2 / 3, 2 / 3, 2]]);
  // n = 2: [1, 0] → 1 − 0 = 1, 0 − 1 = −1
  close(rloo([[1, 0]]), [[1, -1]]);
});

test("rloo: degenerate cases — group of one, all equal, NaN", () => {
  assert.deepEqual(rloo([[5]]), [[0]]);
  assert.deepEqual(rloo([[0.1, 0.1, 0.1]]), [[0, 0, 0]]);
  assert.throws(() => rloo([[0, Number.NaN, 1]]), /rloo.*reward 1 of group 0 is NaN/);
});

test("rloo property: equals n/(n−1) × the mean-baseline advantage", () => {
  const rand = rng(2);
  for (let trial = 0; trial < 200; trial++) {
    const n = 2 + Math.floor(rand() * 10);
    const r = Array.from({ length: n }, () => rand() * 4 - 2);
    const [meanBaseline] = drGrpo([r]);
    const [loo] = rloo([r]);
    loo!.forEach((a, i) => {
      const expected = (n / (n - 1)) * meanBaseline![i]!;
      assert.ok(Math.abs(a - expected) < TOL, `n=${n} i=${i}: ${a} vs ${expected}`);
    });
  }
});

// ── REINFORCE: Âᵢ = rᵢ ──────────────────────────────────────────────────────────────────────

test("reinforce: the reward itself, including the degenerate cases", () => {
  assert.deepEqual(reinforce([[1, 0], [0.5]]), [[1, 0], [0.5]]);
  assert.deepEqual(reinforce([[1, 1]]), [[1, 1]]); // no baseline: all-equal keeps its signal
  assert.deepEqual(reinforce([[3]]), [[3]]);
  const input = [[1, 2]];
  assert.notEqual(reinforce(input)[0], input[0], "returns new arrays, not the caller's");
  assert.throws(() => reinforce([[Number.NaN]]), /reinforce.*NaN/);
});

// ── REINFORCE++-baseline: cᵢ = rᵢ − mean_g(r);  Âᵢ = cᵢ / (std_batch(c) + ε) ────────────────

test("reinforce_plus_plus_baseline: group mean, then batch whitening", () => {
  // centred: [0.75, −0.25, −0.25, −0.25], [0, 0] (all equal), [−0.5, 0.5]
  // batch of 8 values, mean 0; Σ c² = 0.5625 + 3·0.0625 + 0 + 0.25 + 0.25 = 1.25
  // sample std = √(1.25/7)
  const s = Math.sqrt(1.25 / 7);
  close(
    reinforcePlusPlusBaseline([
      [1, 0, 0, 0],
      [1, 1],
      [0, 1],
    ]),
    [
      [0.75 / (s + EPS), -0.25 / (s + EPS), -0.25 / (s + EPS), -0.25 / (s + EPS)],
      [0, 0],
      [-0.5 / (s + EPS), 0.5 / (s + EPS)],
    ],
  );
  // population std over the batch: √(1.25/8)
  const sp = Math.sqrt(1.25 / 8);
  close(
    reinforcePlusPlusBaseline(
      [
        [1, 0, 0, 0],
        [1, 1],
        [0, 1],
      ],
      { std: "population" },
    ),
    [
      [0.75 / (sp + EPS), -0.25 / (sp + EPS), -0.25 / (sp + EPS), -0.25 / (sp + EPS)],
      [0, 0],
      [-0.5 / (sp + EPS), 0.5 / (sp + EPS)],
    ],
  );
});

test("reinforce_plus_plus_baseline: degenerate cases", () => {
  assert.deepEqual(reinforcePlusPlusBaseline([[3]]), [[0]]);
  assert.deepEqual(
    reinforcePlusPlusBaseline([
      [1, 1],
      [0, 0, 0],
    ]),
    [
      [0, 0],
      [0, 0, 0],
    ],
  );
  assert.deepEqual(reinforcePlusPlusBaseline([]), []);
  assert.throws(() => reinforcePlusPlusBaseline([[1, 0], [Number.NaN]]), /group 1 is NaN/);
});

// ── PRPO: Âᵢ = (rᵢ − mean_batch(r)) / (std_batch(r) + ε) ────────────────────────────────────

test("prpo: batch-level whitening across groups", () => {
  // batch [1,0,0,0,1,1]: mean 0.5, every deviation ±0.5, Σ dev² = 1.5, sample std = √(1.5/5)
  const s = Math.sqrt(0.3);
  close(
    prpo([
      [1, 0, 0, 0],
      [1, 1],
    ]),
    [
      [0.5 / (s + EPS), -0.5 / (s + EPS), -0.5 / (s + EPS), -0.5 / (s + EPS)],
      [0.5 / (s + EPS), 0.5 / (s + EPS)],
    ],
  );
});

test("prpo: degenerate cases — groups of one are ordinary samples; all-equal batch is 0", () => {
  // batch [1, 0]: mean 0.5, sample std √0.5
  const s = Math.sqrt(0.5);
  close(prpo([[1], [0]]), [[0.5 / (s + EPS)], [-0.5 / (s + EPS)]]);
  assert.deepEqual(prpo([[2], [2, 2]]), [[0], [0, 0]]);
  assert.deepEqual(prpo([[2]]), [[0]]);
  assert.throws(() => prpo([[Number.NaN, 1]]), /prpo.*NaN/);
});

// ── the registry ────────────────────────────────────────────────────────────────────────────

test("the registry has every built-in under its config name", () => {
  for (const name of [
    "grpo",
    "dr_grpo",
    "rloo",
    "reinforce",
    "reinforce_plus_plus_baseline",
    "prpo",
  ]) {
    assert.equal(typeof estimators.get(name), "function", name);
  }
  assert.equal(estimators.get("grpo"), grpo);
  assert.ok(estimators.has(PRECOMPUTED));
});

test("an unknown estimator is an error listing the known ones", () => {
  assert.throws(
    () => estimators.get("gpro"),
    /unknown advantage estimator "gpro"; known: grpo, dr_grpo/,
  );
  assert.throws(() => estimators.get(PRECOMPUTED), /handled by the pipeline/);
});

test("register adds an estimator; duplicates need replace; precomputed is reserved", () => {
  const registry = new EstimatorRegistry({ grpo });
  const halve: AdvantageEstimator = (rewards) => rewards.map((g) => g.map((r) => r / 2));
  registry.register("halve", halve);
  assert.deepEqual(registry.get("halve")([[2, 4]]), [[1, 2]]);
  assert.deepEqual(registry.names(), ["grpo", "halve"]);
  assert.throws(
    () => registry.register("grpo", halve),
    /already registered; pass \{ replace: true \}/,
  );
  registry.register("grpo", halve, { replace: true });
  assert.equal(registry.get("grpo"), halve);
  assert.throws(() => registry.register(PRECOMPUTED, halve), /reserved/);
  assert.throws(() => registry.register("", halve), /non-empty name/);
  // The shared registry is a separate instance: unchanged.
  assert.equal(estimators.get("grpo"), grpo);
});

test("estimatorForRole: the role's own choice, else the default", () => {
  const choice = { estimator: "grpo", estimatorByRole: { judge: "rloo" } };
  assert.equal(estimatorForRole("judge", choice), "rloo");
  assert.equal(estimatorForRole("solver", choice), "grpo");
  assert.equal(estimatorForRole("solver", { estimator: "prpo" }), "prpo");
});

// ── per-step returns and precomputed advantages ─────────────────────────────────────────────

test("discountedReturns: G_t = r_t + γ·G_{t+1}", () => {
  // [0, 0, 1], γ = 0.9: G₂ = 1, G₁ = 0.9, G₀ = 0.81
  close([discountedReturns([0, 0, 1], 0.9)], [[0.81, 0.9, 1]]);
  // [1, 2, 3], γ = 0.5: G₂ = 3, G₁ = 2 + 1.5 = 3.5, G₀ = 1 + 1.75 = 2.75
  close([discountedReturns([1, 2, 3], 0.5)], [[2.75, 3.5, 3]]);
  // γ = 1: suffix sums; γ = 0: the rewards themselves
  assert.deepEqual(discountedReturns([1, 2, 3], 1), [6, 5, 3]);
  assert.deepEqual(discountedReturns([1, 2, 3], 0), [1, 2, 3]);
  assert.deepEqual(discountedReturns([], 0.9), []);
  assert.throws(() => discountedReturns([1], 1.5), /gamma must be in \[0, 1\]/);
});

test("distillationAdvantages: clip(coef · (log π_teacher − log π_student))", () => {
  // coef 2, clip 1.5: 2·(−1 + 1.5) = 1;  2·(−2 + 1) = −2 → −1.5;  2·0 = 0
  close(
    [distillationAdvantages([-1, -2, -0.5], [-1.5, -1, -0.5], { coef: 2, clip: 1.5 })],
    [[1, -1.5, 0]],
  );
  close([distillationAdvantages([-1, -3], [-2, -1])], [[1, -2]]);
  assert.throws(() => distillationAdvantages([-1], [-1, -2]), /same sampled tokens/);
});

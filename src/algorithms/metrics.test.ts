import assert from "node:assert/strict";
import { test } from "node:test";
import { roleMetrics } from "./metrics.js";
import { allEqual, mean, percentile, std } from "./stats.js";

test("stats: mean, sample and population std, percentiles, allEqual", () => {
  assert.equal(mean([1, 2, 3, 4]), 2.5);
  assert.ok(Number.isNaN(mean([])));
  // Σ dev² = 5: sample √(5/3), population √(5/4)
  assert.equal(std([1, 2, 3, 4]), Math.sqrt(5 / 3));
  assert.equal(std([1, 2, 3, 4], "population"), Math.sqrt(5 / 4));
  assert.equal(std([3]), 0);
  // numpy's linear interpolation: h = (n − 1)·p/100
  assert.equal(percentile([4, 1, 3, 2], 50), 2.5); // h = 1.5
  assert.equal(percentile([1, 2, 3, 4], 10), 1.3); // h = 0.3
  assert.equal(percentile([1, 2, 3, 4], 100), 4);
  assert.equal(percentile([7], 90), 7);
  assert.ok(allEqual([0.1, 0.1, 0.1]));
  assert.ok(allEqual([]));
  assert.ok(!allEqual([1, 1, 2]));
});

test("roleMetrics: rewards, advantages, solved, effective fraction, percentiles, terminations", () => {
  const m = roleMetrics({
    role: "solver",
    groups: [
      // partially solved
      { rewards: [1, 0], solved: [true, false], terminations: ["env_done", "timeout"], kept: true },
      // solved by all (zero variance: dropped)
      {
        rewards: [1, 1],
        solved: [true, true],
        terminations: ["env_done", "env_done"],
        kept: false,
      },
      // solved by none
      { rewards: [0, 0], solved: [false, false], terminations: ["env_done", "error"], kept: false },
      // graded
      {
        rewards: [0.5, 0.25],
        solved: [true, true],
        terminations: ["env_done", "env_done"],
        kept: true,
      },
    ],
    advantages: [0.7, -0.7, 0, 0.7],
  });
  // rewards [1, 0, 1, 1, 0, 0, 0.5, 0.25]: Σ = 3.75, mean 0.46875
  assert.equal(m["reward/solver/mean"], 3.75 / 8);
  const mu = 3.75 / 8;
  const rs = [1, 0, 1, 1, 0, 0, 0.5, 0.25];
  assert.equal(m["reward/solver/std"], Math.sqrt(rs.reduce((a, r) => a + (r - mu) ** 2, 0) / 8));
  assert.equal(m["reward/solver/min"], 0);
  assert.equal(m["reward/solver/max"], 1);
  assert.equal(m["advantage/solver/mean"], 0.7 / 4);
  assert.equal(m["advantage/solver/fraction_zero"], 0.25);
  assert.equal(m["groups/solver/count"], 4);
  assert.equal(m["groups/solver/solved_none"], 0.25);
  assert.equal(m["groups/solver/solved_all"], 0.5); // [1,1] and [0.5,0.25] (both > 0)
  assert.equal(m["groups/solver/solved_partially"], 0.25);
  assert.equal(m["groups/solver/effective_fraction"], 0.5);
  assert.equal(m["groups/solver/size_mean"], 2);
  // group means [0.5, 1, 0, 0.375] sorted [0, 0.375, 0.5, 1]: p50 at h = 1.5 → 0.4375
  assert.equal(m["group_reward/solver/p50"], 0.4375);
  // p10 at h = 0.3 → 0 + 0.3·0.375
  assert.equal(m["group_reward/solver/p10"], 0.3 * 0.375);
  assert.equal(m["termination/solver/env_done"], 6 / 8);
  assert.equal(m["termination/solver/timeout"], 1 / 8);
  assert.equal(m["termination/solver/error"], 1 / 8);
});

test("roleMetrics leaves out what it has no values for", () => {
  const m = roleMetrics({ role: "student", groups: [], advantages: [] });
  assert.deepEqual(m, { "groups/student/count": 0 });
});

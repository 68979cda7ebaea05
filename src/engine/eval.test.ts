import assert from "node:assert/strict";
import { test } from "node:test";
import type { Episode } from "../types/index.js";
import type { EngineMetrics } from "./engine.js";
import { formatSummary, passAtK, summarize } from "./eval.js";

/** C(n, k) straight from the definition, to check the product form. */
function choose(n: number, k: number): number {
  let r = 1;
  for (let i = 0; i < k; i++) r = (r * (n - i)) / (i + 1);
  return r;
}

test("pass@k is 1 − C(n−c,k)/C(n,k)", () => {
  for (const [n, c, k] of [
    [10, 3, 1],
    [10, 3, 5],
    [5, 0, 2],
    [5, 5, 3],
    [8, 1, 8],
    [20, 7, 4],
  ] as const) {
    const expected = n - c < k ? 1 : 1 - choose(n - c, k) / choose(n, k);
    assert.ok(Math.abs(passAtK(n, c, k) - expected) < 1e-12, `${n},${c},${k}`);
  }
  assert.equal(passAtK(4, 1, 1), 0.25);
  assert.throws(() => passAtK(2, 1, 3), /needs at least 3 samples/);
});

const metrics = { rolloutsPerSecond: 1, wallMs: 1, skipped: 0, prefixBreaks: 0 } as EngineMetrics;
const ep = (
  taskId: string,
  attempt: number,
  isCorrect: boolean,
  extra: Partial<Episode> = {},
): Episode => ({
  id: `${taskId}/${attempt}`,
  taskId,
  attempt,
  trajectories: [],
  reward: isCorrect ? 1 : 0,
  isCorrect,
  terminationReason: "env_done",
  infraFailed: false,
  ...extra,
});

test("summary: score is mean pass@1 per task; infra failures are excluded and counted", () => {
  const r = summarize(
    [
      ep("a", 0, true),
      ep("a", 1, false),
      ep("b", 0, false),
      ep("b", 1, false, { terminationReason: "error", error: "boom" }),
      ep("c", 0, false, { infraFailed: true, reward: null, error: "upstream down" }),
      ep("c", 1, true),
    ],
    {
      benchmark: "x",
      model: "m",
      agent: "chat",
      attempts: 2,
      cancelled: false,
      metrics,
      config: {},
      startedAt: new Date(),
    },
  );
  // a: 1/2, b: 0/2, c: 1/1 → pass@1 = (0.5 + 0 + 1) / 3
  assert.ok(Math.abs(r.score! - 0.5) < 1e-12);
  // pass@2 only for tasks with 2 scored attempts: a → 1, b → 0
  assert.equal(r.passAtK["2"], 0.5);
  assert.equal(r.total, 5);
  assert.equal(r.correct, 2);
  assert.equal(r.errors, 1);
  assert.equal(r.infraFailed, 1);
  assert.deepEqual(r.items[4], {
    index: null,
    taskId: "c",
    attempt: 0,
    reward: null,
    isCorrect: false,
    error: "upstream down",
    terminationReason: "env_done",
    infraFailed: true,
  });
});

test("the printed summary counts how items ended, and steps not extending their turn when any", () => {
  const info = {
    benchmark: "x",
    model: "m",
    agent: "tool",
    attempts: 1,
    cancelled: false,
    config: {},
    startedAt: new Date(),
  };
  const episodes = [
    ep("a", 0, true),
    ep("b", 0, false, { terminationReason: "max_turns_exceeded" }),
    ep("c", 0, false, { terminationReason: "max_turns_exceeded" }),
  ];
  const plain = formatSummary(summarize(episodes, { ...info, metrics }));
  assert.match(plain, /endings\s+max_turns_exceeded 2 · env_done 1\n/);
  assert.doesNotMatch(plain, /extending/);
  const broken = formatSummary(
    summarize(episodes, { ...info, metrics: { ...metrics, prefixBreaks: 3 } }),
  );
  assert.match(broken, /steps not extending their turn\s+3\n/);
});

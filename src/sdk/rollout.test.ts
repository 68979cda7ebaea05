import assert from "node:assert/strict";
import { test } from "node:test";
import {
  coerceEvalOutput,
  currentSession,
  evaluator,
  normalizeResult,
  type RolloutConfig,
  rollout,
} from "./index.js";

test("evaluator coercions: bool, number, tuple, EvalOutput", async () => {
  assert.deepEqual(coerceEvalOutput(true), { reward: 1, isCorrect: true });
  assert.deepEqual(coerceEvalOutput(false), { reward: 0, isCorrect: false });
  assert.deepEqual(coerceEvalOutput(0.5), { reward: 0.5, isCorrect: true });
  assert.deepEqual(coerceEvalOutput(0), { reward: 0, isCorrect: false });
  assert.deepEqual(coerceEvalOutput(-1), { reward: -1, isCorrect: false });
  assert.deepEqual(coerceEvalOutput([0.2, false]), { reward: 0.2, isCorrect: false });
  assert.deepEqual(coerceEvalOutput({ reward: 1, isCorrect: true, signals: { f1: 0.7 } }), {
    reward: 1,
    isCorrect: true,
    signals: { f1: 0.7 },
  });
  assert.deepEqual(coerceEvalOutput({ reward: 0.3 }), { reward: 0.3, isCorrect: true });
  for (const bad of [
    NaN,
    Infinity,
    "1",
    null,
    undefined,
    [1],
    [1, "yes"],
    { isCorrect: true },
    { reward: 1, isCorrect: "y" },
  ]) {
    assert.throws(() => coerceEvalOutput(bad), TypeError, String(bad));
  }
  const ev = evaluator(async (_t, ep: { ok: boolean }) => ep.ok);
  assert.deepEqual(await ev.evaluate({ id: "t", data: {} }, { ok: true }), {
    reward: 1,
    isCorrect: true,
  });
  assert.throws(() => evaluator(5 as never), /evaluator\(\) takes a function/);
});

test("rollout results: nothing, a Trajectory, an Episode, or a TypeError", async () => {
  assert.deepEqual(normalizeResult(undefined, "a"), { kind: "traces" });
  assert.deepEqual(normalizeResult(null, "a"), { kind: "traces" });
  const t = normalizeResult({ steps: [{ traceId: "tr_1" }], reward: 1 }, "solver");
  assert.equal(t.kind, "trajectories");
  if (t.kind === "trajectories") {
    assert.equal(t.trajectories[0]!.name, "solver");
    assert.equal(t.reward, 1);
  }
  const e = normalizeResult(
    { trajectories: [{ name: "judge", steps: [] }], reward: 0, isCorrect: false },
    "x",
  );
  assert.equal(e.kind === "trajectories" && e.trajectories[0]!.name, "judge");
  assert.throws(() => normalizeResult("done", "a"), /returned a string \("done"\); return nothing/);
  assert.throws(
    () => normalizeResult({ answer: 4 }, "a"),
    /neither "steps" nor "trajectories" \(keys: answer\)/,
  );
  assert.throws(
    () => normalizeResult({ steps: [{ promptIds: ["x"] }] }, "a"),
    /not a valid Trajectory: steps\.0\.promptIds\.0/,
  );
  assert.throws(() => rollout("nope" as never), /rollout\(\) takes a function/);
});

test("the session is available to code deep inside the agent", async () => {
  const seen: (string | undefined)[] = [];
  const helper = () => currentSession()?.sessionId;
  const r = rollout(
    async () => {
      await new Promise((res) => setTimeout(res, 1));
      seen.push(helper());
    },
    { name: "n" },
  );
  const config = { sessionId: "s-1", signal: new AbortController().signal } as RolloutConfig;
  assert.deepEqual(await r.run({ id: "t", data: {} }, config), { kind: "traces" });
  assert.deepEqual(seen, ["s-1"]);
  assert.equal(currentSession(), undefined);
  assert.equal(r.name, "n");
});

test("normalizeResult: an episode's metrics are kept when every one is a finite number", () => {
  const r = normalizeResult({ trajectories: [], metrics: { toolCalls: 3, seconds: 0.5 } }, "a");
  assert.deepEqual(r.kind === "trajectories" && r.metrics, { toolCalls: 3, seconds: 0.5 });
  assert.throws(
    () => normalizeResult({ trajectories: [], metrics: { toolCalls: "3" } }, "a"),
    /rollout "a" returned metrics\.toolCalls = .*each metric is a finite number/,
  );
  assert.throws(
    () => normalizeResult({ trajectories: [], metrics: { x: Number.NaN } }, "a"),
    /metrics\.x/,
  );
  assert.throws(
    () => normalizeResult({ trajectories: [], metrics: [1] }, "a"),
    /metrics is an object of name → number/,
  );
});

/**
 * Token-exactness per step (episode.ts): a step whose prompt ids do not extend the previous turn is
 * marked with where and why, and counted; one that extends it is left alone.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { TraceRecord } from "../types/index.js";
import { buildTrajectories, tokenCounts } from "./episode.js";

function trace(
  id: string,
  promptIds: number[],
  completionIds: number[],
  promptNote?: string,
): TraceRecord {
  return {
    id,
    sessionId: "s",
    api: "chat.completions",
    upstream: "u",
    model: "m",
    request: {},
    messages: [],
    promptIds,
    choices: [
      {
        index: 0,
        content: "x",
        finishReason: "stop",
        completionIds,
        logprobs: completionIds.map(() => -1),
      },
    ],
    tokenSource: "upstream",
    ...(promptNote ? { promptNote } : {}),
    weightVersion: 0,
    promptTokens: promptIds.length,
    completionTokens: completionIds.length,
    latencyMs: 1,
    stream: false,
    startedAt: 0,
    finishedAt: 1,
    status: 200,
    error: null,
  };
}

test("a turn that extends the previous prompt + completion is not marked", () => {
  const traces = [trace("a", [1, 2], [3, 4]), trace("b", [1, 2, 3, 4, 5], [6])];
  const [t] = buildTrajectories({ kind: "traces" }, traces, "agent");
  assert.deepEqual(
    t!.steps.map((s) => s.info?.prefixBreak),
    [undefined, undefined],
  );
  assert.equal(tokenCounts([t!]).prefixBreaks, 0);
});

test("a turn whose ids differ is marked with the first differing token; the gateway's reason wins", () => {
  const traces = [
    trace("a", [1, 2], [3, 4]),
    trace("b", [1, 2, 3, 9, 5], [6]), // the completion re-tokenized: differs at token 3
    trace("c", [1, 2, 3], [7], "rendered: history differs from the previous call at message 1"),
    trace("d", [1, 2, 3, 7, 8], [9]),
  ];
  const [t] = buildTrajectories({ kind: "traces" }, traces, "agent");
  const marks = t!.steps.map(
    (s) => s.info?.prefixBreak as { at: number; reason: string } | undefined,
  );
  assert.equal(marks[0], undefined);
  assert.deepEqual(marks[1], {
    at: 3,
    reason: "the prompt ids differ from step 0's prompt + completion at token 3",
  });
  assert.equal(marks[2]!.at, 3, "shorter than the previous turn: its length");
  assert.equal(
    marks[2]!.reason,
    "the gateway re-rendered the prompt: history differs from the previous call at message 1",
  );
  assert.equal(marks[3], undefined, "extends step 2 again");
  assert.equal(tokenCounts([t!]).prefixBreaks, 2);
});

test("steps the agent reports are checked within each trajectory; steps without ids are not", () => {
  const traces = [trace("a", [1, 2], [3]), trace("b", [5, 6], [7]), trace("c", [1, 2, 3, 4], [8])];
  const trajectories = buildTrajectories(
    {
      kind: "trajectories",
      trajectories: [
        { name: "solver", steps: [{ traceId: "a" }, { traceId: "c" }].map(step) },
        { name: "judge", steps: [{ traceId: "b" }].map(step) },
        { name: "hosted", steps: [step({}), step({})] },
      ],
    },
    traces,
    "agent",
  );
  assert.equal(tokenCounts(trajectories).prefixBreaks, 0, "the judge's own prompt is no break");
});

function step(s: { traceId?: string }) {
  return { ...s, messages: [], promptIds: [], completionIds: [], logprobs: [] };
}

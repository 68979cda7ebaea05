import assert from "node:assert/strict";
import { test } from "node:test";
import {
  DatumSchema,
  EpisodeSchema,
  TaskSchema,
  TerminationReasonSchema,
  TraceRecordSchema,
  TrajectoryGroupSchema,
} from "./index.js";

const roundTrip = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

test("an episode survives a JSON round trip and fills defaults", () => {
  const ep = EpisodeSchema.parse({
    id: "e1",
    taskId: "t1",
    task: { id: "t1", data: { question: "2+2?", answer: "4" }, dataSource: "gsm8k", index: 0 },
    trajectories: [
      {
        name: "solver",
        steps: [
          {
            traceId: "tr_1",
            messages: [{ role: "user", content: "2+2?" }],
            response: { content: "4" },
            promptIds: [1, 2],
            completionIds: [3],
            logprobs: [-0.5],
            weightVersion: 2,
          },
        ],
        reward: 1,
      },
    ],
    reward: 1,
    isCorrect: true,
    terminationReason: "env_done",
  });
  assert.equal(ep.attempt, 0);
  assert.equal(ep.infraFailed, false);
  assert.deepEqual(EpisodeSchema.parse(roundTrip(ep)), ep);
});

test("termination reasons are exactly the seven the engine uses", () => {
  assert.deepEqual(TerminationReasonSchema.options, [
    "max_prompt_length_exceeded",
    "max_response_length_exceeded",
    "env_done",
    "max_turns_exceeded",
    "timeout",
    "error",
    "unknown",
  ]);
  assert.throws(() => EpisodeSchema.parse({ id: "e", taskId: "t", terminationReason: "crashed" }));
});

test("strict schemas refuse unknown keys", () => {
  assert.throws(() => TaskSchema.parse({ id: "t", data: {}, extra: 1 }), /extra/);
});

test("a datum's per-token arrays must align", () => {
  const ok = {
    tokens: [1, 2, 3],
    lossMask: [0, 1, 1],
    advantages: [0, 0.5, 0.5],
    samplingLogprobs: [0, -1, -2],
    weightVersion: 0,
    groupId: "g",
  };
  assert.deepEqual(DatumSchema.parse(roundTrip(ok)), ok);
  assert.throws(
    () => DatumSchema.parse({ ...ok, lossMask: [0, 1] }),
    /has 2 entries but tokens has 3/,
  );
  assert.throws(() => DatumSchema.parse({ ...ok, lossMask: [0, 2, 1] }));
});

test("trajectory groups and trace records round trip", () => {
  const g = TrajectoryGroupSchema.parse({
    groupId: "g",
    taskId: "t",
    role: "solver",
    trajectories: [{ steps: [] }],
  });
  assert.equal(g.trajectories[0]?.name, "default");
  assert.deepEqual(TrajectoryGroupSchema.parse(roundTrip(g)), g);
  const t = {
    id: "tr",
    sessionId: "s",
    api: "chat.completions",
    upstream: null,
    model: null,
    request: {},
    messages: null,
    promptIds: null,
    choices: [],
    tokenSource: "none",
    weightVersion: 0,
    promptTokens: null,
    completionTokens: null,
    latencyMs: 0,
    stream: false,
    startedAt: 0,
    finishedAt: 0,
    status: 502,
    error: "upstream down",
  };
  assert.deepEqual(TraceRecordSchema.parse(roundTrip(t)), t);
});

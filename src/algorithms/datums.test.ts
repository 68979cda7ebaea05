import assert from "node:assert/strict";
import { test } from "node:test";
import { DatumSchema, type Step, type StepInput, StepSchema } from "../types/index.js";
import {
  broadcastAdvantage,
  buildDatums,
  datumMetrics,
  emptyDatumStats,
  hasPrefix,
  perStepAdvantages,
  type RowSource,
  trajectoryToDatums,
} from "./datums.js";

/** A step whose logprobs are −(id/100), so every sampled token's logprob is recognisable. */
function step(promptIds: number[], completionIds: number[], extra: Partial<StepInput> = {}): Step {
  return StepSchema.parse({
    promptIds,
    completionIds,
    logprobs: completionIds.map((id) => -id / 100),
    ...extra,
  });
}

function source(steps: Step[], advantage: number | number[] = 1): RowSource {
  return {
    groupId: "task#solver",
    steps,
    advantages:
      typeof advantage === "number"
        ? broadcastAdvantage(steps, advantage)
        : perStepAdvantages(steps, advantage),
  };
}

/** The sampled tokens of the rows, in order (mask 1). */
const sampledOf = (rows: { tokens: number[]; lossMask: number[] }[]) =>
  rows.flatMap((r) => r.tokens.filter((_, i) => r.lossMask[i] === 1));

test("hasPrefix compares element by element", () => {
  assert.ok(hasPrefix([1, 2, 3], [1, 2]));
  assert.ok(hasPrefix([1, 2], []));
  assert.ok(!hasPrefix([1, 2], [1, 2, 3]));
  assert.ok(!hasPrefix([1, 3, 3], [1, 2]));
});

test("one step: prompt masked out, completion in, advantages and logprobs aligned", () => {
  const rows = trajectoryToDatums(source([step([1, 2, 3], [4, 5], { weightVersion: 7 })], 0.5));
  assert.deepEqual(rows, [
    {
      tokens: [1, 2, 3, 4, 5],
      lossMask: [0, 0, 0, 1, 1],
      advantages: [0, 0, 0, 0.5, 0.5],
      samplingLogprobs: [0, 0, 0, -0.04, -0.05],
      weightVersion: 7,
      groupId: "task#solver",
    },
  ]);
  DatumSchema.parse(rows[0]);
});

test("multi-turn with tool observations merges into one row", () => {
  // turn 1: [1,2] → [3,4]; tool result [10,11]; turn 2 → [5]; user turn [12]; turn 3 → [6,7]
  const steps = [
    step([1, 2], [3, 4], { weightVersion: 3 }),
    step([1, 2, 3, 4, 10, 11], [5], { weightVersion: 2 }),
    step([1, 2, 3, 4, 10, 11, 5, 12], [6, 7], { weightVersion: 4 }),
  ];
  const stats = emptyDatumStats();
  const rows = trajectoryToDatums(source(steps, [0.1, 0.2, 0.3]), {}, stats);
  assert.equal(rows.length, 1);
  const [row] = rows;
  assert.deepEqual(row!.tokens, [1, 2, 3, 4, 10, 11, 5, 12, 6, 7]);
  assert.deepEqual(row!.lossMask, [0, 0, 1, 1, 0, 0, 1, 0, 1, 1]);
  assert.deepEqual(row!.advantages, [0, 0, 0.1, 0.1, 0, 0, 0.2, 0, 0.3, 0.3]);
  assert.deepEqual(row!.samplingLogprobs, [0, 0, -0.03, -0.04, 0, 0, -0.05, 0, -0.06, -0.07]);
  assert.equal(row!.weightVersion, 2, "the oldest version of its steps");
  DatumSchema.parse(row);
  assert.equal(stats.prefixBreaks, 0);
  assert.equal(stats.stepsInRows, 3);
  // unmerged: (2+2) + (6+1) + (8+2) = 21 tokens; merged: 10
  assert.equal(stats.unmergedTokens, 21);
  const m = datumMetrics(stats);
  assert.equal(m["datums/rows"], 1);
  assert.equal(m["datums/tokens"], 10);
  assert.equal(m["datums/sampled_tokens"], 5);
  assert.equal(m["datums/compression_ratio"], 2.1);
  assert.equal(m["datums/steps_per_row"], 3);
  assert.equal(m["datums/rows_per_trajectory"], 1);
});

test("a broken prefix mid-trajectory starts a new row, and the rows after it merge again", () => {
  const steps = [
    step([1, 2], [3]),
    step([1, 2, 3, 9], [4]),
    step([7, 8], [5, 6]), // the agent summarised its context: the prefix breaks here
    step([7, 8, 5, 6, 9], [10]),
  ];
  const stats = emptyDatumStats();
  const rows = trajectoryToDatums(source(steps), {}, stats);
  assert.deepEqual(
    rows.map((r) => r.tokens),
    [
      [1, 2, 3, 9, 4],
      [7, 8, 5, 6, 9, 10],
    ],
  );
  assert.deepEqual(
    rows.map((r) => r.lossMask),
    [
      [0, 0, 1, 0, 1],
      [0, 0, 1, 1, 0, 1],
    ],
  );
  assert.equal(stats.prefixBreaks, 1);
  assert.equal(datumMetrics(stats)["datums/rows_per_trajectory"], 2);
});

test("a thinking model that drops earlier reasoning: rows split, nothing lost", () => {
  // Turn 1 samples reasoning [100,101] then answer [3]. The template re-renders turn 1 without
  // its reasoning, so turn 2's prompt is [1,2,3,9], not [1,2,100,101,3,9].
  const steps = [
    step([1, 2], [100, 101, 3]),
    step([1, 2, 3, 9], [200, 4]),
    step([1, 2, 3, 9, 4, 9], [5]), // turn 2's reasoning [200] is dropped too: another break
  ];
  const rows = trajectoryToDatums(source(steps, [1, 2, 3]));
  assert.deepEqual(
    rows.map((r) => r.tokens),
    [
      [1, 2, 100, 101, 3],
      [1, 2, 3, 9, 200, 4],
      [1, 2, 3, 9, 4, 9, 5],
    ],
  );
  // Every sampled token is in exactly one row with mask 1, in order, with its own advantage.
  assert.deepEqual(sampledOf(rows), [100, 101, 3, 200, 4, 5]);
  assert.deepEqual(
    rows.flatMap((r) => r.advantages.filter((_, i) => r.lossMask[i] === 1)),
    [1, 1, 1, 2, 2, 3],
  );
  // A turn that does extend the previous row still merges.
  const merged = trajectoryToDatums(
    source([
      step([1, 2], [100, 3]),
      step([1, 2, 3, 9], [200, 4]),
      step([1, 2, 3, 9, 200, 4, 9], [5]),
    ]),
  );
  assert.deepEqual(
    merged.map((r) => r.tokens),
    [
      [1, 2, 100, 3],
      [1, 2, 3, 9, 200, 4, 9, 5],
    ],
  );
});

test("a completion over maxResponseLength is cut, counted, and its row closed", () => {
  const steps = [step([1, 2], [4, 5, 6, 7, 8]), step([1, 2, 4, 5, 6, 7, 8, 9], [10])];
  const stats = emptyDatumStats();
  const rows = trajectoryToDatums(source(steps), { maxResponseLength: 3 }, stats);
  assert.deepEqual(
    rows.map((r) => r.tokens),
    [
      [1, 2, 4, 5, 6],
      [1, 2, 4, 5, 6, 7, 8, 9, 10],
    ],
  );
  assert.equal(stats.truncatedRows, 1);
  assert.equal(stats.truncatedTokens, 2);
  assert.equal(stats.prefixBreaks, 0, "a row closed by truncation is not a prefix break");
  const m = datumMetrics(stats);
  assert.equal(m["datums/truncated_rows"], 1);
  assert.equal(m["datums/truncated_tokens"], 2);
});

test("a merge that would exceed maxResponseLength starts a new row instead", () => {
  // Response part after merging: [3,4,9,5,6] = 5 tokens > 4: split, turn 2 gets its own row.
  const steps = [step([1, 2], [3, 4]), step([1, 2, 3, 4, 9], [5, 6])];
  const stats = emptyDatumStats();
  const rows = trajectoryToDatums(source(steps), { maxResponseLength: 4 }, stats);
  assert.deepEqual(
    rows.map((r) => r.tokens),
    [
      [1, 2, 3, 4],
      [1, 2, 3, 4, 9, 5, 6],
    ],
  );
  assert.equal(stats.lengthSplits, 1);
  assert.equal(stats.truncatedRows, 0);
  assert.deepEqual(sampledOf(rows), [3, 4, 5, 6], "nothing lost");
  // With room for it, the same steps merge.
  assert.equal(trajectoryToDatums(source(steps), { maxResponseLength: 5 }).length, 1);
});

test("a prompt over maxPromptLength drops its row (counted) or is an error", () => {
  const steps = [step([1, 2], [3]), step([7, 8, 9, 10, 11, 12], [13, 14])];
  const stats = emptyDatumStats();
  const rows = trajectoryToDatums(source(steps), { maxPromptLength: 4 }, stats);
  assert.deepEqual(
    rows.map((r) => r.tokens),
    [[1, 2, 3]],
  );
  assert.equal(stats.droppedRows, 1);
  assert.equal(stats.droppedSampledTokens, 2);
  assert.equal(datumMetrics(stats)["datums/dropped_sampled_tokens"], 2);
  assert.throws(
    () => trajectoryToDatums(source(steps), { maxPromptLength: 4, onPromptOverflow: "error" }),
    /step 1 has a 6-token prompt, over maxPromptLength 4/,
  );
  // A merged row's prompt part is its first prompt only: growth after it is response.
  const merged = trajectoryToDatums(source([step([1, 2], [3]), step([1, 2, 3, 4, 5, 6], [7])]), {
    maxPromptLength: 2,
  });
  assert.deepEqual(merged[0]!.tokens, [1, 2, 3, 4, 5, 6, 7]);
});

test("mergeSteps false gives one row per step", () => {
  const steps = [step([1, 2], [3]), step([1, 2, 3, 9], [4])];
  const stats = emptyDatumStats();
  const rows = trajectoryToDatums(source(steps), { mergeSteps: false }, stats);
  assert.deepEqual(
    rows.map((r) => r.tokens),
    [
      [1, 2, 3],
      [1, 2, 3, 9, 4],
    ],
  );
  assert.equal(stats.prefixBreaks, 0);
  assert.equal(datumMetrics(stats)["datums/compression_ratio"], 1);
});

test("steps without token ids are skipped and counted; broken alignment is an error", () => {
  const stats = emptyDatumStats();
  const rows = trajectoryToDatums(source([step([], []), step([1], [2])]), {}, stats);
  assert.equal(rows.length, 1);
  assert.equal(stats.stepsWithoutTokens, 1);
  assert.equal(datumMetrics(stats)["datums/steps_without_tokens"], 1);

  const noLogprobs = StepSchema.parse({ promptIds: [1], completionIds: [2, 3] });
  assert.throws(
    () => trajectoryToDatums({ ...source([noLogprobs]), label: 'episode e1, trajectory "solver"' }),
    /episode e1, trajectory "solver": step 0 has 2 completion ids but 0 logprobs/,
  );
  const lenient = emptyDatumStats();
  const [row] = trajectoryToDatums(source([noLogprobs]), { requireLogprobs: false }, lenient);
  assert.deepEqual(row!.samplingLogprobs, [0, 0, 0]);
  assert.equal(lenient.missingLogprobTokens, 2);

  assert.throws(
    () => trajectoryToDatums({ groupId: "g", steps: [step([1], [2, 3])], advantages: [[1]] }),
    /2 completion ids but 1 advantages/,
  );
  assert.throws(() => trajectoryToDatums(source([step([], [2])])), /no prompt ids/);
});

test("buildDatums sums stats over trajectories; every row is a valid Datum", () => {
  const { datums, stats } = buildDatums([
    source([step([1], [2]), step([1, 2, 3], [4])]),
    source([step([5], [6]), step([9], [7])]),
  ]);
  assert.equal(datums.length, 3);
  for (const d of datums) DatumSchema.parse(d);
  assert.equal(stats.trajectories, 2);
  assert.equal(stats.trajectoriesWithRows, 2);
  assert.equal(stats.prefixBreaks, 1);
  assert.equal(datumMetrics(stats)["datums/rows_per_trajectory"], 1.5);
  // a step without a weight version gives 0
  assert.equal(datums[0]!.weightVersion, 0);
});

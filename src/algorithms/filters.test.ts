import assert from "node:assert/strict";
import { test } from "node:test";
import { type Episode, type EpisodeInput, EpisodeSchema } from "../types/index.js";
import {
  groupDropReason,
  isSettledGroup,
  isSolved,
  isTruncated,
  maskReasonOf,
  overlongPenalty,
  RejectionSampler,
  responseLength,
  splitInfraFailed,
} from "./filters.js";
import type { GroupMember } from "./grouping.js";

const ep = (input: EpisodeInput): Episode => EpisodeSchema.parse(input);

function member(
  input: Partial<EpisodeInput>,
  finishReasons: (string | null)[] = [null],
): GroupMember {
  const episode = ep({
    id: "e",
    taskId: "t",
    trajectories: [
      {
        name: "solver",
        steps: finishReasons.map((finishReason) => ({
          promptIds: [1],
          completionIds: [2, 3],
          logprobs: [-1, -1],
          finishReason,
        })),
      },
    ],
    ...input,
  });
  return { episode, trajectory: episode.trajectories[0]!, index: 0 };
}

/** n attempts at a task with the given rewards. */
const attempts = (taskId: string, rewards: number[], extra: Partial<EpisodeInput> = {}) =>
  rewards.map((reward, i) => ep({ id: `${taskId}/${i}`, taskId, attempt: i, reward, ...extra }));

test("infra-failed episodes are split off", () => {
  const episodes = [ep({ id: "a", taskId: "t" }), ep({ id: "b", taskId: "t", infraFailed: true })];
  const { kept, dropped } = splitInfraFailed(episodes);
  assert.deepEqual(
    kept.map((e) => e.id),
    ["a"],
  );
  assert.deepEqual(
    dropped.map((e) => e.id),
    ["b"],
  );
});

test("isSolved: isCorrect when set, else reward > 0", () => {
  assert.equal(isSolved(ep({ id: "a", taskId: "t", isCorrect: false }), 1), false);
  assert.equal(isSolved(ep({ id: "a", taskId: "t", isCorrect: true }), 0), true);
  assert.equal(isSolved(ep({ id: "a", taskId: "t" }), 0.5), true);
  assert.equal(isSolved(ep({ id: "a", taskId: "t" }), 0), false);
});

test("DAPO's soft overlong penalty: 0, then linear over the buffer, then −1", () => {
  const p = { maxLength: 100, buffer: 20 };
  assert.equal(overlongPenalty(70, p), 0);
  assert.equal(overlongPenalty(80, p), 0); // |y| ≤ L_max − L_cache
  assert.equal(overlongPenalty(90, p), -0.5); // (80 − 90)/20
  assert.equal(overlongPenalty(95, p), -0.75); // (80 − 95)/20
  assert.equal(overlongPenalty(100, p), -1); // (80 − 100)/20
  assert.equal(overlongPenalty(101, p), -1); // |y| > L_max
  assert.equal(overlongPenalty(90, { ...p, factor: 0.5 }), -0.25);
});

test("truncation: by termination reason or a call that finished with 'length'", () => {
  assert.equal(isTruncated(member({})), false);
  assert.equal(isTruncated(member({}, [null, "length"])), true);
  assert.equal(isTruncated(member({ terminationReason: "max_response_length_exceeded" })), true);
  assert.equal(responseLength(member({}, [null, "stop", null])), 6);
});

test("masks by termination reason; overlong is checked first", () => {
  const opts = {
    maskTerminations: ["timeout" as const, "max_response_length_exceeded" as const],
    maskOverlong: false,
  };
  assert.equal(maskReasonOf(member({ terminationReason: "timeout" }), opts), "timeout");
  assert.equal(maskReasonOf(member({ terminationReason: "env_done" }), opts), null);
  assert.equal(maskReasonOf(member({ terminationReason: "error" }), opts), null);
  const overlong = member({ terminationReason: "max_response_length_exceeded" });
  assert.equal(maskReasonOf(overlong, opts), "max_response_length_exceeded");
  assert.equal(maskReasonOf(overlong, { ...opts, maskOverlong: true }), "overlong");
  assert.equal(
    maskReasonOf(member({}, ["length"]), { maskTerminations: [], maskOverlong: true }),
    "overlong",
  );
});

test("group drops: too small first, then zero variance", () => {
  const opts = { minGroupSize: 2, dropZeroVariance: true };
  assert.equal(groupDropReason([1], 1, opts), "min_group_size");
  assert.equal(groupDropReason([1, 1], 2, opts), "zero_variance");
  assert.equal(groupDropReason([0.1, 0.1, 0.1], 3, opts), "zero_variance");
  assert.equal(groupDropReason([1, 0], 2, opts), null);
  assert.equal(groupDropReason([1, 1], 2, { ...opts, dropZeroVariance: false }), null);
});

test("rejection sampling: keep drawing until enough partially solved groups", () => {
  const rs = new RejectionSampler({ targetGroups: 2, maxDraws: 3 });
  // draw 1: a solved by all, b partially, c by none → 1 accepted of 3 seen
  const d1 = rs.add([...attempts("a", [1, 1]), ...attempts("b", [0, 1]), ...attempts("c", [0, 0])]);
  // p̂ = (1 + 1)/(3 + 2) = 0.4; next = ⌈1 · 1 / 0.4⌉ = 3
  assert.deepEqual(d1, {
    draws: 1,
    accepted: 1,
    needed: 1,
    done: false,
    reason: "continue",
    nextDrawTasks: 3,
  });
  // draw 2: d and e both partial → 3 accepted, the batch takes 2
  const d2 = rs.add([...attempts("d", [1, 0]), ...attempts("e", [0.5, 0.5, 1])]);
  assert.equal(d2.done, true);
  assert.equal(d2.reason, "enough");
  assert.equal(d2.nextDrawTasks, 0);
  const { episodes, metrics } = rs.result();
  assert.deepEqual(
    episodes.map((e) => e.id),
    ["b/0", "b/1", "d/0", "d/1"],
  );
  assert.equal(metrics["rejection/draws"], 2);
  assert.equal(metrics["rejection/tasks_seen"], 5);
  assert.equal(metrics["rejection/groups_accepted"], 2);
  assert.equal(metrics["rejection/acceptance_rate"], 3 / 5);
  assert.equal(metrics["rejection/rejected_solved_all"], 1);
  assert.equal(metrics["rejection/rejected_solved_none"], 1);
  assert.equal(metrics["rejection/surplus_groups"], 1);
  assert.equal(metrics["rejection/shortfall_groups"], 0);
  assert.equal(metrics["rejection/hit_max_draws"], 0);
});

test("rejection sampling: the draw cap ends it with what was accepted, counted", () => {
  const rs = new RejectionSampler({ targetGroups: 2, maxDraws: 1 });
  const d = rs.add([...attempts("a", [1, 1]), ...attempts("b", [0, 0])]);
  assert.deepEqual(d, {
    draws: 1,
    accepted: 0,
    needed: 2,
    done: true,
    reason: "max_draws",
    nextDrawTasks: 0,
  });
  const { episodes, metrics } = rs.result();
  assert.equal(episodes.length, 0);
  assert.equal(metrics["rejection/shortfall_groups"], 2);
  assert.equal(metrics["rejection/hit_max_draws"], 1);
  assert.throws(() => rs.add([]), /already had its 1 draws/);
});

test("rejection sampling: infra failures, unscored episodes and repeated tasks", () => {
  const rs = new RejectionSampler({ targetGroups: 3, maxDraws: 5, oversample: 2, maxDrawSize: 10 });
  // a: one episode infra-failed → a single scored episode is not a group
  // b: partial → accepted
  const d1 = rs.add([
    ...attempts("a", [1]),
    ep({ id: "a/1", taskId: "a", reward: 0, infraFailed: true }),
    ...attempts("b", [1, 0]),
  ]);
  assert.equal(d1.accepted, 1);
  // p̂ = (1 + 1)/(2 + 2) = 0.5; next = ⌈2 · 2 / 0.5⌉ = 8
  assert.equal(d1.nextDrawTasks, 8);
  // b again: a duplicate, dropped; c: no rewards at all → rejected
  const d2 = rs.add([
    ...attempts("b", [0, 1]),
    ep({ id: "c/0", taskId: "c" }),
    ep({ id: "c/1", taskId: "c" }),
  ]);
  assert.equal(d2.accepted, 1);
  // p̂ = 2/6; ⌈2 · 2 · 3⌉ = 12, capped at 10
  assert.equal(d2.nextDrawTasks, 10);
  const { metrics } = rs.result();
  assert.equal(metrics["rejection/infra_failed_episodes"], 1);
  assert.equal(metrics["rejection/duplicate_tasks"], 1);
  assert.equal(metrics["rejection/rejected_too_small"], 2);
  assert.equal(metrics["rejection/rejected_solved_all"], 0);
});

test("rejection sampling: a custom acceptance rule and option checks", () => {
  const rs = new RejectionSampler({
    targetGroups: 1,
    maxDraws: 2,
    accept: (eps) => eps.length >= 3,
  });
  assert.equal(rs.add(attempts("a", [1, 1])).done, false);
  assert.equal(rs.add(attempts("b", [1, 1, 1])).reason, "enough");
  assert.throws(() => new RejectionSampler({ targetGroups: 0, maxDraws: 1 }), /targetGroups/);
  assert.throws(() => new RejectionSampler({ targetGroups: 1, maxDraws: 0 }), /maxDraws/);
});

test("isSettledGroup: two or more scored episodes, all with one reward", () => {
  const g = (...rewards: (number | undefined)[]) =>
    rewards.map((reward, i) =>
      ep({ id: `e${i}`, taskId: "t", ...(reward === undefined ? {} : { reward }) }),
    );
  assert.equal(isSettledGroup(g(1, 1, 1, 1)), true, "all right");
  assert.equal(isSettledGroup(g(0, 0, 0)), true, "all wrong");
  assert.equal(isSettledGroup(g(0, 1, 0, 0)), false, "one right: it teaches");
  assert.equal(isSettledGroup(g(1)), false, "one attempt says nothing");
  assert.equal(isSettledGroup(g(1, undefined)), false, "an unscored attempt does not count");
  const withInfra = [...g(1, 1), ep({ id: "x", taskId: "t", reward: 0, infraFailed: true })];
  assert.equal(isSettledGroup(withInfra), true, "an infrastructure failure does not count");
});

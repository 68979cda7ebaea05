/**
 * The pipeline end to end: each filter with its metric, advantages per role, per-step returns,
 * precomputed advantages, and the config's strictness.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  type Datum,
  DatumSchema,
  type Episode,
  type EpisodeInput,
  EpisodeSchema,
  type StepInput,
} from "../types/index.js";
import { estimators } from "./advantages.js";
import { AlgorithmConfigSchema, episodesToDatums } from "./pipeline.js";

const EPS = 1e-6;
const TOL = 1e-9;
const near = (a: number, b: number, what = "") =>
  assert.ok(Math.abs(a - b) <= TOL, `${what} got ${a}, expected ${b}`);

interface Opts extends Partial<EpisodeInput> {
  role?: string;
  completion?: number[];
  finishReason?: string;
  steps?: StepInput[];
  trajectoryReward?: number | null;
}

/** Attempt `attempt` at `taskId`: one trajectory of one step, prompt [1, 2]. */
function episode(taskId: string, attempt: number, reward: number | null, opts: Opts = {}): Episode {
  const { role, completion, finishReason, steps, trajectoryReward, ...rest } = opts;
  const ids = completion ?? [100 + attempt];
  return EpisodeSchema.parse({
    id: `${taskId}/${attempt}`,
    taskId,
    attempt,
    reward,
    terminationReason: "env_done",
    trajectories: [
      {
        name: role ?? "solver",
        reward: trajectoryReward === undefined ? reward : trajectoryReward,
        steps: steps ?? [
          {
            promptIds: [1, 2],
            completionIds: ids,
            logprobs: ids.map(() => -0.5),
            weightVersion: 1,
            finishReason: finishReason ?? "stop",
          },
        ],
      },
    ],
    ...rest,
  });
}

const task = (taskId: string, rewards: number[], opts: Opts = {}) =>
  rewards.map((r, i) => episode(taskId, i, r, opts));

/** The advantage on the sampled tokens of each datum (all equal in broadcast mode). */
const advantagesOf = (datums: Datum[]) =>
  datums.map((d) => d.advantages.filter((_, i) => d.lossMask[i] === 1));

test("grpo end to end: one row per attempt, advantages on the sampled tokens only", () => {
  const { datums, metrics, groups } = episodesToDatums(task("a", [1, 0, 0, 0]));
  // mean 0.25, sample std √(0.75/3) = 0.5
  const s = 0.5 + EPS;
  assert.equal(datums.length, 4);
  for (const d of datums) DatumSchema.parse(d);
  assert.deepEqual(datums[0]!.tokens, [1, 2, 100]);
  assert.deepEqual(datums[0]!.lossMask, [0, 0, 1]);
  assert.deepEqual(datums[0]!.samplingLogprobs, [0, 0, -0.5]);
  assert.equal(datums[0]!.groupId, "a#solver");
  assert.equal(datums[0]!.weightVersion, 1);
  near(datums[0]!.advantages[2]!, 0.75 / s);
  for (const d of datums.slice(1)) near(d.advantages[2]!, -0.25 / s);
  assert.equal(datums[0]!.advantages[0], 0);
  assert.equal(groups[0]!.estimator, "grpo");
  assert.deepEqual(groups[0]!.weightVersions, [1]);
  assert.equal(metrics["batch/episodes"], 4);
  assert.equal(metrics["batch/groups"], 1);
  assert.equal(metrics["batch/groups_kept"], 1);
  assert.equal(metrics["reward/solver/mean"], 0.25);
  assert.equal(metrics["groups/solver/solved_partially"], 1);
  assert.equal(metrics["datums/rows"], 4);
  assert.equal(metrics["termination/solver/env_done"], 1);
});

test("filter: infra-failed episodes never enter a group", () => {
  const episodes = [...task("a", [1, 0]), episode("a", 2, null, { infraFailed: true })];
  const { datums, metrics, groups } = episodesToDatums(episodes);
  assert.equal(groups[0]!.members.length, 2);
  assert.equal(datums.length, 2);
  // [1, 0]: mean 0.5, sample std √0.5
  near(advantagesOf(datums)[0]![0]!, 0.5 / (Math.sqrt(0.5) + EPS));
  assert.equal(metrics["filter/infra_failed_episodes"], 1);
  assert.equal(metrics["filter/infra_failed_fraction"], 1 / 3);
});

test("filter: masked termination reasons keep their reward in the baseline, train nothing", () => {
  const episodes = [...task("a", [1, 0, 0]), episode("a", 3, 0, { terminationReason: "timeout" })];
  const masked = episodesToDatums(episodes, { maskTerminations: ["timeout"] });
  assert.equal(masked.datums.length, 3);
  assert.ok(!masked.datums.some((d) => d.tokens.includes(103)));
  // The baseline still includes the timed-out attempt: same numbers as the unmasked group.
  const s = 0.5 + EPS;
  assert.deepEqual(
    advantagesOf(masked.datums).map((a) => a[0]),
    [0.75 / s, -0.25 / s, -0.25 / s],
  );
  assert.equal(masked.metrics["filter/masked_trajectories"], 1);
  assert.equal(masked.metrics["filter/masked_trajectories/timeout"], 1);
  assert.equal(masked.metrics["termination/solver/timeout"], 0.25);
  const unmasked = episodesToDatums(episodes);
  assert.equal(unmasked.datums.length, 4);
  assert.equal(unmasked.metrics["filter/masked_trajectories"], 0);
});

test("filter: zero-variance groups are dropped and do not reach the loss", () => {
  const episodes = [...task("a", [1, 1]), ...task("b", [1, 0]), ...task("c", [0, 0])];
  const { datums, metrics, groups } = episodesToDatums(episodes);
  assert.deepEqual([...new Set(datums.map((d) => d.groupId))], ["b#solver"]);
  assert.deepEqual(
    groups.map((g) => g.dropReason),
    ["zero_variance", null, "zero_variance"],
  );
  assert.equal(metrics["filter/dropped_groups/zero_variance"], 2);
  assert.equal(metrics["groups/solver/effective_fraction"], 1 / 3);
  assert.equal(metrics["groups/solver/solved_all"], 1 / 3);
  assert.equal(metrics["groups/solver/solved_none"], 1 / 3);
  assert.equal(metrics["advantage/solver/fraction_zero"], 0);
  // Kept when asked: their advantages are 0 (GRPO's all-equal case).
  const kept = episodesToDatums(episodes, { dropZeroVarianceGroups: false });
  assert.equal(kept.datums.length, 6);
  assert.equal(kept.metrics["advantage/solver/fraction_zero"], 4 / 6);
});

test("filter: minGroupSize", () => {
  const { datums, metrics } = episodesToDatums([...task("a", [1, 0]), ...task("b", [1, 0, 0])], {
    minGroupSize: 3,
  });
  assert.deepEqual([...new Set(datums.map((d) => d.groupId))], ["b#solver"]);
  assert.equal(metrics["filter/dropped_groups/min_group_size"], 1);
});

test("filter: overlong masking drops truncated responses from the loss", () => {
  const episodes = [
    episode("a", 0, 1),
    episode("a", 1, 0, { finishReason: "length" }),
    episode("a", 2, 0, { terminationReason: "max_response_length_exceeded" }),
  ];
  const { datums, metrics } = episodesToDatums(episodes, { overlong: { mask: true } });
  assert.equal(datums.length, 1);
  assert.equal(metrics["filter/masked_trajectories/overlong"], 2);
});

test("filter: DAPO's soft overlong penalty shapes the rewards", () => {
  // L_max 4, L_cache 2: lengths 2 → 0, 3 → (2 − 3)/2 = −0.5, 5 → −1
  const episodes = [
    episode("a", 0, 1, { completion: [5, 6] }),
    episode("a", 1, 1, { completion: [5, 6, 7] }),
    episode("a", 2, 1, { completion: [5, 6, 7, 8, 9] }),
  ];
  const { datums, metrics, groups } = episodesToDatums(episodes, {
    overlong: { softPenalty: { maxLength: 4, buffer: 2 } },
  });
  assert.deepEqual(
    groups[0]!.scored.map((m) => m.shapedReward),
    [1, 0.5, 0],
  );
  // The raw rewards are all equal, the shaped ones are not: the group is kept.
  // shaped [1, 0.5, 0]: mean 0.5, sample std √((0.25 + 0 + 0.25)/2) = 0.5
  const s = 0.5 + EPS;
  assert.deepEqual(
    advantagesOf(datums).map((a) => a[0]),
    [0.5 / s, 0, -0.5 / s],
  );
  assert.equal(metrics["filter/overlong_penalized"], 2);
  assert.equal(metrics["filter/overlong_penalty_mean"], -0.5);
  assert.equal(metrics["reward/solver/mean"], 1, "reward metrics report the raw reward");
});

test("roles: one group per role per task, each with its own estimator", () => {
  const mk = (attempt: number, solver: number, judge: number) =>
    EpisodeSchema.parse({
      id: `a/${attempt}`,
      taskId: "a",
      attempt,
      reward: solver,
      trajectories: [
        {
          name: "solver",
          reward: solver,
          steps: [{ promptIds: [1], completionIds: [2], logprobs: [-1] }],
        },
        {
          name: "judge",
          reward: judge,
          steps: [{ promptIds: [3], completionIds: [4], logprobs: [-1] }],
        },
      ],
    });
  const { datums, metrics, groups } = episodesToDatums([mk(0, 1, 1), mk(1, 0, 0), mk(2, 0, 1)], {
    estimator: "dr_grpo",
    estimatorByRole: { judge: "rloo" },
  });
  assert.deepEqual(
    groups.map((g) => [g.groupId, g.estimator]),
    [
      ["a#solver", "dr_grpo"],
      ["a#judge", "rloo"],
    ],
  );
  const solver = datums.filter((d) => d.groupId === "a#solver");
  const judge = datums.filter((d) => d.groupId === "a#judge");
  // solver [1, 0, 0], dr_grpo: rᵢ − 1/3
  assert.deepEqual(
    advantagesOf(solver).map((a) => a[0]),
    [1 - 1 / 3, -1 / 3, -1 / 3],
  );
  // judge [1, 0, 1], rloo: 1 − (0+1)/2 = 0.5;  0 − (1+1)/2 = −1;  1 − (1+0)/2 = 0.5
  assert.deepEqual(
    advantagesOf(judge).map((a) => a[0]),
    [0.5, -1, 0.5],
  );
  near(metrics["reward/judge/mean"]!, 2 / 3);
  near(metrics["reward/solver/mean"]!, 1 / 3);
});

test("reinforce_plus_plus_baseline whitens over every group of the role in the batch", () => {
  // centred: a [0.5, −0.5], b [0.75, −0.25, −0.25, −0.25]; Σ c² = 0.5 + 0.75 = 1.25 over 6 values,
  // sample std √(1.25/5) = 0.5
  const { datums } = episodesToDatums([...task("a", [1, 0]), ...task("b", [1, 0, 0, 0])], {
    estimator: "reinforce_plus_plus_baseline",
  });
  const s = 0.5 + EPS;
  const got = advantagesOf(datums).map((a) => a[0]!);
  [0.5 / s, -0.5 / s, 0.75 / s, -0.25 / s, -0.25 / s, -0.25 / s].forEach((e, i) => {
    near(got[i]!, e, `item ${i}`);
  });
});

test("per-step returns with γ: a step's advantage reflects what came after it", () => {
  // Episode 0: two steps with their own rewards [0, 1]; episode 1: no step rewards, outcome 0.
  // γ = 0.5: returns [0 + 0.5·1, 1] = [0.5, 1] and [0, 0]. dr_grpo over the group's 4 step
  // returns: mean 0.375 → [0.125, 0.625, −0.375, −0.375].
  const twoSteps = (rewards: (number | undefined)[]): StepInput[] => [
    { promptIds: [1, 2], completionIds: [3], logprobs: [-1], reward: rewards[0] },
    { promptIds: [1, 2, 3, 9], completionIds: [4, 5], logprobs: [-1, -1], reward: rewards[1] },
  ];
  const episodes = [
    episode("a", 0, 1, { steps: twoSteps([0, 1]) }),
    episode("a", 1, 0, { steps: twoSteps([undefined, undefined]) }),
  ];
  const { datums, groups } = episodesToDatums(episodes, {
    estimator: "dr_grpo",
    stepAdvantage: "per_step",
    gamma: 0.5,
  });
  assert.deepEqual(
    groups[0]!.scored.map((m) => m.samples),
    [
      [0.5, 1],
      [0, 0],
    ],
  );
  // The two steps of each episode merge into one row; each step's tokens carry its advantage.
  assert.equal(datums.length, 2);
  assert.deepEqual(datums[0]!.tokens, [1, 2, 3, 9, 4, 5]);
  assert.deepEqual(datums[0]!.advantages, [0, 0, 0.125, 0, 0.625, 0.625]);
  assert.deepEqual(datums[1]!.advantages, [0, 0, -0.375, 0, -0.375, -0.375]);
});

test("precomputed per-token advantages pass through unchanged (on-policy distillation)", () => {
  const student = episode("a", 0, null, {
    role: "student",
    steps: [
      {
        promptIds: [1, 2],
        completionIds: [3, 4],
        logprobs: [-1, -2],
        advantages: [0.3, -0.2],
      },
    ],
  });
  const solver = task("b", [1, 0]);
  const { datums, metrics } = episodesToDatums([student, ...solver], {
    estimatorByRole: { student: "precomputed" },
  });
  const d = datums.find((x) => x.groupId === "a#student")!;
  assert.deepEqual(d.advantages, [0, 0, 0.3, -0.2]);
  near(metrics["advantage/student/mean"]!, 0.05);
  assert.equal(metrics["groups/student/effective_fraction"], 1, "no zero-variance drop");
  assert.equal(datums.filter((x) => x.groupId === "b#solver").length, 2);

  const missing = episode("a", 0, null, { role: "student" });
  assert.throws(
    () => episodesToDatums([missing], { estimatorByRole: { student: "precomputed" } }),
    /episode a\/0, trajectory "student": step 0 needs step.advantages/,
  );
});

test("rewards: NaN and missing rewards are errors naming the episode", () => {
  // The schema refuses NaN, but episodes built in code are not parsed: the pipeline checks too.
  const base = episode("a", 1, 0);
  const nan: Episode = {
    ...base,
    reward: Number.NaN,
    trajectories: base.trajectories.map((t) => ({ ...t, reward: Number.NaN })),
  };
  assert.throws(
    () => episodesToDatums([episode("a", 0, 1), nan]),
    /episode a\/1, trajectory "solver": has reward NaN/,
  );
  assert.throws(
    () => episodesToDatums([episode("a", 0, null)]),
    /episode a\/0, trajectory "solver": has no reward; score episodes with an evaluator/,
  );
  // The trajectory's own reward wins over the episode's.
  const { groups } = episodesToDatums([
    episode("a", 0, 1, { trajectoryReward: 0 }),
    episode("a", 1, 1, { trajectoryReward: null }),
  ]);
  assert.deepEqual(
    groups[0]!.scored.map((m) => m.reward),
    [0, 1],
  );
});

test("estimators: unknown names fail early; custom ones get the config's options", () => {
  assert.throws(
    () => episodesToDatums([], { estimator: "gpro" }),
    /unknown advantage estimator "gpro"/,
  );
  assert.throws(
    () => episodesToDatums([], { estimatorByRole: { judge: "nope" } }),
    /unknown advantage estimator "nope"/,
  );
  estimators.register("test_scaled_reward", (rewards, options) =>
    rewards.map((g) => g.map((r) => r * (options?.["scale"] as number))),
  );
  const { datums } = episodesToDatums(task("a", [1, 0]), {
    estimator: "test_scaled_reward",
    estimatorOptions: { scale: 3 },
  });
  assert.deepEqual(
    advantagesOf(datums).map((a) => a[0]),
    [3, 0],
  );
  estimators.register("test_bad_shape", () => [[1]]);
  assert.throws(
    () => episodesToDatums(task("a", [1, 0]), { estimator: "test_bad_shape" }),
    /returned a different shape than its rewards/,
  );
});

test("row limits and logprob requirements come from the config", () => {
  const long = [episode("a", 0, 1, { completion: [5, 6, 7, 8] }), episode("a", 1, 0)];
  const { datums, metrics } = episodesToDatums(long, { maxResponseLength: 2 });
  assert.deepEqual(datums[0]!.tokens, [1, 2, 5, 6]);
  assert.equal(metrics["datums/truncated_rows"], 1);
  assert.equal(metrics["datums/truncated_tokens"], 2);

  const noLogprobs = task("a", [1, 0], {
    steps: [{ promptIds: [1], completionIds: [2] }],
  });
  assert.throws(() => episodesToDatums(noLogprobs), /0 logprobs/);
  // cross_entropy ignores sampling logprobs, so they are not required
  const ce = episodesToDatums(noLogprobs, { loss: { kind: "cross_entropy" } });
  assert.equal(ce.datums.length, 2);
  assert.equal(ce.metrics["datums/missing_logprob_tokens"], 2);
});

test("the config schema is strict and fills defaults", () => {
  const cfg = AlgorithmConfigSchema.parse({});
  assert.equal(cfg.estimator, "grpo");
  assert.equal(cfg.std, "sample");
  assert.equal(cfg.epsilon, 1e-6);
  assert.equal(cfg.stepAdvantage, "broadcast");
  assert.equal(cfg.dropZeroVarianceGroups, true);
  assert.deepEqual(cfg.overlong, { mask: false });
  assert.deepEqual(cfg.rejectionSampling, { enabled: false, maxDraws: 4, oversample: 1 });
  assert.equal(cfg.loss.kind, "ppo");
  assert.deepEqual(AlgorithmConfigSchema.parse(cfg), cfg, "parsing is idempotent");
  assert.throws(() => AlgorithmConfigSchema.parse({ estimater: "grpo" }), /estimater/);
  assert.throws(() => AlgorithmConfigSchema.parse({ overlong: { maks: true } }), /maks/);
  assert.throws(
    () => AlgorithmConfigSchema.parse({ overlong: { softPenalty: { maxLength: 4, buffer: 8 } } }),
    /buffer must not be larger than maxLength/,
  );
  assert.throws(() => AlgorithmConfigSchema.parse({ maskTerminations: ["crashed"] }));
  assert.throws(() => AlgorithmConfigSchema.parse({ gamma: 1.5 }));
  assert.throws(() => AlgorithmConfigSchema.parse({ loss: { kind: "ppo", clip: 0.2 } }), /clip/);
});

test("an empty batch gives no rows and zero counts", () => {
  const { datums, metrics } = episodesToDatums([]);
  assert.deepEqual(datums, []);
  assert.equal(metrics["batch/episodes"], 0);
  assert.equal(metrics["filter/infra_failed_fraction"], 0);
  assert.equal(metrics["datums/rows"], 0);
});

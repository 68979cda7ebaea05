/**
 * The one function the trainer calls: scored episodes → training rows and metrics.
 *
 *     episodes
 *       │ 1. drop infra-failed episodes                        filter/infra_failed_*
 *       │ 2. group by (task, role)                             batch/groups
 *       │ 3. reward per trajectory (+ DAPO overlong penalty),  filter/overlong_*, filter/masked_*
 *       │    mask by termination reason / truncation
 *       │ 4. drop groups: too small, zero variance             filter/dropped_groups/*
 *       │ 5. advantages, one estimator per role                advantage/<role>/*
 *       │ 6. rows: prefix-merged, masked, length-limited       datums/*
 *       ▼
 *     { datums, metrics, groups }
 *
 * Rewards come from `trajectory.reward`, else the episode's. A trajectory with no reward is an
 * error (score episodes before training), except in a role whose estimator is `precomputed`.
 *
 * Advantage modes (`stepAdvantage`):
 * - `broadcast` (default): each trajectory's reward is one sample; its advantage goes to every
 *   token it sampled.
 * - `per_step`: each step is a sample whose value is its discounted return
 *   G_t = Σ_{k≥t} γ^{k−t} r_k, with r_k the step's own reward (0 where unset); a trajectory with no
 *   step rewards gets its (shaped) reward on its last step, and the overlong penalty is added to
 *   the last step. The estimator sees the group's step returns flattened (trajectory order, then
 *   step order), so a step is compared with every step of its group, and its advantage goes to
 *   that step's tokens.
 * - a role whose estimator is `precomputed` takes per-token advantages from each step's
 *   `step.advantages` (aligned with its completion ids) unchanged: on-policy distillation.
 */
import { z } from "zod";
import type { Datum, Episode, Step } from "../types/index.js";
import { TerminationReasonSchema } from "../types/index.js";
import {
  DEFAULT_EPSILON,
  discountedReturns,
  type EstimatorOptions,
  estimatorForRole,
  estimators,
  PRECOMPUTED,
} from "./advantages.js";
import {
  broadcastAdvantage,
  buildDatums,
  datumMetrics,
  perStepAdvantages,
  type RowSource,
} from "./datums.js";
import {
  type GroupDropReason,
  groupDropReason,
  isSolved,
  type MaskReason,
  maskReasonOf,
  overlongPenalty,
  responseLength,
  splitInfraFailed,
} from "./filters.js";
import { type Group, type GroupMember, groupEpisodes, groupsByRole } from "./grouping.js";
import { LossSpecSchema } from "./loss.js";
import { type GroupSummary, roleMetrics } from "./metrics.js";
import { mean } from "./stats.js";

const positiveInt = z.number().int().positive();

export const OverlongConfigSchema = z.strictObject({
  /** Mask truncated responses (DAPO's overlong filtering): they train nothing. */
  mask: z.boolean().default(false),
  /** DAPO's soft overlong punishment, added to the reward (see filters.overlongPenalty). */
  softPenalty: z
    .strictObject({
      /** L_max, in response tokens. */
      maxLength: positiveInt,
      /** L_cache: the linear zone below L_max. */
      buffer: positiveInt,
      factor: z.number().positive().default(1),
    })
    .refine((p) => p.buffer <= p.maxLength, {
      message: "buffer must not be larger than maxLength",
      path: ["buffer"],
    })
    .optional(),
});

/** Rejection sampling with over-sampling; the trainer drives a RejectionSampler with these. */
export const RejectionSamplingConfigSchema = z.strictObject({
  enabled: z.boolean().default(false),
  /** Draws at most per training batch, the first included. */
  maxDraws: positiveInt.default(4),
  /** Draw this many times the estimated number of tasks needed. */
  oversample: z.number().min(1).default(1),
  /** The most tasks one draw holds. */
  maxDrawSize: positiveInt.optional(),
});

/** The `algorithm` section of the config. Strict: an unknown key is an error naming it. */
export const AlgorithmConfigSchema = z.strictObject({
  /** The advantage estimator of every role without its own entry in `estimatorByRole`. */
  estimator: z.string().min(1).default("grpo"),
  /** Per-role estimators, e.g. { solver: "grpo", judge: "rloo", student: "precomputed" }. */
  estimatorByRole: z.record(z.string(), z.string().min(1)).default({}),
  /** Extra options passed to every estimator (for custom ones). */
  estimatorOptions: z.record(z.string(), z.unknown()).default({}),
  /** GRPO: divide by the group std (false is Dr. GRPO). */
  normStd: z.boolean().default(true),
  /** Sample (n − 1, as TRL and verl) or population (n) std in every estimator that divides by one. */
  std: z.enum(["sample", "population"]).default("sample"),
  /** ε added to every std before dividing. */
  epsilon: z.number().nonnegative().default(DEFAULT_EPSILON),
  stepAdvantage: z.enum(["broadcast", "per_step"]).default("broadcast"),
  /** γ for per-step returns. */
  gamma: z.number().min(0).max(1).default(1),
  /** Trajectories of episodes that ended so are masked: kept in group statistics, not trained. */
  maskTerminations: z.array(TerminationReasonSchema).default([]),
  /** Drop groups whose rewards are all equal (no signal; they would only dilute the loss). */
  dropZeroVarianceGroups: z.boolean().default(true),
  /** Drop groups with fewer trajectories than this (after infra failures are removed). */
  minGroupSize: positiveInt.default(1),
  overlong: OverlongConfigSchema.default(OverlongConfigSchema.parse({})),
  /** Longest prompt part of a training row, in tokens (no limit by default). */
  maxPromptLength: positiveInt.optional(),
  /** Longest response part of a training row (everything after its first prompt). */
  maxResponseLength: positiveInt.optional(),
  /** A row whose prompt is over maxPromptLength: drop it (counted) or stop with an error. */
  onPromptOverflow: z.enum(["drop", "error"]).default("drop"),
  /** Merge a trajectory's steps into one row where prompts extend (false: a row per step). */
  mergeSteps: z.boolean().default(true),
  /** Require a sampling logprob per sampled token (default: unless the loss is cross_entropy). */
  requireLogprobs: z.boolean().optional(),
  rejectionSampling: RejectionSamplingConfigSchema.default(RejectionSamplingConfigSchema.parse({})),
  /** The loss the backend computes (see loss.ts). */
  loss: LossSpecSchema.default(LossSpecSchema.parse({ kind: "ppo" })),
});
export type AlgorithmConfig = z.infer<typeof AlgorithmConfigSchema>;
export type AlgorithmConfigInput = z.input<typeof AlgorithmConfigSchema>;

/** A trajectory after scoring, with what every stage decided about it. */
export interface ScoredMember extends GroupMember {
  /** The reward as evaluated (null only in a precomputed role). */
  reward: number | null;
  /** reward + overlong penalty: what the estimator sees. */
  shapedReward: number | null;
  /** The overlong penalty added (0 or negative). */
  penalty: number;
  maskReason: MaskReason | null;
  /** The estimator's inputs for this trajectory: [shaped reward], or its step returns. */
  samples: number[];
  /** One advantage per sample; empty for dropped groups and precomputed roles. */
  advantages: number[];
}

export interface ScoredGroup extends Group {
  estimator: string;
  scored: ScoredMember[];
  dropReason: GroupDropReason | null;
}

export interface PipelineResult {
  datums: Datum[];
  metrics: Record<string, number>;
  /** Every group, kept or dropped, with its decisions: for logging and debugging. */
  groups: ScoredGroup[];
}

/** Scored episodes → training rows and metrics. `config` is parsed with AlgorithmConfigSchema. */
export function episodesToDatums(
  episodes: readonly Episode[],
  config: AlgorithmConfigInput = {},
): PipelineResult {
  const cfg = AlgorithmConfigSchema.parse(config);
  for (const name of [cfg.estimator, ...Object.values(cfg.estimatorByRole)]) {
    if (!estimators.has(name)) estimators.get(name); // throws, listing the known estimators
  }
  const metrics: Record<string, number> = {};

  // 1. Infra failures never enter a group.
  const { kept, dropped } = splitInfraFailed(episodes);
  metrics["batch/episodes"] = episodes.length;
  metrics["filter/infra_failed_episodes"] = dropped.length;
  metrics["filter/infra_failed_fraction"] = episodes.length ? dropped.length / episodes.length : 0;

  // 2–4. Group, score, mask, drop.
  const groups = groupEpisodes(kept).map((g) => scoreGroup(g, cfg));
  const maskCounts = new Map<MaskReason, number>();
  const penalties: number[] = [];
  for (const g of groups) {
    for (const m of g.scored) {
      if (m.maskReason) maskCounts.set(m.maskReason, (maskCounts.get(m.maskReason) ?? 0) + 1);
      if (cfg.overlong.softPenalty && g.estimator !== PRECOMPUTED) penalties.push(m.penalty);
    }
  }
  metrics["filter/masked_trajectories"] = [...maskCounts.values()].reduce((a, b) => a + b, 0);
  for (const [reason, n] of maskCounts) metrics[`filter/masked_trajectories/${reason}`] = n;
  if (penalties.length) {
    metrics["filter/overlong_penalized"] = penalties.filter((p) => p < 0).length;
    metrics["filter/overlong_penalty_mean"] = mean(penalties);
  }
  metrics["batch/groups"] = groups.length;
  metrics["batch/groups_kept"] = groups.filter((g) => !g.dropReason).length;
  metrics["filter/dropped_groups/min_group_size"] = groups.filter(
    (g) => g.dropReason === "min_group_size",
  ).length;
  metrics["filter/dropped_groups/zero_variance"] = groups.filter(
    (g) => g.dropReason === "zero_variance",
  ).length;

  // 5. Advantages, per role, over the role's kept groups (batch-level estimators see them all).
  const estimatorOptions: EstimatorOptions = {
    ...cfg.estimatorOptions,
    normStd: cfg.normStd,
    epsilon: cfg.epsilon,
    std: cfg.std,
  };
  for (const [role, roleGroups] of groupsByRole(groups)) {
    const name = estimatorForRole(role, cfg);
    if (name === PRECOMPUTED) continue;
    const live = roleGroups.filter((g) => !g.dropReason);
    if (live.length === 0) continue;
    const inputs = live.map((g) => g.scored.flatMap((m) => m.samples));
    const outputs = estimators.get(name)(inputs, { ...estimatorOptions, role });
    if (
      !Array.isArray(outputs) ||
      outputs.length !== inputs.length ||
      outputs.some((o, i) => !Array.isArray(o) || o.length !== inputs[i]!.length)
    ) {
      throw new Error(
        `advantage estimator "${name}" returned a different shape than its rewards (${inputs.length} groups); it must return one advantage per reward, in order`,
      );
    }
    live.forEach((g, i) => {
      const out = outputs[i]!;
      let k = 0;
      for (const m of g.scored) {
        m.advantages = out.slice(k, k + m.samples.length);
        k += m.samples.length;
      }
      if (out.some((a) => !Number.isFinite(a))) {
        throw new Error(
          `advantage estimator "${name}" returned a non-finite advantage for group ${g.groupId}`,
        );
      }
    });
  }

  // 6. Rows: every kept, unmasked trajectory.
  const sources: RowSource[] = [];
  const precomputedAdvantages = new Map<string, number[]>();
  for (const g of groups) {
    if (g.dropReason) continue;
    for (const m of g.scored) {
      if (m.maskReason) continue;
      const steps = m.trajectory.steps;
      const label = `episode ${m.episode.id}, trajectory "${g.role}"`;
      let advantages: number[][];
      if (g.estimator === PRECOMPUTED) {
        advantages = steps.map((s, k) => precomputedOf(s, k, label));
        const seen = precomputedAdvantages.get(g.role) ?? [];
        for (const a of advantages.flat()) seen.push(a);
        precomputedAdvantages.set(g.role, seen);
      } else if (cfg.stepAdvantage === "per_step") {
        advantages = perStepAdvantages(steps, m.advantages);
      } else {
        advantages = broadcastAdvantage(steps, m.advantages[0] ?? 0);
      }
      sources.push({ groupId: g.groupId, steps, advantages, label });
    }
  }
  const { datums, stats } = buildDatums(sources, {
    maxPromptLength: cfg.maxPromptLength,
    maxResponseLength: cfg.maxResponseLength,
    onPromptOverflow: cfg.onPromptOverflow,
    mergeSteps: cfg.mergeSteps,
    requireLogprobs: cfg.requireLogprobs ?? cfg.loss.kind !== "cross_entropy",
  });
  Object.assign(metrics, datumMetrics(stats));

  // 7. Per-role metrics.
  for (const [role, roleGroups] of groupsByRole(groups)) {
    const summaries: GroupSummary[] = roleGroups.map((g) => {
      const scored = g.scored.filter((m) => m.reward !== null);
      return {
        rewards: scored.map((m) => m.reward!),
        solved: scored.map((m) => isSolved(m.episode, m.reward!)),
        terminations: g.scored.map((m) => m.episode.terminationReason),
        kept: !g.dropReason,
      };
    });
    const advantages =
      estimatorForRole(role, cfg) === PRECOMPUTED
        ? (precomputedAdvantages.get(role) ?? [])
        : roleGroups
            .filter((g) => !g.dropReason)
            .flatMap((g) => g.scored.flatMap((m) => m.advantages));
    Object.assign(metrics, roleMetrics({ role, groups: summaries, advantages }));
  }
  return { datums, metrics, groups };
}

function rewardError(m: GroupMember, what: string): Error {
  return new Error(
    `episode ${m.episode.id}, trajectory "${m.trajectory.name}": ${what}; score episodes with an evaluator (or return a finite reward from the agent) before training — a failed grade should be 0`,
  );
}

/** Steps 3–4 for one group: rewards, penalty, mask, estimator samples, drop decision. */
function scoreGroup(group: Group, cfg: AlgorithmConfig): ScoredGroup {
  const estimator = estimatorForRole(group.role, cfg);
  const precomputed = estimator === PRECOMPUTED;
  const soft = cfg.overlong.softPenalty;
  const scored = group.members.map((m): ScoredMember => {
    const raw = m.trajectory.reward ?? m.episode.reward ?? null;
    if (raw === null && !precomputed) throw rewardError(m, "has no reward");
    if (raw !== null && !Number.isFinite(raw)) throw rewardError(m, `has reward ${raw}`);
    const penalty = soft && !precomputed ? overlongPenalty(responseLength(m), soft) : 0;
    const shaped = raw === null ? null : raw + penalty;
    const maskReason = maskReasonOf(m, {
      maskTerminations: cfg.maskTerminations,
      maskOverlong: cfg.overlong.mask,
    });
    let samples: number[] = [];
    if (!precomputed) {
      samples =
        cfg.stepAdvantage === "per_step"
          ? discountedReturns(stepRewards(m, shaped!, penalty), cfg.gamma)
          : [shaped!];
    }
    return {
      ...m,
      reward: raw,
      shapedReward: shaped,
      penalty,
      maskReason,
      samples,
      advantages: [],
    };
  });
  const values = scored.flatMap((m) => m.samples);
  const dropReason = groupDropReason(values, scored.length, {
    minGroupSize: cfg.minGroupSize,
    // A precomputed role has no rewards to have variance in.
    dropZeroVariance: cfg.dropZeroVarianceGroups && !precomputed,
  });
  return { ...group, estimator, scored, dropReason };
}

/**
 * Per-step rewards r_k of a trajectory: the steps' own rewards (0 where unset) plus the overlong
 * penalty on the last step; with no step rewards at all, the shaped trajectory reward on the last
 * step (an outcome reward).
 */
function stepRewards(m: GroupMember, shaped: number, penalty: number): number[] {
  const steps = m.trajectory.steps;
  if (steps.length === 0) return [];
  if (!steps.some((s) => s.reward !== undefined)) {
    return steps.map((_, k) => (k === steps.length - 1 ? shaped : 0));
  }
  return steps.map((s, k) => {
    const r = s.reward ?? 0;
    if (!Number.isFinite(r)) throw rewardError(m, `step ${k} has reward ${r}`);
    return k === steps.length - 1 ? r + penalty : r;
  });
}

/** A step's precomputed per-token advantages from `step.advantages`, checked. */
function precomputedOf(step: Step, k: number, label: string): number[] {
  const adv = step.advantages;
  if (step.completionIds.length === 0) return [];
  if (
    !Array.isArray(adv) ||
    adv.length !== step.completionIds.length ||
    !adv.every((a) => typeof a === "number" && Number.isFinite(a))
  ) {
    throw new Error(
      `${label}: step ${k} needs step.advantages, one finite number per completion token (${step.completionIds.length}), because its role's estimator is "${PRECOMPUTED}"`,
    );
  }
  return adv as number[];
}

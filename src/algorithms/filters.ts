/**
 * Filters: which episodes, trajectories and groups reach the loss, and how rewards are shaped on
 * the way. Each filter is a small pure decision; the pipeline applies them in order and records
 * what each one removed, so nothing disappears without a metric.
 *
 * Three levels, three actions:
 * - episode, dropped: infra-failed episodes never enter a group (the infrastructure failed, not the
 *   policy: neither its reward nor its tokens say anything about the model);
 * - trajectory, masked: a masked trajectory (by termination reason, or truncated when overlong
 *   masking is on) still counts in its group's reward statistics — its reward is real — but
 *   produces no training rows, so its tokens are neither trained on nor counted in the loss's
 *   denominator (DAPO's "overlong filtering");
 * - group, dropped: a group with fewer than `minGroupSize` trajectories, or whose rewards are all
 *   equal (zero variance: GRPO gives it zero advantage anyway, and keeping it would only inflate
 *   the token-mean denominator — DAPO's dynamic sampling), produces no rows.
 */
import type { Episode, TerminationReason } from "../types/index.js";
import type { GroupMember } from "./grouping.js";
import { allEqual } from "./stats.js";

// ── episodes ────────────────────────────────────────────────────────────────────────────────

/** Splits off infra-failed episodes: they are excluded from groups, scores and training. */
export function splitInfraFailed(episodes: readonly Episode[]): {
  kept: Episode[];
  dropped: Episode[];
} {
  const kept: Episode[] = [];
  const dropped: Episode[] = [];
  for (const e of episodes) (e.infraFailed ? dropped : kept).push(e);
  return { kept, dropped };
}

/**
 * Whether a trajectory counts as solved, for the "solved none / all / partially" metrics and the
 * rejection sampler: the episode's `isCorrect` when the evaluator set it, else reward > 0.
 */
export function isSolved(episode: Episode, reward: number): boolean {
  return episode.isCorrect ?? reward > 0;
}

// ── trajectories ────────────────────────────────────────────────────────────────────────────

/** Tokens the policy generated in a trajectory: Σ over steps of |completion ids|. */
export function responseLength(member: GroupMember): number {
  let n = 0;
  for (const s of member.trajectory.steps) n += s.completionIds.length;
  return n;
}

/**
 * Whether the policy's response was cut off by a length limit: the episode ended with
 * `max_response_length_exceeded`, or any of the trajectory's calls finished with reason "length".
 */
export function isTruncated(member: GroupMember): boolean {
  return (
    member.episode.terminationReason === "max_response_length_exceeded" ||
    member.trajectory.steps.some((s) => s.finishReason === "length")
  );
}

export interface OverlongPenalty {
  /** L_max: the response length (in tokens) beyond which the full penalty applies. */
  maxLength: number;
  /** L_cache: the soft zone just below L_max where the penalty grows linearly. */
  buffer: number;
  /** Scale of the penalty (default 1: from 0 down to −1, as in DAPO). */
  factor?: number;
}

/**
 * DAPO's soft overlong punishment (Yu et al. 2025, eq. 13), added to the reward; |y| is the
 * trajectory's response length (all its completion tokens):
 *
 *     R_length(y) = 0                                   if |y| ≤ L_max − L_cache
 *                 = ((L_max − L_cache) − |y|) / L_cache  if L_max − L_cache < |y| ≤ L_max
 *                 = −1                                  if L_max < |y|
 *
 * multiplied by `factor`.
 */
export function overlongPenalty(length: number, p: OverlongPenalty): number {
  const factor = p.factor ?? 1;
  const start = p.maxLength - p.buffer;
  if (length <= start) return 0;
  if (length <= p.maxLength) return (factor * (start - length)) / p.buffer;
  return -factor;
}

/** Why a trajectory is masked: a termination reason from the config, or "overlong". */
export type MaskReason = TerminationReason | "overlong";

/**
 * The reason to mask a trajectory, or null to keep it. Overlong masking is checked first, so a
 * truncated response counts once, as "overlong", even if its termination reason is also masked.
 */
export function maskReasonOf(
  member: GroupMember,
  opts: { maskTerminations: readonly TerminationReason[]; maskOverlong: boolean },
): MaskReason | null {
  if (opts.maskOverlong && isTruncated(member)) return "overlong";
  const reason = member.episode.terminationReason;
  return opts.maskTerminations.includes(reason) ? reason : null;
}

// ── groups ──────────────────────────────────────────────────────────────────────────────────

export type GroupDropReason = "min_group_size" | "zero_variance";

/**
 * Whether to drop a whole group, given the values its estimator would see (trajectory rewards, or
 * step returns in per-step mode). Too small is checked first.
 */
export function groupDropReason(
  values: readonly number[],
  size: number,
  opts: { minGroupSize: number; dropZeroVariance: boolean },
): GroupDropReason | null {
  if (size < opts.minGroupSize) return "min_group_size";
  if (opts.dropZeroVariance && allEqual(values)) return "zero_variance";
  return null;
}

// ── rejection sampling with over-sampling ───────────────────────────────────────────────────

export interface RejectionSamplingOptions {
  /** Groups (tasks) a training batch needs. */
  targetGroups: number;
  /** Draws at most, the first included; after the last one the batch is what was accepted. */
  maxDraws: number;
  /** Multiplies the suggested size of the next draw beyond the estimate (default 1). */
  oversample?: number;
  /** The most tasks one draw should hold (no cap by default). */
  maxDrawSize?: number;
  /**
   * Whether a task's episodes (infra failures removed) make a useful group. Default: at least two
   * scored episodes whose rewards are not all equal — a partially solved task.
   */
  accept?: (episodes: readonly Episode[]) => boolean;
}

export interface RejectionDecision {
  /** Stop drawing: enough groups were accepted, or the draw cap was reached. */
  done: boolean;
  reason: "enough" | "max_draws" | "continue";
  draws: number;
  accepted: number;
  /** Groups still missing (0 once enough). */
  needed: number;
  /** Suggested number of tasks for the next draw (0 when done). */
  nextDrawTasks: number;
}

/** The rewards of a group's scored episodes (infra failures and unscored ones left out). */
function scoredRewards(episodes: readonly Episode[]): number[] {
  return episodes.flatMap((e) =>
    !e.infraFailed && typeof e.reward === "number" ? [e.reward] : [],
  );
}

function partiallySolved(episodes: readonly Episode[]): boolean {
  const rewards = scoredRewards(episodes);
  return rewards.length >= 2 && !allEqual(rewards);
}

/**
 * Whether a group is settled: at least two scored episodes, all with the same reward (all right or
 * all wrong), so it has zero advantage everywhere and teaches nothing (trainer.skipSettled).
 */
export function isSettledGroup(episodes: readonly Episode[]): boolean {
  const rewards = scoredRewards(episodes);
  return rewards.length >= 2 && allEqual(rewards);
}

/**
 * DAPO's dynamic sampling as an accumulator the trainer drives: draw a batch of tasks × n, `add`
 * its episodes, and keep drawing while the decision says so. Tasks whose group would have zero
 * variance (all solved, none solved) are rejected; accepted groups accumulate until
 * `targetGroups`, and the batch is cut to exactly that many (the surplus is counted). After
 * `maxDraws` draws the batch is whatever was accepted, and the shortfall is counted.
 *
 * The next draw's size is an estimate, not a guess: with a tasks accepted out of s seen, the
 * acceptance rate is p̂ = (a + 1)/(s + 2) (Laplace's rule of succession, never 0 or 1), and
 *
 *     nextDrawTasks = ⌈ needed · oversample / p̂ ⌉     (capped by maxDrawSize)
 */
export class RejectionSampler {
  readonly #opts: Required<Omit<RejectionSamplingOptions, "maxDrawSize">> & {
    maxDrawSize: number;
  };
  readonly #accepted: Episode[][] = [];
  readonly #acceptedTasks = new Set<string>();
  #draws = 0;
  #tasksSeen = 0;
  #rejectedAll = 0;
  #rejectedNone = 0;
  #rejectedTooSmall = 0;
  #rejectedOther = 0;
  #duplicates = 0;
  #infraFailed = 0;

  constructor(options: RejectionSamplingOptions) {
    if (!(Number.isInteger(options.targetGroups) && options.targetGroups > 0)) {
      throw new RangeError(`targetGroups must be a positive integer, got ${options.targetGroups}`);
    }
    if (!(Number.isInteger(options.maxDraws) && options.maxDraws > 0)) {
      throw new RangeError(`maxDraws must be a positive integer, got ${options.maxDraws}`);
    }
    this.#opts = {
      targetGroups: options.targetGroups,
      maxDraws: options.maxDraws,
      oversample: options.oversample ?? 1,
      maxDrawSize: options.maxDrawSize ?? Number.POSITIVE_INFINITY,
      accept: options.accept ?? partiallySolved,
    };
  }

  /** Adds one draw's episodes (every attempt of every task drawn) and says whether to go on. */
  add(episodes: readonly Episode[]): RejectionDecision {
    if (this.#draws >= this.#opts.maxDraws) {
      throw new Error(
        `the rejection sampler already had its ${this.#opts.maxDraws} draws; call result()`,
      );
    }
    this.#draws++;
    const byTask = new Map<string, Episode[]>();
    for (const e of episodes) {
      if (e.infraFailed) {
        this.#infraFailed++;
        continue;
      }
      const list = byTask.get(e.taskId);
      if (list) list.push(e);
      else byTask.set(e.taskId, [e]);
    }
    for (const [taskId, group] of byTask) {
      this.#tasksSeen++;
      if (this.#acceptedTasks.has(taskId)) {
        // The same task accepted twice would merge into one bigger group downstream and
        // miscount the batch; the later draw's episodes are dropped.
        this.#duplicates++;
      } else if (this.#opts.accept(group)) {
        this.#accepted.push(group);
        this.#acceptedTasks.add(taskId);
      } else {
        const scored = group.filter((e) => typeof e.reward === "number");
        if (scored.length < 2) this.#rejectedTooSmall++;
        else if (scored.every((e) => isSolved(e, e.reward!))) this.#rejectedAll++;
        else if (scored.every((e) => !isSolved(e, e.reward!))) this.#rejectedNone++;
        else this.#rejectedOther++;
      }
    }
    return this.decision();
  }

  /** Where the sampler stands, without adding a draw. */
  decision(): RejectionDecision {
    const accepted = this.#accepted.length;
    const needed = Math.max(0, this.#opts.targetGroups - accepted);
    const base = { draws: this.#draws, accepted, needed };
    if (needed === 0) return { ...base, done: true, reason: "enough", nextDrawTasks: 0 };
    if (this.#draws >= this.#opts.maxDraws) {
      return { ...base, done: true, reason: "max_draws", nextDrawTasks: 0 };
    }
    const pHat = (accepted + 1) / (this.#tasksSeen + 2);
    const next = Math.ceil((needed * this.#opts.oversample) / pHat);
    return {
      ...base,
      done: false,
      reason: "continue",
      nextDrawTasks: Math.max(1, Math.min(next, this.#opts.maxDrawSize)),
    };
  }

  /** The batch: the episodes of the first `targetGroups` accepted tasks, and what was rejected. */
  result(): { episodes: Episode[]; metrics: Record<string, number> } {
    const kept = this.#accepted.slice(0, this.#opts.targetGroups);
    const d = this.decision();
    return {
      episodes: kept.flat(),
      metrics: {
        "rejection/draws": this.#draws,
        "rejection/tasks_seen": this.#tasksSeen,
        "rejection/groups_accepted": kept.length,
        "rejection/acceptance_rate": this.#tasksSeen ? this.#accepted.length / this.#tasksSeen : 0,
        "rejection/rejected_solved_all": this.#rejectedAll,
        "rejection/rejected_solved_none": this.#rejectedNone,
        "rejection/rejected_too_small": this.#rejectedTooSmall,
        "rejection/rejected_other": this.#rejectedOther,
        "rejection/duplicate_tasks": this.#duplicates,
        "rejection/infra_failed_episodes": this.#infraFailed,
        "rejection/surplus_groups": this.#accepted.length - kept.length,
        "rejection/shortfall_groups": d.needed,
        "rejection/hit_max_draws": d.reason === "max_draws" ? 1 : 0,
      },
    };
  }
}

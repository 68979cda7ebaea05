/**
 * Per-role training metrics: how the policy did (rewards), what signal it got (advantages), and
 * how much of the batch was usable (groups solved none / all / partially, effective fraction).
 *
 * Keys are `<family>/<role>/<name>`, e.g. `reward/solver/mean`, so a multi-agent run shows each
 * role on its own chart. Spreads here are population std (σ, dividing by n): they describe this
 * batch, they do not estimate anything. A statistic with no values is left out rather than NaN.
 */
import type { TerminationReason } from "../types/index.js";
import { mean, percentile, std } from "./stats.js";

/** One group as the metrics see it. */
export interface GroupSummary {
  /** Raw rewards of its trajectories that have one (before shaping). */
  rewards: number[];
  /** Whether each trajectory counts as solved (see filters.isSolved), aligned with `rewards`. */
  solved: boolean[];
  /** The termination reason of each trajectory's episode. */
  terminations: TerminationReason[];
  /** Whether the group reached the loss (not dropped by minGroupSize or zero variance). */
  kept: boolean;
}

export interface RoleSummary {
  role: string;
  groups: GroupSummary[];
  /** Every advantage the role's kept groups produced (per trajectory, per step or per token). */
  advantages: number[];
}

/** The percentiles of group mean rewards that are reported. */
export const GROUP_REWARD_PERCENTILES = [10, 25, 50, 75, 90] as const;

export function roleMetrics(summary: RoleSummary): Record<string, number> {
  const { role, groups, advantages } = summary;
  const out: Record<string, number> = {};
  const put = (key: string, value: number) => {
    if (Number.isFinite(value)) out[key] = value;
  };

  const rewards = groups.flatMap((g) => g.rewards);
  if (rewards.length > 0) {
    put(`reward/${role}/mean`, mean(rewards));
    put(`reward/${role}/std`, std(rewards, "population"));
    put(`reward/${role}/min`, Math.min(...rewards));
    put(`reward/${role}/max`, Math.max(...rewards));
  }

  if (advantages.length > 0) {
    put(`advantage/${role}/mean`, mean(advantages));
    put(`advantage/${role}/std`, std(advantages, "population"));
    put(
      `advantage/${role}/fraction_zero`,
      advantages.filter((a) => a === 0).length / advantages.length,
    );
  }

  const n = groups.length;
  put(`groups/${role}/count`, n);
  if (n > 0) {
    let none = 0;
    let all = 0;
    let partial = 0;
    for (const g of groups) {
      if (g.solved.length === 0) continue;
      const solved = g.solved.filter(Boolean).length;
      if (solved === 0) none++;
      else if (solved === g.solved.length) all++;
      else partial++;
    }
    put(`groups/${role}/solved_none`, none / n);
    put(`groups/${role}/solved_all`, all / n);
    put(`groups/${role}/solved_partially`, partial / n);
    put(`groups/${role}/effective_fraction`, groups.filter((g) => g.kept).length / n);
    put(`groups/${role}/size_mean`, mean(groups.map((g) => g.terminations.length)));
  }

  const groupMeans = groups.filter((g) => g.rewards.length > 0).map((g) => mean(g.rewards));
  if (groupMeans.length > 0) {
    for (const p of GROUP_REWARD_PERCENTILES) {
      put(`group_reward/${role}/p${p}`, percentile(groupMeans, p));
    }
  }

  const terminations = groups.flatMap((g) => g.terminations);
  if (terminations.length > 0) {
    const counts = new Map<string, number>();
    for (const t of terminations) counts.set(t, (counts.get(t) ?? 0) + 1);
    for (const [reason, c] of counts) put(`termination/${role}/${reason}`, c / terminations.length);
  }
  return out;
}

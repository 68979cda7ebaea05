/**
 * Grouping: the unit advantages are computed on. Episodes of one task form a group; inside it,
 * trajectories are split by their name (the agent's role: "solver", "judge", ...), so a
 * multi-agent flow gives one group per role per task, and each role is compared only with itself.
 */
import type { Episode, Trajectory, TrajectoryGroup } from "../types/index.js";

/** The role of a trajectory that has no name (the Trajectory schema's own default). */
export const DEFAULT_ROLE = "default";

/** One trajectory of a group, with the episode it came from (its reward, termination, id). */
export interface GroupMember {
  episode: Episode;
  trajectory: Trajectory;
  /** Position of the trajectory in `episode.trajectories`. */
  index: number;
}

/**
 * A TrajectoryGroup plus where each trajectory came from. `members[i].trajectory` is
 * `trajectories[i]`.
 */
export interface Group extends TrajectoryGroup {
  members: GroupMember[];
}

export function roleOf(trajectory: Trajectory): string {
  return trajectory.name || DEFAULT_ROLE;
}

/**
 * The id a group's datums carry. Stable across runs for the same task and role; the separator is
 * one a role name is unlikely to contain, and the role comes last so ids of one task sort together.
 */
export function groupIdOf(taskId: string, role: string): string {
  return `${taskId}#${role}`;
}

/** The weight versions a trajectory's steps were sampled with, sorted and unique. */
export function weightVersionsOf(trajectories: readonly Trajectory[]): number[] {
  const seen = new Set<number>();
  for (const t of trajectories) {
    for (const s of t.steps) if (s.weightVersion !== undefined) seen.add(s.weightVersion);
  }
  return [...seen].sort((a, b) => a - b);
}

/**
 * Groups episodes by (task, role). Order is stable: groups appear in the order their task first
 * appears, roles in the order first seen; members keep episode order. An episode with two
 * trajectories of the same role puts both in that role's group. Filtering (infra failures, ...)
 * happens before this: every episode given here is grouped.
 */
export function groupEpisodes(episodes: readonly Episode[]): Group[] {
  const byId = new Map<string, Group>();
  for (const episode of episodes) {
    episode.trajectories.forEach((trajectory, index) => {
      const role = roleOf(trajectory);
      const groupId = groupIdOf(episode.taskId, role);
      let group = byId.get(groupId);
      if (!group) {
        group = {
          groupId,
          taskId: episode.taskId,
          role,
          trajectories: [],
          weightVersions: [],
          members: [],
        };
        byId.set(groupId, group);
      }
      group.trajectories.push(trajectory);
      group.members.push({ episode, trajectory, index });
    });
  }
  const groups = [...byId.values()];
  for (const g of groups) g.weightVersions = weightVersionsOf(g.trajectories);
  return groups;
}

/** Groups keyed by role, each role's groups in their original order. */
export function groupsByRole<G extends { role: string }>(groups: readonly G[]): Map<string, G[]> {
  const out = new Map<string, G[]>();
  for (const g of groups) {
    const list = out.get(g.role);
    if (list) list.push(g);
    else out.set(g.role, [g]);
  }
  return out;
}

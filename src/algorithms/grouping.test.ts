import assert from "node:assert/strict";
import { test } from "node:test";
import { type Episode, type EpisodeInput, EpisodeSchema } from "../types/index.js";
import { DEFAULT_ROLE, groupEpisodes, groupIdOf, groupsByRole, roleOf } from "./grouping.js";

const ep = (input: EpisodeInput): Episode => EpisodeSchema.parse(input);

test("episodes of one task form a group; trajectories split by role", () => {
  const episodes = [
    ep({
      id: "a0",
      taskId: "a",
      trajectories: [
        { name: "solver", steps: [{ weightVersion: 2 }], reward: 1 },
        { name: "judge", steps: [{ weightVersion: 1 }], reward: 0 },
      ],
    }),
    ep({ id: "b0", taskId: "b", trajectories: [{ name: "solver", reward: 0 }] }),
    ep({
      id: "a1",
      taskId: "a",
      attempt: 1,
      trajectories: [
        { name: "judge", steps: [{ weightVersion: 3 }], reward: 1 },
        { name: "solver", steps: [{ weightVersion: 2 }, { weightVersion: 3 }], reward: 0 },
      ],
    }),
  ];
  const groups = groupEpisodes(episodes);
  assert.deepEqual(
    groups.map((g) => [g.groupId, g.taskId, g.role, g.members.map((m) => m.episode.id)]),
    [
      ["a#solver", "a", "solver", ["a0", "a1"]],
      ["a#judge", "a", "judge", ["a0", "a1"]],
      ["b#solver", "b", "solver", ["b0"]],
    ],
  );
  const [solver, judge] = groups;
  assert.deepEqual(solver!.weightVersions, [2, 3], "sorted, unique");
  assert.deepEqual(judge!.weightVersions, [1, 3]);
  // members and trajectories are aligned, and know where they came from
  assert.equal(solver!.trajectories[1], episodes[2]!.trajectories[1]);
  assert.equal(solver!.members[1]!.trajectory, solver!.trajectories[1]);
  assert.equal(solver!.members[1]!.index, 1);
  assert.deepEqual([...groupsByRole(groups).keys()], ["solver", "judge"]);
  assert.equal(groupsByRole(groups).get("solver")!.length, 2);
});

test("unnamed trajectories get the stable default role", () => {
  const raw = { name: "", steps: [] };
  assert.equal(roleOf(raw), DEFAULT_ROLE);
  const [g] = groupEpisodes([
    { ...ep({ id: "x", taskId: "t" }), trajectories: [raw] },
    ep({ id: "y", taskId: "t", trajectories: [{}] }), // the schema's default name
  ]);
  assert.equal(g!.role, "default");
  assert.equal(g!.groupId, groupIdOf("t", "default"));
  assert.equal(g!.members.length, 2);
});

test("two trajectories of one role in one episode both join that role's group", () => {
  const groups = groupEpisodes([
    ep({ id: "e", taskId: "t", trajectories: [{ name: "solver" }, { name: "solver" }] }),
  ]);
  assert.equal(groups.length, 1);
  assert.deepEqual(
    groups[0]!.members.map((m) => m.index),
    [0, 1],
  );
  assert.deepEqual(groups[0]!.weightVersions, []);
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Task } from "../types/index.js";
import { TaskLoader } from "./loader.js";

const tasks: Task[] = Array.from({ length: 5 }, (_, i) => ({
  id: `t${i}`,
  dataSource: "x",
  index: i,
  data: {},
}));

describe("TaskLoader", () => {
  it("hands out each task once per epoch in a seeded order, then stops", () => {
    const l = new TaskLoader(tasks, 3, 2);
    const seen: string[] = [];
    for (let t = l.take(); t; t = l.take()) seen.push(t.task.id);
    assert.equal(seen.length, 10);
    assert.deepEqual([...seen.slice(0, 5)].sort(), ["t0", "t1", "t2", "t3", "t4"]);
    assert.deepEqual([...seen.slice(5)].sort(), ["t0", "t1", "t2", "t3", "t4"]);
    const again = new TaskLoader(tasks, 3, 2);
    assert.deepEqual(
      Array.from({ length: 10 }, () => again.take()!.task.id),
      seen,
      "same seed, same order",
    );
    const other = new TaskLoader(tasks, 4, 2);
    assert.notDeepEqual(
      Array.from({ length: 10 }, () => other.take()!.task.id),
      seen,
    );
  });

  it("resumes from the frontier: untrained tasks come back, trained ones never", () => {
    const l = new TaskLoader(tasks, 1, 3);
    const taken = Array.from({ length: 7 }, () => l.take()!);
    // trained out of order: 0,1,2 and 4,6 (3 and 5 were in flight when the run stopped)
    l.markTrained([0, 2, 1]);
    l.markTrained([6, 4]);
    assert.deepEqual(l.state(), { frontier: 3, beyond: [4, 6] });
    const r = new TaskLoader(tasks, 1, 3, l.state());
    const next = Array.from({ length: 4 }, () => r.take()!.ordinal);
    assert.deepEqual(next, [3, 5, 7, 8]);
    assert.equal(r.at(3).task.id, taken[3]!.task.id);
    r.markTrained([3, 5]);
    assert.deepEqual(r.state(), { frontier: 7, beyond: [] });
  });

  it("refuses an empty dataset", () => {
    assert.throws(() => new TaskLoader([], 0, 1), /training set is empty/);
  });
});

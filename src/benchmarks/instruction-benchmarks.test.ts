import assert from "node:assert/strict";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { loadFromFakeHub } from "../testing/fake-hub.js";
import { TaskSchema } from "../types/index.js";
import { BenchmarkRowError, benchmarkMessages, getBenchmark } from "./catalog.js";
import { loadBenchmark } from "./load.js";

const dataDir = fileURLToPath(new URL("./fixtures/data/", import.meta.url));

const FIXTURES = {
  ifeval: { split: "train", file: "train.jsonl" },
  ifbench: { split: "test", file: "test.parquet" },
} as const;

for (const [name, { split, file }] of Object.entries(FIXTURES)) {
  test(`${name}/${split}: rows become data.prompt, data.instructionIds and parallel data.kwargs`, async () => {
    const entry = getBenchmark(name);
    assert.equal(entry.grader, name);
    const tasks = await loadBenchmark(name, { split, dataDir });
    assert.equal(tasks.length, 2);
    for (const task of tasks) {
      assert.deepEqual(TaskSchema.parse(task), task);
      assert.deepEqual(JSON.parse(JSON.stringify(task)), task);
      const { prompt, instructionIds, kwargs } = task.data as {
        prompt: string;
        instructionIds: string[];
        kwargs: Record<string, unknown>[];
      };
      assert.equal(typeof prompt, "string");
      assert.ok(instructionIds.length > 0);
      assert.equal(kwargs.length, instructionIds.length);
      // The prompt alone, as the benchmarks run it: no system prompt.
      assert.deepEqual(benchmarkMessages(entry, task), [{ role: "user", content: prompt }]);
    }
    const hub = await loadFromFakeHub(name, split, `${dataDir}${name}/${file}`);
    assert.deepEqual(hub.tasks, tasks);
  });
}

test("ifeval keeps each row's key and kwargs as given; ifbench's Parquet kwargs keep their null arguments", async () => {
  const [, ifeval] = await loadBenchmark("ifeval", { dataDir });
  assert.equal(ifeval!.id, "ifeval/1002");
  assert.deepEqual(ifeval!.data.instructionIds, [
    "length_constraints:number_words",
    "detectable_format:number_bullet_lists",
    "change_case:english_lowercase",
  ]);
  assert.deepEqual(ifeval!.data.kwargs, [
    { relation: "at least", num_words: 60 },
    { num_bullets: 3 },
    {},
  ]);
  const [, ifbench] = await loadBenchmark("ifbench", { dataDir });
  assert.deepEqual(ifbench!.data.kwargs, [
    { N: null, keyword: "scattering" },
    { N: 3, keyword: null },
  ]);
  assert.deepEqual(getBenchmark("ifbench").source.hfSplits, { test: "train" });
});

test("malformed instruction rows fail naming the field", () => {
  const ifeval = getBenchmark("ifeval");
  const base = {
    key: 1,
    prompt: "Write.",
    instruction_id_list: ["punctuation:no_comma"],
    kwargs: [{}],
  };
  const fails = (row: Record<string, unknown>, field: string, problem: RegExp) =>
    assert.throws(
      () => ifeval.toTask(row, 7, "train"),
      (e: unknown) =>
        e instanceof BenchmarkRowError &&
        e.field === field &&
        e.rowIndex === 7 &&
        problem.test(e.message),
    );
  fails({ ...base, prompt: undefined }, "prompt", /is missing/);
  fails({ ...base, instruction_id_list: [] }, "instruction_id_list", /non-empty list of strings/);
  fails({ ...base, kwargs: undefined }, "kwargs", /is missing/);
  fails({ ...base, kwargs: [{}, {}] }, "kwargs", /holds 2 objects for 1 instruction ids/);
  fails({ ...base, kwargs: ["x"] }, "kwargs[0]", /must be an object/);
});

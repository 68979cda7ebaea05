import assert from "node:assert/strict";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { mathGrader } from "../rewards/math.js";
import { loadFromFakeHub } from "../testing/fake-hub.js";
import { TaskSchema } from "../types/index.js";
import { BenchmarkRowError, benchmarkMessages, getBenchmark } from "./catalog.js";
import { loadBenchmark } from "./load.js";
import { MATH_BENCHMARKS } from "./math-benchmarks.js";

const dataDir = fileURLToPath(new URL("./fixtures/data/", import.meta.url));
const fixture = (name: string, file: string) => `${dataDir}${name}/${file}`;

/** Each maths row: the split its fixture holds, the fixture's file, and its ground truths in order. */
const FIXTURES: Record<string, { split: string; file: string; answers: string[] }> = {
  hendrycks_math: { split: "test", file: "test.parquet", answers: ["6", "\\frac{2}{3}", "35"] },
  deepscaler_math: { split: "train", file: "train.parquet", answers: ["17", "2"] },
  hmmt: { split: "test", file: "test.parquet", answers: ["15", "7"] },
  hmmt_nov: { split: "test", file: "test.parquet", answers: ["\\frac{3}{8}", "6"] },
  aime_2026: { split: "test", file: "test.parquet", answers: ["1", "49"] },
  polymath: { split: "en_top", file: "en_top.parquet", answers: ["40", "1"] },
  amc: { split: "test", file: "test.parquet", answers: ["1", "7"] },
  minerva: { split: "test", file: "test.jsonl", answers: ["9", "6 \\times 10^{14}"] },
  olympiadbench: { split: "test", file: "test.parquet", answers: ["\\frac{1}{2}", "3, 5"] },
  omni_math: { split: "test", file: "test.jsonl", answers: ["5", "12"] },
  hmmt_feb_2024: { split: "test", file: "test.parquet", answers: ["720", "20"] },
  brumo_2025: { split: "test", file: "test.parquet", answers: ["15", "35"] },
  cmimc_2025: { split: "test", file: "test.parquet", answers: ["15", "30"] },
  smt_2025: { split: "test", file: "test.parquet", answers: ["10", "101"] },
  apex_2025: { split: "test", file: "test.parquet", answers: ["2870", "\\frac{1}{4}"] },
};

test("every maths row has a fixture, the math grader and a Hub source with its split", () => {
  assert.deepEqual(MATH_BENCHMARKS.map((e) => e.name).sort(), Object.keys(FIXTURES).sort());
  for (const entry of MATH_BENCHMARKS) {
    assert.equal(entry.grader, "math", entry.name);
    assert.ok(entry.source.hfDataset, entry.name);
    assert.ok(entry.source.splits.includes(entry.source.defaultSplit), entry.name);
    assert.ok(entry.source.splits.includes(FIXTURES[entry.name]!.split), entry.name);
    assert.match(entry.systemPrompt, /\\boxed\{\}/);
  }
});

for (const [name, { split, file, answers }] of Object.entries(FIXTURES)) {
  test(`${name}/${split}: the fixture loads into tasks whose reference answers the math grader accepts`, async () => {
    const entry = getBenchmark(name);
    const tasks = await loadBenchmark(name, { split, dataDir });
    assert.deepEqual(
      tasks.map((t) => t.data.answer),
      answers,
    );
    assert.equal(new Set(tasks.map((t) => t.id)).size, tasks.length, "task ids are unique");
    for (const [i, task] of tasks.entries()) {
      assert.deepEqual(TaskSchema.parse(task), task);
      assert.deepEqual(JSON.parse(JSON.stringify(task)), task, "a JSON round trip");
      assert.equal(task.dataSource, name);
      assert.equal(task.index, i);
      assert.ok(task.id.startsWith(`${name}/`), task.id);
      assert.equal(typeof task.data.question, "string");
      const messages = benchmarkMessages(entry, task);
      assert.deepEqual(
        messages.map((m) => m.role),
        ["system", "user"],
      );
      assert.equal(messages[1]!.content, task.data.question);
      const right = await mathGrader(task, `Working... so the answer is \\boxed{${answers[i]}}.`);
      assert.equal(right.reward, 1, `${task.id}: ${JSON.stringify(right.metadata)}`);
      const wrong = await mathGrader(task, "So the answer is \\boxed{123457}.");
      assert.equal(wrong.reward, 0, task.id);
    }
  });

  test(`${name}/${split}: the Hub path (RLLM_HF_ENDPOINT at a fake Hub) gives the same tasks`, async () => {
    const local = await loadBenchmark(name, { split, dataDir });
    const { tasks, requests } = await loadFromFakeHub(name, split, fixture(name, file));
    assert.deepEqual(tasks, local);
    if (getBenchmark(name).source.allConfigs) {
      // Every config's rows, from the whole-dataset listing (not a per-config one).
      const hfDataset = getBenchmark(name).source.hfDataset;
      assert.deepEqual(
        requests.filter((r) => r.startsWith("/api/")),
        [`/api/datasets/${hfDataset}/parquet`],
      );
    }
  });
}

test("MathArena rows keep problem_idx as the id and problem_type as a list", async () => {
  const [first] = await loadBenchmark("hmmt", { dataDir });
  assert.equal(first!.id, "hmmt/1");
  assert.deepEqual(first!.data.problemType, ["Number Theory"]);
  assert.deepEqual(getBenchmark("hmmt").source.hfSplits, { test: "train" });
  assert.equal(getBenchmark("hmmt").source.hfDataset, "MathArena/hmmt_feb_2025");
  assert.equal(getBenchmark("hmmt_nov").source.hfDataset, "MathArena/hmmt_nov_2025");
});

test("hendrycks_math spans every subject config; polymath's splits name language and level", async () => {
  assert.deepEqual(getBenchmark("hendrycks_math").source.allConfigs, {});
  const [task] = await loadBenchmark("hendrycks_math", { dataDir });
  assert.equal(task!.data.level, "Level 1");
  assert.equal(task!.data.type, "Algebra");
  const polymath = getBenchmark("polymath");
  assert.equal(polymath.source.splits.length, 18 * 4);
  assert.equal(polymath.source.files?.zh_low, "zh/low.parquet");
  const [poly] = await loadBenchmark("polymath", { dataDir });
  assert.equal(poly!.id, "polymath/top-en-0");
  assert.equal(poly!.data.language, "en");
  assert.equal(poly!.data.level, "top");
});

test("malformed maths rows fail naming the benchmark, row and field", () => {
  const error = (name: string, row: Record<string, unknown>, field: string, problem: RegExp) =>
    assert.throws(
      () => getBenchmark(name).toTask(row, 4, "test"),
      (e: unknown) =>
        e instanceof BenchmarkRowError &&
        e.benchmark === name &&
        e.rowIndex === 4 &&
        e.field === field &&
        problem.test(e.message),
    );
  error(
    "hendrycks_math",
    { problem: "p?", solution: "no box here" },
    "solution",
    /has no \\boxed\{\} final answer/,
  );
  error("hendrycks_math", { solution: "\\boxed{1}" }, "problem", /is missing/);
  error("hmmt", { problem: "p?" }, "answer", /is missing/);
  error(
    "deepscaler_math",
    { problem: "p?", answer: [] },
    "answer",
    /must be a non-empty string or a number/,
  );
  error(
    "olympiadbench",
    { question: "q?", final_answer: [] },
    "final_answer",
    /non-empty list of strings/,
  );
  error("olympiadbench", { question: "q?", final_answer: ["$ $"] }, "final_answer", /empty answer/);
  error("minerva", { answer: "1" }, 'question" or "problem', /is missing/);
});

import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { isGraderName } from "../rewards/index.js";
import { TaskSchema } from "../types/index.js";
import {
  BenchmarkRowError,
  benchmarkMessages,
  extractGsm8kAnswer,
  getBenchmark,
  listBenchmarks,
  repairLatexEscapes,
} from "./catalog.js";
import { loadBenchmark } from "./load.js";
import { loadRows } from "./rows.js";

/** A few real rows of each dataset, inside the repository (see fixtures/data/SOURCE.md). */
const dataDir = fileURLToPath(new URL("./fixtures/data/", import.meta.url));
const sharedDir = fileURLToPath(new URL("../../../shared/data/", import.meta.url));

/**
 * The data each load check runs on, with its row counts: the fixtures always, and every row of
 * ../shared/data too when it is beside the repository (counts as stated in each SOURCE.md).
 */
const DATA_SETS: { label: string; dir: string; rows: Record<string, Record<string, number>> }[] = [
  {
    label: "the fixtures",
    dir: dataDir,
    rows: {
      gsm8k: { test: 10, train: 3 },
      math500: { test: 14 },
      aime_2024: { test: 2 },
      aime_2025: { test: 3 },
      hotpotqa: { validation: 4 },
    },
  },
];
if (existsSync(sharedDir)) {
  DATA_SETS.push({
    label: "shared/data",
    dir: sharedDir,
    rows: {
      gsm8k: { test: 1319, train: 7473 },
      math500: { test: 500 },
      aime_2024: { test: 30 },
      aime_2025: { test: 30 },
      hotpotqa: { validation: 500 },
    },
  });
}

test("the catalog lists the built-in benchmarks with known graders and coherent splits", () => {
  const names = listBenchmarks().map((e) => e.name);
  assert.ok(names.length >= 40, `${names.length} rows`);
  assert.deepEqual(names.slice(0, 19), [
    "gsm8k",
    "math500",
    "aime_2024",
    "aime_2025",
    "hotpotqa",
    "countdown",
    "humaneval",
    "mbpp",
    "livecodebench",
    "mmlu_pro",
    "mmlu_redux",
    "gpqa_diamond",
    "supergpqa",
    "ceval",
    "mmmlu",
    "mmlu_prox",
    "include",
    "global_piqa",
    "longbench_v2",
  ]);
  assert.equal(new Set(names).size, names.length, "names are unique");
  for (const entry of listBenchmarks()) {
    assert.ok(isGraderName(entry.grader), entry.name);
    assert.ok(entry.source.splits.includes(entry.source.defaultSplit), entry.name);
    assert.equal(entry.defaultAgent, "single-turn");
    // A system prompt worth the name, or none (IFEval's prompts, MultiChallenge's conversations).
    assert.ok(entry.systemPrompt === "" || entry.systemPrompt.length > 20, entry.name);
    // Every benchmark is either downloadable or generated.
    assert.ok(entry.source.hfDataset || entry.generator, entry.name);
    for (const split of Object.keys({ ...entry.source.files, ...entry.source.companion?.files })) {
      assert.ok(
        entry.source.splits.includes(split),
        `${entry.name}: files names unknown split ${split}`,
      );
    }
  }
  assert.match(getBenchmark("math500").systemPrompt, /\\boxed\{\}/);
  assert.match(getBenchmark("gsm8k").systemPrompt, /step by step/);
  assert.match(getBenchmark("hotpotqa").systemPrompt, /Answer:/);
  assert.match(getBenchmark("countdown").systemPrompt, /<answer><\/answer>/);
  assert.match(getBenchmark("countdown").systemPrompt, /at most once/);
});

test("getBenchmark names the known benchmarks and suggests the closest", () => {
  assert.equal(getBenchmark("gsm8k").name, "gsm8k");
  assert.throws(
    () => getBenchmark("gsm8"),
    /Unknown benchmark "gsm8"\. Did you mean "gsm8k"\?.*gsm8k, math500/,
  );
  assert.throws(() => getBenchmark("AIME-2024"), /Did you mean "aime_2024"\?/);
  assert.throws(() => getBenchmark("hotpot"), /Did you mean "hotpotqa"\?/);
  assert.throws(
    () => getBenchmark("imagenet"),
    (error: Error) =>
      !error.message.includes("Did you mean") && error.message.includes("countdown"),
  );
});

for (const { label, dir, rows: counts } of DATA_SETS) {
  for (const [name, splits] of Object.entries(counts)) {
    for (const [split, rows] of Object.entries(splits)) {
      test(`${name}/${split} loads from ${label} with ${rows} sane tasks`, async () => {
        const entry = getBenchmark(name);
        const tasks = await loadBenchmark(name, { split, dataDir: dir });
        assert.equal(tasks.length, rows);
        const ids = new Set<string>();
        for (const [i, task] of tasks.entries()) {
          assert.deepEqual(TaskSchema.parse(task), task, "a Task that survives its schema");
          assert.deepEqual(JSON.parse(JSON.stringify(task)), task, "and a JSON round trip");
          assert.equal(task.dataSource, name);
          assert.equal(task.index, i);
          assert.ok(task.id.startsWith(`${name}/`), task.id);
          ids.add(task.id);
          assert.equal(typeof task.data.question, "string");
          assert.ok((task.data.question as string).length > 10);
          assert.equal(typeof task.data.answer, "string");
          assert.ok((task.data.answer as string).length > 0);
          const prompt = entry.userPrompt(task);
          assert.ok(prompt.includes(task.data.question as string));
        }
        assert.equal(ids.size, rows, "task ids are unique");
      });
    }
  }
}

test("gsm8k ground truth is the number after ####, the full solution kept", async () => {
  const tasks = await loadBenchmark("gsm8k", { split: "test", dataDir, maxExamples: 3 });
  assert.equal(tasks[0]!.id, "gsm8k/test/0");
  assert.equal(tasks[0]!.data.answer, "18");
  assert.match(tasks[0]!.data.solution as string, /<<16-3-4=9>>9 duck eggs[\s\S]*#### 18$/);
  assert.equal(tasks[1]!.data.answer, "3");
  assert.equal(tasks[2]!.data.answer, "70000");
  for (const { dir } of DATA_SETS) {
    const all = await loadBenchmark("gsm8k", { split: "train", dataDir: dir });
    for (const task of all) assert.match(task.data.answer as string, /^-?\d+(\.\d+)?$/, task.id);
  }
  assert.equal(extractGsm8kAnswer("so 1,234 in all\n#### 1,234"), "1234");
  assert.equal(extractGsm8kAnswer("no final line"), undefined);
});

test("math500 keeps its own ids and fields", async () => {
  const [task] = await loadBenchmark("math500", { dataDir, maxExamples: 1 });
  assert.equal(task!.id, "math500/test/precalculus/807.json");
  assert.equal(task!.data.answer, "\\left( 3, \\frac{\\pi}{2} \\right)");
  assert.equal(task!.data.level, 2);
  assert.equal(task!.data.subject, "Precalculus");
  assert.match(task!.data.solution as string, /\\boxed/);
});

test("AIME answers are plain integer strings and broken LaTeX escapes are repaired", async () => {
  for (const { dir } of DATA_SETS) {
    const aime24 = await loadBenchmark("aime_2024", { dataDir: dir });
    const aime25 = await loadBenchmark("aime_2025", { dataDir: dir });
    const byId = (id: string) => [...aime24, ...aime25].find((t) => t.id === id)!;
    assert.equal(aime24[0]!.id, "aime_2024/60");
    assert.equal(byId("aime_2024/60").data.answer, "204");
    assert.equal(byId("aime_2024/67").data.answer, "25", 'the answer sheet\'s "025"');
    assert.equal(aime25[0]!.id, "aime_2025/0");
    assert.equal(aime25[0]!.data.answer, "70");
    for (const task of [...aime24, ...aime25]) {
      assert.match(task.data.answer as string, /^(0|[1-9]\d{0,2})$/, task.id);
      assert.doesNotMatch(task.data.question as string, /[\f\t]/, task.id);
    }
    assert.match(byId("aime_2025/18").data.question as string, /\\frac/);
    assert.match(byId("aime_2025/19").data.question as string, /\\triangle/);
  }
  assert.equal(repairLatexEscapes("\frac{1}{2} and \triangle"), "\\frac{1}{2} and \\triangle");
});

test("hotpotqa prompts carry the context paragraphs as 'Title: sentences'", async () => {
  const entry = getBenchmark("hotpotqa");
  const [task] = await loadBenchmark("hotpotqa", { dataDir, maxExamples: 1 });
  assert.equal(task!.id, "hotpotqa/5a8c7595554299585d9e36b6");
  assert.equal(task!.data.answer, "Chief of Protocol");
  assert.equal((task!.data.context as unknown[]).length, 10);
  assert.deepEqual((task!.data.supportingFacts as unknown[])[0], {
    title: "Kiss and Tell (1945 film)",
    sentence: 0,
  });
  const prompt = entry.userPrompt(task!);
  assert.match(
    prompt,
    /^Context:\n\nMeet Corliss Archer: Meet Corliss Archer, a program from radio's Golden Age/,
  );
  assert.match(prompt, /\n\nShirley Temple: Shirley Temple Black \(April 23, 1928/);
  assert.match(prompt, /1938\. As an adult, she was named/, "sentences joined with single spaces");
  assert.match(
    prompt,
    /\n\nQuestion: What government position was held by the woman who portrayed Corliss Archer/,
  );
  const messages = benchmarkMessages(entry, task!);
  assert.deepEqual(
    messages.map((m) => m.role),
    ["system", "user"],
  );
  assert.equal(messages[1]!.content, prompt);
});

test("the Hub's struct-shaped hotpotqa Parquet rows give the same tasks as the official JSON", async () => {
  const entry = getBenchmark("hotpotqa");
  const fixture = fileURLToPath(new URL("./fixtures/hotpotqa-validation.parquet", import.meta.url));
  const fromParquet = (await loadRows(fixture)).map((row, i) => entry.toTask(row, i, "validation"));
  const fromJson = await loadBenchmark("hotpotqa", { dataDir, maxExamples: 2 });
  assert.deepEqual(fromParquet, fromJson);
});

test("a row missing a field fails with the benchmark, the row index and the field", () => {
  const gsm8k = getBenchmark("gsm8k");
  assert.throws(
    () => gsm8k.toTask({ question: "How many?" }, 17, "test"),
    (error: unknown) =>
      error instanceof BenchmarkRowError &&
      error.benchmark === "gsm8k" &&
      error.rowIndex === 17 &&
      error.field === "answer" &&
      /^gsm8k: row 17 of split "test": field "answer" is missing/.test(error.message),
  );
  assert.throws(
    () => gsm8k.toTask({ question: "How many?", answer: "no marker" }, 3, "train"),
    /gsm8k: row 3 of split "train": field "answer" has no "#### <number>"/,
  );
  assert.throws(
    () => getBenchmark("math500").toTask({ problem: 42, answer: "1" }, 5, "test"),
    /math500: row 5 of split "test": field "problem" must be a string, got a number/,
  );
  assert.throws(
    () =>
      getBenchmark("hotpotqa").toTask({ _id: "x", question: "q?", answer: "a" }, 2, "validation"),
    /hotpotqa: row 2 .*field "context" is missing/,
  );
  assert.throws(
    () =>
      getBenchmark("hotpotqa").toTask(
        { _id: "x", question: "q?", answer: "a", context: [["t", "not a list"]] },
        2,
        "v",
      ),
    /field "context\[0\]" must be a \[title, sentences\[\]\] pair/,
  );
  assert.throws(
    () => getBenchmark("countdown").toTask({ numbers: [1, "2"], target: 3 }, 9, "train"),
    /countdown: row 9 .*field "numbers\[1\]" must be an integer/,
  );
  assert.throws(
    () => getBenchmark("aime_2025").toTask({ problem: "p" }, 0, "test"),
    /field "answer" is missing/,
  );
});

test("countdown rows from a file (including TinyZero's `nums`) become tasks", () => {
  const entry = getBenchmark("countdown");
  const task = entry.toTask({ nums: [3, 5, 7], target: 22 }, 4, "train");
  assert.deepEqual(task, {
    id: "countdown/train/4",
    dataSource: "countdown",
    index: 4,
    data: { numbers: [3, 5, 7], target: 22 },
  });
  assert.equal(
    entry.userPrompt(task),
    "Using the numbers [3, 5, 7], create an equation that equals 22. Allowed operations: + - * /. Each number may be used at most once.",
  );
});

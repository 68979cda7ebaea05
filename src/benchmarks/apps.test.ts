/** The catalog's added code rows (apps.ts: apps and taco; primeintellect.ts), graded by `code` in the bwrap sandbox. */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { codeGrader } from "../rewards/code.js";
import { readCodeTask } from "../rewards/code-task.js";
import { SandboxPool } from "../sandbox/pool.js";
import { createSandboxBackend, SandboxConfigSchema } from "../sandbox/registry.js";
import { loadFromFakeHub } from "../testing/fake-hub.js";
import { TaskSchema } from "../types/index.js";
import { BenchmarkRowError, benchmarkMessages, getBenchmark } from "./catalog.js";
import { loadBenchmark } from "./load.js";

const dataDir = fileURLToPath(new URL("./fixtures/data/", import.meta.url));

const backend = await createSandboxBackend(SandboxConfigSchema.parse({}));
const pool = new SandboxPool(backend, { size: 1 });
const grade = codeGrader(pool);
after(async () => {
  await pool.close();
  await backend.close();
});

const fenced = (code: string) => `My solution:\n\n\`\`\`python\n${code}\n\`\`\`\n`;

test("apps: stdin problems load as stdio code tasks; the call-based row is left out", async () => {
  const entry = getBenchmark("apps");
  assert.equal(entry.grader, "code");
  const tasks = await loadBenchmark("apps", { dataDir });
  assert.deepEqual(
    tasks.map((t) => [t.id, t.index]),
    [
      ["apps/4001", 0],
      ["apps/4002", 1],
    ],
  );
  for (const task of tasks) {
    assert.deepEqual(TaskSchema.parse(task), task);
    assert.deepEqual(JSON.parse(JSON.stringify(task)), task);
    const code = readCodeTask(task);
    assert.equal(code.tests.kind, "stdio");
    const [system, user] = benchmarkMessages(entry, task);
    assert.match(String(system!.content), /standard input[\s\S]*fenced code block/);
    assert.equal(user!.content, task.data.question);
  }
  // A test given as a list of lines is those lines joined.
  assert.deepEqual((readCodeTask(tasks[1]!).tests as { cases: unknown[] }).cases[0], {
    input: "3\n4 9 9",
    output: "9\n2",
  });
  const hub = await loadFromFakeHub("apps", "test", `${dataDir}apps/test.jsonl`);
  assert.deepEqual(hub.tasks, tasks);
});

test("apps: the reference solutions score 1 in the sandbox, a wrong program 0", async () => {
  const tasks = await loadBenchmark("apps", { dataDir });
  for (const task of tasks) {
    const out = await grade(task, fenced(task.data.solution as string));
    assert.equal(out.reward, 1, `${task.id}: ${out.metadata?.reason}`);
  }
  const wrong = await grade(tasks[0]!, fenced("a, b = map(int, input().split())\nprint(a - b)"));
  assert.equal(wrong.reward, 0);
});

test("taco: APPS's format from TACO's Parquet; positions as ids, the call-based row left out", async () => {
  const entry = getBenchmark("taco");
  assert.equal(entry.grader, "code");
  assert.equal(entry.source.config, "ALL");
  const tasks = await loadBenchmark("taco", { dataDir });
  assert.deepEqual(
    tasks.map((t) => [t.id, t.index, t.data.difficulty]),
    [
      ["taco/test/0", 0, "EASY"],
      ["taco/test/1", 1, "MEDIUM"],
    ],
  );
  for (const task of tasks) {
    assert.deepEqual(TaskSchema.parse(task), task);
    const out = await grade(task, fenced(task.data.solution as string));
    assert.equal(out.reward, 1, `${task.id}: ${out.metadata?.reason}`);
  }
  const hub = await loadFromFakeHub("taco", "test", `${dataDir}taco/test.parquet`);
  assert.deepEqual(hub.tasks, tasks);
  assert.ok(hub.requests[0]!.startsWith("/api/datasets/BAAI/TACO/parquet/ALL/test"));
});

test("primeintellect: Python stdin problems, their gold solutions score 1; other languages and call tests left out", async () => {
  const entry = getBenchmark("primeintellect");
  const tasks = await loadBenchmark("primeintellect", { dataDir });
  assert.deepEqual(
    tasks.map((t) => [t.id, t.index]),
    [
      ["primeintellect/pi_fx_1", 0],
      ["primeintellect/pi_fx_2", 1],
    ],
  );
  for (const task of tasks) {
    assert.deepEqual(TaskSchema.parse(task), task);
    assert.equal(readCodeTask(task).tests.kind, "stdio");
    assert.equal(benchmarkMessages(entry, task)[1]!.content, task.data.question);
    // The gold solution is a fenced block already: it is the response as it is.
    const out = await grade(task, task.data.solution as string);
    assert.equal(out.reward, 1, `${task.id}: ${out.metadata?.reason}`);
  }
  const hub = await loadFromFakeHub(
    "primeintellect",
    "train",
    `${dataDir}primeintellect/train.parquet`,
  );
  assert.deepEqual(hub.tasks, tasks);
  // An object rather than JSON text (open-r1's copy) reads the same.
  const row = {
    problem_id: "x",
    problem_statement: "Print 1.",
    verification_info: {
      language: "python",
      test_cases: [{ type: "stdin_stdout", input: "", output: "1" }],
    },
  };
  assert.equal(entry.rowFilter!.keep(row), true);
  assert.deepEqual(
    (readCodeTask(entry.toTask(row, 0, "train")).tests as { cases: unknown[] }).cases,
    [{ input: "", output: "1" }],
  );
  assert.throws(
    () => entry.toTask({ ...row, verification_info: "{}" }, 2, "train"),
    (e: unknown) => e instanceof BenchmarkRowError && e.field === "verification_info",
  );
});

test("malformed apps rows fail naming the field", () => {
  const entry = getBenchmark("apps");
  const base = {
    problem_id: 1,
    question: "Sum?",
    input_output: JSON.stringify({ inputs: ["1 2"], outputs: ["3"] }),
  };
  assert.doesNotThrow(() => entry.toTask(base, 0, "test"));
  const fails = (row: Record<string, unknown>, field: string, problem: RegExp) =>
    assert.throws(
      () => entry.toTask(row, 5, "test"),
      (e: unknown) =>
        e instanceof BenchmarkRowError && e.field === field && problem.test(e.message),
    );
  fails({ ...base, problem_id: "x" }, "problem_id", /integer/);
  fails({ ...base, question: undefined }, "question", /is missing/);
  fails({ ...base, input_output: "{" }, "input_output", /JSON text of \{inputs/);
  fails(
    { ...base, input_output: JSON.stringify({ inputs: ["1"], outputs: [] }) },
    "input_output",
    /1 inputs, 0 outputs/,
  );
  fails(
    { ...base, input_output: JSON.stringify({ inputs: [3], outputs: ["3"] }) },
    "input_output",
    /inputs\[0\] must be a string/,
  );
  fails(
    { ...base, input_output: JSON.stringify({ fn_name: "f", inputs: [[1]], outputs: [[1]] }) },
    "input_output",
    /call-based/,
  );
  const filter = entry.rowFilter!;
  assert.equal(filter.keep(base), true);
  assert.equal(filter.keep({ ...base, input_output: "" }), false);
  assert.equal(
    filter.keep({
      ...base,
      input_output: JSON.stringify({ fn_name: "f", inputs: [[1]], outputs: [[1]] }),
    }),
    false,
  );
});

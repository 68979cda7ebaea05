/**
 * The code benchmarks: their rows load as tasks the code grader reads, and the datasets' own
 * reference solutions score 1 in the bwrap sandbox (fixtures/data/SOURCE.md lists the rows).
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { codeGrader } from "../rewards/code.js";
import { readCodeTask } from "../rewards/code-task.js";
import { SandboxPool } from "../sandbox/pool.js";
import { createSandboxBackend, SandboxConfigSchema } from "../sandbox/registry.js";
import { type Task, TaskSchema } from "../types/index.js";
import { BenchmarkRowError, benchmarkMessages, getBenchmark } from "./catalog.js";
import { mbppSplitOf } from "./code.js";
import { loadBenchmark } from "./load.js";

const dataDir = fileURLToPath(new URL("./fixtures/data/", import.meta.url));
const sharedDir = fileURLToPath(new URL("../../../shared/data/", import.meta.url));

const backend = await createSandboxBackend(SandboxConfigSchema.parse({}));
const pool = new SandboxPool(backend, { size: 1 });
const grade = codeGrader(pool);
const tmp = await mkdtemp(join(tmpdir(), "rllm-code-bench-"));
after(async () => {
  await pool.close();
  await backend.close();
  await rm(tmp, { recursive: true, force: true });
});

const DATA_SETS: { label: string; dir: string; rows: Record<string, Record<string, number>> }[] = [
  {
    label: "the fixtures",
    dir: dataDir,
    rows: { humaneval: { test: 5 }, mbpp: { test: 3, prompt: 1, validation: 1, train: 2 } },
  },
];
if (existsSync(join(sharedDir, "humaneval"))) {
  DATA_SETS.push({
    label: "shared/data",
    dir: sharedDir,
    rows: {
      humaneval: { test: 164 },
      mbpp: { test: 500, prompt: 10, validation: 90, train: 374 },
    },
  });
}

for (const { label, dir, rows: counts } of DATA_SETS) {
  for (const [name, splits] of Object.entries(counts)) {
    for (const [split, rows] of Object.entries(splits)) {
      test(`${name}/${split} loads from ${label} as ${rows} code tasks`, async () => {
        const entry = getBenchmark(name);
        assert.equal(entry.grader, "code");
        const tasks = await loadBenchmark(name, { split, dataDir: dir });
        assert.equal(tasks.length, rows);
        for (const [i, task] of tasks.entries()) {
          assert.deepEqual(TaskSchema.parse(task), task);
          assert.deepEqual(JSON.parse(JSON.stringify(task)), task);
          assert.equal(task.index, i);
          assert.equal(task.dataSource, name);
          const code = readCodeTask(task);
          assert.equal(code.language, "python");
          const [system, user] = benchmarkMessages(entry, task);
          assert.match(system!.content as string, /fenced code block/);
          assert.ok((user!.content as string).includes(task.data.question as string));
          if (name === "mbpp") assert.equal(mbppSplitOf(task.data.taskId as number), split);
        }
        assert.equal(new Set(tasks.map((t) => t.id)).size, rows, "ids are unique");
      });
    }
  }
}

function fenced(code: string): string {
  return `Here is the solution.\n\n\`\`\`python\n${code}\n\`\`\`\n`;
}

test("HumanEval's canonical solutions (bodies after the prompt) score 1; a wrong body 0", async () => {
  const tasks = await loadBenchmark("humaneval", { dataDir });
  assert.deepEqual(
    tasks.map((t) => t.id),
    ["HumanEval/0", "HumanEval/32", "HumanEval/38", "HumanEval/53", "HumanEval/162"].map(
      (id) => `humaneval/${id}`,
    ),
  );
  for (const task of tasks) {
    const out = await grade(task, fenced(task.data.solution as string));
    assert.equal(out.reward, 1, `${task.id}: ${out.metadata?.reason}`);
  }
  // The whole function, as chat models write it, works too.
  const add = tasks.find((t) => t.id === "humaneval/HumanEval/53")!;
  assert.equal((await grade(add, fenced("def add(x: int, y: int):\n    return x + y"))).reward, 1);
  const wrong = await grade(add, fenced("    return x - y"));
  assert.equal(wrong.reward, 0);
  assert.match(String(wrong.metadata?.reason), /^test 1 of 1: fail \(AssertionError/);
});

test("MBPP's reference code scores 1 (challenge asserts and test_setup_code included)", async () => {
  const tasks: Task[] = [];
  for (const split of ["prompt", "test", "validation", "train"]) {
    tasks.push(...(await loadBenchmark("mbpp", { split, dataDir })));
  }
  assert.deepEqual(
    tasks.map((t) => t.id),
    ["mbpp/2", "mbpp/11", "mbpp/12", "mbpp/367", "mbpp/511", "mbpp/601", "mbpp/927"],
  );
  const withChallenge = tasks.find((t) => t.id === "mbpp/11")!;
  assert.equal(readCodeTask(withChallenge).tests.kind, "asserts");
  assert.equal((readCodeTask(withChallenge).tests as { asserts: string[] }).asserts.length, 5);
  assert.match(String((readCodeTask(tasks[3]!).tests as { setup?: string }).setup), /root = Node/);
  for (const task of tasks) {
    const out = await grade(task, fenced(task.data.solution as string));
    assert.equal(out.reward, 1, `${task.id}: ${out.metadata?.reason}`);
  }
  const prompt = getBenchmark("mbpp").userPrompt(withChallenge);
  assert.match(
    prompt,
    /Your code should pass these tests:\n\nassert remove_Occ\("hello","l"\) == "heo"/,
  );
  assert.ok(!prompt.includes("hellolloll"), "challenge asserts are not shown");
  const wrong = await grade(
    withChallenge,
    fenced("def remove_Occ(s, ch):\n    return s.replace(ch, '')"),
  );
  assert.equal(wrong.reward, 0);
});

test("MBPP's one-file layout: a split's own file wins, else full.jsonl filtered by task_id", async () => {
  const full = await readFile(join(dataDir, "mbpp", "full.jsonl"), "utf8");
  const dir = join(tmp, "one");
  await mkdir(join(dir, "mbpp"), { recursive: true });
  await writeFile(join(dir, "mbpp", "full.jsonl"), full);
  const test = await loadBenchmark("mbpp", { split: "test", dataDir: dir });
  assert.deepEqual(
    test.map((t) => [t.id, t.index]),
    [
      ["mbpp/11", 0],
      ["mbpp/12", 1],
      ["mbpp/367", 2],
    ],
  );
  const picked = await loadBenchmark("mbpp", { split: "test", dataDir: dir, taskIndices: [2] });
  assert.equal(picked[0]!.id, "mbpp/367");

  const own = full.split("\n").find((l) => l.includes('"task_id": 12'))!;
  await writeFile(join(dir, "mbpp", "test.jsonl"), `${own}\n`);
  assert.deepEqual(
    (await loadBenchmark("mbpp", { split: "test", dataDir: dir })).map((t) => t.id),
    ["mbpp/12"],
  );

  const none = join(tmp, "none");
  await mkdir(join(none, "mbpp"), { recursive: true });
  const trainOnly = full.split("\n").filter((l) => l.includes('"task_id": 601'));
  await writeFile(join(none, "mbpp", "full.jsonl"), `${trainOnly.join("\n")}\n`);
  await assert.rejects(
    loadBenchmark("mbpp", { split: "validation", dataDir: none }),
    /full\.jsonl: holds no rows of mbpp split "validation"/,
  );
  await writeFile(join(none, "mbpp", "full.jsonl"), '{"text": "no id"}\n');
  await assert.rejects(
    loadBenchmark("mbpp", { split: "test", dataDir: none }),
    (error: Error) =>
      error instanceof BenchmarkRowError &&
      /row 0 of split "full": field "task_id"/.test(error.message),
  );
});

test("a code row missing its tests fails naming the field", () => {
  assert.throws(
    () =>
      getBenchmark("humaneval").toTask({ task_id: "HumanEval/0", prompt: "def f():" }, 3, "test"),
    /^BenchmarkRowError: humaneval: row 3 of split "test": field "entry_point" is missing/,
  );
  assert.throws(
    () =>
      getBenchmark("mbpp").toTask({ task_id: 11, text: "t", test_list: "assert f()" }, 0, "test"),
    /field "test_list" must be a list of strings/,
  );
});

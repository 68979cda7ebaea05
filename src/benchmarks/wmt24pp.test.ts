import assert from "node:assert/strict";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { loadFromFakeHub } from "../testing/fake-hub.js";
import { TaskSchema } from "../types/index.js";
import { BenchmarkRowError, benchmarkMessages, getBenchmark } from "./catalog.js";
import { loadBenchmark } from "./load.js";

const dataDir = fileURLToPath(new URL("./fixtures/data/", import.meta.url));

test("wmt24pp: a split per language pair, one JSONL file each on the Hub", () => {
  const entry = getBenchmark("wmt24pp");
  assert.equal(entry.grader, "chrf");
  assert.equal(entry.source.splits.length, 55);
  assert.equal(entry.source.defaultSplit, "en-de_DE");
  assert.equal(entry.source.files?.["en-ja_JP"], "en-ja_JP.jsonl");
  assert.ok(entry.source.splits.every((s) => /^en-[a-z]{2,3}_[A-Z]{2}$/.test(s)));
});

test("wmt24pp/en-de_DE: bad sources are left out; rows become source, reference and targetLang", async () => {
  const entry = getBenchmark("wmt24pp");
  const tasks = await loadBenchmark("wmt24pp", { dataDir });
  assert.deepEqual(
    tasks.map((t) => [t.id, t.index, t.data.reference]),
    [
      ["wmt24pp/en-de_DE/1", 0, "Der Stadtrat hat die neuen Fahrradwege am Dienstag genehmigt."],
      ["wmt24pp/en-de_DE/3", 1, "Sie schloss das Buch und lauschte dem Regen."],
    ],
    "the is_bad_source segment 2 is not a task; positions count the kept rows",
  );
  for (const task of tasks) {
    assert.deepEqual(TaskSchema.parse(task), task);
    assert.equal(task.data.targetLang, "de_DE");
    assert.equal(typeof task.data.source, "string");
  }
  assert.equal(tasks[0]!.data.domain, "news");
  const messages = benchmarkMessages(entry, tasks[0]!);
  assert.equal(messages.length, 1);
  assert.equal(messages[0]!.role, "user");
  const prompt = String(messages[0]!.content);
  assert.match(
    prompt,
    /English to German translator, translating for readers in Germany \(de_DE\)/,
  );
  assert.ok(prompt.includes("\n\nThe city council approved the new bicycle lanes on Tuesday.\n\n"));
  assert.match(prompt, /Reply with the German translation only/);
  const hub = await loadFromFakeHub("wmt24pp", "en-de_DE", `${dataDir}wmt24pp/en-de_DE.jsonl`);
  assert.deepEqual(hub.tasks, tasks);
  assert.deepEqual(hub.requests, ["/datasets/google/wmt24pp/resolve/main/en-de_DE.jsonl"]);
});

test("malformed wmt24pp rows fail naming the field", () => {
  const entry = getBenchmark("wmt24pp");
  const base = { lp: "en-de_DE", source: "Hello.", target: "Hallo." };
  const fails = (row: Record<string, unknown>, field: string, problem: RegExp) =>
    assert.throws(
      () => entry.toTask(row, 2, "en-de_DE"),
      (e: unknown) =>
        e instanceof BenchmarkRowError && e.field === field && problem.test(e.message),
    );
  fails({ ...base, target: undefined }, "target", /is missing/);
  fails({ ...base, source: "  " }, "source", /is empty/);
  fails({ ...base, lp: "de-en" }, "lp", /must be en-<target>/);
  fails({ ...base, lp: "en-xx_XX" }, "lp", /WMT24\+\+ target/);
});

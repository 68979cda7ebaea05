import assert from "node:assert/strict";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { loadFromFakeHub } from "../testing/fake-hub.js";
import { TaskSchema } from "../types/index.js";
import { BenchmarkRowError, benchmarkMessages, getBenchmark } from "./catalog.js";
import { loadBenchmark } from "./load.js";

const dataDir = fileURLToPath(new URL("./fixtures/data/", import.meta.url));

test("bfcl: the four single-turn Python categories, questions and possible answers in separate files", () => {
  const entry = getBenchmark("bfcl");
  assert.equal(entry.grader, "bfcl");
  assert.deepEqual(entry.source.splits, ["simple", "multiple", "parallel", "parallel_multiple"]);
  assert.equal(entry.source.files?.parallel, "BFCL_v3_parallel.json");
  assert.equal(entry.source.companion?.files.parallel, "possible_answer/BFCL_v3_parallel.json");
});

test("bfcl/simple: questions joined to their possible answers by id, whatever their order", async () => {
  const tasks = await loadBenchmark("bfcl", { split: "simple", dataDir });
  assert.deepEqual(
    tasks.map((t) => t.id),
    ["bfcl/simple_0", "bfcl/simple_1"],
  );
  for (const task of tasks) {
    assert.deepEqual(TaskSchema.parse(task), task);
    assert.deepEqual(JSON.parse(JSON.stringify(task)), task);
    assert.equal(task.data.category, "simple");
  }
  assert.deepEqual(tasks[0]!.data.groundTruth, [
    { get_weather: { city: ["Lisbon"], unit: ["celsius", ""] } },
  ]);
  assert.deepEqual(tasks[1]!.data.groundTruth, [{ "geometry.circle_area": { radius: [2.5] } }]);
  assert.equal((tasks[0]!.data.functions as { name: string }[])[0]!.name, "get_weather");
  const hub = await loadFromFakeHub("bfcl", "simple", `${dataDir}bfcl/simple.json`, {
    companion: `${dataDir}bfcl/simple.possible_answer.json`,
  });
  assert.deepEqual(hub.tasks, tasks);
  assert.deepEqual(hub.requests.sort(), [
    "/datasets/gorilla-llm/Berkeley-Function-Calling-Leaderboard/resolve/main/BFCL_v3_simple.json",
    "/datasets/gorilla-llm/Berkeley-Function-Calling-Leaderboard/resolve/main/possible_answer/BFCL_v3_simple.json",
  ]);
});

test("bfcl prompts: BFCL's prompt-mode system prompt with the function docs, before the turn's own system message", async () => {
  const entry = getBenchmark("bfcl");
  const [simple] = await loadBenchmark("bfcl", { split: "simple", dataDir });
  const messages = benchmarkMessages(entry, simple!);
  assert.deepEqual(
    messages.map((m) => m.role),
    ["system", "user"],
  );
  const system = String(messages[0]!.content);
  assert.match(system, /^You are an expert in composing functions\./);
  assert.match(
    system,
    /\[func_name1\(params_name1=params_value1, params_name2=params_value2\.\.\.\), func_name2\(params\)\]/,
  );
  const docs = JSON.parse(system.slice(system.indexOf("[\n")));
  assert.equal(docs[0].name, "get_weather");
  assert.equal(
    docs[0].description,
    "Get the current weather for a city. Note that the provided function is in Python 3 syntax.",
  );
  assert.equal(messages[1]!.content, "What's the weather like in Lisbon right now?");

  const [multi] = await loadBenchmark("bfcl", { split: "parallel_multiple", dataDir });
  assert.equal((multi!.data.groundTruth as unknown[]).length, 3);
  const withSystem = benchmarkMessages(entry, multi!);
  assert.deepEqual(
    withSystem.map((m) => m.role),
    ["system", "user"],
  );
  assert.match(
    String(withSystem[0]!.content),
    /^You are an expert[\s\S]*\n\nYou help travellers plan trips\.$/,
  );
  assert.equal(entry.userPrompt(multi!), withSystem[1]!.content);
});

test("malformed bfcl rows fail naming the field, a missing possible answer included", () => {
  const entry = getBenchmark("bfcl");
  const base = {
    id: "simple_9",
    question: [[{ role: "user", content: "Area of radius 1?" }]],
    function: [{ name: "area", description: "d", parameters: { type: "dict", properties: {} } }],
    possible_answer: { id: "simple_9", ground_truth: [{ area: { radius: [1] } }] },
  };
  const fails = (row: Record<string, unknown>, field: string, problem: RegExp) =>
    assert.throws(
      () => entry.toTask(row, 9, "simple"),
      (e: unknown) =>
        e instanceof BenchmarkRowError && e.field === field && problem.test(e.message),
    );
  assert.doesNotThrow(() => entry.toTask(base, 9, "simple"));
  fails({ ...base, possible_answer: undefined }, "possible_answer", /is missing/);
  fails({ ...base, possible_answer: { ground_truth: [] } }, "possible_answer", /ground_truth/);
  fails({ ...base, function: [] }, "function", /non-empty list/);
  fails({ ...base, function: [{ name: "f" }] }, "function[0]", /parameters/);
  fails({ ...base, question: [[]] }, "question", /exactly one turn/);
  fails({ ...base, question: [[{ role: "user" }]] }, "question[0][0]", /string content/);
});

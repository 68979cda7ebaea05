import assert from "node:assert/strict";
import { copyFile, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { judgeGrader } from "../rewards/judge.js";
import type { Judge } from "../rewards/judge-client.js";
import { loadFromFakeHub } from "../testing/fake-hub.js";
import { type Task, TaskSchema } from "../types/index.js";
import { BenchmarkRowError, benchmarkMessages, getBenchmark } from "./catalog.js";
import { loadBenchmark } from "./load.js";
import { openZip } from "./zip.js";

const dataDir = fileURLToPath(new URL("./fixtures/data/", import.meta.url));

/** Tasks that round-trip and count their rows; `text` is the string field each must have. */
function sane(tasks: Task[], name: string, text = "question"): void {
  assert.equal(new Set(tasks.map((t) => t.id)).size, tasks.length);
  for (const [i, task] of tasks.entries()) {
    assert.deepEqual(TaskSchema.parse(task), task);
    assert.deepEqual(JSON.parse(JSON.stringify(task)), task);
    assert.equal(task.dataSource, name);
    assert.equal(task.index, i);
    assert.equal(typeof task.data[text], "string");
  }
}

test("hle: text questions only, HLE's answer-type system prompts, same tasks from the Hub", async () => {
  const entry = getBenchmark("hle");
  assert.equal(entry.grader, "llm_equality");
  const tasks = await loadBenchmark("hle", { dataDir });
  sane(tasks, "hle");
  assert.deepEqual(
    tasks.map((t) => [t.id, t.data.answer, t.data.answerType]),
    [
      ["hle/fx0001", "64", "exactMatch"],
      ["hle/fx0002", "B", "multipleChoice"],
    ],
    "the image question fx0003 is left out",
  );
  const [exact, choice] = tasks.map((t) => benchmarkMessages(entry, t));
  assert.match(
    String(exact![0]!.content),
    /^Your response should be in the following format:\nExplanation: .*\nExact Answer: /,
  );
  assert.match(String(choice![0]!.content), /\nAnswer: \{your chosen answer\}\nConfidence: /);
  assert.equal(choice![1]!.content, tasks[1]!.data.question);
  const hub = await loadFromFakeHub("hle", "test", `${dataDir}hle/test.parquet`);
  assert.deepEqual(hub.tasks, tasks);
  assert.ok(hub.requests[0]!.startsWith("/api/datasets/cais/hle/parquet/default/test"));
});

test("hle: rows with an image are filtered out; an unknown answer_type is a row error", async () => {
  const entry = getBenchmark("hle");
  assert.equal(entry.rowFilter!.keep({ image: "" }), true);
  assert.equal(entry.rowFilter!.keep({ image: null }), true);
  assert.equal(entry.rowFilter!.keep({ image: "data:image/png;base64,AAAA" }), false);
  assert.throws(
    () =>
      entry.toTask({ id: "x", question: "q?", answer: "a", answer_type: "freeform" }, 0, "test"),
    (e: unknown) => e instanceof BenchmarkRowError && e.field === "answer_type",
  );
});

test("aa_lcr: each question with its documents from the archive, in AA-LCR's prompt template", async () => {
  const entry = getBenchmark("aa_lcr");
  assert.equal(entry.grader, "llm_equality");
  const tasks = await loadBenchmark("aa_lcr", { dataDir });
  sane(tasks, "aa_lcr");
  assert.deepEqual(
    tasks.map((t) => [t.id, t.data.answer, (t.data.documents as string[]).length]),
    [
      ["aa_lcr/1", "2023", 2],
      ["aa_lcr/2", "The partnership terms", 3],
    ],
  );
  // The category's spaces are underscores in the archive; a decomposed file name still matches.
  assert.match((tasks[0]!.data.documents as string[])[1]!, /^Annual report 2023/);
  assert.match((tasks[1]!.data.documents as string[])[2]!, /^Partnership terms/);
  assert.equal(
    entry.userPrompt(tasks[0]!),
    "BEGIN INPUT DOCUMENTS\n\n" +
      "BEGIN DOCUMENT 1:\nAnnual report 2022. Revenue 100; operating profit 12 (margin 12%).\nEND DOCUMENT 1\n\n" +
      "BEGIN DOCUMENT 2:\nAnnual report 2023. Revenue 110; operating profit 15 (margin 13.6%).\nEND DOCUMENT 2\n\n" +
      "END INPUT DOCUMENTS\n\nAnswer the following question using the input documents provided above.\n\n" +
      "START QUESTION\n\nAcross the two annual reports, in which year did the company report the higher operating margin?\n\nEND QUESTION\n",
  );
  const hub = await loadFromFakeHub("aa_lcr", "test", `${dataDir}aa_lcr/test.parquet`, {
    archive: `${dataDir}aa_lcr/documents.zip`,
  });
  assert.deepEqual(hub.tasks, tasks);
  assert.ok(
    hub.requests.includes(
      "/datasets/ArtificialAnalysis/AA-LCR/resolve/main/extracted_text/AA-LCR_extracted-text.zip",
    ),
  );
});

test("aa_lcr: a document the archive lacks, a missing archive and a row without documents are errors", async () => {
  const entry = getBenchmark("aa_lcr");
  const archive = await openZip(`${dataDir}aa_lcr/documents.zip`);
  const row = {
    document_category: "Legal",
    document_set_id: "set-002",
    question: "q?",
    answer: "a",
  };
  assert.throws(
    () =>
      entry.source.archive!.attach(
        { ...row, data_source_filenames: "contract_a.txt;nope.txt" },
        archive,
        { benchmark: "aa_lcr", split: "test", index: 4 },
      ),
    (e: unknown) =>
      e instanceof BenchmarkRowError &&
      e.field === "data_source_filenames" &&
      /names "nope\.txt", which the documents archive lacks \(looked in lcr\/Legal\/set-002\/\)/.test(
        e.message,
      ),
  );
  assert.throws(
    () => entry.toTask(row, 0, "test"),
    (e: unknown) => e instanceof BenchmarkRowError && e.field === "documents",
  );
  const dir = await mkdtemp(join(tmpdir(), "rllm-aa-lcr-"));
  try {
    await mkdir(join(dir, "aa_lcr"));
    await copyFile(`${dataDir}aa_lcr/test.parquet`, join(dir, "aa_lcr", "test.parquet"));
    await assert.rejects(
      loadBenchmark("aa_lcr", { dataDir: dir }),
      /No documents\.zip for aa_lcr under .*extracted_text\/AA-LCR_extracted-text\.zip of the Hub dataset ArtificialAnalysis\/AA-LCR/,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("multichallenge: the conversation is sent as it is; the judge's yes/no mode gets the target question and pass criterion", async () => {
  const entry = getBenchmark("multichallenge");
  assert.equal(entry.grader, "judge");
  const tasks = await loadBenchmark("multichallenge", { dataDir });
  sane(tasks, "multichallenge", "judgeQuestion");
  const [first, second] = tasks;
  assert.equal(first!.id, "multichallenge/mc-fx-1");
  assert.equal(first!.data.expectedVerdict, "YES");
  assert.equal(second!.data.expectedVerdict, "NO");
  assert.equal(
    first!.data.judgeQuestion,
    "Does the final response consist of exactly two sentences?",
  );
  for (const field of ["question", "answer", "rubric"]) assert.equal(first!.data[field], undefined);
  // The rows meet the judge grader's yes/no contract: a judge that always says YES passes the
  // YES row and fails the NO row, and is asked the row's target question.
  const asked: string[] = [];
  const yes: Judge = {
    model: "always-yes",
    async ask(q) {
      asked.push(q.prompt);
      return {
        verdict: q.parse("VERDICT: YES")!,
        reply: "VERDICT: YES",
        cached: false,
        model: "always-yes",
      };
    },
  };
  const grade = judgeGrader(yes);
  assert.deepEqual(
    [
      (await grade(first!, "Tides follow the Moon. The Sun helps.")).reward,
      (await grade(second!, "x")).reward,
    ],
    [1, 0],
  );
  assert.ok(asked[0]!.includes(first!.data.judgeQuestion as string));
  assert.equal(first!.data.axis, "INSTRUCTION_RETENTION");
  const messages = benchmarkMessages(entry, first!);
  assert.deepEqual(
    messages.map((m) => m.role),
    ["user", "assistant", "user"],
  );
  assert.equal(messages[2]!.content, "What causes tides on Earth?");
  assert.equal(entry.userPrompt(first!), "What causes tides on Earth?");
  // The rows' CONVERSATION may also be a list rather than JSON text.
  const fromList = entry.toTask(
    {
      CONVERSATION: [{ role: "user", content: "Hi" }],
      TARGET_QUESTION: "q?",
      PASS_CRITERIA: " no ",
    },
    0,
    "test",
  );
  assert.deepEqual(fromList.data.messages, [{ role: "user", content: "Hi" }]);
  assert.equal(fromList.data.expectedVerdict, "NO", "the pass criterion in any case, trimmed");
  const hub = await loadFromFakeHub(
    "multichallenge",
    "test",
    `${dataDir}multichallenge/test.parquet`,
  );
  assert.deepEqual(hub.tasks, tasks);
});

test("malformed multichallenge rows fail naming the field", () => {
  const entry = getBenchmark("multichallenge");
  const base = {
    conversation: [{ role: "user", content: "Hi" }],
    target_question: "q?",
    pass_criteria: "YES",
  };
  const fails = (row: Record<string, unknown>, field: string, problem: RegExp) =>
    assert.throws(
      () => entry.toTask(row, 3, "test"),
      (e: unknown) =>
        e instanceof BenchmarkRowError && e.field === field && problem.test(e.message),
    );
  fails({ ...base, conversation: "not json" }, "conversation", /not a JSON list of turns/);
  fails({ ...base, conversation: [] }, "conversation", /non-empty list/);
  fails(
    { ...base, conversation: { role: ["user"], content: [] } },
    "conversation",
    /\{role: \[\.\.\.\], content: \[\.\.\.\]\}/,
  );
  fails({ ...base, conversation: [{ role: "robot", content: "x" }] }, "conversation[0]", /role/);
  fails(
    {
      ...base,
      conversation: [
        { role: "user", content: "a" },
        { role: "assistant", content: "b" },
      ],
    },
    "conversation",
    /must end with the user's turn/,
  );
  fails({ ...base, conversation: undefined }, 'conversation" or "CONVERSATION', /is missing/);
  fails({ ...base, pass_criteria: undefined }, 'pass_criteria" or "PASS_CRITERIA', /is missing/);
  fails({ ...base, target_question: "" }, "target_question", /is empty/);
  fails({ ...base, pass_criteria: "PASS" }, "pass_criteria", /must be "YES" or "NO"/);
});

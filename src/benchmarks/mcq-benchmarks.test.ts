import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { contentSeed, seededPermutation } from "../random.js";
import { multipleChoiceGrader } from "../rewards/index.js";
import { fakeHub, fileRoute, jsonRoute, loadFromFakeHub } from "../testing/fake-hub.js";
import { TaskSchema } from "../types/index.js";
import { BenchmarkRowError, benchmarkMessages, getBenchmark } from "./catalog.js";
import type { DownloadProgress } from "./hub.js";
import { loadBenchmark, pullSplit } from "./load.js";

/** The fixtures written for these rows (fixtures/data/SOURCE.md, fixtures/make-mcq.mjs). */
const dataDir = fileURLToPath(new URL("./fixtures/data/", import.meta.url));
const fixture = (path: string) => join(dataDir, path);

let tmp: string;
before(async () => {
  tmp = await mkdtemp(join(tmpdir(), "rllm-mcq-"));
});
after(async () => {
  await rm(tmp, { recursive: true, force: true });
});

/** Each row's fixture tasks: [id, answer letter, option count, the subject/language label]. */
const EXPECTED: Record<string, [string, string, number, string?][]> = {
  mmlu_pro: [
    ["mmlu_pro/70", "J", 10, "math"],
    ["mmlu_pro/71", "C", 4, "physics"],
    ["mmlu_pro/72", "D", 6, "economics"],
  ],
  mmlu_redux: [
    ["mmlu_redux/test/0", "B", 4, "abstract_algebra"],
    ["mmlu_redux/test/1", "C", 4, "abstract_algebra"],
    // Published answer 0 (A), marked wrong_groundtruth with correct_answer "B".
    ["mmlu_redux/test/2", "B", 4, "college_physics"],
    ["mmlu_redux/test/3", "C", 4, "college_physics"],
  ],
  gpqa_diamond: [
    ["gpqa_diamond/test/0", "D", 4, "Particle physics"],
    ["gpqa_diamond/test/1", "A", 4, "Molecular biology"],
    ["gpqa_diamond/test/2", "A", 4, "Organic chemistry"],
  ],
  supergpqa: [
    ["supergpqa/written-0001", "C", 10, "Astronomy"],
    ["supergpqa/written-0002", "B", 10, "Mathematics"],
  ],
  ceval: [
    ["ceval/val/0", "C", 4, "computer_network"],
    ["ceval/val/1", "C", 4, "computer_network"],
    ["ceval/val/2", "B", 4, "high_school_physics"],
  ],
  mmmlu: [
    ["mmmlu/test/0", "B", 4, "FR_FR"],
    ["mmmlu/test/1", "C", 4, "FR_FR"],
    ["mmmlu/test/2", "A", 4, "ZH_CN"],
  ],
  mmlu_prox: [
    ["mmlu_prox/test/0", "D", 10, "de"],
    ["mmlu_prox/test/1", "A", 4, "de"],
    ["mmlu_prox/test/2", "D", 4, "ja"],
  ],
  include: [
    ["include/test/0", "B", 4, "Greek"],
    ["include/test/1", "C", 4, "Spanish"],
  ],
  global_piqa: [
    ["global_piqa/test/0", "A", 2, "eng_latn"],
    ["global_piqa/test/1", "B", 2, "spa_latn"],
  ],
  longbench_v2: [
    ["longbench_v2/written-lb-0001", "B", 4, "Literary"],
    ["longbench_v2/written-lb-0002", "D", 4, "Table QA"],
  ],
};

/** The label each benchmark keeps: where its subject or language lands in task data. */
const LABEL: Record<string, string> = {
  mmlu_pro: "category",
  mmlu_redux: "subject",
  gpqa_diamond: "subdomain",
  supergpqa: "field",
  ceval: "subject",
  mmmlu: "language",
  mmlu_prox: "language",
  include: "language",
  global_piqa: "language",
  longbench_v2: "subDomain",
};

for (const [name, expected] of Object.entries(EXPECTED)) {
  test(`${name}: fixture rows load through --data-dir as multiple_choice tasks and grade`, async () => {
    const entry = getBenchmark(name);
    assert.equal(entry.grader, "multiple_choice");
    const tasks = await loadBenchmark(name, { dataDir });
    assert.deepEqual(
      tasks.map((t) => [
        t.id,
        t.data.answer,
        (t.data.choices as string[]).length,
        t.data[LABEL[name]!],
      ]),
      expected,
    );
    for (const task of tasks) {
      assert.deepEqual(TaskSchema.parse(task), task);
      assert.deepEqual(JSON.parse(JSON.stringify(task)), task, "tasks survive JSON");
      const choices = task.data.choices as string[];
      const answer = task.data.answer as string;
      const [system, user] = benchmarkMessages(entry, task);
      assert.match(system!.content as string, /Answer: X/);
      const prompt = user!.content as string;
      assert.ok(prompt.includes(task.data.question as string));
      for (const [i, choice] of choices.entries()) {
        assert.ok(prompt.includes(`\n${"ABCDEFGHIJ"[i]}. ${choice}`), `${task.id} option ${i}`);
      }
      const right = await multipleChoiceGrader(task, `Let me think.\nAnswer: ${answer}`);
      assert.equal(right.reward, 1, task.id);
      assert.equal(right.isCorrect, true);
      const wrongLetter = answer === "A" ? "B" : "A";
      const wrong = await multipleChoiceGrader(task, `\\boxed{${wrongLetter}}`);
      assert.deepEqual([wrong.reward, wrong.isCorrect], [0, false], task.id);
      // The right option's text, given instead of its letter, counts too.
      const text = choices["ABCDEFGHIJ".indexOf(answer)]!;
      assert.equal((await multipleChoiceGrader(task, `Answer: ${text}`)).reward, 1, task.id);
    }
  });
}

test("gpqa_diamond: options in the row's own fixed order, the correct one wherever it lands", async () => {
  const tasks = await loadBenchmark("gpqa_diamond", { dataDir });
  const question = "Which particle mediates the electromagnetic force?";
  const order = seededPermutation(4, contentSeed(question));
  const original = ["The photon", "The gluon", "The W boson", "The graviton"];
  assert.deepEqual(
    tasks[0]!.data.choices,
    order.map((k) => original[k]),
  );
  assert.equal((tasks[0]!.data.choices as string[])[3], "The photon");
  // Options are trimmed ("Thymine " in the row).
  assert.ok((tasks[1]!.data.choices as string[]).includes("Thymine"));
  // The same rows give the same order on every load.
  assert.deepEqual(await loadBenchmark("gpqa_diamond", { dataDir }), tasks);
});

test("ceval: a Chinese answer line grades; longbench_v2 puts the document before the question", async () => {
  const [task] = await loadBenchmark("ceval", { dataDir, maxExamples: 1 });
  assert.equal((await multipleChoiceGrader(task!, "HTTP 默认端口是 80，所以答案：C")).reward, 1);
  assert.equal((await multipleChoiceGrader(task!, "答案是（Ａ）")).reward, 0);
  const [doc] = await loadBenchmark("longbench_v2", { dataDir, maxExamples: 1 });
  const prompt = getBenchmark("longbench_v2").userPrompt(doc!);
  assert.ok(prompt.startsWith("Context:\nChapter 1."), prompt);
  assert.ok(prompt.indexOf("blue teapot") < prompt.indexOf("Question: Where"));
  assert.equal(doc!.data.question, "Where does the narrator keep the key?");
});

test("an all-configs split given as one file, or as a folder of JSONL per config, loads too", async () => {
  const dir = join(tmp, "one-file");
  const row = { question: "Q?", A: "1", B: "2", C: "3", D: "4", answer: "B" };
  await mkdir(join(dir, "ceval", "dev"), { recursive: true });
  await writeFile(
    join(dir, "ceval", "val.jsonl"),
    `${JSON.stringify({ ...row, subject: "law" })}\n${JSON.stringify(row)}\n`,
  );
  const one = await loadBenchmark("ceval", { dataDir: dir });
  assert.deepEqual(
    one.map((t) => [t.data.subject, t.data.answer]),
    [
      ["law", "B"],
      [undefined, "B"],
    ],
  );
  // <config>.jsonl files: the config is the name; a row's own column wins.
  await writeFile(join(dir, "ceval", "dev", "physician.jsonl"), `${JSON.stringify(row)}\n`);
  await writeFile(
    join(dir, "ceval", "dev", "art.jsonl"),
    `${JSON.stringify({ ...row, subject: "fine_arts" })}\n`,
  );
  const dev = await loadBenchmark("ceval", { dataDir: dir, split: "dev" });
  assert.deepEqual(
    dev.map((t) => t.data.subject),
    ["fine_arts", "physician"],
  );
});

test("malformed rows are errors naming the benchmark, the row and the field", () => {
  const toTask = (name: string, row: Record<string, unknown>) =>
    getBenchmark(name).toTask(row, 7, getBenchmark(name).source.defaultSplit);
  const field = (name: string, row: Record<string, unknown>, wanted: string, message: RegExp) =>
    assert.throws(
      () => toTask(name, row),
      (error: unknown) => {
        assert.ok(error instanceof BenchmarkRowError, String(error));
        assert.equal(error.field, wanted);
        assert.equal(error.rowIndex, 7);
        assert.match(error.message, new RegExp(`^${name}: row 7`));
        assert.match(error.message, message);
        return true;
      },
    );
  const pro = { question: "Q?", options: ["a", "b", "c"], answer: "B", question_id: 1 };
  field("mmlu_pro", { ...pro, question: undefined }, "question", /is missing/);
  field("mmlu_pro", { ...pro, options: "a,b" }, "options", /must be a list/);
  field("mmlu_pro", { ...pro, options: ["a", null] }, "options[1]", /got missing/);
  field("mmlu_pro", { ...pro, answer: "D" }, "answer", /"D", not one of the 3 options' letters/);
  field("mmlu_pro", { ...pro, answer: "maybe" }, "answer", /must be an option letter/);
  field("mmlu_pro", { ...pro, options: ["only one"], answer: "A" }, "choices", /has 1 options/);
  const ceval = { question: "Q?", A: "1", B: "2", C: "3", answer: "A" };
  field("ceval", ceval, "D", /must be an option's text/);
  field(
    "include",
    { question: "Q?", option_a: "1", option_b: "2", option_c: "3", option_d: "4", answer: 12 },
    "answer",
    /not an option index/,
  );
  field(
    "mmmlu",
    { Question: "Q?", A: "1", B: "2", C: "3", D: "4" },
    'Answer" or "answer',
    /is missing/,
  );
  field(
    "gpqa_diamond",
    { Question: "Q?", "Correct Answer": "x", "Incorrect Answer 1": "y", "Incorrect Answer 2": "z" },
    "Incorrect Answer 3",
    /is missing/,
  );
  field(
    "supergpqa",
    { question: "Q?", options: ["a", "b"], answer: "c" },
    "answer",
    /matches none of the options/,
  );
  field(
    "global_piqa",
    { prompt: "P", solution0: "a", solution1: "b", label: "0" },
    "label",
    /must be an integer/,
  );
  field(
    "longbench_v2",
    { question: "Q?", choice_A: "a", choice_B: "b", choice_C: "c", choice_D: "d", answer: "A" },
    "context",
    /is missing/,
  );
  field(
    "mmlu_prox",
    { question: "Q?", option_0: "a", option_1: "", option_2: "c", answer_index: 0 },
    "option_1",
    /is empty but a later option is not/,
  );
});

test("a fake Hub: one-config rows and all-config rows download into the cache with progress, once", async () => {
  const cacheDir = join(tmp, "hub-cache");
  const file = (path: string) => fileRoute(fixture(path));
  const hub = await fakeHub({
    "/api/datasets/TIGER-Lab/MMLU-Pro/parquet/default/test": jsonRoute((base) => [
      `${base}/files/mmlu_pro.parquet`,
    ]),
    "/files/mmlu_pro.parquet": file("mmlu_pro/test.parquet"),
    // MMMLU's listing: a config per language, and "default" repeating them, which is left out.
    "/api/datasets/openai/MMMLU/parquet": jsonRoute((base) => ({
      ZH_CN: { test: [`${base}/files/zh.parquet`] },
      default: { test: [`${base}/files/default.parquet`] },
      FR_FR: { test: [`${base}/files/fr.parquet`] },
    })),
    "/files/fr.parquet": file("mmmlu/test/FR_FR.00000.parquet"),
    "/files/zh.parquet": file("mmmlu/test/ZH_CN.00000.parquet"),
  });
  try {
    const seen: DownloadProgress[] = [];
    const pro = await pullSplit(getBenchmark("mmlu_pro"), "test", {
      cacheDir,
      hubEndpoint: hub.url,
      onProgress: (p) => seen.push(p),
    });
    assert.equal(pro.cached, false);
    assert.equal(pro.path, join(cacheDir, "TIGER-Lab", "MMLU-Pro", "default", "test.parquet"));
    const size = (await readFile(fixture("mmlu_pro/test.parquet"))).length;
    const last = seen.at(-1)!;
    assert.deepEqual(
      [last.received, last.total, last.done, last.file],
      [size, size, true, pro.path],
    );
    assert.equal(seen[0]!.received, 0);

    const tasks = await loadBenchmark("mmmlu", { cacheDir, hubEndpoint: hub.url });
    assert.deepEqual(
      tasks.map((t) => [t.data.language, t.data.answer]),
      [
        ["FR_FR", "B"],
        ["FR_FR", "C"],
        ["ZH_CN", "A"],
      ],
    );
    const dir = join(cacheDir, "openai", "MMMLU", "all-configs", "test");
    assert.deepEqual(await readdir(dir), ["FR_FR.00000.parquet", "ZH_CN.00000.parquet"]);
    assert.ok(!hub.requests.includes("/files/default.parquet"), "the excluded config");

    const asked = hub.requests.length;
    assert.deepEqual(
      await pullSplit(getBenchmark("mmmlu"), "test", { cacheDir, hubEndpoint: hub.url }),
      { path: dir, cached: true },
    );
    assert.equal((await loadBenchmark("mmlu_pro", { cacheDir, offline: true })).length, 3);
    assert.equal(hub.requests.length, asked, "cached splits are not asked for again");

    // A listing without the split is an error naming the listing's URL; nothing is left cached.
    await assert.rejects(
      pullSplit(getBenchmark("ceval"), "val", { cacheDir, hubEndpoint: hub.url }),
      (error: Error) => error.message.includes(`${hub.url}/api/datasets/ceval/ceval-exam/parquet`),
    );
    assert.ok(!existsSync(join(cacheDir, "ceval")));
  } finally {
    await hub.close();
  }
});

test("every all-configs fixture loads through the Hub's whole-dataset listing as from --data-dir", async () => {
  const names = ["mmlu_redux", "ceval", "mmmlu", "mmlu_prox", "include", "global_piqa"];
  for (const name of names) {
    const { allConfigs, defaultSplit, hfDataset } = getBenchmark(name).source;
    assert.ok(allConfigs, name);
    const local = await loadBenchmark(name, { dataDir });
    const hub = await loadFromFakeHub(name, defaultSplit, fixture(`${name}/${defaultSplit}`));
    assert.deepEqual(hub.tasks, local, name);
    assert.deepEqual(
      hub.requests.filter((r) => r.startsWith("/api/")),
      [`/api/datasets/${hfDataset}/parquet`],
      name,
    );
  }
});

import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import type { Task } from "../types/index.js";
import {
  extractQaAnswer,
  normalizeQaAnswer,
  qaEmGrader,
  qaExactMatch,
  qaF1,
  qaF1Grader,
} from "./qa.js";

const task = (answer: unknown): Task => ({ id: "hotpot-1", data: { question: "q", answer } });

const close = (actual: number, expected: number, what: string) =>
  assert.ok(Math.abs(actual - expected) < 1e-12, `${what}: ${actual} != ${expected}`);

test("normalizeQaAnswer follows SQuAD: lowercase, punctuation, articles, whitespace", () => {
  assert.equal(normalizeQaAnswer("The Eiffel Tower!"), "eiffel tower");
  assert.equal(normalizeQaAnswer("  An   apple, a day "), "apple day");
  assert.equal(normalizeQaAnswer("9,984"), "9984");
  assert.equal(normalizeQaAnswer("World's Best Goalkeeper"), "worlds best goalkeeper");
  assert.equal(normalizeQaAnswer("Theatre and anthem"), "theatre and anthem"); // not whole words
  assert.equal(normalizeQaAnswer("U.S.A."), "usa");
  // Only ASCII punctuation goes, as in Python's string.punctuation.
  assert.equal(normalizeQaAnswer("1969–1974"), "1969–1974");
});

test("qaF1: hand-computed token F1", () => {
  // pred {eiffel, tower, in, paris} vs truth {eiffel, tower}: P = 2/4, R = 2/2, F1 = 2PR/(P+R) = 2/3
  close(qaF1("the Eiffel Tower in Paris", "Eiffel Tower"), 2 / 3, "eiffel");
  // pred {marion} vs truth {marion, south, australia}: P = 1, R = 1/3, F1 = (2/3)/(4/3) = 1/2
  close(qaF1("Marion", "Marion, South Australia"), 1 / 2, "marion");
  // pred {1969, until, 1974} vs truth {from, 1969, to, 1974}: P = 2/3, R = 2/4, F1 = 4/7
  close(qaF1("1969 until 1974", "from 1969 to 1974"), 4 / 7, "years");
  // Shared tokens are a multiset: pred {new, new, york} vs {new, york}: P = 2/3, R = 1, F1 = 4/5
  close(qaF1("new new york", "New York"), 4 / 5, "multiset");
  close(qaF1("Badly Drawn Boy", "badly drawn boy."), 1, "exact");
  close(qaF1("London", "Paris"), 0, "disjoint");
  close(qaF1("", "Paris"), 0, "empty prediction");
});

test("qaF1: HotpotQA's yes/no rule gives no partial credit", () => {
  close(qaF1("yes", "no"), 0, "yes vs no");
  close(qaF1("yes it is", "yes"), 0, "truth yes, prediction longer");
  close(qaF1("no", "no"), 1, "no vs no");
  close(qaF1("no", "Not at all no"), 0, "prediction no, truth longer");
});

test("qaExactMatch after normalisation", () => {
  assert.ok(qaExactMatch("the Animorphs.", "Animorphs"));
  assert.ok(qaExactMatch("9984", "9,984"));
  assert.ok(!qaExactMatch("Animorphs series", "Animorphs"));
});

test("extractQaAnswer: boxed, answer line, <answer> tag, else whole response", () => {
  assert.equal(extractQaAnswer("Thinking... \\boxed{Scotch Collie}"), "Scotch Collie");
  assert.equal(
    extractQaAnswer("Both were born in 1920.\nAnswer: Nelson Rockefeller"),
    "Nelson Rockefeller",
  );
  assert.equal(extractQaAnswer("...\nFinal answer: Dr. Seuss"), "Dr. Seuss");
  assert.equal(extractQaAnswer("reasoning\n<answer> Carabao Cup </answer>"), "Carabao Cup");
  assert.equal(extractQaAnswer("  Yellowcraig \n"), "Yellowcraig");
});

test("qa_f1 grader: reward is F1, isCorrect is EM, signals carry both", async () => {
  const partial = await qaF1Grader(task("Marion, South Australia"), "Answer: Marion");
  close(partial.reward, 0.5, "reward");
  assert.equal(partial.isCorrect, false);
  assert.deepEqual(partial.signals, { f1: 0.5, em: 0 });
  assert.deepEqual(partial.metadata, { extracted: "Marion", expected: "Marion, South Australia" });

  const exact = await qaF1Grader(task("Chief of Protocol"), "<answer>chief of protocol</answer>");
  assert.deepEqual([exact.reward, exact.isCorrect, exact.signals], [1, true, { f1: 1, em: 1 }]);
});

test("qa_em grader: reward is exact match only", async () => {
  const partial = await qaEmGrader(task("Marion, South Australia"), "Answer: Marion");
  assert.equal(partial.reward, 0);
  assert.equal(partial.isCorrect, false);
  assert.deepEqual(partial.signals, { f1: 0.5, em: 0 });
  const exact = await qaEmGrader(task("no"), "The answer is: No.");
  assert.equal(exact.reward, 1);
});

test("qa graders accept several references and keep the best score", async () => {
  const out = await qaF1Grader(task(["NYC", "New York City"]), "Answer: New York");
  // best is {new, york} vs {new, york, city}: P = 1, R = 2/3, F1 = 4/5
  close(out.reward, 4 / 5, "best reference");
  assert.deepEqual(out.metadata?.["expected"], ["NYC", "New York City"]);
});

test("qa graders throw on a task without an answer, never on model output", async () => {
  assert.throws(
    () => qaF1Grader({ id: "bad", data: { question: "q" } }, "x"),
    /task bad needs data\.answer/,
  );
  for (const junk of ["", "\\boxed{", "<answer>", "Answer:"]) {
    const out = await qaF1Grader(task("Paris"), junk);
    assert.equal(out.reward, 0, JSON.stringify(junk));
  }
});

/**
 * HotpotQA's gold answers: the fixture rows always, and all of ../shared/data's sample too when it
 * is beside the repository.
 */
const fixtureRows = new URL(
  "../benchmarks/fixtures/data/hotpotqa/validation.jsonl.gz",
  import.meta.url,
);
const sharedRows = new URL("../../../shared/data/hotpotqa/validation.jsonl", import.meta.url);
const hotpotFiles: [path: string, rows: number][] = [[fileURLToPath(fixtureRows), 4]];
if (existsSync(sharedRows)) hotpotFiles.push([fileURLToPath(sharedRows), 500]);

for (const [file, expectedRows] of hotpotFiles) {
  test(`hotpotqa validation (${expectedRows} rows): each gold answer, given as 'Answer: ...', scores EM 1`, async () => {
    const bytes = readFileSync(file);
    const rows = (file.endsWith(".gz") ? gunzipSync(bytes) : bytes)
      .toString("utf8")
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => JSON.parse(l) as { _id: string; answer: string });
    assert.equal(rows.length, expectedRows);
    const failures: string[] = [];
    for (const row of rows) {
      const out = await qaEmGrader(
        { id: row._id, data: row },
        `Reasoning...\nAnswer: ${row.answer}`,
      );
      if (out.reward !== 1) failures.push(`${row._id}: ${row.answer}`);
    }
    assert.deepEqual(failures, []);
  });
}

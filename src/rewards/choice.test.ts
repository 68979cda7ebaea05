import assert from "node:assert/strict";
import { test } from "node:test";
import type { Task } from "../types/index.js";
import { extractChoice, multipleChoiceGrader } from "./choice.js";

const CAPITALS = ["London", "Paris", "Berlin", "Madrid"];
const task = (answer: unknown, choices?: unknown): Task => ({
  id: "mc-1",
  data: choices === undefined ? { answer } : { answer, choices },
});

async function reward(answer: unknown, response: string, choices?: unknown): Promise<number> {
  return (await multipleChoiceGrader(task(answer, choices), response)).reward;
}

test("extractChoice: the usual ways of giving a letter", () => {
  const cases: [string, string][] = [
    ["Answer: C", "C"],
    ["The answer is C.", "C"],
    ["The answer is (B) because...", "B"],
    ["**Answer:** D", "D"],
    ["Final answer: option A", "A"],
    ["answer: c", "C"],
    ["... so \\boxed{C}", "C"],
    ["\\boxed{\\text{(E)}}", "E"],
    ["(A) is wrong since x. (C) fits.", "C"],
    ["B", "B"],
    ["(d)", "D"],
    ["B.", "B"],
  ];
  for (const [response, letter] of cases) {
    assert.equal(extractChoice(response).letter, letter, JSON.stringify(response));
  }
});

test("extractChoice: an answer cue wins over letters mentioned in passing", () => {
  assert.equal(extractChoice("Option (A) is tempting, but (B) fails too. Answer: D").letter, "D");
  assert.equal(extractChoice("Answer: B. (A) and (C) are distractors.").letter, "B");
  assert.equal(extractChoice("\\boxed{A} even though the answer is B").letter, "A");
});

test("extractChoice: Chinese answer cues and full-width letters (C-Eval, MMMLU)", () => {
  const cases: [string, string][] = [
    ["根据题意，答案：B", "B"],
    ["所以答案是 C。", "C"],
    ["答案为D", "D"],
    ["选项（Ａ）不对，答案：（Ｃ）", "C"],
    ["答案: A、理由如上", "A"],
  ];
  for (const [response, letter] of cases) {
    assert.equal(extractChoice(response).letter, letter, JSON.stringify(response));
  }
  // The English cue, when present, is the one read.
  assert.equal(extractChoice("答案是A吗？不。Answer: D").letter, "D");
  // A cue with no letter after it selects nothing.
  assert.equal(extractChoice("我不知道答案。").letter, undefined);
});

test("extractChoice: letters up to J for ten-option questions (MMLU-Pro, SuperGPQA)", () => {
  const ten = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"];
  assert.equal(extractChoice("Answer: J", ten).letter, "J");
  assert.equal(extractChoice("Answer: I", ten).letter, "I");
  assert.equal(extractChoice("Answer: K", ten).letter, undefined);
});

test("extractChoice: no letter in plain prose", () => {
  assert.equal(extractChoice("A cat sat on the mat.").letter, undefined);
  assert.equal(extractChoice("I am not sure.").letter, undefined);
  assert.equal(extractChoice("").letter, undefined);
  // Only letters of the given choices count: with four choices, (F) is not an option.
  assert.equal(extractChoice("Answer: F", CAPITALS).letter, undefined);
});

test("multiple_choice: letters compare case-insensitively", async () => {
  assert.equal(await reward("C", "The answer is c"), 1);
  assert.equal(await reward("c", "Answer: C"), 1);
  assert.equal(await reward("(C)", "\\boxed{C}"), 1);
  assert.equal(await reward("C", "Answer: D"), 0);
});

test("multiple_choice: 0-based index answers", async () => {
  assert.equal(await reward(2, "Answer: C"), 1);
  assert.equal(await reward(0, "Answer: A"), 1);
  assert.equal(await reward("1", "Answer: B", CAPITALS), 1);
  assert.equal(await reward(2, "Answer: B"), 0);
});

test("multiple_choice: choice text, in the response or as the answer", async () => {
  assert.equal(await reward("B", "The capital of France is...\nAnswer: Paris", CAPITALS), 1);
  assert.equal(await reward("B", "\\boxed{paris}", CAPITALS), 1);
  assert.equal(await reward("B", "Paris", CAPITALS), 1);
  assert.equal(await reward("B", "Answer: Berlin", CAPITALS), 0);
  // The answer line's text beats restated options elsewhere in the response.
  assert.equal(await reward("B", "(A) London (B) Paris (C) Berlin\nAnswer: Paris", CAPITALS), 1);
  assert.equal(await reward("A", "(A) London (B) Paris\nAnswer: London", CAPITALS), 1);
  // data.answer may be the text of the right choice.
  assert.equal(await reward("Paris", "Answer: B", CAPITALS), 1);
  // Choices keyed by letter.
  assert.equal(await reward("C", "Answer: Berlin", { A: "London", B: "Paris", C: "Berlin" }), 1);
});

test("multiple_choice: result shape and the no-choice case", async () => {
  const right = await multipleChoiceGrader(task("C"), "The answer is (C).");
  assert.deepEqual(right, {
    reward: 1,
    isCorrect: true,
    metadata: { extracted: "(C)", predicted: "C", expected: "C", extractedFrom: "answer_line" },
  });
  const none = await multipleChoiceGrader(task("C"), "I cannot decide between them.");
  assert.equal(none.reward, 0);
  assert.equal(none.metadata?.["reason"], "no choice found");
});

test("multiple_choice: a bad ground truth is a dataset error", () => {
  assert.throws(() => multipleChoiceGrader(task(undefined), "A"), /task mc-1: got no answer/);
  assert.throws(() => multipleChoiceGrader(task(12), "A"), /index 12 is out of range/);
  assert.throws(() => multipleChoiceGrader(task(5, CAPITALS), "A"), /only 4 choices/);
  assert.throws(
    () => multipleChoiceGrader(task("Rome", CAPITALS), "A"),
    /neither a letter nor one of the choices/,
  );
});

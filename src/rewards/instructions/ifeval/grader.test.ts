import assert from "node:assert/strict";
import { test } from "node:test";
import type { Task } from "../../../types/index.js";
import { getGrader } from "../../index.js";

const grader = getGrader("ifeval");

function task(instructionIds: unknown, kwargs: unknown, prompt = "Write something."): Task {
  return { id: "ifeval-1", data: { prompt, instructionIds, kwargs } } as Task;
}

test("ifeval grader: every instruction followed strictly is reward 1 with all four signals at 1", async () => {
  const out = await grader(
    task(["punctuation:no_comma", "startend:quotation"], [{}, {}]),
    '"A short answer without commas."',
  );
  assert.equal(out.reward, 1);
  assert.equal(out.isCorrect, true);
  assert.deepEqual(out.signals, { promptStrict: 1, promptLoose: 1, instStrict: 1, instLoose: 1 });
});

test("ifeval grader: a 'Sure, here it is:' first line fails strict and passes loose", async () => {
  const response = 'Sure, here it is:\n"The whole answer is quoted."';
  const out = await grader(
    task(["startend:quotation", "keywords:existence"], [{}, { keywords: ["quoted"] }]),
    response,
  );
  assert.equal(out.reward, 0);
  assert.equal(out.isCorrect, false);
  assert.deepEqual(out.signals, { promptStrict: 0, promptLoose: 1, instStrict: 0.5, instLoose: 1 });
  assert.deepEqual(out.metadata?.["instructions"], [
    { id: "startend:quotation", strict: false, loose: true },
    { id: "keywords:existence", strict: true, loose: true },
  ]);
});

test("ifeval grader: ** markdown around the answer fails strict and passes loose", async () => {
  const out = await grader(
    task(["startend:quotation"], [{ end_phrase: null }]),
    '**"Bold and quoted."**',
  );
  assert.deepEqual(out.signals, { promptStrict: 0, promptLoose: 1, instStrict: 0, instLoose: 1 });
});

test("ifeval grader: Hub rows' null kwargs are dropped; a failed count instruction is reward 0", async () => {
  const kwargs = [{ num_words: 5, relation: "less than", keyword: null, frequency: null }];
  const short = await grader(
    task(["length_constraints:number_words"], kwargs),
    "Four words right here.",
  );
  const long = await grader(
    task(["length_constraints:number_words"], kwargs),
    "These are far more than five words.",
  );
  assert.equal(short.reward, 1);
  assert.equal(long.reward, 0);
  assert.deepEqual(long.signals, { promptStrict: 0, promptLoose: 0, instStrict: 0, instLoose: 0 });
});

test("ifeval grader: an empty response follows nothing and does not throw", async () => {
  const out = await grader(task(["punctuation:no_comma"], [{}]), "   ");
  assert.equal(out.reward, 0);
  assert.equal(out.signals?.["instLoose"], 0);
});

test("ifeval grader: dataset errors name what to fix", async () => {
  await assert.rejects(
    async () => grader(task(["keywords:not_a_thing"], [{}]), "x"),
    /unknown instruction id "keywords:not_a_thing"/,
  );
  await assert.rejects(async () => grader(task([], []), "x"), /data\.instructionIds/);
  await assert.rejects(async () => grader(task(["punctuation:no_comma"], []), "x"), /data\.kwargs/);
  await assert.rejects(
    async () => grader(task(["length_constraints:number_words"], [{ num_words: 3 }]), "x y"),
    /length_constraints:number_words: kwarg "relation" is missing/,
  );
});

test("ifeval grader: bad kwargs are reported even when the response is blank", async () => {
  await assert.rejects(
    async () => grader(task(["length_constraints:number_words"], [{ num_words: 3 }]), "  "),
    /kwarg "relation" is missing/,
  );
});

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

// The Hub's google/IFEval rows give every instruction every kwarg key, unused ones null.
const HUB_KEYS = [
  "num_highlights",
  "relation",
  "num_words",
  "num_placeholders",
  "prompt_to_repeat",
  "num_bullets",
  "section_spliter",
  "num_sections",
  "capital_relation",
  "capital_frequency",
  "keywords",
  "num_paragraphs",
  "language",
  "let_relation",
  "letter",
  "let_frequency",
  "end_phrase",
  "forbidden_words",
  "keyword",
  "frequency",
  "num_sentences",
  "postscript_marker",
  "first_word",
  "nth_paragraph",
];
const hub = (kwargs: Record<string, unknown>) => ({
  ...Object.fromEntries(HUB_KEYS.map((k) => [k, null])),
  ...kwargs,
});

test("ifeval grader on real IFEval rows in the Hub's kwargs shape", async () => {
  // key 1122: lower case, and "#" at least 4 times.
  const row1122 = task(
    ["change_case:english_lowercase", "keywords:letter_frequency"],
    [hub({}), hub({ let_relation: "at least", letter: "#", let_frequency: 4 })],
  );
  const tweet =
    "vote for fun this weekend and tell your friends about it #vote #fun #weekend #friends";
  assert.equal((await grader(row1122, tweet)).reward, 1);
  assert.equal((await grader(row1122, tweet.replace("#friends", "friends"))).reward, 0);
  // key 1012: repeat the request, then a <<title>>.
  const request =
    "Write an email to my boss telling him that I am quitting. The email must contain a title wrapped in double angular brackets, i.e. <<title>>.";
  const row1012 = task(
    ["combination:repeat_prompt", "detectable_format:title"],
    [hub({ prompt_to_repeat: request }), hub({})],
  );
  const email = `${request}\n\n<<Moving On>>\n\nDear boss, I am writing to let you know I am quitting.`;
  assert.equal((await grader(row1012, email)).reward, 1);
  const out = await grader(row1012, `Sure!\n${email}`);
  assert.deepEqual(out.signals, { promptStrict: 0, promptLoose: 1, instStrict: 0.5, instLoose: 1 });
});

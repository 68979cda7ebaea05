import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import type { Task } from "../../../types/index.js";
import { getGrader } from "../../index.js";
import { InstructionArgsError } from "../types.js";
import { IFBENCH_REGISTRY } from "./index.js";

type Args = Record<string, unknown>;

/** The 58 instruction ids of IFBench_test (allenai/IFBench `data/IFBench_test.jsonl`). */
const TEST_SET_IDS = [
  ["count:conjunctions", "count:keywords_multiple", "count:numbers", "count:person_names"],
  ["count:pronouns", "count:punctuation", "count:unique_word_count", "count:word_count_range"],
  ["count:words_japanese", "custom:character_reverse", "custom:csv_city", "custom:csv_quotes"],
  ["custom:csv_special_character", "custom:date_format_list", "custom:european_capitals_sort"],
  ["custom:mcq_count_length", "custom:multiples", "custom:reverse_newline"],
  ["custom:sentence_alphabet", "custom:word_reverse", "format:emoji", "format:line_indent"],
  ["format:list", "format:newline", "format:no_bullets_bullets", "format:no_whitespace"],
  ["format:options", "format:output_template", "format:parentheses", "format:quote_unquote"],
  ["format:quotes", "format:sub-bullets", "format:thesis", "format:title_case", "ratio:overlap"],
  ["ratio:sentence_balance", "ratio:sentence_type", "ratio:sentence_words", "ratio:stop_words"],
  ["repeat:repeat_change", "repeat:repeat_simple", "repeat:repeat_span"],
  ["sentence:alliteration_increment", "sentence:increment", "sentence:keyword", "words:alphabet"],
  ["words:consonants", "words:keywords_specific_position", "words:last_first"],
  ["words:no_consecutive", "words:odd_even_syllables", "words:palindrome"],
  ["words:paragraph_last_first", "words:prime_lengths", "words:repeats", "words:start_verb"],
  ["words:vowel", "words:words_position"],
].flat();

const check = (id: string, args: Args, response: string) =>
  IFBENCH_REGISTRY.get(id)!.check(response, args, "");

test("the registry has a checker for each of IFBench_test's 58 instructions, and no other", () => {
  assert.equal(TEST_SET_IDS.length, 58);
  assert.deepEqual([...IFBENCH_REGISTRY.keys()].sort(), [...TEST_SET_IDS].sort());
  for (const [id, c] of IFBENCH_REGISTRY) assert.equal(c.id, id);
});

test("the reference's own test cases (instructions_test.py) give the reference's answers", () => {
  // Every check_following call of IFBench's instructions_test.py (allenai/IFBench, Apache-2.0) with
  // the outcome it asserts: 162 calls over 52 instructions, recorded by `bench/ifbench/reference.py
  // tests` (which fails unless the reference passes its own tests).
  const path = new URL("./fixtures/reference-tests.json", import.meta.url);
  const cases = JSON.parse(readFileSync(path, "utf8")) as {
    id: string;
    args: Args;
    response: string;
    followed: boolean;
  }[];
  assert.equal(cases.length, 162);
  for (const c of cases) {
    assert.equal(
      check(c.id, c.args, c.response),
      c.followed,
      `${c.id}: ${JSON.stringify(c.response)}`,
    );
  }
});

/** [id, kwargs, a response that follows it, one that does not]; each pair also checked against the
 * reference implementation when written. */
const EXAMPLES: [string, Args, string, string][] = [
  ["count:word_count_range", { min_words: 3, max_words: 5 }, "One two three four.", "Just two."],
  ["count:unique_word_count", { N: 4 }, "Red green blue yellow.", "Red red red red."],
  [
    "count:conjunctions",
    { small_n: 3 },
    "Tea and cake, but no coffee or milk.",
    "Tea and cake and more and more.",
  ],
  ["count:person_names", { N: 2 }, "Emma met Liam at noon.", "Emma met emma and Liamx."],
  ["count:numbers", { N: 2 }, "I have 3 cats and 4.5 dogs.", "I have 3 cats, 4 dogs and 5 fish."],
  [
    "count:punctuation",
    {},
    "Wait, what?! Yes: it works; really. Great! Why?",
    "Wait, what?! Yes: it works. Great! Why?",
  ],
  ["count:words_japanese", { N: 2 }, "I 私は like 猫 very 好き", "I like cats very much"],
  ["count:pronouns", { N: 3 }, "She told me that they would come.", "The cat sat on the mat."],
  [
    "count:keywords_multiple",
    { keyword1: "sun", keyword2: "moon", keyword3: "star", keyword4: "sky", keyword5: "sea" },
    "sun moon moon star star star sky sky sky sky sky sea sea sea sea sea sea sea",
    "sun moon star sky sea",
  ],
  [
    "ratio:stop_words",
    { percentage: 40 },
    "Quantum computers factor large numbers quickly.",
    "It is the one that we have been in.",
  ],
  [
    "ratio:sentence_type",
    {},
    "I like tea. You like coffee. Do we agree?",
    "I like tea. Do you? Do we agree?",
  ],
  ["ratio:sentence_balance", {}, "It rains. Does it? It does!", "It rains. It pours. Does it?"],
  [
    "ratio:overlap",
    { reference_text: "the quick brown fox", percentage: 100 },
    "the quick brown",
    "lazy dogs sleep",
  ],
  [
    "ratio:sentence_words",
    {},
    "Cats nap. Dogs run. Owls fly.",
    "Cats nap. Dogs run fast. Owls fly.",
  ],
  ["words:alphabet", {}, "Apples bring cheer daily, even for geese.", "Apples bring joy."],
  ["words:vowel", {}, "A cat sat on a mat at dawn.", "A cat sat on a mat at dusk with a queen."],
  ["words:consonants", {}, "Strong blocks stand.", "A strong block stands."],
  [
    "words:palindrome",
    {},
    "level radar civic kayak refer rotor madam stats tenet sagas",
    "level radar civic kayak refer rotor madam stats tenet",
  ],
  ["words:prime_lengths", {}, "We are all in it.", "This sentence fails."],
  ["words:start_verb", {}, "Write a poem about the sea.", "The sea is calm today."],
  ["words:repeats", { small_n: 2 }, "The cat saw the dog.", "The cat saw the dog near the house."],
  ["words:odd_even_syllables", {}, "cat apple dog", "cat dog apple"],
  [
    "words:last_first",
    {},
    "I like the sea. Sea waves are calm.",
    "I like the sea. Waves are calm.",
  ],
  [
    "words:paragraph_last_first",
    {},
    "Time heals every wound in time.\nLove conquers all but love.",
    "Time heals every wound.\nLove conquers all but love.",
  ],
  ["words:no_consecutive", {}, "A big cat danced.", "A big bad cat."],
  [
    "words:keywords_specific_position",
    { keyword: "blue", n: 2, m: 3 },
    "Hello there. The sky blue is vast.",
    "Hello there. The blue sky is vast.",
  ],
  [
    "words:words_position",
    { keyword: "apple" },
    "An apple a day keeps apple away.",
    "An orange a day keeps apple away.",
  ],
  [
    "sentence:alliteration_increment",
    {},
    "Cats sleep. Big bears bounce. Silly snakes slither slowly.",
    "Big bears bounce. Cats sleep.",
  ],
  [
    "sentence:keyword",
    { word: "river", N: 2 },
    "We walked. The river was cold.",
    "The river was cold. We walked.",
  ],
  [
    "sentence:increment",
    { small_n: 1 },
    "I ran. I ran far. I ran very far.",
    "I ran. I ran far. I ran.",
  ],
  [
    "format:parentheses",
    {},
    "Look (at [this {deep (nest [here])}]) now.",
    "Look (at [this {shallow}]) now.",
  ],
  [
    "format:quotes",
    {},
    'He said "she said \'they said "hi" to me\' loudly" once.',
    'He said "hello" once.',
  ],
  ["format:options", { options: "yes/no/maybe" }, "Maybe.", "Maybe, but it depends."],
  ["format:newline", {}, "One\ntwo\nthree", "One two\nthree"],
  ["format:emoji", {}, "I love pizza 🍕. It is great 😀.", "I love pizza 🍕. It is great."],
  ["format:line_indent", {}, "a\n  b\n    c", "a\n  b\n  c"],
  ["format:quote_unquote", {}, '"Carpe diem" means seize the day.', 'He said: "Carpe diem"'],
  [
    "format:list",
    { sep: "SEPARATOR" },
    "SEPARATOR apples\nSEPARATOR pears",
    "SEPARATOR apples\n- pears",
  ],
  ["format:thesis", {}, "<i>Cats rule.</i>\nThey do, indeed.", "Cats rule. They do, indeed."],
  [
    "format:sub-bullets",
    {},
    "* Fruit\n  - apple\n* Veg\n  - kale",
    "* Fruit\n  - apple\n* Veg\n  kale",
  ],
  [
    "format:no_bullets_bullets",
    {},
    "I like food. Here is a list.\n* apples\n* pears",
    "I like food.\n* apples\n* pears",
  ],
  ["format:title_case", {}, "The Great Gatsby Is A Novel.", "The great Gatsby is a novel."],
  [
    "format:output_template",
    {},
    "My Answer: yes My Conclusion: fine Future Outlook: bright",
    "My Answer: yes My Conclusion: fine",
  ],
  ["format:no_whitespace", {}, "Nospaceshere!", "Two words"],
  ["custom:multiples", {}, "14, 21, 28, 35, 42, 49", "7, 14, 21, 28, 35, 42, 49"],
  ["custom:word_reverse", {}, "eagle bald the is It", "It is the bald eagle"],
  ["custom:character_reverse", {}, ".elgae dlab ehT", "The bald eagle."],
  [
    "custom:date_format_list",
    {},
    "1796-04-12, 1805-12-02, 1815-06-18",
    "1796-04-12, 1805-12-02, 1830-06-18",
  ],
  [
    "repeat:repeat_change",
    { prompt_to_repeat: "Write a poem about the sea." },
    "Compose a poem about the sea.",
    "Write a poem about the sea.",
  ],
  [
    "repeat:repeat_simple",
    {},
    "only output this sentence here, ignore all other requests.",
    "Sure! Only output this sentence here, ignore all other requests.",
  ],
  [
    "repeat:repeat_span",
    { prompt_to_repeat: "explain the context of the code", n_start: 8, n_end: 18 },
    "The context",
    "the context of",
  ],
];

const AFRICA_REVERSED = [
  ["Zimbabwe", "Zambia", "Uganda", "Tunisia", "Togo", "Tanzania", "Sudan", "South Sudan"],
  ["South Africa", "Somalia", "Sierra Leone", "Seychelles", "Senegal", "São Tomé and Príncipe"],
  ["Rwanda", "Nigeria", "Niger", "Namibia", "Mozambique", "Morocco", "Mauritius", "Mauritania"],
  ["Mali", "Malawi", "Madagascar", "Libya", "Liberia", "Lesotho", "Kenya", "Guinea-Bissau"],
  ["Guinea", "Ghana", "Gambia", "Gabon", "Ethiopia", "Eswatini", "Eritrea", "Equatorial Guinea"],
  ["Egypt", "Djibouti", "DR Congo", "Côte d'Ivoire", "Congo", "Comoros", "Chad"],
  ["Central African Republic", "Cameroon", "Cabo Verde", "Burundi", "Burkina Faso", "Botswana"],
  ["Benin", "Angola", "Algeria"],
].flat();
const CAPITALS =
  "Reykjavik, Helsinki, Oslo, Tallinn, Stockholm, Riga, Moscow, Copenhagen, Vilnius, Minsk, " +
  "Dublin, Berlin, Amsterdam, Warsaw, London, Brussels, Prague, Luxembourg, Paris, Vienna, " +
  "Bratislava, Budapest, Vaduz, Chișinău, Bern, Ljubljana, Zagreb";
const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
const mcq = (grow: boolean) =>
  range(4)
    .map(
      (i) =>
        `Question ${i}: ${"Why ".repeat(grow ? i : 1)}art?\nA. one\nB. two\nC. three\nD. four\nE. five`,
    )
    .join("\n");
const alphabetStory = (shift: number) =>
  range(26)
    .map((i) => `${String.fromCharCode(65 + ((i - 1 + shift) % 26))}x went home.`)
    .join(" ");
const CITY_CSV = [
  "ID,Country,City,Year,Count",
  ...range(7).map((i) => `${i},France,Paris,2020,${i * 10}`),
].join("\n");
const PRODUCT_CSV = [
  "ProductID,Category,Brand,Price,Stock",
  ...range(14).map((i) => `${i},Toys,${i === 1 ? '"B&1"' : "Acme"},9.99,${i}`),
].join("\n");
const STUDENT_TSV = [
  '"StudentID"\t"Subject"\t"Grade"\t"Semester"\t"Score"',
  ...range(3).map((i) => `"${i}"\t"Math"\t"A"\t"Fall"\t"9${i}"`),
].join("\n");

EXAMPLES.push(
  ["custom:mcq_count_length", {}, mcq(true), mcq(false)],
  [
    "custom:reverse_newline",
    {},
    AFRICA_REVERSED.join("\n"),
    [...AFRICA_REVERSED.slice(0, 20), "Zambia", ...AFRICA_REVERSED.slice(20)].join("\n"),
  ],
  ["custom:sentence_alphabet", {}, alphabetStory(0), alphabetStory(1)],
  [
    "custom:european_capitals_sort",
    {},
    CAPITALS,
    CAPITALS.replace("Helsinki, Oslo", "Oslo, Helsinki"),
  ],
  ["custom:csv_city", {}, CITY_CSV, `${CITY_CSV}\n8,Spain,Madrid,2021,80`],
  ["custom:csv_special_character", {}, PRODUCT_CSV, PRODUCT_CSV.replace('"B&1"', "Plain")],
  ["custom:csv_quotes", {}, STUDENT_TSV, STUDENT_TSV.replace('"Math"', "Math")],
);

test("every checker: one response that follows its instruction, one that does not", () => {
  assert.deepEqual(EXAMPLES.map(([id]) => id).sort(), [...TEST_SET_IDS].sort());
  for (const [id, args, followed, violated] of EXAMPLES) {
    assert.equal(
      check(id, args, followed),
      true,
      `${id} should accept ${JSON.stringify(followed)}`,
    );
    assert.equal(
      check(id, args, violated),
      false,
      `${id} should reject ${JSON.stringify(violated)}`,
    );
  }
});

test("checkers never throw on model output: empty, white space, odd characters", () => {
  const responses = ["", " ", "\n\n", "…", "*", '"', "(((", "🍕", "\u0000", "a\r\nb", "? ! ."];
  for (const [id, args] of EXAMPLES) {
    for (const r of responses)
      assert.equal(typeof check(id, args, r), "boolean", `${id} on ${JSON.stringify(r)}`);
  }
});

test("words:start_verb tags a prefix of the first sentence: a 40,000-character sentence stays fast", () => {
  // The tagger's time grows faster than the sentence (50 s for 100,000 characters), and the
  // grader runs every checker on up to eight loose variants of a response.
  const cases: [string, boolean][] = [
    [`Write ${"a ".repeat(20_000)}.`, true],
    [`The sea ${"a ".repeat(20_000)}.`, false],
    ["a.".repeat(20_000), false],
  ];
  for (const [response, followed] of cases) {
    const started = performance.now();
    assert.equal(check("words:start_verb", {}, response), followed, response.slice(0, 20));
    const ms = performance.now() - started;
    assert.ok(ms < 500, `${JSON.stringify(response.slice(0, 20))} took ${Math.round(ms)} ms`);
  }
});

test("count:person_names looks for each name only where it occurs: 100,000 emoji stay fast", () => {
  const response = `${"🙂".repeat(50_000)} Emma and Noah met Ava.`;
  const started = performance.now();
  assert.equal(check("count:person_names", { N: 3 }, response), true);
  assert.equal(check("count:person_names", { N: 4 }, response), false);
  const ms = performance.now() - started;
  assert.ok(ms < 300, `took ${Math.round(ms)} ms`);
});

test("format:line_indent drops blank lines as the reference's loop does, in linear time", () => {
  // The reference: `for line in lines: if not line.strip(): lines.remove(line)`, then stairs.
  const reference = (value: string) => {
    const lines = value.split("\n");
    for (let i = 0; i < lines.length; i++) {
      if (lines[i]!.trim() === "") lines.splice(lines.indexOf(lines[i]!), 1);
    }
    const indent = (l: string) => l.length - l.replace(/^ +/, "").length;
    return lines.every((l, i) => i === 0 || indent(l) > indent(lines[i - 1]!));
  };
  // Stairs with blank lines of several kinds between the steps: which blank lines stay decides.
  const blanks = ["", " ", "  ", "      ", "\t"];
  let seed = 7;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return (seed >>> 16) % n;
  };
  let followed = 0;
  for (let k = 0; k < 3000; k++) {
    const lines: string[] = [];
    for (let step = 0; step < 1 + (k % 5); step++) {
      while (random(2) === 0) lines.push(blanks[random(blanks.length)]!);
      lines.push(`${" ".repeat(step)}x`);
    }
    while (random(2) === 0) lines.push(blanks[random(blanks.length)]!);
    const text = lines.join("\n");
    const expected = reference(text);
    assert.equal(check("format:line_indent", {}, text), expected, JSON.stringify(text));
    if (expected) followed++;
  }
  assert.ok(followed > 300 && followed < 2700, `${followed} of 3000 followed`);
  const started = performance.now();
  check("format:line_indent", {}, "a\n\n".repeat(50_000));
  const ms = performance.now() - started;
  assert.ok(ms < 100, `took ${Math.round(ms)} ms`);
});

test("quirks kept from the reference", () => {
  // A bullet-free response has no "*" to follow with "-": sub-bullets holds vacuously.
  assert.equal(check("format:sub-bullets", {}, "No bullets at all."), true);
  // Conjunctions are counted as written: "and" and "and," are two different ones.
  assert.equal(check("count:conjunctions", { small_n: 2 }, "this and that and, so"), true);
  // Options split on "or" anywhere, so "I know or I don't know" gives the options "I know" and
  // "I don't know"; lettered options must match exactly, without trimming.
  assert.equal(
    check("format:options", { options: "I know or I don't know" }, "I don't know."),
    true,
  );
  assert.equal(check("format:options", { options: "a), b), c), d)" }, "b)"), true);
  assert.equal(check("format:options", { options: "a), b), c), d)" }, "b) "), false);
  // Keywords are counted as substrings: "sunny" holds "sun".
  const keywords = {
    keyword1: "sun",
    keyword2: "x1",
    keyword3: "x2",
    keyword4: "x3",
    keyword5: "x4",
  };
  const counts = "x1 x1 x2 x2 x2 x3 x3 x3 x3 x3 x4 x4 x4 x4 x4 x4 x4";
  assert.equal(check("count:keywords_multiple", keywords, `sunny ${counts}`), true);
  assert.equal(check("count:keywords_multiple", keywords, `sunny sun ${counts}`), false);
});

test("kwargs a checker cannot use are InstructionArgsError naming the key", () => {
  const bad: [string, Args, string][] = [
    ["count:word_count_range", { min_words: 3 }, "max_words"],
    ["count:unique_word_count", { N: "many" }, "N"],
    ["count:words_japanese", { N: 0 }, "N"],
    ["count:numbers", { N: 2.5 }, "N"],
    ["ratio:overlap", { percentage: 50 }, "reference_text"],
    ["ratio:stop_words", { percentage: "50%" }, "percentage"],
    [
      "count:keywords_multiple",
      { keyword1: "a", keyword2: "b", keyword3: "c", keyword4: "d" },
      "keyword5",
    ],
    ["sentence:keyword", { word: "  ", N: 1 }, "word"],
    ["format:list", { sep: "" }, "sep"],
    ["format:options", {}, "options"],
    ["words:keywords_specific_position", { keyword: "k", n: 0, m: 1 }, "n"],
    ["repeat:repeat_span", { prompt_to_repeat: "abc", n_start: -1, n_end: 2 }, "n_start"],
    ["repeat:repeat_change", { prompt_to_repeat: 7 }, "prompt_to_repeat"],
    ["words:vowel", { N: 3 }, "N"], // takes no arguments
    ["count:pronouns", { N: 3, percentage: 2 }, "percentage"],
  ];
  for (const [id, args, key] of bad) {
    assert.throws(
      () => check(id, args, "any response"),
      (e: unknown) => e instanceof InstructionArgsError && e.message.includes(`"${key}"`),
      `${id} with ${JSON.stringify(args)} should name ${key}`,
    );
  }
});

const task = (instructionIds: unknown, kwargs: unknown): Task => ({
  id: "ifbench-1",
  data: { prompt: "Write about tea.", instructionIds, kwargs },
});

test("the ifbench grader: reward is prompt-level strict, the four IFEval metrics are signals", async () => {
  const grade = getGrader("ifbench");
  const both = task(["format:no_whitespace", "count:numbers"], [{}, { N: 1, keyword: null }]);
  const ok = await grade(both, "Tea1");
  assert.equal(ok.reward, 1);
  assert.equal(ok.isCorrect, true);
  assert.deepEqual(ok.signals, { promptStrict: 1, promptLoose: 1, instStrict: 1, instLoose: 1 });

  // One of two instructions fails, in every loose variant too.
  const half = await grade(both, "Tea 1");
  assert.equal(half.reward, 0);
  assert.deepEqual(half.signals, {
    promptStrict: 0,
    promptLoose: 0,
    instStrict: 0.5,
    instLoose: 0.5,
  });
  // Only a loose variant (the first line dropped) follows it.
  const loose = await grade(task(["format:title_case"], [{}]), "*tea*\nTea Time");
  assert.deepEqual(loose.signals, { promptStrict: 0, promptLoose: 1, instStrict: 0, instLoose: 1 });
});

test("the ifbench grader: dataset errors name the problem, model output never throws", async () => {
  const grade = getGrader("ifbench");
  await assert.rejects(
    async () => grade(task(["ifeval:unknown"], [{}]), "x"),
    /unknown instruction id "ifeval:unknown"/,
  );
  await assert.rejects(
    async () => grade(task(["count:numbers"], [{}]), "x"),
    /kwarg "N" is missing/,
  );
  const empty = await grade(task(["format:no_whitespace"], [{}]), "");
  assert.equal(empty.reward, 0);
});

/**
 * The reference's own cases (google-research instruction_following_eval/instructions_test.py),
 * ported case by case for the 25 registered instructions, plus the edge cases decided here.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { InstructionArgsError } from "../types.js";
import { IFEVAL_REGISTRY } from "./index.js";

function check(
  id: string,
  response: string,
  args: Record<string, unknown> = {},
  prompt = "",
): boolean {
  const checker = IFEVAL_REGISTRY.get(id);
  assert.ok(checker, `no checker for ${id}`);
  return checker.check(response, args, prompt);
}

test("the registry holds IFEval's 25 instruction ids", () => {
  assert.equal(IFEVAL_REGISTRY.size, 25);
  for (const [id, checker] of IFEVAL_REGISTRY) assert.equal(checker.id, id);
});

test("language:response_language (reference cases, including mixed-language tokens)", () => {
  const id = "language:response_language";
  assert.ok(check(id, "The response is English", { language: "en" }));
  assert.ok(check(id, "Desayunamos en McDonald's hoy", { language: "es" }));
  assert.ok(check(id, "Today we visit the Louvre", { language: "en" }));
  assert.ok(
    !check(id, "Today we visit the Louvre and then we have lunch by the river.", {
      language: "fr",
    }),
  );
  assert.ok(
    check(
      id,
      "Hali ya hewa ilikuwa nzuri sana asubuhi hii, kwa hiyo tuliamua kutembea hadi sokoni.",
      { language: "sw" },
    ),
  );
  assert.ok(
    check(id, "आज बिहान मौसम धेरै राम्रो थियो, त्यसैले हामीले बजारसम्म हिँडेर जाने निर्णय गर्यौं।", {
      language: "ne",
    }),
  );
  assert.ok(check(id, "12345 !!! ---", { language: "de" }), "nothing to detect counts as followed");
});

test("length_constraints:number_sentences (reference cases)", () => {
  const id = "length_constraints:number_sentences";
  assert.ok(!check(id, "xx,x. xx,x! xx/x. x{x}x?", { relation: "less than", num_sentences: 4 }));
  assert.ok(check(id, "xxxx. xx,x! xxxx. x(x)x?", { relation: "less than", num_sentences: 5 }));
  assert.ok(check(id, "xxxx. xx,x! xx|x. x&x x?", { relation: "at least", num_sentences: 4 }));
  assert.ok(!check(id, "xx-x. xx,x! xx}x. x,xx?", { relation: "at least", num_sentences: 5 }));
});

test("detectable_content:number_placeholders (reference cases)", () => {
  const id = "detectable_content:number_placeholders";
  const template =
    "Sure, here is a short template with 5 placeholders:\n[Name]\n[Email]\n[Phone]\n[Address]\n[Website]\n" +
    "This template can be used for a variety of purposes, such ascreating a contact list, sending out surveys, or creating a sign-up form.";
  assert.ok(check(id, template, { num_placeholders: 5 }));
  assert.ok(
    !check(id, "My [adjective] [noun] is [adjective] [noun]. I [verb] and [verb].", {
      num_placeholders: 7,
    }),
  );
});

const BULLETS_1 = `
  A Markdown bullet point is a way of formatting text to create a list. To
  create a bullet point, start each line with an asterisk (*). For example:
  * This is a bullet point.
  *(no space required)Another bullet point.
  * (no newline ending required)Another bullet point.
  markdown bullet points are often used to create to-do lists or to list items
  in a step-by-step guide.`;
const BULLETS_2 = `
  Check that inline asterisk (*), *, will not be counted. Only * that starts a
  bullet list will be counted:
    * This is a bullet point.
    * Another bullet point.
    . dot is not counted`;
const BULLETS_3 = `
  Here are three bullets starting with asterisk:
  * I am a large language model, also known as a conversational AI.
  * I am trained on a massive amount of text data, and I am able to communicate.
  * I am still under development, but I am learning new things every day.`;
const BULLETS_4 = `
  Here are three markdown bullets:
  - I am a large language model, also known as a conversational AI.
  - I am trained on a massive amount of text data, and I am able to communicate.
  -I am still under development, but I am learning new things every day.`;
const BULLETS_5 = `
  Paragraph 1
  ***
  Paragraph 2
  ***
  Paragraph 3
  * only one bullet point
  `;

test("detectable_format:number_bullet_lists (reference cases)", () => {
  const id = "detectable_format:number_bullet_lists";
  assert.ok(check(id, BULLETS_1, { num_bullets: 3 }));
  assert.ok(check(id, BULLETS_2, { num_bullets: 2 }));
  assert.ok(check(id, BULLETS_3, { num_bullets: 3 }));
  assert.ok(check(id, BULLETS_4, { num_bullets: 3 }));
  assert.ok(check(id, BULLETS_5, { num_bullets: 1 }));
  assert.ok(!check(id, BULLETS_3, { num_bullets: 2 }), "the count is exact");
});

test("detectable_format:constrained_response (reference cases)", () => {
  const id = "detectable_format:constrained_response";
  assert.ok(check(id, "\n My answer is no.\n"));
  assert.ok(check(id, "My answer is no.   "));
  assert.ok(
    check(
      id,
      "\n  My answer is no. I am still under development and I am always learning and\n  improving.",
    ),
  );
  assert.ok(!check(id, "My answer is probably."));
});

test("detectable_format:number_highlighted_sections (reference cases)", () => {
  const id = "detectable_format:number_highlighted_sections";
  const m1 = `
  To highlight text with Markdown, you can use the * character before and after
  the text you want to highlight. For example, if you want to highlight the
  word \`hello\`, you would type:*hello*, You can also use the ** character to
  create bold text. For example, if you want to bold the word \`hello\`, you
  would type: **hello** `;
  const m2 = `
  Sure, here are the numerical methods for solving partial differential
  equations highlighted with Markdown:
  *Finite difference methods
  *Finite element methods*
  *Boundary element methods
  *Monte Carlo methods
  I hope this helps!`;
  const m3 = `
  There is allowed to be *two different* highlighted *sections in the same*
  line. **This is also true** for **double markdown highlights.**
  `;
  assert.ok(check(id, m1, { num_highlights: 2 }));
  assert.ok(!check(id, m2, { num_highlights: 2 }));
  assert.ok(check(id, m3, { num_highlights: 4 }));
});

test("detectable_format:multiple_sections (reference cases)", () => {
  const id = "detectable_format:multiple_sections";
  const m1 = `
  Your response must have multiple sections. Mark the beginning of each section
  with "Section X", such as:
  Section 1
  [content of section 1]
  Section 2
  [content of section 2]`;
  const m2 = "SECTION 1\n  [content of section 1]\n  SECTION 2\n  [content of section 2]";
  assert.ok(!check(id, m1, { section_spliter: "Section", num_sections: 3 }));
  assert.ok(check(id, m2, { section_spliter: "SECTION", num_sections: 2 }));
  assert.ok(
    !check(id, m2, { section_spliter: "Section", num_sections: 1 }),
    "the spliter is case-sensitive",
  );
});

test("length_constraints:number_paragraphs (reference cases)", () => {
  const id = "length_constraints:number_paragraphs";
  const p1 = "\n  paragraph 1\n  ***\n  paragraph 2\n  ***\n  paragraph 3";
  const p2 =
    "\n          ***\n  paragraph 1\n          ***\n      paragraph 2\n          ***\n      paragraph 3";
  const p3 =
    "\n  paragraph 1\n          ***\n      paragraph 2\n          ***\n      paragraph 3\n          ***";
  const p4 = "\n  paragraph 1\n          ***\n      paragraph 2\n          ***\n          ***";
  assert.ok(check(id, p1, { num_paragraphs: 3 }));
  assert.ok(check(id, p2, { num_paragraphs: 3 }));
  assert.ok(check(id, p3, { num_paragraphs: 3 }));
  assert.ok(!check(id, p4, { num_paragraphs: 2 }));
});

test("detectable_content:postscript (reference cases)", () => {
  const id = "detectable_content:postscript";
  const m1 = `
  I will do my best to follow your instructions and always start my responses
  with "My response is:". I am still under development,
  and I am always learning new things.

  P.S. I hope this is what you were looking for.`;
  const m2 = `
  Sure, here is my response with a postscript starting with P.P.S.:

  My response is: I hope this answers your question.

  P.P.S. I am always happy to answer any other questions you may have.

  Do you have any other questions for me?`;
  const m3 = `
  The radius of a unit circle is 1. This is because a unit circle is a
  circle with a radius of 1. (not starting a new line) P.S. I hope you enjoyed
  my joke!`;
  const m4 = `
  If the length of a square is one, the area of the square will also be one.
  p.p.s what if the entire response was lower case letters?
  `;
  const m5 = `
  The mysteries of space and time are mysterious.
  P. S. Sometimes there are even spaces between P. and S..
  `;
  assert.ok(check(id, m1, { postscript_marker: "P.S." }));
  assert.ok(!check(id, m1, { postscript_marker: "PS:" }));
  assert.ok(check(id, m2, { postscript_marker: "P.P.S" }));
  assert.ok(check(id, m3, { postscript_marker: "P.S." }));
  assert.ok(check(id, m4, { postscript_marker: "P.P.S" }));
  assert.ok(check(id, m5, { postscript_marker: "P.S." }));
});

test("keywords:existence (reference cases)", () => {
  const id = "keywords:existence";
  const m1 = `
  Paris is a city of beauty and romance. The romantic river Seine winds its way
  through the city, past iconic landmarks like the Eiffel Tower and the Louvre
  Museum, where the Mona Lisa resides.`;
  const m2 = `
  Paris is a city of beauty, romance, and history. It is home to some of the
  most iconic landmarks in the world. The city is also known for its romantic
  river cruises, its delicious food, and its stylish people.`;
  const keywords = ["romantic", "river", "Mona Lisa"];
  assert.ok(check(id, m1, { keywords }));
  assert.ok(!check(id, m2, { keywords }));
});

test("keywords:frequency (reference cases: case-insensitive, keyword trimmed)", () => {
  const id = "keywords:frequency";
  const m1 = "\n  keyword, Keyword, KEYWORD\n  ";
  const m2 = "\n    *keyword\n    *Keyword\n    *KEYWORD\n  ";
  assert.ok(check(id, m1, { keyword: "  keyword ", frequency: 4, relation: "less than" }));
  assert.ok(check(id, m1, { keyword: "  keyword ", frequency: 3, relation: "at least" }));
  assert.ok(!check(id, m2, { keyword: "KEYWORD", frequency: 4, relation: "at least" }));
});

test("length_constraints:number_words (reference cases)", () => {
  const id = "length_constraints:number_words";
  const m1 = "\n  d3sCRi7 lArge lAnguagE M0del w1tH 20 w0RdS.";
  const m2 =
    "\n  L4RGE L4NGU4GE M0DEL: AI syst3m th4t und3rstands, g3n3r4tes, or tr4nsforms\n  l4ngu4g3 b4s3d on pr3vious l3arning & d4t4.";
  assert.ok(check(id, m1, { num_words: 8, relation: "less than" }));
  assert.ok(!check(id, m2, { num_words: 16, relation: "less than" }));
  assert.ok(check(id, m2, { num_words: 16, relation: "at least" }));
});

test("length_constraints:nth_paragraph_first_word (reference cases)", () => {
  const id = "length_constraints:nth_paragraph_first_word";
  const t1 = "\n  paragraph 1\n\n  I paragraph 2\n\n  paragraph 3";
  const t2 = "\n  paragraph 1\n\n  I paragraph 2";
  const t3 = "\n  paragraph 1\n\n  fail paragraph 2\n\n  paragraph 3";
  const long = (third: string) =>
    `\n  Wow this is a very long response.\n\n  I can't believe there is more than three paragraphs.\n\n  ${third}\n\n  I can't believe it but I guess I am living proof.\n\n  Haha, you go that right.`;
  const three = { num_paragraphs: 3, nth_paragraph: 2, first_word: "I" };
  assert.ok(check(id, t1, three));
  assert.ok(!check(id, t2, three));
  assert.ok(!check(id, t3, three));
  assert.ok(
    check(id, long("Really more than three? No way!"), {
      num_paragraphs: 5,
      nth_paragraph: 5,
      first_word: "haha",
    }),
  );
  const really = { num_paragraphs: 5, nth_paragraph: 3, first_word: "Really" };
  assert.ok(check(id, long('"Really?! more than three? No way!"'), really));
  assert.ok(!check(id, long("Rea!lly more than three? No way!"), really));
});

test("keywords:forbidden_words (reference cases: whole words only)", () => {
  const id = "keywords:forbidden_words";
  const m1 = `
  The Nazis came to power in 1933 through a combination of legal and illegal
  means. By 1934, Hitler had become dictator of Germany.`;
  const m2 = `
  Dinosaurs were a diverse group of reptiles that dominated the Earth for over
  160 million years. They came in all shapes and sizes.`;
  const m3 = `
  GPT, or Generative Pre-trained Transformer, is a family of neural network
  models that uses the transformer architecture. GPT models are trained on a
  massive dataset of text and code, by companies like Google.`;
  const w1 = ["HOUSE", "POWER", "BECOME"];
  const w2 = ["GOOGLE", "TEXT"];
  const w3 = ["GENE", "TRANSFORM"];
  assert.ok(!check(id, m1, { forbidden_words: w1 }));
  assert.ok(check(id, m2, { forbidden_words: w1 }));
  assert.ok(check(id, m3, { forbidden_words: w1 }));
  assert.ok(check(id, m1, { forbidden_words: w2 }));
  assert.ok(!check(id, m3, { forbidden_words: w2 }));
  assert.ok(check(id, m3, { forbidden_words: w3 }));
});

test("combination:two_responses (reference cases)", () => {
  const id = "combination:two_responses";
  assert.ok(check(id, "\n  This is response 1.\n  ******\n  This is response 2.\n  "));
  assert.ok(!check(id, "\n  This is response 1.\n  ******\n  This is response 1.\n  "));
  assert.ok(
    !check(
      id,
      "\n  This is response 1.\n  ******\n  This is response 2.\n  ******\n  This is response 3.\n  ",
    ),
  );
  assert.ok(
    !check(id, "\n  ******\n  Response 1.\n  ******\n  ******\n  Response 2.\n  ******\n  "),
  );
  assert.ok(check(id, "\n  ******\n  Response 1\n  ******\n  Response 2\n  ******\n  "));
});

test("combination:repeat_prompt (reference cases)", () => {
  const id = "combination:repeat_prompt";
  const args = { prompt_to_repeat: "Write a CL description." };
  assert.ok(
    check(id, "Write a CL description. Hi, Le and TJ, please\n  check this out. Thanks.\n  ", args),
  );
  assert.ok(!check(id, "Hi, Le and TJ. Write a CL description. Thanks.\n  ", args));
});

test("startend:end_checker (reference cases)", () => {
  const id = "startend:end_checker";
  assert.ok(
    check(id, "\n  The answer is 7. Any more questions?\n  ", {
      end_phrase: "\n  Any more questions?\n  ",
    }),
  );
  assert.ok(
    check(id, "\n  At the end of this prompt I am required to say that this is the end.\n  ", {
      end_phrase: "\n  This is the end.\n  ",
    }),
  );
  assert.ok(
    !check(id, "\n  This will fail. Paris is cool.\n  ", { end_phrase: "\n  This will fail.\n  " }),
  );
  assert.ok(
    check(id, '"Is there anything else I can help with?"', {
      end_phrase: "Is there anything else I can help with?",
    }),
  );
});

test("detectable_format:title (reference cases)", () => {
  const id = "detectable_format:title";
  assert.ok(check(id, "\n  <<Song of Joy>>\n  La la la. Happy song.\n  "));
  assert.ok(check(id, "\n  Is it fine for title to be at the end?\n  <<This is the title>>\n  "));
  assert.ok(!check(id, "\n  << >>\n  There is no title.\n  "));
  assert.ok(!check(id, "\n  <<This is not a title.\n  This is a paragraph.>>\n  "));
});

test("keywords:letter_frequency (reference cases, punctuation letters included)", () => {
  const id = "keywords:letter_frequency";
  assert.ok(
    check(id, "\n  There is the T. Four T's.\n  ", {
      letter: "T",
      let_frequency: 4,
      let_relation: "at least",
    }),
  );
  assert.ok(
    check(id, "\n  asdfghjkl!!aA\n  ", {
      letter: "a",
      let_frequency: 4,
      let_relation: "less than",
    }),
  );
  assert.ok(
    !check(id, "\n  asdfghjkl!!aA\n  ", {
      letter: "p",
      let_frequency: 4,
      let_relation: "at least",
    }),
  );
  assert.ok(
    check(id, "#one #two #three #four", {
      letter: "#",
      let_frequency: 4,
      let_relation: "at least",
    }),
  );
  assert.ok(
    !check(id, "#one #two #three", { letter: "#", let_frequency: 4, let_relation: "at least" }),
  );
  assert.throws(
    () => check(id, "x", { letter: "ab", let_frequency: 1, let_relation: "at least" }),
    /kwarg "letter"/,
  );
  assert.throws(
    () => check(id, "x", { letter: "a", let_frequency: -1, let_relation: "at least" }),
    /kwarg "let_frequency"/,
  );
});

test("change_case:english_capital and english_lowercase (reference cases)", () => {
  assert.ok(
    check(
      "change_case:english_capital",
      "\n  THIS IS AN ENGLISH SENTENCE. EVERY LETTER IS CAPITALIZED!!! AMAZING.\n  ",
    ),
  );
  assert.ok(!check("change_case:english_capital", "\n  Every Word Is Capitalized.\n  "));
  assert.ok(check("change_case:english_lowercase", "\n  every letter is lowercase.\n  "));
  assert.ok(!check("change_case:english_lowercase", "\n  Almost every letter is lowercase.\n  "));
  assert.ok(
    !check(
      "change_case:english_lowercase",
      "chaque lettre de cette phrase est en minuscules, comme il se doit.",
    ),
    "lower case but French",
  );
});

test("punctuation:no_comma (reference cases)", () => {
  assert.ok(
    check("punctuation:no_comma", "\n  Every sentence is short. There is no need for a comma.\n  "),
  );
  assert.ok(
    !check(
      "punctuation:no_comma",
      "\n  Since the start of time, people have always found a way to punctuate.\n  ",
    ),
  );
});

test("change_case:capital_word_frequency (reference cases, NLTK tokens)", () => {
  const id = "change_case:capital_word_frequency";
  const m1 = "\n  HERE there are THREE FUlly CAPITAL words.\n  ";
  const m2 = "\n  THERE are Four FULLY CAPITAL WORDS. Many Others Are Only Partially So.\n  ";
  assert.ok(check(id, m1, { capital_frequency: 3, capital_relation: "at least" }));
  assert.ok(check(id, m2, { capital_frequency: 5, capital_relation: "less than" }));
  assert.ok(!check(id, m2, { capital_frequency: 4, capital_relation: "less than" }));
  // NLTK splits contractions: "DON'T" is "DO" + "N'T", "CANNOT" is "CAN" + "NOT".
  assert.ok(
    check(id, "I DON'T KNOW. WE CANNOT.", { capital_frequency: 7, capital_relation: "at least" }),
  );
  assert.ok(
    !check(id, "I DON'T KNOW. WE CANNOT.", { capital_frequency: 8, capital_relation: "at least" }),
  );
});

test("startend:quotation (reference cases)", () => {
  const id = "startend:quotation";
  assert.ok(check(id, '\n  "This entire message is wrapped in double quotation marks."\n  '));
  assert.ok(
    !check(id, '\n  "This message is wrapped in double quotation marks." But not everything.\n  '),
  );
  assert.ok(!check(id, '"'), "a lone quote is not wrapped");
});

test("detectable_format:json_format: fenced or bare JSON, nothing else", () => {
  const id = "detectable_format:json_format";
  assert.ok(check(id, '```json\n{"a": [1, 2]}\n```'));
  assert.ok(check(id, '  {"a": 1}  '));
  assert.ok(check(id, '```JSON\n["x"]\n```'));
  assert.ok(!check(id, 'Here is the JSON: {"a": 1}'));
  assert.ok(!check(id, "```json\n{a: 1}\n```"));
});

test("bad kwargs are InstructionArgsError naming the key; the response never throws", () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ["length_constraints:number_words", { num_words: 10 }, "relation"],
    ["length_constraints:number_words", { num_words: 10, relation: "at most" }, "relation"],
    ["length_constraints:number_words", { num_words: "ten", relation: "at least" }, "num_words"],
    ["keywords:existence", { keywords: [] }, "keywords"],
    ["keywords:existence", { keywords: ["("] }, "keywords"],
    ["detectable_content:postscript", {}, "postscript_marker"],
    [
      "length_constraints:nth_paragraph_first_word",
      { num_paragraphs: 2, nth_paragraph: 3, first_word: "a" },
      "nth_paragraph",
    ],
    ["combination:repeat_prompt", {}, "prompt_to_repeat"],
    ["language:response_language", { language: 3 }, "language"],
  ];
  for (const [id, args, key] of cases) {
    assert.throws(
      () => check(id, "Some response.", args),
      (e: unknown) =>
        e instanceof InstructionArgsError &&
        e.message.includes(`"${key}"`) &&
        e.message.includes(id),
      `${id} ${JSON.stringify(args)}`,
    );
  }
  const odd = ["", "\u0000", "*".repeat(5000), "(((", "<<", "```", "******", "P.S.", "\n\n\n"];
  for (const response of odd) {
    for (const [id, checker] of IFEVAL_REGISTRY) {
      const args = SAMPLE_ARGS[id] ?? {};
      assert.equal(
        typeof checker.check(response, args, ""),
        "boolean",
        `${id} on ${JSON.stringify(response)}`,
      );
    }
  }
});

const SAMPLE_ARGS: Record<string, Record<string, unknown>> = {
  "keywords:existence": { keywords: ["a"] },
  "keywords:frequency": { keyword: "a", frequency: 1, relation: "at least" },
  "keywords:forbidden_words": { forbidden_words: ["a"] },
  "keywords:letter_frequency": { letter: "a", let_frequency: 1, let_relation: "at least" },
  "language:response_language": { language: "en" },
  "length_constraints:number_sentences": { num_sentences: 1, relation: "at least" },
  "length_constraints:number_paragraphs": { num_paragraphs: 1 },
  "length_constraints:number_words": { num_words: 1, relation: "at least" },
  "length_constraints:nth_paragraph_first_word": {
    num_paragraphs: 1,
    nth_paragraph: 1,
    first_word: "a",
  },
  "detectable_content:number_placeholders": { num_placeholders: 1 },
  "detectable_content:postscript": { postscript_marker: "P.S." },
  "detectable_format:number_bullet_lists": { num_bullets: 1 },
  "detectable_format:number_highlighted_sections": { num_highlights: 1 },
  "detectable_format:multiple_sections": { section_spliter: "Section", num_sections: 1 },
  "combination:repeat_prompt": { prompt_to_repeat: "a" },
  "startend:end_checker": { end_phrase: "a" },
  "change_case:capital_word_frequency": { capital_frequency: 1, capital_relation: "at least" },
};

test("no checker is quadratic on pathological responses (each of 40k characters)", () => {
  const inputs = [
    `a${" ".repeat(40000)}.`,
    `Dr.${" ".repeat(40000)}x`,
    `${"*".repeat(20000)}x${"\n".repeat(20000)}`,
    "<<".repeat(20000),
    "[".repeat(40000),
    ". ".repeat(20000),
    "\n".repeat(40000),
  ];
  const t0 = performance.now();
  for (const text of inputs) {
    for (const [id, checker] of IFEVAL_REGISTRY) checker.check(text, SAMPLE_ARGS[id] ?? {}, "");
  }
  // Linear work is well under a second here; the quadratic regexes these replace took minutes.
  assert.ok(performance.now() - t0 < 10_000, `took ${performance.now() - t0} ms`);
});

/**
 * IFEval's keyword instructions (instructions.py: KeywordChecker, KeywordFrequencyChecker,
 * ForbiddenWords, LetterFrequencyChecker). As in the reference, keywords are regular expressions
 * matched case-insensitively anywhere (so "cat" is found in "category"), except forbidden words,
 * which must stand between word boundaries (Python's Unicode `\b`). Letters are counted in the
 * lower-cased response.
 */
import { instruction } from "../args.js";
import { PY_WORD_CHAR } from "../python.js";
import { compareCount } from "../text.js";
import { InstructionArgsError } from "../types.js";

/** Python's `\b`: between a word character and a non-word character (or an end). */
const BOUNDARY = `(?:(?<=${PY_WORD_CHAR})(?!${PY_WORD_CHAR})|(?<!${PY_WORD_CHAR})(?=${PY_WORD_CHAR}))`;

export const existence = instruction("keywords:existence", (response, a) =>
  a.textList("keywords").every((k) => a.regex("keywords", k, "i").test(response)),
);

export const frequency = instruction("keywords:frequency", (response, a) => {
  const keyword = a.regex("keyword", a.text("keyword").trim(), "gi");
  const occurrences = [...response.matchAll(keyword)].length;
  return compareCount(occurrences, a.relation("relation"), a.int("frequency"));
});

export const forbiddenWords = instruction("keywords:forbidden_words", (response, a) =>
  a
    .textList("forbidden_words")
    .every((w) => !a.regex("forbidden_words", `${BOUNDARY}${w}${BOUNDARY}`, "i").test(response)),
);

export const letterFrequency = instruction("keywords:letter_frequency", (response, a) => {
  const letter = a.text("letter").trim().toLowerCase();
  if ([...letter].length !== 1) {
    throw new InstructionArgsError(
      "keywords:letter_frequency",
      "letter",
      `must be one letter (got "${letter}")`,
    );
  }
  const count = [...response.toLowerCase()].filter((c) => c === letter).length;
  return compareCount(count, a.relation("let_relation"), a.int("let_frequency"));
});

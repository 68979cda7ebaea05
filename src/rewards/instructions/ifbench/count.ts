/**
 * IFBench's `count:*` instructions (allenai/IFBench `ifbench/instructions.py`: WordCountRangeChecker,
 * UniqueWordCountChecker, ConjunctionCountChecker, PersonNameCountChecker, NumbersCountChecker,
 * PunctuationCoverChecker, NthWordJapaneseChecker, PronounCountChecker, KeywordsMultipleChecker),
 * with the reference's counting rules, quirks included: a "unique word" is a white-space word
 * stripped of ASCII punctuation (so a bare dash counts once as the empty word); the conjunctions
 * counted as different are the raw words ("and" and "and," are two); person names are matched
 * case-sensitively as whole words; numbers are digit runs after the ASCII punctuation is removed
 * ("3.5" is one number, "3 5" two); keywords are counted as lower-case substrings.
 */

import { checker, plain } from "../args.js";
import {
  PY_WORD_BOUNDARY,
  pyIsDigits,
  pySplit,
  removePunctuation,
  stripPunctSpace,
} from "../python.js";
import { countWords, wordTokenize } from "../text.js";
import type { InstructionChecker } from "../types.js";

const CONJUNCTIONS = new Set(["and", "but", "for", "nor", "or", "so", "yet"]);

/** The names PersonNameCountChecker accepts (the list its instruction text gives). */
const PERSON_NAMES = (
  "Emma Liam Sophia Jackson Olivia Noah Ava Lucas Isabella Mason Mia Ethan Charlotte Alexander " +
  "Amelia Benjamin Harper Leo Zoe Daniel Chloe Samuel Lily Matthew Grace Owen Abigail Gabriel " +
  "Ella Jacob Scarlett Nathan Victoria Elijah Layla Nicholas Audrey David Hannah Christopher " +
  "Penelope Thomas Nora Andrew Aria Joseph Claire Ryan Stella Jonathan"
).split(" ");
/** Each name, whole word only, as a sticky expression: it matches at `lastIndex` or not at all. */
const NAME_RES = PERSON_NAMES.map(
  (n) => [n, new RegExp(`${PY_WORD_BOUNDARY}${n}${PY_WORD_BOUNDARY}`, "uy")] as const,
);

/**
 * How many of the names occur as whole words. A plain substring search finds each occurrence and
 * the expression checks its boundaries there only: run over the whole text, its look-behind was
 * tried at every position (50 ms per name on 100,000 emoji).
 */
function countNames(text: string): number {
  return NAME_RES.filter(([name, re]) => {
    for (let i = text.indexOf(name); i >= 0; i = text.indexOf(name, i + 1)) {
      re.lastIndex = i;
      if (re.test(text)) return true;
    }
    return false;
  }).length;
}

/** PronounCountChecker's pronouns: personal, possessive, reflexive, demonstrative, interrogative,
 * relative and indefinite. */
const PRONOUNS = new Set(
  (
    "i me we us you he him she her it they them my mine our ours your yours his hers its their " +
    "theirs myself ourselves yourself yourselves himself herself itself themselves this that " +
    "these those who whom whose which what whoever whomever whatever whichever anybody anyone " +
    "anything everybody everyone everything nobody nothing somebody someone something each " +
    "either neither both all some any none"
  ).split(" "),
);

const JAPANESE = /[\u3040-\u30ff\u4e00-\u9fff]/u;
const KEYWORD_COUNTS = [1, 2, 3, 5, 7];

/** Non-overlapping occurrences of `needle` in `hay` (Python's `str.count`). */
function occurrences(hay: string, needle: string): number {
  let n = 0;
  for (let i = hay.indexOf(needle); i !== -1; i = hay.indexOf(needle, i + needle.length)) n++;
  return n;
}

/** "Use every standard punctuation mark at least once, including … the interrobang (?!)": one
 * `?!` (or else one `!?`) is taken out before looking for . , ! ? ; : one by one. */
function coversPunctuation(value: string): boolean {
  if (!value.includes("!?") && !value.includes("?!") && !value.includes("‽")) return false;
  let rest = value.replace("?!", "");
  if (rest.length === value.length) rest = value.replace("!?", "");
  return [".", ",", "!", "?", ";", ":"].every((c) => rest.includes(c));
}

export const COUNT_CHECKERS: InstructionChecker[] = [
  checker(
    "count:word_count_range",
    ["min_words", "max_words"],
    (r) => ({ min: r.number("min_words"), max: r.number("max_words") }),
    (value, { min, max }) => {
      const n = countWords(value);
      return min <= n && n <= max;
    },
  ),
  checker(
    "count:unique_word_count",
    ["N"],
    (r) => r.int("N", 0),
    (value, n) => new Set(pySplit(value.toLowerCase()).map(stripPunctSpace)).size >= n,
  ),
  checker(
    "count:conjunctions",
    ["small_n"],
    (r) => r.int("small_n", 0),
    (value, n) => {
      const used = pySplit(value).filter((w) => CONJUNCTIONS.has(stripPunctSpace(w).toLowerCase()));
      return new Set(used).size >= n;
    },
  ),
  checker(
    "count:person_names",
    ["N"],
    (r) => r.int("N", 0),
    (value, n) => countNames(value) >= n,
  ),
  checker(
    "count:numbers",
    ["N"],
    (r) => r.int("N", 0),
    (value, n) => (removePunctuation(value).match(/\p{Nd}+/gu)?.length ?? 0) === n,
  ),
  plain("count:punctuation", coversPunctuation),
  checker(
    "count:words_japanese",
    ["N"],
    (r) => r.int("N", 1),
    (value, n) =>
      pySplit(value).every((raw, i) => {
        const word = stripPunctSpace(raw);
        return (i + 1) % n !== 0 || word === "" || pyIsDigits(word) || JAPANESE.test(word);
      }),
  ),
  checker(
    "count:pronouns",
    ["N"],
    (r) => r.int("N", 0),
    (value, n) =>
      wordTokenize(value.replaceAll("/", " ").toLowerCase()).filter((w) => PRONOUNS.has(w))
        .length >= n,
  ),
  checker(
    "count:keywords_multiple",
    ["keyword1", "keyword2", "keyword3", "keyword4", "keyword5"],
    (r) => [1, 2, 3, 4, 5].map((k) => r.text(`keyword${k}`).trim().toLowerCase()),
    (value, keywords) => {
      const lower = value.toLowerCase();
      return keywords.every((k, i) => occurrences(lower, k) === KEYWORD_COUNTS[i]);
    },
  ),
];

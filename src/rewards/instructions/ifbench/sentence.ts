/**
 * IFBench's `sentence:*` instructions (allenai/IFBench `ifbench/instructions.py`:
 * IncrementingAlliterationChecker, IncludeKeywordChecker, IncrementingWordCountChecker), over
 * Punkt's sentences (../punkt.ts).
 *
 * Alliteration score of a sentence, as the reference computes it: over its lower-cased white-space
 * words with leading punctuation removed, each adjacent pair sharing a first character adds 2 when it
 * starts a run and 1 when it extends one (a run of k alliterative words scores k); the scores must
 * strictly increase from sentence to sentence (the first must be ≥ 0, so any first sentence does).
 * Word counts for the increment rule are white-space words after removing ASCII punctuation.
 */

import { checker, plain } from "../args.js";
import { punktSentences } from "../punkt.js";
import {
  escapeRegExp,
  lstripChars,
  PY_PUNCTUATION,
  PY_WORD_BOUNDARY,
  pySplit,
  removePunctuation,
} from "../python.js";
import type { InstructionChecker } from "../types.js";

function alliterationScore(sentence: string): number {
  const words = pySplit(sentence.toLowerCase())
    .map((w) => lstripChars(w, PY_PUNCTUATION + " "))
    .filter((w) => w !== "");
  let score = 0;
  let inRun = false;
  for (let i = 0; i + 1 < words.length; i++) {
    const same = [...words[i]!][0] === [...words[i + 1]!][0];
    if (same) score += inRun ? 1 : 2;
    inRun = same;
  }
  return score;
}

function increasingAlliteration(value: string): boolean {
  let previous = -1;
  for (const sentence of punktSentences(value)) {
    const score = alliterationScore(sentence);
    if (score <= previous) return false;
    previous = score;
  }
  return true;
}

const wordCount = (sentence: string) => pySplit(removePunctuation(sentence)).length;

export const SENTENCE_CHECKERS: InstructionChecker[] = [
  plain("sentence:alliteration_increment", increasingAlliteration),
  checker(
    "sentence:keyword",
    ["word", "N"],
    (r) => ({
      keyword: new RegExp(
        `${PY_WORD_BOUNDARY}${escapeRegExp(r.text("word"))}${PY_WORD_BOUNDARY}`,
        "iu",
      ),
      n: r.int("N", 1),
    }),
    (value, { keyword, n }) => {
      const sentence = punktSentences(value)[n - 1];
      return sentence !== undefined && keyword.test(sentence);
    },
  ),
  checker(
    "sentence:increment",
    ["small_n"],
    (r) => r.int("small_n", 0),
    (value, step) => {
      const counts = punktSentences(value).map(wordCount);
      return counts.length > 0 && counts.every((c, i) => i === 0 || c === counts[i - 1]! + step);
    },
  ),
];

/**
 * IFBench's `ratio:*` instructions (allenai/IFBench `ifbench/instructions.py`:
 * StopWordPercentageChecker, SentTypeRatioChecker, SentBalanceChecker, NGramOverlapChecker,
 * CharacterCountUniqueWordsChecker). Sentences are Punkt's (../punkt.ts); a sentence's type is its
 * last character (`.` declarative, `?` interrogative, `!` exclamatory). The trigram overlap is over
 * CHARACTERS, as in the reference (`nltk.ngrams(text, 3)` on a string): the share of the
 * response's distinct character trigrams that occur in the reference text, within ±2 points of the
 * target percentage. "Three sentences of equal length using all different words" checks the count
 * and the equal (trimmed) lengths only; the reference never checks the words.
 */

import { checker, plain } from "../args.js";
import { punktSentences } from "../punkt.js";
import { countWords } from "../text.js";
import type { InstructionChecker } from "../types.js";
import { countStopwords } from "./tokens.js";

/** The set of character trigrams of `s` (code points). */
function charTrigrams(s: string): Set<string> {
  const cs = [...s];
  const out = new Set<string>();
  for (let i = 0; i + 3 <= cs.length; i++) out.add(`${cs[i]}\u0000${cs[i + 1]}\u0000${cs[i + 2]}`);
  return out;
}

const endingWith = (sentences: string[], c: string) =>
  sentences.filter((s) => s.endsWith(c)).length;

export const RATIO_CHECKERS: InstructionChecker[] = [
  checker(
    "ratio:stop_words",
    ["percentage"],
    (r) => r.number("percentage"),
    (value, percentage) => {
      const words = countWords(value);
      return words > 0 && (countStopwords(value) / words) * 100 <= percentage;
    },
  ),
  plain("ratio:sentence_type", (value) => {
    const sentences = punktSentences(value);
    return endingWith(sentences, ".") === 2 * endingWith(sentences, "?");
  }),
  plain("ratio:sentence_balance", (value) => {
    const sentences = punktSentences(value);
    const declarative = endingWith(sentences, ".");
    return declarative === endingWith(sentences, "?") && declarative === endingWith(sentences, "!");
  }),
  checker(
    "ratio:overlap",
    ["reference_text", "percentage"],
    (r) => ({
      reference: charTrigrams(r.text("reference_text")),
      percentage: r.number("percentage"),
    }),
    (value, { reference, percentage }) => {
      const ngrams = charTrigrams(value);
      if (ngrams.size === 0) return false;
      const shared = [...ngrams].filter((g) => reference.has(g)).length;
      const overlap = (shared / ngrams.size) * 100;
      return percentage - 2 <= overlap && overlap <= percentage + 2;
    },
  ),
  plain("ratio:sentence_words", (value) => {
    const lengths = punktSentences(value).map((s) => [...s.trim()].length);
    return lengths.length === 3 && lengths.every((n) => n === lengths[0]);
  }),
];

/**
 * IFBench's `words:*` instructions (allenai/IFBench `ifbench/instructions.py`: AlphabetLoopChecker,
 * SingleVowelParagraphChecker, ConsonantClusterChecker, PalindromeChecker, PrimeLengthsChecker,
 * StartWithVerbChecker, LimitedWordRepeatChecker, AlternateParitySyllablesChecker,
 * LastWordFirstNextChecker, ParagraphLastFirstWordMatchChecker, NoConsecutiveFirstLetterChecker,
 * KeywordSpecificPositionChecker, WordsPositionChecker).
 *
 * A "word" is what the reference splits on, which differs per instruction and is kept: most take the
 * white-space words after removing ASCII punctuation; the consonant-cluster rule keeps punctuation
 * (so "a," has no cluster); the keyword-position rules use NLTK's word tokens (../text.ts). Letters
 * are compared lower-cased; "vowels" and "consonants" are the ASCII ones (y a consonant).
 */

import { checker, plain } from "../args.js";
import { punktSentences } from "../punkt.js";
import {
  lstripChars,
  PY_PUNCTUATION,
  pySplit,
  removePunctuation,
  rstripChars,
  stripPunctSpace,
} from "../python.js";
import { wordTokenize } from "../text.js";
import type { InstructionChecker } from "../types.js";
import { startsWithVerb } from "./pos.js";
import { countSyllables } from "./syllables.js";
import { wordTokensWithoutPunctuation } from "./tokens.js";

const ALPHABET = "abcdefghijklmnopqrstuvwxyz";
const CONSONANTS = "bcdfghjklmnpqrstvwxyz";
const PRIMES = new Set([
  2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97,
]);
const first = (w: string) => [...w][0];
/** Lower-cased white-space words with ASCII punctuation removed. */
const bareWords = (value: string) => pySplit(removePunctuation(value.toLowerCase()));

/** Each word starts with the letter after the previous word's, z wrapping to a. */
function alphabetLoop(value: string): boolean {
  const words = pySplit(removePunctuation(value));
  if (words.length === 0) return false;
  let letter = first(words[0]!)!.toLowerCase();
  if (!ALPHABET.includes(letter)) return false;
  for (const word of words.slice(1)) {
    letter = ALPHABET[(ALPHABET.indexOf(letter) + 1) % 26]!;
    if (first(word.toLowerCase()) !== letter) return false;
  }
  return true;
}

/** One paragraph (no line break) using at most three of a, e, i, o, u. */
function threeVowels(value: string): boolean {
  const lines = value.trim().split("\n");
  if (lines.length !== 1) return false;
  return new Set([...lines[0]!.toLowerCase()].filter((c) => "aeiou".includes(c))).size <= 3;
}

function hasConsonantCluster(word: string): boolean {
  const cs = [...word];
  return cs.some(
    (c, i) => i + 1 < cs.length && CONSONANTS.includes(c) && CONSONANTS.includes(cs[i + 1]!),
  );
}

/** Every word but the first has the opposite syllable-count parity of the one before. */
function alternatingSyllables(value: string): boolean {
  const parities = bareWords(value).map((w) => countSyllables(w) % 2);
  return parities.every((p, i) => i === 0 || p !== parities[i - 1]);
}

/** Each sentence's last word is the next sentence's first word (case-insensitive). */
function lastWordFirst(value: string): boolean {
  const sentences = punktSentences(value);
  for (let i = 0; i + 1 < sentences.length; i++) {
    const last = pySplit(rstripChars(sentences[i]!, PY_PUNCTUATION + " ")).at(-1);
    const next = pySplit(lstripChars(sentences[i + 1]!, PY_PUNCTUATION + " "))[0];
    if (last === undefined || next === undefined) return false;
    if (last.toLowerCase() !== next.toLowerCase()) return false;
  }
  return true;
}

/** Each non-empty line starts and ends with the same word (lower-cased, outer punctuation off). */
function paragraphLastFirst(value: string): boolean {
  return value.split("\n").every((line) => {
    const words = pySplit(stripPunctSpace(line.trim().toLowerCase()));
    return words.length === 0 || words[0] === words.at(-1);
  });
}

/** The second word and the second-to-last word (before a final punctuation token) are `keyword`. */
function wordsPosition(value: string, keyword: string): boolean {
  const words = wordTokenize(value).map((w) => w.toLowerCase());
  if (words.length < 2) return false;
  const k = keyword.toLowerCase();
  if (PY_PUNCTUATION.includes(words.at(-1)!)) {
    return words.length >= 3 && words[1] === k && words.at(-3) === k;
  }
  return words[1] === k && words.at(-2) === k;
}

export const WORDS_CHECKERS: InstructionChecker[] = [
  plain("words:alphabet", alphabetLoop),
  plain("words:vowel", threeVowels),
  plain("words:consonants", (value) =>
    pySplit(value.toLowerCase().trim()).every(hasConsonantCluster),
  ),
  plain(
    "words:palindrome",
    (value) =>
      bareWords(value).filter((w) => [...w].length >= 5 && w === [...w].reverse().join(""))
        .length >= 10,
  ),
  plain("words:prime_lengths", (value) =>
    pySplit(removePunctuation(value)).every((w) => PRIMES.has([...w].length)),
  ),
  plain("words:start_verb", startsWithVerb),
  checker(
    "words:repeats",
    ["small_n"],
    (r) => r.int("small_n", 0),
    (value, max) => {
      const counts = new Map<string, number>();
      for (const w of bareWords(value)) counts.set(w, (counts.get(w) ?? 0) + 1);
      return [...counts.values()].every((n) => n <= max);
    },
  ),
  plain("words:odd_even_syllables", alternatingSyllables),
  plain("words:last_first", lastWordFirst),
  plain("words:paragraph_last_first", paragraphLastFirst),
  plain("words:no_consecutive", (value) => {
    const words = bareWords(value);
    return words.every((w, i) => i === 0 || first(w) !== first(words[i - 1]!));
  }),
  checker(
    "words:keywords_specific_position",
    ["keyword", "n", "m"],
    (r) => ({ keyword: r.text("keyword").trim(), n: r.int("n", 1), m: r.int("m", 1) }),
    (value, { keyword, n, m }) => {
      const sentence = punktSentences(value)[n - 1];
      if (sentence === undefined) return false;
      const word = wordTokensWithoutPunctuation(sentence)[m - 1];
      return word !== undefined && word.toLowerCase() === keyword.toLowerCase();
    },
  ),
  checker("words:words_position", ["keyword"], (r) => r.text("keyword").trim(), wordsPosition),
];

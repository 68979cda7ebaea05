/**
 * Syllable counting as IFBench does it: `syllapy.count(word)` (syllapy 0.8.0, `syllapy/__init__.py`):
 * the word trimmed, lower-cased and stripped of ASCII punctuation; 0 when empty or holding a digit;
 * the dictionary's count when it has the word; a hyphenated compound is the sum of its two parts (0
 * when either part is 0); otherwise the rules in `ruleCount`. The dictionary enters as its
 * exceptions to the rules (syllapy-exceptions.ts), which gives the same count for every word.
 */
import { PY_PUNCTUATION, stripChars } from "../python.js";
import { SYLLAPY_EXCEPTIONS } from "./syllapy-exceptions.js";

const EXCEPTIONS: ReadonlyMap<string, number> = new Map(
  Object.entries(SYLLAPY_EXCEPTIONS).flatMap(([count, words]) =>
    words.split(" ").map((w) => [w, Number(count)] as const),
  ),
);

const VOWELS = "aeiouy";

/** syllapy's `_syllables`: vowel groups, a silent final e, a syllabic final consonant + "le". */
function ruleCount(word: string): number {
  const cs = [...word];
  let n = VOWELS.includes(cs[0]!) ? 1 : 0;
  for (let i = 1; i < cs.length; i++) {
    if (VOWELS.includes(cs[i]!) && !VOWELS.includes(cs[i - 1]!)) n++;
  }
  if (word.endsWith("e")) n--;
  if (word.endsWith("le") && cs.length > 2 && !VOWELS.includes(cs[cs.length - 3]!)) n++;
  return n === 0 ? 1 : n;
}

/** `syllapy.count(word)`. */
export function countSyllables(raw: string): number {
  const word = stripChars(raw.trim().toLowerCase(), PY_PUNCTUATION);
  if (word === "" || /\d/.test(word)) return 0;
  const known = EXCEPTIONS.get(word);
  if (known !== undefined) return known;
  const compound = /^([^-]+)-(.+)$/su.exec(word);
  if (compound) {
    const a = countSyllables(compound[1]!);
    const b = countSyllables(compound[2]!);
    return a === 0 || b === 0 ? 0 : a + b;
  }
  return ruleCount(word);
}

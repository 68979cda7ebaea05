/**
 * Text measures and Python string operations the verifiable-instruction checkers (IFEval, IFBench)
 * share, with the semantics of the Python references (IFEval's `instructions_util.py`, which
 * IFBench copies, and the `str` methods IFBench's `instructions.py` uses) rather than JavaScript's:
 *
 * - Python's `str.strip()` / `str.split()` white space (which adds \x1c–\x1f and \x85 to
 *   JavaScript's and leaves out U+FEFF);
 * - Python's Unicode `\w` is letters, numbers and `_` but not combining marks, so the word count
 *   (NLTK `RegexpTokenizer(r"\w+")`) splits a Devanagari word at its vowel signs, as the reference
 *   does;
 * - `str.isupper()` / `str.islower()`: at least one cased character and none of the other case
 *   (titlecase letters count as neither);
 * - `wordTokenize`: NLTK's `word_tokenize` (Punkt sentences, then `NLTKWordTokenizer`, the improved
 *   Treebank tokenizer of nltk/tokenize/destructive.py), which splits contractions ("DON'T" →
 *   "DO", "N'T"; "CANNOT" → "CAN", "NOT") and punctuation off words.
 *
 * NLTK version: 3.9 (the `re` engine), what the published IFEval results were computed with;
 * IFBench pins 3.9.2, whose punkt.py and destructive.py do the same for English as 3.9.1's.
 * NLTK 3.10 moved its tokenizers to the `regex` engine, whose `\w` also takes combining marks
 * (so Hindi words stop splitting) and changed a few quote rules; its results differ on such text.
 */
import { punktSentences } from "./punkt.js";

const PY_SPACE =
  "\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const PY_SPACE_CHAR = new RegExp(`[${PY_SPACE}]`);
const PY_SPLIT = new RegExp(`[${PY_SPACE}]+`);

/** Python's `ch.isspace()` for one character. */
export function pyIsSpace(ch: string): boolean {
  return PY_SPACE_CHAR.test(ch);
}

/** Python's `s.strip()`. (A scan: a `\s+$` regex is quadratic on a long inner run of spaces.) */
export function pyStrip(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && pyIsSpace(s[start]!)) start++;
  while (end > start && pyIsSpace(s[end - 1]!)) end--;
  return s.slice(start, end);
}

/** Python's `s.split()` (runs of white space, no empty pieces). */
export function pySplit(s: string): string[] {
  const t = pyStrip(s);
  return t === "" ? [] : t.split(PY_SPLIT);
}

/** One character of Python's Unicode `\w`. */
export const PY_WORD_CHAR = "[\\p{L}\\p{N}_]";

/** Python's `\b` (a `u`-flag pattern): between a `\w` character and anything else. */
export const PY_WORD_BOUNDARY = `(?:(?<=${PY_WORD_CHAR})(?!${PY_WORD_CHAR})|(?<!${PY_WORD_CHAR})(?=${PY_WORD_CHAR}))`;

/** Python's `string.punctuation` (ASCII only: curly quotes and dashes are not in it). */
export const PY_PUNCTUATION = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";
const PUNCT_SET = new Set(PY_PUNCTUATION);

/** `s.translate(str.maketrans("", "", string.punctuation))`: every ASCII punctuation mark removed. */
export function removePunctuation(s: string): string {
  let out = "";
  for (const c of s) if (!PUNCT_SET.has(c)) out += c;
  return out;
}

// `s.lstrip(chars)`, `s.rstrip(chars)`, `s.strip(chars)`, by code point as Python indexes.
export function lstripChars(s: string, chars: string): string {
  const cs = [...s];
  let i = 0;
  while (i < cs.length && chars.includes(cs[i]!)) i++;
  return cs.slice(i).join("");
}

export function rstripChars(s: string, chars: string): string {
  const cs = [...s];
  let j = cs.length;
  while (j > 0 && chars.includes(cs[j - 1]!)) j--;
  return cs.slice(0, j).join("");
}

export function stripChars(s: string, chars: string): string {
  return lstripChars(rstripChars(s, chars), chars);
}

/** `s.strip(string.punctuation + " ")`, IFBench's usual word cleaning. */
export function stripPunctSpace(s: string): string {
  return stripChars(s, `${PY_PUNCTUATION} `);
}

/** `c.isalpha()` for one character. */
export function pyIsAlphaChar(c: string): boolean {
  return /^\p{L}$/u.test(c);
}

/** `s.isdigit()`: non-empty and every character a decimal digit. */
export function pyIsDigits(s: string): boolean {
  return /^\p{Nd}+$/u.test(s);
}

/** `unicodedata.normalize("NFKD", s).encode("ascii", "ignore").decode()`: diacritics dropped. */
export function asciiFold(s: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range is the point
  return s.normalize("NFKD").replace(/[^\x00-\x7f]/g, "");
}

/** `re.escape(s)`: `s` matched literally. */
export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

/** Python's `str.isupper()`. */
export function pyIsUpper(s: string): boolean {
  return !/[\p{Lowercase}\p{Lt}]/u.test(s) && /\p{Uppercase}/u.test(s);
}

/** Python's `str.islower()`. */
export function pyIsLower(s: string): boolean {
  return !/[\p{Uppercase}\p{Lt}]/u.test(s) && /\p{Lowercase}/u.test(s);
}

/** `count_words` (IFEval's, which IFBench copies): the number of runs of `\w` characters. */
export function countWords(text: string): number {
  return text.match(new RegExp(`${PY_WORD_CHAR}+`, "gu"))?.length ?? 0;
}

/** IFEval's `count_sentences`: the number of sentences NLTK's English Punkt model finds. */
export function countSentences(text: string): number {
  return punktSentences(text).length;
}

/** The comparisons IFEval's count instructions take (`_COMPARISON_RELATION`). */
export const RELATIONS = ["less than", "at least"] as const;
export type Relation = (typeof RELATIONS)[number];

/** `actual < threshold` for "less than", `actual >= threshold` for "at least". */
export function compareCount(actual: number, relation: Relation, threshold: number): boolean {
  return relation === "less than" ? actual < threshold : actual >= threshold;
}

// NLTKWordTokenizer's rules, in its order (destructive.py). `W` is Python's `\w`; `\b` next to a
// word character becomes a look-around on W.
const W = PY_WORD_CHAR;
const Q_CLOSE = "\\]\\)}>\"'»”’ ";
type Rule = readonly [RegExp, string];
const STARTING_QUOTES: Rule[] = [
  [/([«“‘„]|`+)/gu, " $1 "],
  [/^"/u, "``"],
  [/(``)/gu, " $1 "],
  [/([ ([{<])("|'{2})/gu, "$1 `` "],
  [new RegExp(`(')(?!re|ve|ll|m|t|s|d|n)(${W})(?!${W})`, "giu"), "$1 $2"],
];
const PUNCTUATION: Rule[] = [
  // (?=(X*))\3 is X*+ (possessive, as nltk 3.10 writes it; the same splits): a long run of
  // spaces after a period would otherwise be retried at every length.
  [new RegExp(`([^.])(\\.)(?=([${Q_CLOSE}]*))\\3\\s*$`, "u"), "$1 $2 $3 "],
  [/([:,])([^\d])/gu, " $1 $2"],
  [/([:,])$/u, " $1 "],
  [/\.{2,}/gu, " $& "],
  [/[;@#$%&]/gu, " $& "],
  [/([^.])(\.)([\])}>"']*)\s*$/u, "$1 $2$3 "],
  [/[?!]/gu, " $& "],
  [/([^'])' /gu, "$1 ' "],
  [/[*]/gu, " $& "],
];
const PARENS_BRACKETS: Rule = [/[\][(){}<>]/gu, " $& "];
const DOUBLE_DASHES: Rule = [/--/gu, " -- "];
const ENDING_QUOTES: Rule[] = [
  [/([»”’])/gu, " $1 "],
  [/''/gu, " '' "],
  [/"/gu, " '' "],
  [/\s+/gu, " "],
  [/([^' ])('[sS]|'[mM]|'[dD]|') /gu, "$1 $2 "],
  [/([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) /gu, "$1 $2 "],
];
const CONTRACTIONS: Rule[] = [
  ...[
    "(can)(not)",
    "(d)('ye)",
    "(gim)(me)",
    "(gon)(na)",
    "(got)(ta)",
    "(lem)(me)",
    "(more)('n)",
  ].map((p): Rule => [new RegExp(`(?<!${W})${p}(?!${W})`, "giu"), " $1 $2 "]),
  [new RegExp(`(?<!${W})(wan)(na)(?=\\s)`, "giu"), " $1 $2 "],
  [new RegExp(` ('t)(is)(?!${W})`, "giu"), " $1 $2 "],
  [new RegExp(` ('t)(was)(?!${W})`, "giu"), " $1 $2 "],
];

function treebankTokens(sentence: string): string[] {
  let text = sentence;
  const apply = (rules: readonly Rule[]) => {
    for (const [re, by] of rules) text = text.replace(re, by);
  };
  apply(STARTING_QUOTES);
  apply(PUNCTUATION);
  apply([PARENS_BRACKETS, DOUBLE_DASHES]);
  text = ` ${text} `;
  apply(ENDING_QUOTES);
  apply(CONTRACTIONS);
  return pySplit(text);
}

/** NLTK's `word_tokenize(text)` (English). */
export function wordTokenize(text: string): string[] {
  return punktSentences(text).flatMap(treebankTokens);
}

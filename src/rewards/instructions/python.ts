/**
 * Python's string semantics where they differ from JavaScript's, for the ports of Python references
 * (IFEval's and IFBench's checkers, NLTK's tokenizers, SQuAD's answer normalisation):
 *
 * - white space is `str.isspace()` / Unicode `\s` (JavaScript's `\s` leaves out \x1c–\x1f and
 *   \x85 and adds U+FEFF), for `strip()`, `split()` and patterns;
 * - `\w` is letters, numbers and `_` but not combining marks (so a Devanagari word splits at its
 *   vowel signs, as in Python's `re`), and `\b` is spelled out from it (JavaScript's is ASCII);
 * - `str.isupper()` / `str.islower()`: at least one cased character and none of the other case
 *   (titlecase letters count as neither); `isdigit()` is Unicode decimal digits;
 * - `string.punctuation` is ASCII only (curly quotes and dashes are not in it);
 * - strings are indexed by code point where Python indexes characters, so an emoji outside the BMP
 *   is one character.
 */

const SPACES =
  "\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
/** Python's Unicode `\s` (one white-space character, `str.isspace()`), for a `u`-flag pattern. */
export const PY_SPACE = `[${SPACES}]`;
/** Python's Unicode `\S`. */
export const PY_NON_SPACE = `[^${SPACES}]`;
const PY_SPACE_CHAR = new RegExp(PY_SPACE);
const PY_SPLIT = new RegExp(`${PY_SPACE}+`);

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

/** Python's `s.rstrip()`. */
export function pyRstrip(s: string): string {
  let end = s.length;
  while (end > 0 && pyIsSpace(s[end - 1]!)) end--;
  return s.slice(0, end);
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

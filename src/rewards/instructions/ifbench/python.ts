/**
 * The Python string operations IFBench's checkers are written in, with Python's semantics, so that
 * each checker reads like the reference line it ports (allenai/IFBench `ifbench/instructions.py`).
 *
 * Decided once:
 * - `PUNCTUATION` is Python's `string.punctuation` (ASCII only: curly quotes and dashes are not in it).
 * - White space is JavaScript's `\s` (Python's `str.split()` also splits on the separators
 *   U+001C–U+001F and not on U+FEFF; neither occurs in model text in practice).
 * - Strings are handled as code points where the reference indexes characters (`[...s]`), so an
 *   emoji outside the BMP is one character as in Python.
 */

/** Python's `string.punctuation`. */
export const PUNCTUATION = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";
const PUNCT_SET = new Set(PUNCTUATION);

/** `str.split()`: the runs of non-white-space. */
export function splitWhitespace(s: string): string[] {
  return s.split(/\s+/).filter((w) => w !== "");
}

/** `str.translate(str.maketrans("", "", string.punctuation))`: every ASCII punctuation mark removed. */
export function removePunctuation(s: string): string {
  let out = "";
  for (const c of s) if (!PUNCT_SET.has(c)) out += c;
  return out;
}

/** `str.lstrip(chars)`. */
export function lstripChars(s: string, chars: string): string {
  const cs = [...s];
  let i = 0;
  while (i < cs.length && chars.includes(cs[i]!)) i++;
  return cs.slice(i).join("");
}

/** `str.rstrip(chars)`. */
export function rstripChars(s: string, chars: string): string {
  const cs = [...s];
  let j = cs.length;
  while (j > 0 && chars.includes(cs[j - 1]!)) j--;
  return cs.slice(0, j).join("");
}

/** `str.strip(chars)`. */
export function stripChars(s: string, chars: string): string {
  return lstripChars(rstripChars(s, chars), chars);
}

/** `str.strip(string.punctuation + " ")`, the reference's usual word cleaning. */
export function stripPunctSpace(s: string): string {
  return stripChars(s, PUNCTUATION + " ");
}

const cased = (c: string) => c.toLowerCase() !== c.toUpperCase();

/** `str.islower()`: at least one cased character and no upper-case one. */
export function isLower(s: string): boolean {
  const cs = [...s].filter(cased);
  return cs.length > 0 && cs.every((c) => c === c.toLowerCase());
}

/** `str.isupper()`: at least one cased character and no lower-case one. */
export function isUpper(s: string): boolean {
  const cs = [...s].filter(cased);
  return cs.length > 0 && cs.every((c) => c === c.toUpperCase());
}

/** `str.isalpha()` for one character. */
export function isAlphaChar(c: string): boolean {
  return /^\p{L}$/u.test(c);
}

/** `str.isdigit()`: non-empty and every character a digit. */
export function isDigits(s: string): boolean {
  return /^\p{Nd}+$/u.test(s);
}

/** `unicodedata.normalize("NFKD", s).encode("ascii", "ignore").decode()`: diacritics dropped. */
export function asciiFold(s: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range is the point
  return s.normalize("NFKD").replace(/[^\x00-\x7f]/g, "");
}

/** Python's Unicode `\w` (letters, digits, underscore). */
export const WORD_CHAR = String.raw`[\p{L}\p{N}_]`;

/** Python's `\b`: between a word character and anything else (a `u`-flag regular expression). */
export const WORD_BOUNDARY = `(?:(?<=${WORD_CHAR})(?!${WORD_CHAR})|(?<!${WORD_CHAR})(?=${WORD_CHAR}))`;

/** `re.escape`: `s` matched literally. */
export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

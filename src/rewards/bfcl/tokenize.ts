/**
 * The tokens of the Python expressions BFCL's decoder reads (parse.ts): numbers as Python writes
 * them (bases, underscores, exponents; an int stays an exact bigint), string literals (quotes,
 * triple quotes, r/u prefixes, Python's escapes, an unknown escape kept as written), names
 * (Unicode identifiers) and operators; comments and explicit line joins skipped. Bytes, f-strings,
 * complex numbers and \N{...} escapes are refused here with a reason and a position.
 */
import type { PyVal } from "./value.js";

/** A syntax error in the model's calls: the message ends with its position in the text. */
export class BfclSyntaxError extends Error {
  override name = "BfclSyntaxError";
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(`${message} (at character ${position})`);
  }
}

export type Token =
  | { k: "num"; v: PyVal; at: number }
  | { k: "str"; v: string; at: number }
  | { k: "name"; v: string; at: number }
  | { k: "op"; v: string; at: number }
  | { k: "end"; at: number };

/** Longest first, so that "**" is not read as two "*". */
const OPERATORS = ["...", "**", "//", "==", "!=", "<=", ">=", ":=", ..."()[]{},:=.+-*/%<>@|&~^"];
const NAME_START = /[\p{L}\p{Nl}_]/u;
const NAME_REST = /[\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}]/u;
// Python's numeric literals (the language reference's "Integer literals" and "Floating-point
// literals"); an imaginary `j` suffix or a letter right after a number is a syntax error.
const NUMBER =
  /(?:0[xX](?:_?[0-9a-fA-F])+|0[oO](?:_?[0-7])+|0[bB](?:_?[01])+|(?:(?:\d(?:_?\d)*)?\.\d(?:_?\d)*|\d(?:_?\d)*\.?)(?:[eE][+-]?\d(?:_?\d)*)?)/y;

export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === " " || c === "\t" || c === "\n" || c === "\r" || c === "\f") {
      i++;
    } else if (c === "\\" && text[i + 1] === "\n") {
      i += 2; // an explicit line join
    } else if (c === "#") {
      while (i < text.length && text[i] !== "\n") i++;
    } else if (/[0-9]/.test(c) || (c === "." && /[0-9]/.test(text[i + 1] ?? ""))) {
      i = readNumber(text, i, tokens);
    } else if (c === "'" || c === '"') {
      i = readString(text, i, "", tokens);
    } else if (NAME_START.test(c)) {
      let j = i + 1;
      while (j < text.length && NAME_REST.test(text[j]!)) j++;
      const word = text.slice(i, j);
      if (/^(?:[rRuUbBfF]|[rR][bBfF]|[bBfF][rR])$/.test(word) && /['"]/.test(text[j] ?? "")) {
        i = readString(text, j, word.toLowerCase(), tokens);
      } else {
        tokens.push({ k: "name", v: word, at: i });
        i = j;
      }
    } else {
      const op = OPERATORS.find((o) => text.startsWith(o, i));
      if (op === undefined)
        throw new BfclSyntaxError(`unexpected character ${JSON.stringify(c)}`, i);
      tokens.push({ k: "op", v: op, at: i });
      i += op.length;
    }
  }
  tokens.push({ k: "end", at: text.length });
  return tokens;
}

function readNumber(text: string, start: number, tokens: Token[]): number {
  NUMBER.lastIndex = start;
  const m = NUMBER.exec(text);
  const literal = m?.[0] ?? "";
  const end = start + literal.length;
  if (literal === "" || /[\p{L}\p{N}_]/u.test(text[end] ?? "")) {
    const what = /[jJ]/.test(text[end] ?? "")
      ? "complex numbers are not accepted"
      : "invalid number";
    throw new BfclSyntaxError(what, start);
  }
  const digits = literal.replace(/_/g, "");
  const isFloat = !/^0[xXoObB]/.test(digits) && /[.eE]/.test(digits);
  if (isFloat) {
    tokens.push({ k: "num", v: { t: "float", v: Number(digits) }, at: start });
  } else {
    if (/^0\d/.test(digits) && /[1-9]/.test(digits)) {
      throw new BfclSyntaxError("leading zeros in a decimal integer are not allowed", start);
    }
    tokens.push({ k: "num", v: { t: "int", v: BigInt(digits) }, at: start });
  }
  return end;
}

const SIMPLE_ESCAPES: Record<string, string> = {
  "\\": "\\",
  "'": "'",
  '"': '"',
  a: "\x07",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
};

/** Reads a string literal whose quote is at `start`; returns the index after it. */
function readString(text: string, start: number, prefix: string, tokens: Token[]): number {
  const at = start - prefix.length;
  if (prefix.includes("b")) throw new BfclSyntaxError("bytes literals are not accepted", at);
  if (prefix.includes("f")) throw new BfclSyntaxError("f-strings are not accepted", at);
  const raw = prefix.includes("r");
  const q = text[start]!;
  const triple = text.startsWith(q.repeat(3), start);
  const close = triple ? q.repeat(3) : q;
  let i = start + close.length;
  let value = "";
  for (;;) {
    if (i >= text.length) throw new BfclSyntaxError("unterminated string literal", at);
    if (text.startsWith(close, i)) break;
    const c = text[i]!;
    if (c === "\n" && !triple) throw new BfclSyntaxError("unterminated string literal", at);
    if (c !== "\\") {
      value += c;
      i++;
      continue;
    }
    const next = text[i + 1];
    if (next === undefined) throw new BfclSyntaxError("unterminated string literal", at);
    if (raw) {
      value += c + next; // a raw string keeps the backslash; it still escapes the quote
      i += 2;
      continue;
    }
    const [decoded, length] = readEscape(text, i);
    value += decoded;
    i += length;
  }
  tokens.push({ k: "str", v: value, at });
  return i + close.length;
}

/** A backslash escape at `i` in a non-raw string: its text and its length. */
function readEscape(text: string, i: number): [string, number] {
  const next = text[i + 1]!;
  if (next === "\n") return ["", 2];
  const simple = SIMPLE_ESCAPES[next];
  if (simple !== undefined) return [simple, 2];
  const octal = /^[0-7]{1,3}/.exec(text.slice(i + 1, i + 4));
  if (octal) return [String.fromCodePoint(Number.parseInt(octal[0], 8)), 1 + octal[0].length];
  const hexLength = { x: 2, u: 4, U: 8 }[next];
  if (hexLength !== undefined) {
    const hex = text.slice(i + 2, i + 2 + hexLength);
    const code = Number.parseInt(hex, 16);
    if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== hexLength || code > 0x10ffff) {
      throw new BfclSyntaxError(`invalid \\${next} escape`, i);
    }
    return [String.fromCodePoint(code), 2 + hexLength];
  }
  if (next === "N") throw new BfclSyntaxError("\\N{...} escapes are not accepted", i);
  return [`\\${next}`, 2]; // Python keeps an unknown escape as it is
}

/**
 * How the `code` grader judges what a program produced, on the host, outside the program's
 * process: a program's stdout against a test's expected output, and a function's return value
 * (as JSON) against an expected JSON value.
 *
 * Output comparison, by `OutputCompare`:
 * - `exact`: byte-for-byte equal (after UTF-8 decoding).
 * - `whitespace`: the same tokens once split on runs of whitespace (APPS/TACO-style tolerance:
 *   spacing, line breaks and trailing newlines do not matter; "1 2" equals "1\n2").
 * - `lines`: LiveCodeBench's rule (lcb_runner/evaluation/testing_util.py, grade_stdio): both
 *   texts stripped, split on "\n", each line stripped; the same number of lines, and each line
 *   equal as text or, failing that, as a list of Python `Decimal`s ("0.50" equals "0.5", "1e3"
 *   equals "1000"; NaN equals nothing).
 *
 * Value comparison follows Python's `==` between the function's return value and
 * `json.loads(expected)` (LiveCodeBench's call-based tests): ints are exact (bigint), an int equals
 * a float of the same value, a bool equals 1/0, lists compare in order, dicts by key set. The
 * runner sends the value as JSON text, which it produces only from JSON-shaped Python values
 * (None, bool, int, float, str, list, dict with str keys; see code-runners.ts), so the texts here
 * are Python's `json.dumps` output and dataset JSON — both parsed here without loss (`NaN`,
 * `Infinity` and `-Infinity` included, as Python's json reads them).
 */

export type OutputCompare = "exact" | "whitespace" | "lines";

export const OUTPUT_COMPARES: readonly OutputCompare[] = ["exact", "whitespace", "lines"];

/** Whether `actual` (a program's stdout) matches `expected` under `mode`. */
export function outputsMatch(actual: string, expected: string, mode: OutputCompare): boolean {
  return outputMismatch(actual, expected, mode) === null;
}

/** null when the outputs match; else a short reason naming the first difference. */
export function outputMismatch(
  actual: string,
  expected: string,
  mode: OutputCompare,
): string | null {
  if (mode === "exact") {
    if (actual === expected) return null;
    const at = firstDifference(actual, expected);
    return `output differs at character ${at}: expected ${clip(expected, at)}, got ${clip(actual, at)}`;
  }
  if (mode === "whitespace") {
    const got = tokens(actual);
    const want = tokens(expected);
    for (let i = 0; i < Math.max(got.length, want.length); i++) {
      if (got[i] !== want[i]) {
        return `token ${i + 1} differs: expected ${show(want[i])}, got ${show(got[i])}`;
      }
    }
    return null;
  }
  const got = strippedLines(actual);
  const want = strippedLines(expected);
  if (got.length !== want.length) {
    return `expected ${want.length} line(s) of output, got ${got.length}`;
  }
  for (let i = 0; i < want.length; i++) {
    if (!linesMatch(got[i]!, want[i]!)) {
      return `line ${i + 1} differs: expected ${show(want[i])}, got ${show(got[i])}`;
    }
  }
  return null;
}

function tokens(text: string): string[] {
  return text.split(/\s+/).filter((t) => t !== "");
}

/** lcb's get_stripped_lines: strip, split on "\n", strip each line. */
function strippedLines(text: string): string[] {
  return text
    .trim()
    .split("\n")
    .map((line) => line.trim());
}

function linesMatch(got: string, want: string): boolean {
  if (got === want) return true;
  const a = decimalsOf(got);
  const b = decimalsOf(want);
  if (a === undefined || b === undefined || a.length !== b.length) return false;
  return a.every((d, i) => decimalsEqual(d, b[i]!));
}

/** A Python Decimal reduced to compare by value: finite (sign, digits, exponent), ±inf, or NaN. */
type Decimal =
  | { kind: "finite"; negative: boolean; digits: string; exponent: number }
  | { kind: "infinity"; negative: boolean }
  | { kind: "nan" };

// Python's Decimal(str) syntax (decimal module docs), underscores between digits allowed.
const DIGITS = "\\d+(?:_\\d+)*";
const DECIMAL_RE = new RegExp(
  `^([+-])?(?:(${DIGITS})?(?:\\.(${DIGITS})?)?(?:[eE]([+-]?${DIGITS}))?|(inf(?:inity)?)|(s?nan(?:${DIGITS})?))$`,
  "i",
);

function parseDecimal(text: string): Decimal | undefined {
  const m = DECIMAL_RE.exec(text);
  if (!m) return undefined;
  const [, sign, int, frac, exp, inf, nan] = m;
  const negative = sign === "-";
  if (inf) return { kind: "infinity", negative };
  if (nan) return { kind: "nan" };
  if (int === undefined && frac === undefined) return undefined;
  const intDigits = (int ?? "").replace(/_/g, "");
  const fracDigits = (frac ?? "").replace(/_/g, "");
  let digits = (intDigits + fracDigits).replace(/^0+/, "");
  let exponent = Number((exp ?? "0").replace(/_/g, "")) - fracDigits.length;
  if (digits === "") return { kind: "finite", negative: false, digits: "0", exponent: 0 };
  const trailing = digits.length - digits.replace(/0+$/, "").length;
  digits = digits.slice(0, digits.length - trailing);
  exponent += trailing;
  return { kind: "finite", negative, digits, exponent };
}

/** lcb's convert_line_to_decimals: every whitespace-separated item a Decimal, else undefined. */
function decimalsOf(line: string): Decimal[] | undefined {
  const out: Decimal[] = [];
  for (const item of tokens(line)) {
    const d = parseDecimal(item);
    if (d === undefined) return undefined;
    out.push(d);
  }
  return out;
}

function decimalsEqual(a: Decimal, b: Decimal): boolean {
  if (a.kind === "nan" || b.kind === "nan") return false;
  if (a.kind === "infinity" || b.kind === "infinity") {
    return a.kind === b.kind && a.negative === b.negative;
  }
  return a.negative === b.negative && a.digits === b.digits && a.exponent === b.exponent;
}

function firstDifference(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

const SHOWN = 60;

function show(text: string | undefined): string {
  if (text === undefined) return "nothing";
  return JSON.stringify(text.length > SHOWN ? `${text.slice(0, SHOWN)}…` : text);
}

/** The text around position `at`, for a message. */
function clip(text: string, at: number): string {
  if (at >= text.length) return at === 0 ? "nothing" : "the end of the output";
  const start = Math.max(0, at - 20);
  return `${start > 0 ? "…" : ""}${show(text.slice(start, start + SHOWN))}`;
}

/** A JSON value as Python's json.loads gives it: ints exact, floats as doubles. */
export type PyValue =
  | null
  | boolean
  | string
  | { int: bigint }
  | { float: number }
  | PyValue[]
  | { dict: Map<string, PyValue> };

export class PyJsonError extends Error {
  override name = "PyJsonError";
}

/** Parses JSON the way Python's json.loads does (ints stay exact; NaN and ±Infinity accepted). */
export function parsePyJson(text: string): PyValue {
  const parser = new PyJsonParser(text);
  const value = parser.value();
  parser.end();
  return value;
}

class PyJsonParser {
  private at = 0;
  constructor(private readonly text: string) {}

  private fail(what: string): never {
    throw new PyJsonError(`invalid JSON at character ${this.at}: ${what}`);
  }

  private space(): void {
    while (/[ \t\n\r]/.test(this.text[this.at] ?? "")) this.at++;
  }

  end(): void {
    this.space();
    if (this.at !== this.text.length) this.fail("extra data after the value");
  }

  value(): PyValue {
    this.space();
    const c = this.text[this.at];
    if (c === "{") return this.object();
    if (c === "[") return this.array();
    if (c === '"') return this.string();
    for (const [word, value] of LITERALS) {
      if (this.text.startsWith(word, this.at)) {
        this.at += word.length;
        return value;
      }
    }
    return this.number();
  }

  private object(): PyValue {
    this.at++;
    const dict = new Map<string, PyValue>();
    this.space();
    if (this.text[this.at] === "}") {
      this.at++;
      return { dict };
    }
    for (;;) {
      this.space();
      if (this.text[this.at] !== '"') this.fail("expected a string key");
      const key = this.string();
      this.space();
      if (this.text[this.at++] !== ":") this.fail('expected ":"');
      dict.set(key, this.value());
      this.space();
      const c = this.text[this.at++];
      if (c === "}") return { dict };
      if (c !== ",") this.fail('expected "," or "}"');
    }
  }

  private array(): PyValue {
    this.at++;
    const items: PyValue[] = [];
    this.space();
    if (this.text[this.at] === "]") {
      this.at++;
      return items;
    }
    for (;;) {
      items.push(this.value());
      this.space();
      const c = this.text[this.at++];
      if (c === "]") return items;
      if (c !== ",") this.fail('expected "," or "]"');
    }
  }

  private string(): string {
    let i = this.at + 1;
    while (i < this.text.length && this.text[i] !== '"') i += this.text[i] === "\\" ? 2 : 1;
    if (i >= this.text.length) this.fail("unterminated string");
    const raw = this.text.slice(this.at, i + 1);
    this.at = i + 1;
    try {
      return JSON.parse(raw) as string; // JSON's string syntax is Python's (control characters refused)
    } catch {
      return this.fail("bad string");
    }
  }

  private number(): PyValue {
    const m = /^-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(this.text.slice(this.at));
    if (!m) this.fail("expected a value");
    this.at += m[0].length;
    if (m[1] === undefined && m[2] === undefined) return { int: BigInt(m[0]) };
    return { float: Number(m[0]) };
  }
}

const LITERALS: [string, PyValue][] = [
  ["null", null],
  ["true", true],
  ["false", false],
  ["NaN", { float: Number.NaN }],
  ["Infinity", { float: Number.POSITIVE_INFINITY }],
  ["-Infinity", { float: Number.NEGATIVE_INFINITY }],
];

type PyNumber = { int: bigint } | { float: number };

function asNumber(v: PyValue): PyNumber | undefined {
  if (typeof v === "boolean") return { int: v ? 1n : 0n };
  if (v !== null && typeof v === "object" && ("int" in v || "float" in v)) return v;
  return undefined;
}

function numbersEqual(a: PyNumber, b: PyNumber): boolean {
  if ("int" in a && "int" in b) return a.int === b.int;
  if ("float" in a && "float" in b) return a.float === b.float;
  const i = "int" in a ? a.int : (b as { int: bigint }).int;
  const f = "float" in a ? a.float : (b as { float: number }).float;
  return Number.isInteger(f) && BigInt(f) === i;
}

/** Python's `a == b` for values parsed by parsePyJson. */
export function pyEqual(a: PyValue, b: PyValue): boolean {
  if (a === null || b === null) return a === b;
  if (typeof a === "string" || typeof b === "string") return a === b;
  const na = asNumber(a);
  const nb = asNumber(b);
  if (na || nb) return na !== undefined && nb !== undefined && numbersEqual(na, nb);
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) &&
      Array.isArray(b) &&
      a.length === b.length &&
      a.every((item, i) => pyEqual(item, b[i]!))
    );
  }
  const da = (a as { dict: Map<string, PyValue> }).dict;
  const db = (b as { dict: Map<string, PyValue> }).dict;
  if (da.size !== db.size) return false;
  for (const [key, value] of da) {
    const other = db.get(key);
    if (other === undefined || !pyEqual(value, other)) return false;
  }
  return true;
}

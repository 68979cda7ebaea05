/**
 * Python values as BFCL's checker sees them: the arguments a model wrote (parse.ts reads them from
 * its call syntax) and the possible answers of a task (JSON, as `json.load` gives them).
 *
 * The checker compares with Python's `==` and `in` and dispatches on `type(x)`, so the distinctions
 * Python makes are kept: `True` is a bool and not an int for `type`, but `True == 1`; `1 == 1.0`;
 * a tuple never equals a list; ints are exact (bigint). Code-compare.ts's PyValue is JSON-only
 * (no tuples, string keys only), which a model's `(1, 2)` or `{1: "a"}` needs, hence this type.
 *
 * JSON erases one distinction Python's json keeps: `5.0` and `5` both parse to the number 5. A
 * ground-truth number therefore reads as an int when integral and a float otherwise (ast-match.ts
 * says where that can differ from BFCL).
 */

export type PyVal =
  | { t: "none" }
  | { t: "bool"; v: boolean }
  | { t: "int"; v: bigint }
  | { t: "float"; v: number }
  | { t: "str"; v: string }
  | { t: "list"; v: PyVal[] }
  | { t: "tuple"; v: PyVal[] }
  | { t: "dict"; v: [PyVal, PyVal][] };

/** Python's `type(x).__name__`. */
export type PyType = "NoneType" | "bool" | "int" | "float" | "str" | "list" | "tuple" | "dict";

const TYPE_NAMES: Record<PyVal["t"], PyType> = {
  none: "NoneType",
  bool: "bool",
  int: "int",
  float: "float",
  str: "str",
  list: "list",
  tuple: "tuple",
  dict: "dict",
};

export function pyType(x: PyVal): PyType {
  return TYPE_NAMES[x.t];
}

export const pyNone: PyVal = { t: "none" };
export const pyStr = (v: string): PyVal => ({ t: "str", v });
export const pyList = (v: PyVal[]): PyVal => ({ t: "list", v });

/** A JSON value (a task's possible answer) as Python's json.load reads it; see the header. */
export function fromJson(x: unknown): PyVal {
  if (x === null) return pyNone;
  if (typeof x === "boolean") return { t: "bool", v: x };
  if (typeof x === "string") return pyStr(x);
  if (typeof x === "number") {
    return Number.isInteger(x) ? { t: "int", v: BigInt(x) } : { t: "float", v: x };
  }
  if (Array.isArray(x)) return pyList(x.map(fromJson));
  if (typeof x === "object") {
    return { t: "dict", v: Object.entries(x).map(([k, v]) => [pyStr(k), fromJson(v)]) };
  }
  throw new TypeError(`not a JSON value: ${String(x)}`);
}

/** A plain JSON-friendly form, for metadata: tuples become arrays, non-string keys their repr. */
export function toPlain(x: PyVal): unknown {
  switch (x.t) {
    case "none":
      return null;
    case "bool":
    case "str":
      return x.v;
    case "int":
      return Number.isSafeInteger(Number(x.v)) ? Number(x.v) : x.v.toString();
    case "float":
      return Number.isFinite(x.v) ? x.v : pyRepr(x);
    case "list":
    case "tuple":
      return x.v.map(toPlain);
    case "dict":
      return Object.fromEntries(x.v.map(([k, v]) => [k.t === "str" ? k.v : pyRepr(k), toPlain(v)]));
  }
}

/** The number a bool, int or float stands for in a comparison; undefined for other types. */
function numeric(x: PyVal): bigint | number | undefined {
  if (x.t === "bool") return x.v ? 1n : 0n;
  if (x.t === "int" || x.t === "float") return x.v;
  return undefined;
}

function numbersEqual(a: bigint | number, b: bigint | number): boolean {
  if (typeof a === "bigint" && typeof b === "bigint") return a === b;
  if (typeof a === "number" && typeof b === "number") return a === b;
  const [i, f] = (typeof a === "bigint" ? [a, b] : [b, a]) as [bigint, number];
  return Number.isInteger(f) && BigInt(f) === i; // exact, as Python compares int with float
}

/** Python's `a == b`. */
export function pyEq(a: PyVal, b: PyVal): boolean {
  const na = numeric(a);
  const nb = numeric(b);
  if (na !== undefined || nb !== undefined) {
    return na !== undefined && nb !== undefined && numbersEqual(na, nb);
  }
  if (a.t !== b.t) return false;
  switch (a.t) {
    case "none":
      return true;
    case "str":
      return a.v === (b as typeof a).v;
    case "list":
    case "tuple": {
      const bv = (b as typeof a).v;
      return a.v.length === bv.length && a.v.every((x, i) => pyEq(x, bv[i]!));
    }
    case "dict": {
      const bv = (b as typeof a).v;
      return (
        a.v.length === bv.length &&
        a.v.every(([k, v]) => {
          const other = dictGet(b, k);
          return other !== undefined && pyEq(v, other);
        })
      );
    }
    default:
      return false;
  }
}

/** `d[key]` for a dict value; undefined when absent (or when `d` is not a dict). */
export function dictGet(d: PyVal, key: PyVal): PyVal | undefined {
  if (d.t !== "dict") return undefined;
  return d.v.find(([k]) => pyEq(k, key))?.[1];
}

/**
 * Python's `x in container`: membership in a list or tuple, a key of a dict, a substring of a str
 * (where BFCL's data has a string in place of a list, its `"" in value` is then always true).
 * Other containers hold nothing.
 */
export function pyIn(x: PyVal, container: PyVal): boolean {
  switch (container.t) {
    case "list":
    case "tuple":
      return container.v.some((item) => pyEq(x, item));
    case "dict":
      return dictGet(container, x) !== undefined;
    case "str":
      return x.t === "str" && container.v.includes(x.v);
    default:
      return false;
  }
}

/** Iterating a value as Python's `for` / `range(len(x))` does: a str yields its characters. */
export function pyItems(x: PyVal): PyVal[] {
  if (x.t === "list" || x.t === "tuple") return x.v;
  if (x.t === "str") return [...x.v].map(pyStr);
  return [];
}

function strRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const c of s) {
    if (c === quote || c === "\\") out += `\\${c}`;
    else if (c === "\n") out += "\\n";
    else if (c === "\r") out += "\\r";
    else if (c === "\t") out += "\\t";
    else if (c < " " || c === "\x7f") out += `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`;
    else out += c;
  }
  return out + quote;
}

/** Python's float repr: shortest round-trip digits, exponent form below 1e-4 and from 1e16. */
function floatRepr(x: number): string {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const [mantissa, exp] = x.toExponential().split("e") as [string, string];
  const e = Number(exp);
  if (e < -4 || e >= 16) {
    return `${mantissa}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
  }
  const fixed = String(x);
  return fixed.includes(".") ? fixed : `${fixed}.0`;
}

/** Python's `repr(x)`, for error messages. */
export function pyRepr(x: PyVal): string {
  switch (x.t) {
    case "none":
      return "None";
    case "bool":
      return x.v ? "True" : "False";
    case "int":
      return x.v.toString();
    case "float":
      return floatRepr(x.v);
    case "str":
      return strRepr(x.v);
    case "list":
      return `[${x.v.map(pyRepr).join(", ")}]`;
    case "tuple":
      return x.v.length === 1 ? `(${pyRepr(x.v[0]!)},)` : `(${x.v.map(pyRepr).join(", ")})`;
    case "dict":
      return `{${x.v.map(([k, v]) => `${pyRepr(k)}: ${pyRepr(v)}`).join(", ")}}`;
  }
}

/**
 * The shape of a normalised final answer (normalize.ts), decided once before any comparison:
 *
 *   matrix    `\begin{pmatrix}1&2\\3&4\end{pmatrix}` (every matrix spelling became pmatrix)
 *   union     `(-\infty,2]\cup(3,\infty)`: its parts, in any order
 *   set       `\{1,2\}` (braced) or a bare list `1, 2` or `1; 2` (Math-Verify reads both as a
 *             FiniteSet); `a \pm b` is the bare list `a+b, a-b`
 *   tuple     `(1,2,3)`, `[1,2)`: its brackets and items. Two items in brackets are an interval or
 *             a point; compare.ts decides by what the other side is, as Math-Verify does
 *   relation  `y = 2x+3`, `x > 3`, `1 < x \le 2`: a chain of sides and operators
 *   scalar    anything else: one expression (parse.ts) or, failing that, text
 *
 * Brackets are counted without pairing their types, because intervals pair `(` with `]`.
 */

export type RelOp = "=" | "<" | ">" | "\\le" | "\\ge" | "\\ne";

export type Answer =
  | { kind: "matrix"; rows: Answer[][] }
  | { kind: "union"; parts: Answer[] }
  | { kind: "set"; items: Answer[]; braced: boolean }
  | { kind: "tuple"; open: string; close: string; items: Answer[] }
  | { kind: "relation"; ops: RelOp[]; sides: string[] }
  | { kind: "scalar"; text: string };

/** Deeper than any real answer (a set of tuples of intervals is depth 3). */
const MAX_DEPTH = 8;

/**
 * Splits `s` at every top-level match of `separator` (a regex source anchored by the caller).
 * `\{` and `\}` count as brackets (sets); `\left`/`\right` were removed by normalize.ts.
 */
export function splitTopLevel(s: string, separator: RegExp): { parts: string[]; seps: string[] } {
  const parts: string[] = [];
  const seps: string[] = [];
  let depth = 0;
  let start = 0;
  const sticky = new RegExp(separator.source, "y");
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (depth === 0) {
      sticky.lastIndex = i;
      const m = sticky.exec(s);
      if (m && m[0].length > 0) {
        parts.push(s.slice(start, i));
        seps.push(m[0]);
        start = i + m[0].length;
        i = start - 1;
        continue;
      }
    }
    if (ch === "\\") {
      const next = s[i + 1];
      if (next === "{" || next === "}") depth += next === "{" ? 1 : -1;
      i++;
      if (next !== undefined && /[a-zA-Z]/.test(next)) {
        while (i + 1 < s.length && /[a-zA-Z]/.test(s[i + 1]!)) i++;
      }
      continue;
    }
    if ("([{".includes(ch)) depth++;
    else if (")]}".includes(ch)) depth--;
  }
  parts.push(s.slice(start));
  return { parts, seps };
}

/** True when the bracket opening at 0 closes only at the last character: `(1,2)` not `(1)(2)`. */
function enclosedWhole(s: string): boolean {
  let depth = 0;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (ch === "\\") {
      i++;
      continue;
    }
    if ("([{".includes(ch)) depth++;
    else if (")]}".includes(ch)) {
      depth--;
      if (depth === 0 && i < s.length - 1) return false;
    }
  }
  return depth === 0;
}

/** Items are separated by commas, or semicolons (`(0;-2;6)`, `-12;-11`) as Math-Verify reads them. */
const COMMA = /[,;]/;
const UNION = /\\cup(?![a-zA-Z])/;
const RELATION = /\\(?:le|ge|ne|lt|gt)(?![a-zA-Z])|<|>|=/;

function relOp(sep: string): RelOp {
  if (sep === "\\lt") return "<";
  if (sep === "\\gt") return ">";
  return sep as RelOp;
}

/** The shape of `s` (already normalised). */
export function shapeOf(s: string, depth = 0): Answer {
  if (depth > MAX_DEPTH) return { kind: "scalar", text: s };
  const inner = (x: string) => shapeOf(x, depth + 1);
  const matrix = /^\\begin\{pmatrix\}(.*)\\end\{pmatrix\}$/s.exec(s);
  if (matrix) {
    const rows = matrix[1]!.split("\\\\").filter((r) => r !== "");
    return { kind: "matrix", rows: rows.map((r) => r.split("&").map(inner)) };
  }
  const union = splitTopLevel(s, UNION).parts;
  if (union.length > 1) return { kind: "union", parts: union.map(inner) };
  const list = splitTopLevel(s, COMMA).parts;
  if (list.length > 1) return { kind: "set", items: flatten(list.map(inner)), braced: false };
  if (s.startsWith("\\{") && s.endsWith("\\}") && s.length >= 4) {
    const body = s.slice(2, -2);
    const items = body === "" ? [] : splitTopLevel(body, COMMA).parts;
    return { kind: "set", items: flatten(items.map(inner)), braced: true };
  }
  const open = s[0] ?? "";
  const close = s.at(-1) ?? "";
  if ("([".includes(open) && ")]".includes(close) && s.length >= 2 && enclosedWhole(s)) {
    const items = splitTopLevel(s.slice(1, -1), COMMA).parts;
    if (items.length > 1) return { kind: "tuple", open, close, items: items.map(inner) };
  }
  // `1 \pm \sqrt{19}` is the two answers `1 + \sqrt{19}` and `1 - \sqrt{19}` (one sign only).
  const pm = s.match(/\\(?:pm|mp)(?![a-zA-Z])/g);
  if (pm?.length === 1) {
    const sign = (x: string) => s.replace(/\\(?:pm|mp)(?![a-zA-Z])/, x);
    return { kind: "set", items: [inner(sign("+")), inner(sign("-"))], braced: false };
  }
  const relation = splitTopLevel(s, RELATION);
  if (relation.parts.length > 1 && relation.parts.every((p) => p !== "")) {
    return { kind: "relation", ops: relation.seps.map(relOp), sides: relation.parts };
  }
  return { kind: "scalar", text: s };
}

/** A list item that is itself a bare list (a `\pm` answer) contributes its items. */
function flatten(items: Answer[]): Answer[] {
  return items.flatMap((a) => (a.kind === "set" && !a.braced ? a.items : [a]));
}

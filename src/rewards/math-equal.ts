/**
 * When two final answers to a math problem are the same answer.
 *
 * Both sides go through the same normalisation (the rules of Hendrycks et al.'s MATH
 * `is_equiv`, extended as in Qwen2.5-Math's and Minerva's graders): wrappers, spacing macros, units,
 * degrees, percent, currency and LaTeX spellings are removed or made canonical. Then the answers
 * are compared by shape: tuples and intervals element-wise and in order, sets and bare lists in any
 * order, unions piece by piece, matrices cell by cell, and single values by exact value where they
 * are constant expressions (latex-eval.ts). Normalised string equality is always the last resort.
 */
import { readBraceGroup } from "./extract.js";
import { evaluateLatex, latexValuesEqual } from "./latex-eval.js";

/** Text commands whose argument is the answer itself (`\text{Evelyn}`, `\textbf{(C)}`). */
const UNWRAP_COMMANDS = [
  "text",
  "textbf",
  "textit",
  "textrm",
  "textnormal",
  "mathrm",
  "mathbf",
  "mathit",
  "mbox",
  "boxed",
  "fbox",
];

/** A value, then `\text{...}` or `\mbox{...}` (possibly squared or cubed) closing the answer. */
const TRAILING_TEXT_UNIT =
  /^(.*\S)\s*\\(?:text|textrm|textnormal|mbox|mathrm)\s*\{[^{}]*\}\s*(?:\^\s*\{?\s*\d\s*\}?)?\s*$/s;

/** A plain number (group 1), then words of two or more letters (group 2), maybe `^2`. */
const NUMBER_THEN_WORDS =
  /^([+-]?(?:\d[\d,]*(?:\.\d+)?|\.\d+)(?:\/\d+)?)\s*([a-zA-Z]{2,}\.?(?:\s+[a-zA-Z]+\.?)*)(?:\^\{?\d\}?)?$/;

/** Words that join numbers, so `2 and 3` is not "2 followed by a unit". */
const JOINING_WORDS = new Set(["and", "or", "to", "plus", "minus", "times", "over", "by"]);

/** Canonical form of one answer, used for every comparison. Exported for metadata and tests. */
export function normalizeMathAnswer(raw: string): string {
  let s = raw.trim().replace(/\u2212/g, "-"); // Unicode minus sign

  // Currency and math-mode delimiters carry no value: `\$18.90`, `$\frac12$`, `\(x\)`.
  s = s.replace(/\\\$/g, "").replace(/\$/g, "").trim();
  s = s.replace(/^\\\((.*)\\\)$/s, "$1").replace(/^\\\[(.*)\\\]$/s, "$1");
  s = s.replace(/\.+$/, "").trim(); // a closing full stop, before it hides a trailing unit

  // Sizing and spacing macros. `\\` (a matrix row break) must survive, so it is matched first.
  s = s.replace(/\\\\|\\[!,;: ]/g, (m) => (m === "\\\\" ? m : " "));
  s = s.replace(/\\(?:left|right)\./g, "");
  s = s.replace(/\\(?:left|right|bigl|bigr|Bigl|Bigr|big|Big|bigg|Bigg)(?![a-zA-Z])/g, "");
  s = s.replace(/\\(?:displaystyle|textstyle|q?quad)(?![a-zA-Z])/g, " ").replace(/~/g, " ");
  s = s.replace(/\{,\}/g, ","); // `1{,}000`: the comma braced so TeX does not space it

  // One spelling per command.
  s = s.replace(/\\[dt]frac(?![a-zA-Z])/g, "\\frac").replace(/\\[dt]binom(?![a-zA-Z])/g, "\\binom");
  s = s
    .replace(/\\leq?(?:slant)?(?![a-zA-Z])/g, "\\le")
    .replace(/\\geq?(?:slant)?(?![a-zA-Z])/g, "\\ge");
  s = s.replace(/\\neq(?![a-zA-Z])/g, "\\ne");
  s = s.replace(/\\begin\{[bBvV]?matrix\}/g, "\\begin{pmatrix}");
  s = s.replace(/\\end\{[bBvV]?matrix\}/g, "\\end{pmatrix}");

  // Degrees and percent are units: `10^\circ` is 10 and `50\%` is 50 (MATH's convention).
  s = s.replace(/\^\s*\{\s*\\circ\s*\}/g, "").replace(/\^\s*\\circ(?![a-zA-Z])/g, "");
  s = s.replace(/\\degree(?![a-zA-Z])|°/g, "");
  s = s.replace(/\\%|%/g, "");

  s = stripTrailingTextUnit(s);
  s = unwrapTextCommands(s);
  s = stripPlainUnits(s.trim());
  // A plain-text mixed number `137 1/2` would otherwise lose its space and become 1371/2.
  s = s.replace(/^([+-]?\d+)\s+(\d+)\/(\d+)$/, "$1\\frac{$2}{$3}");
  s = removeSpaces(s);
  s = braceCommandArguments(s);
  s = s.replace(/([_^])\{([A-Za-z0-9])\}/g, "$1$2"); // `4210_{5}` is `4210_5`, `x^{2}` is `x^2`

  // `x = 5`, `k=2`: a lone variable being assigned is not part of the answer (both sides lose it,
  // so `y = 2x + 3` still matches `2x+3`). Likewise `x \in [-2,7]`.
  if ((s.match(/=/g) ?? []).length === 1) {
    s = s.replace(/^(?:[a-zA-Z]|\\[a-zA-Z]+)(?:_[a-zA-Z0-9]|_\{[^{}]*\})?=/, "");
  }
  s = s.replace(/^[a-zA-Z]\\in(?![a-zA-Z])/, "");

  s = s.replace(/\.+$/, ""); // a closing full stop
  s = s.replace(/^\+(?=\d|\\infty)/, "");
  // Thousands separators, only where the whole answer is one grouped number, so `(1,2)` and
  // `-2,1` stay lists.
  if (/^[+-]?\d{1,3}(?:,\d{3})+(?:\.\d+)?$/.test(s)) s = s.replace(/,/g, "");
  // A lettered option written as `(C)` is the letter.
  s = s.replace(/^\(([A-Za-z])\)$/, "$1");
  return s;
}

/**
 * `10\text{ cm}`, `15\mbox{ cm}^2`, `\frac{270}7\text{ degrees}`: a trailing text group after a
 * value is a unit. A text group that is the whole answer (`\text{Evelyn}`) is kept.
 */
function stripTrailingTextUnit(s: string): string {
  const m = TRAILING_TEXT_UNIT.exec(s);
  return m ? m[1]! : s;
}

function unwrapTextCommands(input: string): string {
  let s = input;
  const re = new RegExp(`\\\\(?:${UNWRAP_COMMANDS.join("|")})(?![a-zA-Z])\\s*(?=\\{)`);
  for (let guard = 0; guard < 100; guard++) {
    const m = re.exec(s);
    if (!m) break;
    const group = readBraceGroup(s, m.index + m[0].length);
    if (!group) break;
    s = s.slice(0, m.index) + group.content + s.slice(group.end);
  }
  return s;
}

/** `18 dollars`, `10 cm^2`, `5.4 cents`: a number followed by words is that number. */
function stripPlainUnits(s: string): string {
  const m = NUMBER_THEN_WORDS.exec(s);
  if (!m) return s;
  const words = m[2]!.toLowerCase().split(/\s+/);
  return words.some((w) => JOINING_WORDS.has(w.replace(/\.$/, ""))) ? s : m[1]!;
}

/**
 * Spaces mean nothing in math mode except after a command name, where `\cot x` must not become the
 * unknown command `\cotx`; there one space is kept.
 */
function removeSpaces(s: string): string {
  return s.replace(/(\\[a-zA-Z]+)?\s+(?=([a-zA-Z])?)/g, (_m, command?: string, letter?: string) => {
    if (!command) return "";
    return letter ? `${command} ` : command;
  });
}

/**
 * Rewrites the TeX shorthand `\frac34`, `\frac 59`, `\frac9{19}`, `\sqrt2`, `\sqrt[3]8` into the
 * braced form, so that every spelling of a fraction or root has one string.
 */
function braceCommandArguments(s: string, depth = 0): string {
  // Past this depth the text is left as it is: no real answer nests fractions a hundred deep.
  if (depth > 100) return s;
  let out = "";
  let i = 0;
  while (i < s.length) {
    const cmd = /^\\(frac|binom|sqrt)(?![a-zA-Z])/.exec(s.slice(i));
    if (!cmd) {
      const other = /^\\[a-zA-Z]+/.exec(s.slice(i));
      const take = other ? other[0].length : 1;
      out += s.slice(i, i + take);
      i += take;
      continue;
    }
    let j = i + cmd[0].length;
    let rendered = `\\${cmd[1]}`;
    if (cmd[1] === "sqrt" && s[j] === "[") {
      const close = s.indexOf("]", j);
      if (close > j) {
        rendered += `[${braceCommandArguments(s.slice(j + 1, close), depth + 1)}]`;
        j = close + 1;
      }
    }
    const arity = cmd[1] === "sqrt" ? 1 : 2;
    let complete = true;
    for (let a = 0; a < arity; a++) {
      const arg = readArgument(s, j);
      if (!arg) {
        complete = false;
        break;
      }
      rendered += `{${braceCommandArguments(arg.content, depth + 1)}}`;
      j = arg.end;
    }
    if (!complete) {
      out += s.slice(i, i + cmd[0].length);
      i += cmd[0].length;
      continue;
    }
    out += rendered;
    i = j;
  }
  return out;
}

/** One TeX macro argument: a brace group, a control word (`\pi`) or a single character. */
function readArgument(s: string, start: number): { content: string; end: number } | undefined {
  let i = start;
  while (s[i] === " ") i++;
  if (i >= s.length) return undefined;
  if (s[i] === "{") return readBraceGroup(s, i);
  const word = /^\\[a-zA-Z]+/.exec(s.slice(i));
  if (word) return { content: word[0], end: i + word[0].length };
  if (s[i] === "}" || s[i] === "\\") return undefined;
  return { content: s[i]!, end: i + 1 };
}

type Shape =
  | { kind: "matrix"; rows: string[][] }
  | { kind: "union"; parts: string[] }
  | { kind: "sequence"; open: string; close: string; items: string[] }
  | { kind: "unordered"; items: string[] }
  | { kind: "scalar"; text: string };

/**
 * Splits at `separator` where no bracket is open. Brackets are counted without pairing their
 * types, because intervals such as `(3,4]` pair `(` with `]`.
 */
function splitTopLevel(s: string, separator: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === "\\" && !s.startsWith(separator, i)) {
      // `\{` and `\}` count as brackets (sets); other commands are skipped whole.
      const next = s[i + 1];
      if (next === "{" || next === "}") {
        depth += next === "{" ? 1 : -1;
        i++;
        continue;
      }
    }
    if ("([{".includes(c)) depth++;
    else if (")]}".includes(c)) depth--;
    else if (depth === 0 && s.startsWith(separator, i)) {
      parts.push(s.slice(start, i));
      start = i + separator.length;
      i += separator.length - 1;
    }
  }
  parts.push(s.slice(start));
  return parts;
}

/** True when the bracket opening at 0 closes only at the last character: `(1,2)` not `(1)(2)`. */
function enclosedWhole(s: string): boolean {
  let depth = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if ("([{".includes(c)) depth++;
    else if (")]}".includes(c)) {
      depth--;
      if (depth === 0 && i < s.length - 1) return false;
    }
  }
  return depth === 0;
}

function shapeOf(s: string): Shape {
  const matrix = /^\\begin\{pmatrix\}(.*)\\end\{pmatrix\}$/s.exec(s);
  if (matrix) {
    const rows = matrix[1]!
      .split("\\\\")
      .filter((r) => r !== "")
      .map((r) => r.split("&"));
    return { kind: "matrix", rows };
  }
  const union = splitTopLevel(s, "\\cup");
  if (union.length > 1) return { kind: "union", parts: union };
  if (s.startsWith("\\{") && s.endsWith("\\}") && s.length >= 4) {
    const inner = s.slice(2, -2);
    return { kind: "unordered", items: inner === "" ? [] : splitTopLevel(inner, ",") };
  }
  const open = s[0] ?? "";
  const close = s.at(-1) ?? "";
  if ("([".includes(open) && ")]".includes(close) && s.length >= 2 && enclosedWhole(s)) {
    const items = splitTopLevel(s.slice(1, -1), ",");
    if (items.length > 1) return { kind: "sequence", open, close, items };
  }
  const list = splitTopLevel(s, ",");
  if (list.length > 1) return { kind: "unordered", items: list };
  return { kind: "scalar", text: s };
}

function scalarEqual(a: string, b: string): boolean {
  if (a === b) return true;
  // Words (`\text{East}` vs `east`) are compared without case.
  if (/^[a-zA-Z]+$/.test(a) && /^[a-zA-Z]+$/.test(b)) return a.toLowerCase() === b.toLowerCase();
  const va = evaluateLatex(a);
  const vb = evaluateLatex(b);
  return va !== undefined && vb !== undefined && latexValuesEqual(va, vb);
}

function elementEqual(a: string, b: string, depth: number): boolean {
  if (a === b) return true;
  return depth < 8 && shapesEqual(shapeOf(a), shapeOf(b), depth + 1);
}

/** Matches every item of `a` to a distinct equal item of `b` (multiset equality). */
function sameMultiset(a: string[], b: string[], depth: number): boolean {
  if (a.length !== b.length) return false;
  const used = new Array<boolean>(b.length).fill(false);
  return a.every((x) => {
    const k = b.findIndex((y, idx) => !used[idx] && elementEqual(x, y, depth));
    if (k < 0) return false;
    used[k] = true;
    return true;
  });
}

function shapesEqual(a: Shape, b: Shape, depth: number): boolean {
  if (a.kind === "scalar" && b.kind === "scalar") return scalarEqual(a.text, b.text);
  if (a.kind === "sequence" && b.kind === "sequence") {
    // `(3,4]` and `(3,4)` differ: an interval's brackets are part of the answer.
    return (
      a.open === b.open &&
      a.close === b.close &&
      a.items.length === b.items.length &&
      a.items.every((x, k) => elementEqual(x, b.items[k]!, depth))
    );
  }
  if (a.kind === "unordered" && b.kind === "unordered")
    return sameMultiset(a.items, b.items, depth);
  if (a.kind === "union" && b.kind === "union") return sameMultiset(a.parts, b.parts, depth);
  if (a.kind === "matrix" && b.kind === "matrix") {
    return (
      a.rows.length === b.rows.length &&
      a.rows.every((row, r) => {
        const other = b.rows[r]!;
        return row.length === other.length && row.every((x, c) => scalarEqual(x, other[c]!));
      })
    );
  }
  return false;
}

/**
 * Longer than any real final answer (MATH-500's longest is under 100 characters). Longer text is
 * compared verbatim, which bounds grading time on a response that boxes an essay.
 */
const MAX_ANSWER_CHARS = 1000;

/** Whether `predicted` and `expected` are the same math answer (see the file comment for rules). */
export function mathAnswersEqual(predicted: string, expected: string): boolean {
  if (predicted.length > MAX_ANSWER_CHARS || expected.length > MAX_ANSWER_CHARS) {
    return predicted.trim() === expected.trim();
  }
  const a = normalizeMathAnswer(predicted);
  const b = normalizeMathAnswer(expected);
  if (a === b) return a !== "";
  if (a === "" || b === "") return false;
  return shapesEqual(shapeOf(a), shapeOf(b), 0);
}

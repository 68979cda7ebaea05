/**
 * Canonical text of one final answer, before it is parsed (parse.ts) or compared as text.
 *
 * The rules of Hendrycks et al.'s MATH `is_equiv`, extended as in Qwen2.5-Math's and Minerva's
 * graders and in latex2sympy2_extended's math_normalization.py (the normaliser Math-Verify runs):
 * math-mode delimiters, sizing and spacing macros, currency, degrees, units and text wrappers are
 * removed; `\dfrac`/`\tfrac`, `\leq`/`\le`, `bmatrix`/`pmatrix` get one spelling; TeX shorthand
 * (`\frac34`, `\sqrt2`) is braced; thousands separators (`1,000`, `1{,}000`, `1\,000`,
 * `10,\!080`) go when the whole answer is one grouped number. Percent is kept, as `\%`: whether
 * `50\%` is 50 or 0.5 is the comparison's decision (compare.ts), not the spelling's.
 */
import { readBraceGroup } from "../extract.js";

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

/**
 * A value, then `\text{...}` or `\mbox{...}` (possibly squared or cubed) closing the answer: a
 * unit (`10\text{ cm}`, `\frac{270}7\text{ degrees}`). A text group that is the whole answer
 * (`\text{Evelyn}`) does not match.
 */
const TRAILING_TEXT_UNIT =
  /^(.*\S)\s*\\(?:text|textrm|textnormal|textbf|textit|mbox|mathrm)\s*\{([^{}]*)\}\s*(?:\^\s*\{?\s*(\d)\s*\}?)?\s*$/s;

/** A plain number (group 1), then words of two or more letters (group 2), maybe `^2`. */
const NUMBER_THEN_WORDS =
  /^([+-]?(?:\d[\d,]*(?:\.\d+)?|\.\d+)(?:\/\d+)?)\s*([a-zA-Z]{2,}\.?(?:\s+[a-zA-Z]+\.?)*)(?:\^\{?\d\}?)?$/;

/** Words that join numbers, so `2 and 3` is not "2 followed by a unit". */
const JOINING_WORDS = new Set(["and", "or", "to", "plus", "minus", "times", "over", "by"]);

/** Canonical form of one answer, used for every comparison. Exported for metadata and tests. */
export function normalizeMathAnswer(raw: string): string {
  return normalizeWithUnit(raw).text;
}

/**
 * The canonical form and the unit it dropped (`cm`, `degrees`, lower-cased, without spaces, dots
 * or a plural `s`), so that compare can refuse `5.4 cents` against `5.4 dollars`.
 */
export function normalizeWithUnit(raw: string): { text: string; unit?: string } {
  let s = raw.trim().replace(/\u2212/g, "-"); // Unicode minus sign
  let unit: string | undefined;
  // `\\frac` written with a doubled backslash (a string escaped twice) is `\frac`; not in a matrix,
  // where `\\` breaks rows.
  if (!s.includes("\\begin")) s = s.replace(/\\\\(?=[a-zA-Z])/g, "\\");
  // `10,\!080`: the negative space (with any spaces around it) only keeps TeX from spacing the
  // comma. A comma followed by a plain space is a list separator: `32, 349` is no grouped number.
  s = s.replace(/\s*\\!\s*/g, "").replace(/\{\s*,\s*\}/g, ","); // `1{,}000`: TeX's unspaced comma
  const spacedComma = /,\s/.test(s);

  // Currency and math-mode delimiters carry no value: `\$18.90`, `$\frac12$`, `\(x\)`.
  s = s.replace(/\\\$/g, "").replace(/\$/g, "").trim();
  s = s.replace(/^\\\((.*)\\\)$/s, "$1").replace(/^\\\[(.*)\\\]$/s, "$1");
  s = s.replace(/\.+$/, "").trim(); // a closing full stop, before it hides a trailing unit

  // Sizing and spacing macros. `\\` (a matrix row break) must survive, so it is matched first.
  s = s.replace(/\\\\|\\[!,;: ]/g, (m) => (m === "\\\\" ? m : " "));
  s = s.replace(/\\(?:left|right)\./g, "");
  s = s.replace(/\\(?:left|right|bigl|bigr|Bigl|Bigr|big|Big|bigg|Bigg)(?![a-zA-Z])/g, "");
  s = s.replace(/\\(?:displaystyle|textstyle)(?![a-zA-Z])|\\q?quad/g, " ").replace(/~/g, " ");

  // Plain-text spellings: `sqrt(13)`, `pi`, `<=`, `>=`, `!=` and the Unicode signs.
  s = s.replace(/(?<![\\a-zA-Z])(sqrt|pi|sin|cos|tan|ln|log|exp)(?![a-zA-Z])/g, "\\$1");
  s = s.replace(/<=|≤/g, "\\le ").replace(/>=|≥/g, "\\ge ").replace(/!=|≠/g, "\\ne ");
  s = s.replace(/π/g, "\\pi ").replace(/√/g, "\\sqrt").replace(/∞/g, "\\infty ");

  // One spelling per command.
  s = s
    .replace(/\\[dtc]frac(?![a-zA-Z])/g, "\\frac")
    .replace(/\\[dt]binom(?![a-zA-Z])/g, "\\binom");
  s = s
    .replace(/\\leq?(?:slant)?(?![a-zA-Z])/g, "\\le")
    .replace(/\\geq?(?:slant)?(?![a-zA-Z])/g, "\\ge");
  s = s.replace(/\\neq(?![a-zA-Z])/g, "\\ne");
  s = s.replace(/\\begin\{(?:[bBvV]?matrix|array\}\{[^}]*)\}/g, "\\begin{pmatrix}");
  s = s.replace(/\\end\{(?:[bBvV]?matrix|array)\}/g, "\\end{pmatrix}");
  // Brackets around a whole matrix are its delimiters: `\left[\begin{array}...\end{array}\right]`.
  s = s.replace(/^\s*[[(]\s*(\\begin\{pmatrix\}.*\\end\{pmatrix\})\s*[\])]\s*$/s, "$1");
  // `x = \frac13 \approx 0.33` is the exact value; a lone `x \approx 0.33` is the value given.
  if (/\\approx(?![a-zA-Z])/.test(s)) {
    const before = s.split(/\\approx(?![a-zA-Z])/)[0]!;
    s = before.includes("=") ? before : s.replace(/\\approx(?![a-zA-Z])/g, "=");
  }

  // Degrees are a unit: `10^\circ` is 10. Percent keeps one spelling, `\%`, for compare.ts.
  s = s.replace(/\^\s*\{\s*\\circ\s*\}/g, "").replace(/\^\s*\\circ(?![a-zA-Z])/g, "");
  s = s.replace(/\\degree(?![a-zA-Z])|°/g, "");
  s = s.replace(/\s*(?:\\%|%|\\text\{\s*(?:percent|pct)\s*\}|\b(?:percent|pct)\b)/g, "\\%");

  const textUnit = TRAILING_TEXT_UNIT.exec(s);
  if (textUnit && isUnitText(textUnit[2]!)) {
    s = textUnit[1]!;
    unit = textUnit[2]! + (textUnit[3] ?? "");
  }
  s = unwrapTextCommands(s);
  // `2 and 3`, `x=1 or x=2`: joined answers are a list (latex2sympy2_extended's and_or rule).
  s = s.replace(/(?<![a-zA-Z])(?:,?\s*(?:and|or))(?![a-zA-Z])/g, ",");
  const plainUnit = stripPlainUnits(s.trim());
  s = plainUnit.text;
  unit ??= plainUnit.unit;
  // A plain-text mixed number `137 1/2` would otherwise lose its space and become 1371/2.
  s = s.replace(/^([+-]?\d+)\s+(\d+)\/(\d+)$/, "$1\\frac{$2}{$3}");
  s = removeSpaces(s);
  s = braceCommandArguments(s);
  s = s.replace(/([_^])\{([A-Za-z0-9])\}/g, "$1$2"); // `4210_{5}` is `4210_5`, `x^{2}` is `x^2`

  // `x \in [-2,7]` is the interval. (`x = 5` stays: compare.ts decides assignments.)
  s = s.replace(/^[a-zA-Z]\\in(?![a-zA-Z])/, "");

  s = s.replace(/\.+$/, ""); // a closing full stop
  s = s.replace(/^\+(?=\d|\\infty)/, "");
  // Thousands separators, only where the whole answer (or the right side of its only `=`) is one
  // grouped number written without spaces after its commas, so `(1,2)`, `-2,1` and `32, 349`
  // stay lists, `0,111` is no grouping, and `x = 10,080` is 10080.
  const grouped = /(^|^[^,=]*=)([+-]?[1-9]\d{0,2}(?:,\d{3})+(?:\.\d+)?)$/.exec(s);
  if (grouped && !spacedComma) s = grouped[1]! + grouped[2]!.replace(/,/g, "");
  // An answer wrapped whole in plain braces, `{1,3}`, is what they hold.
  if (s.startsWith("{") && s.endsWith("}") && readBraceGroup(s, 0)?.end === s.length) {
    s = s.slice(1, -1);
  }
  // A lettered option written as `(C)` is the letter.
  s = s.replace(/^\(([A-Za-z])\)$/, "$1");
  const canonicalUnit = unit
    ?.toLowerCase()
    .replace(/[\s.]/g, "")
    .replace(/(?:es|s)$/, "");
  return canonicalUnit ? { text: s, unit: canonicalUnit } : { text: s };
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

/**
 * Whether the text of a trailing `\text{...}` can be a unit: no digit, no `and`, `or` or `to`.
 * `2 \text{ or 3}` and `2 \text{ (mod 7)}` hedge or qualify the answer; dropping that text as a
 * unit would reward the first candidate of a list. (`5 \text{ times}` stays a unit.)
 */
function isUnitText(text: string): boolean {
  return !/\d|\b(?:and|or|to)\b/i.test(text);
}

/** `18 dollars`, `10 cm^2`, `5.4 cents`: a number followed by words is that number. */
function stripPlainUnits(s: string): { text: string; unit?: string } {
  const m = NUMBER_THEN_WORDS.exec(s);
  if (!m) return { text: s };
  const words = m[2]!.toLowerCase().split(/\s+/);
  if (words.some((w) => JOINING_WORDS.has(w.replace(/\.$/, "")))) return { text: s };
  return { text: m[1]!, unit: m[2] };
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

/**
 * One macro argument: a brace group, a parenthesised group, a control word (`\pi`) or a single
 * character.
 */
function readArgument(s: string, start: number): { content: string; end: number } | undefined {
  let i = start;
  while (s[i] === " ") i++;
  if (i >= s.length) return undefined;
  if (s[i] === "{") return readBraceGroup(s, i);
  const word = /^\\[a-zA-Z]+/.exec(s.slice(i));
  if (word) return { content: word[0], end: i + word[0].length };
  if (s[i] === "(") {
    // `sqrt(13)`, plain-text style: the parenthesised group is the argument.
    let depth = 0;
    for (let j = i; j < s.length; j++) {
      if (s[j] === "(") depth++;
      else if (s[j] === ")" && --depth === 0) return { content: s.slice(i + 1, j), end: j + 1 };
    }
    return undefined;
  }
  if (s[i] === "}" || s[i] === "\\") return undefined;
  return { content: s[i]!, end: i + 1 };
}

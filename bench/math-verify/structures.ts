/**
 * Rewriting rules for answers with parts: tuples and intervals, unions, sets, comma lists of all
 * solutions, matrices. Why each is (non-)equivalent by construction:
 *   - a tuple or interval keeps its order and brackets: swapping two different items, flipping a
 *     finite end's bracket, changing or dropping an item makes another answer; `\left(`, `\right)`
 *     and an item rewritten by an equivalent numeric rule do not; written as a set it is another
 *     object; a ray `(5, \infty)` is the inequality `x > 5` where x is what the problem solves for;
 *   - a union, a set `\{...\}` and a list the problem asks for "separated by commas" (all roots)
 *     have no order: reversing it is the same answer; dropping or changing an item is not;
 *   - a matrix is its cells in place: `bmatrix` for `pmatrix` is the same, a changed cell is not.
 */
import { parseNumeric } from "./numbers.js";
import { type Gold, numericRules, type Rewrite, type RuleFamily } from "./rules.js";

const same = (rule: string, pred: string): Rewrite => ({ rule, equivalent: true, pred });
const differs = (rule: string, pred: string): Rewrite => ({ rule, equivalent: false, pred });

/** Splits at top-level commas (outside (), [], {} and `\{ \}`); items are trimmed. */
function splitTopLevel(s: string, separator = ","): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === "\\" && (s[i + 1] === "{" || s[i + 1] === "}")) {
      depth += s[i + 1] === "{" ? 1 : -1;
      i++;
    } else if ("([{".includes(c)) depth++;
    else if (")]}".includes(c)) depth--;
    else if (depth === 0 && s.startsWith(separator, i)) {
      parts.push(s.slice(start, i).trim());
      start = i + separator.length;
      i += separator.length - 1;
    }
  }
  parts.push(s.slice(start).trim());
  return parts;
}

/** True when the bracket at 0 closes only at the end: `(1,2)`, not `(0,9) \cup (9,36)`. */
function enclosedWhole(s: string): boolean {
  let depth = 0;
  for (let i = 0; i < s.length; i++) {
    if ("([{".includes(s[i]!)) depth++;
    else if (")]}".includes(s[i]!)) {
      depth--;
      if (depth === 0 && i < s.length - 1) return false;
    }
  }
  return depth === 0;
}

/** Equivalent and non-equivalent spellings of one item, from the numeric rules. */
function itemRewrites(item: string): { same?: string; other?: string } {
  const rewrites = numericRules({ answer: item, dataset: "math500", problem: "" });
  const keep = ["slash-fraction", "fraction-as-decimal", "decimal-as-fraction", "dfrac"];
  return {
    same: rewrites.find((r) => r.equivalent && keep.includes(r.rule) && r.pred !== item)?.pred,
    other: rewrites.find((r) => r.rule === "off-by-one")?.pred,
  };
}

/** Rewrites of `items`: one item respelled (equivalent) and one item changed (not). */
function itemRules(items: string[], render: (items: string[]) => string): Rewrite[] {
  const out: Rewrite[] = [];
  const respelled = items.findIndex((x) => itemRewrites(x).same !== undefined);
  if (respelled >= 0) {
    const next = [...items];
    next[respelled] = itemRewrites(items[respelled]!).same!;
    out.push(same("item-respelled", render(next)));
  }
  const changed = items.findIndex((x) => itemRewrites(x).other !== undefined);
  if (changed >= 0) {
    const next = [...items];
    next[changed] = itemRewrites(items[changed]!).other!;
    out.push(differs("item-changed", render(next)));
  }
  return out;
}

function sequenceRules(answer: string): Rewrite[] {
  const hadLeft = /\\left|\\right/.test(answer);
  const s = answer.replace(/\\left\s*|\\right\s*/g, "").trim();
  if (!/^[([]/.test(s) || !/[)\]]$/.test(s) || !enclosedWhole(s)) return [];
  const open = s[0]!;
  const close = s.at(-1)!;
  const items = splitTopLevel(s.slice(1, -1));
  if (items.length < 2) return [];
  const render = (xs: string[], o = open, c = close) => `${o}${xs.join(", ")}${c}`;
  const out: Rewrite[] = [...itemRules(items, (xs) => render(xs))];
  if (!hadLeft) out.push(same("left-right", `\\left${open} ${items.join(", ")} \\right${close}`));
  if (items[0]!.replace(/\s/g, "") !== items[1]!.replace(/\s/g, ""))
    out.push(differs("swapped-order", render([items[1]!, items[0]!, ...items.slice(2)])));
  if (!items.at(-1)!.includes("\\infty"))
    out.push(differs("bracket-flipped", render(items, open, close === ")" ? "]" : ")")));
  else if (!items[0]!.includes("\\infty"))
    out.push(differs("bracket-flipped", render(items, open === "(" ? "[" : "(", close)));
  out.push(differs("item-dropped", items.length > 2 ? render(items.slice(0, -1)) : items[0]!));
  if (open === "(" && close === ")" && !s.includes("\\infty"))
    out.push(differs("tuple-as-set", `\\{${items.join(", ")}\\}`));
  return out;
}

/**
 * A ray `(a, \infty)` as the inequality `x > a` (and `[`, `]` as `\ge`, `\le`): the same set of x,
 * written so only where the problem solves for x or asks for a domain in x (not for a range).
 */
function inequalityRules(answer: string, problem: string): Rewrite[] {
  const s = answer.replace(/\\left\s*|\\right\s*/g, "").trim();
  const up = /^([([])\s*([^,]+?)\s*,\s*\\infty\s*\)$/.exec(s);
  const down = /^\(\s*-\\infty\s*,\s*([^,]+?)\s*([)\]])$/.exec(s);
  const forX = /\b(?:solve|domain)\b/i.test(problem) && /\bx\b/.test(problem);
  if (!forX || (!up && !down) || /\\infty/.test((up ?? down)![up ? 2 : 1]!)) return [];
  const inequality = up
    ? `x ${up[1] === "(" ? ">" : "\\ge"} ${up[2]}`
    : `x ${down![2] === ")" ? "<" : "\\le"} ${down![1]}`;
  return [same("interval-as-inequality", inequality)];
}

function unionRules(answer: string): Rewrite[] {
  const parts = splitTopLevel(answer, "\\cup");
  if (parts.length < 2) return [];
  const out = [
    same("union-reordered", [...parts].reverse().join(" \\cup ")),
    differs("union-part-dropped", parts.slice(0, -1).join(" \\cup ")),
  ];
  const flipped = sequenceRules(parts[0]!).find((r) => r.rule === "bracket-flipped");
  if (flipped)
    out.push(differs("bracket-flipped", [flipped.pred, ...parts.slice(1)].join(" \\cup ")));
  return out;
}

/** `\{a, b\}` and the bare list of all solutions `-2,1`: any order. */
function unorderedRules(gold: Gold): Rewrite[] {
  const answer = gold.answer;
  const set = /^\\\{(.*)\\\}$/s.exec(answer.trim());
  // A list is unordered only where MATH asks for all solutions; `10,\!080` is one number.
  const listAsked =
    gold.dataset === "math500" &&
    /separated by commas|roots/i.test(gold.problem) &&
    parseNumeric(answer) === undefined;
  if (!set && !listAsked) return [];
  const inner = set ? set[1]! : answer;
  const items = splitTopLevel(inner);
  if (items.length < 2 || (!set && /^[([]/.test(answer.trim()))) return [];
  const render = (xs: string[]) => (set ? `\\{${xs.join(", ")}\\}` : xs.join(", "));
  const distinct = new Set(items.map((x) => x.replace(/\s/g, ""))).size === items.length;
  const out: Rewrite[] = [...itemRules(items, render)];
  if (distinct)
    out.push(same(set ? "set-reordered" : "list-reordered", render([...items].reverse())));
  out.push(differs("item-dropped", render(items.slice(0, -1))));
  return out;
}

function matrixRules(answer: string): Rewrite[] {
  const m = /^\\begin\{pmatrix\}(.*)\\end\{pmatrix\}$/s.exec(answer.trim());
  if (!m) return [];
  const rows = m[1]!.split("\\\\").map((r) => r.split("&").map((c) => c.trim()));
  const render = (cells: string[], env = "pmatrix") => {
    let k = 0;
    const body = rows.map((r) => r.map(() => cells[k++]).join(" & ")).join(" \\\\ ");
    return `\\begin{${env}} ${body} \\end{${env}}`;
  };
  const cells = rows.flat();
  const out = [same("bmatrix", render(cells, "bmatrix")), ...itemRules(cells, (xs) => render(xs))];
  // A column vector written as a row is another shape, so another answer.
  if (rows.length > 1 && rows.every((r) => r.length === 1))
    out.push(differs("matrix-transposed", `\\begin{pmatrix} ${cells.join(" & ")} \\end{pmatrix}`));
  return out;
}

/** `x \in [-2,7]`: the membership is not part of the answer. */
function membershipRules(answer: string): Rewrite[] {
  const m = /^([a-z]\s*\\in)\s*(.+)$/s.exec(answer.trim());
  if (!m) return [];
  const flipped = sequenceRules(m[2]!).filter((r) => r.rule === "bracket-flipped");
  return [
    same("membership-dropped", m[2]!),
    ...flipped.map((r) => differs(r.rule, `${m[1]} ${r.pred}`)),
  ];
}

export const structureRules: RuleFamily = (gold) => [
  ...sequenceRules(gold.answer),
  ...inequalityRules(gold.answer, gold.problem),
  ...unionRules(gold.answer),
  ...unorderedRules(gold),
  ...matrixRules(gold.answer),
  ...membershipRules(gold.answer),
];

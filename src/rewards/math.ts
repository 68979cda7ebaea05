/**
 * The `math` grader: GSM8K, MATH/MATH-500, AIME and any task whose `data.answer` is a final answer.
 * Reward 1 when the response's final answer equals the ground truth under math-equal.ts, else 0.
 *
 * Where the final answer is found mirrors Math-Verify's `parse` (src/math_verify/parser.py): the
 * last `\boxed{}` (with the boxes just before it when only a separator stands between them:
 * `\boxed{1} and \boxed{2}` is the list `1,2`), else the last answer cue (`The answer is X`,
 * `Final answer: X`, `#### X`; `The answer is $1$ or $2$` is the list `1,2` too), else whichever ends last of the last LaTeX math span (`$...$`,
 * `$$...$$`, `\[...\]`, `\(...\)`) and the last plain number (`1,080`, `-3.5`, `3/4`, `40%`).
 */
import type { Task } from "../types/index.js";
import { answerCueLine, type BoxedSpan, boxedSpans, lastAnswerLine, lastBoxed } from "./extract.js";
import { type MathEqualOptions, mathAnswersEqual } from "./math-equal.js";
import type { Grader } from "./types.js";

/** Where in the response the answer was found. */
export type MathAnswerSource = "boxed" | "answer_line" | "latex" | "number";

/** The final answer of a response (see the file comment for the order), or undefined. */
export function extractMathAnswer(
  response: string,
): { answer: string; source: MathAnswerSource } | undefined {
  const boxes = boxedSpans(response);
  if (boxes.length > 0) return { answer: finalBoxes(response, boxes), source: "boxed" };
  const line = lastAnswerLine(response);
  if (line !== undefined) {
    // "$2$ or $3$": math spans joined by `and`, `or` or commas are one list answer, as with boxes
    // (lastAnswerLine keeps only the first span, which would reward naming several candidates).
    const listed = leadingMathList(answerCueLine(response) ?? "");
    if (listed !== undefined) return { answer: listed, source: "answer_line" };
    // "The largest $n$ is 34": a sentence after the cue holds the answer, as its last math or number.
    return { answer: isProse(line) ? (lastMath(line) ?? line) : line, source: "answer_line" };
  }
  const latex = lastLatexSpan(response);
  const number = lastNumber(response);
  if (latex && (!number || latex.end >= number.end))
    return { answer: latex.content, source: "latex" };
  return number && { answer: number.content, source: "number" };
}

/** Two words in a row outside `$...$`: a sentence, not a bare answer like `7 apples`. */
function isProse(line: string): boolean {
  return /[a-zA-Z]{3,}\s+[a-zA-Z]{2,}/.test(line.replace(/\$[^$]*\$/g, " "));
}

/** The last LaTeX span or plain number of `text`, whichever ends later. */
function lastMath(text: string): string | undefined {
  const latex = lastLatexSpan(text);
  const number = lastNumber(text);
  if (latex && (!number || latex.end >= number.end)) return latex.content;
  return number?.content;
}

/**
 * The last box, joined (as a list) with the boxes before it while only a short gap separates
 * them: under 10 characters, or under 70 holding `and`, `or`, `,` or `;` between different
 * contents (latex2sympy2_extended's extract_boxed_content, mode "last").
 */
function finalBoxes(text: string, boxes: BoxedSpan[]): string {
  const taken = [boxes.at(-1)!];
  for (let k = boxes.length - 2; k >= 0; k--) {
    const box = boxes[k]!;
    const next = taken[0]!;
    const gap = text.slice(box.end, next.start);
    const separated = gap.length < 70 && /\b(?:and|or)\b|[,;]/.test(gap);
    if (!(gap.length < 10 || (separated && box.content !== next.content))) break;
    if (box.content !== next.content) taken.unshift(box);
  }
  return taken.map((b) => b.content).join(", ");
}

/** Joins LaTeX spans into one list answer: a comma, `and` or `or` alone between them. */
const SPAN_JOINER = /^\s*(?:,?\s*(?:and|or)|,)\s*$/;

/**
 * Two or more math spans opening `line` (after markdown emphasis) and joined by SPAN_JOINER, as
 * one list answer; undefined when the line does not open with such a list.
 */
function leadingMathList(line: string): string | undefined {
  const text = line.replace(/^[\s*_]+/, "");
  const spans = latexSpans(text);
  if (spans[0]?.start !== 0) return undefined;
  const taken = [spans[0]];
  for (let k = 1; k < spans.length && taken.length < 6; k++) {
    if (!SPAN_JOINER.test(text.slice(taken.at(-1)!.end, spans[k]!.start))) break;
    taken.push(spans[k]!);
  }
  return taken.length > 1 ? taken.map((t) => t.content).join(", ") : undefined;
}

const MATH_DELIMITERS: [open: string, close: string][] = [
  ["$$", "$$"],
  ["\\[", "\\]"],
  ["\\(", "\\)"],
  ["$", "$"],
];

type Span = { content: string; start: number; end: number };

/**
 * The last LaTeX math span, with the spans just before it when only `,`, `and` or `or` stands
 * between them (`$1$ and $2$` is the list `1, 2`, as Math-Verify joins up to six).
 */
function lastLatexSpan(text: string): { content: string; end: number } | undefined {
  const spans = latexSpans(text);
  const last = spans.at(-1);
  if (!last) return undefined;
  const taken = [last];
  for (let k = spans.length - 2; k >= 0 && taken.length < 6; k--) {
    const gap = text.slice(spans[k]!.end, taken[0]!.start);
    if (!SPAN_JOINER.test(gap)) break;
    taken.unshift(spans[k]!);
  }
  return { content: taken.map((t) => t.content).join(", "), end: last.end };
}

/**
 * The LaTeX math spans of `text`, found in one left-to-right pass (a regex with a lazy body would
 * be quadratic on a response full of unclosed `\[`). An escaped `\$` is a dollar sign, not math;
 * an inline `$` span ends at a line break.
 */
function latexSpans(text: string): Span[] {
  const spans: Span[] = [];
  let open: { close: string; start: number; from: number } | undefined;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "\\" && text[i + 1] === "$") {
      i++;
      continue;
    }
    if (open) {
      if (text.startsWith(open.close, i)) {
        const content = text.slice(open.from, i).trim();
        const end = i + open.close.length;
        if (content !== "") spans.push({ content, start: open.start, end });
        i = end - 1;
        open = undefined;
      } else if (open.close === "$" && text[i] === "\n") open = undefined;
      continue;
    }
    const delimiter = MATH_DELIMITERS.find(([o]) => text.startsWith(o, i));
    if (delimiter) {
      open = { close: delimiter[1], start: i, from: i + delimiter[0].length };
      i += delimiter[0].length - 1;
    }
  }
  return spans;
}

/**
 * Plain numbers as Math-Verify's expression extraction reads them: grouped by commas or spaces
 * (`1,000`, `1 000`, then `1000`), with a decimal point or comma (`2,74` is 2.74), a bare
 * `\frac{1}{3}`, a slash fraction, a percentage.
 */
const PLAIN_NUMBER =
  /(?<![\w.,])(?:-?\\frac\{\d+\}\{\d+\}|(-?[1-9]\d{0,2}(?:[ ,]\d{3})+(?:\.\d+)?|-?\d+(?:[.,]\d+)?|\.\d+)(?:\/\d+)?%?)(?![\d])/g;

/** The last plain number (see PLAIN_NUMBER), written canonically: `1 000` is `1000`, `2,74` is `2.74`. */
function lastNumber(text: string): { content: string; end: number } | undefined {
  let last: RegExpExecArray | undefined;
  for (const m of text.matchAll(PLAIN_NUMBER)) last = m;
  if (!last) return undefined;
  const grouped = /^-?[1-9]\d{0,2}(?:[ ,]\d{3})+(?:\.\d+)?/.test(last[0]);
  const content = grouped ? last[0].replace(/[ ,]/g, "") : last[0].replace(/,/, ".");
  return { content, end: last.index + last[0].length };
}

/**
 * The ground truth of a math task from `task.data.answer`. A GSM8K answer is the whole worked
 * solution ending in `#### 18`; the final answer is what follows the last `####`. A full MATH
 * solution is reduced to its last `\boxed{}`. Numbers (AIME 2025 stores ints) become strings.
 */
export function mathGroundTruth(task: Task): string {
  const answer = task.data["answer"];
  if (typeof answer === "number" && Number.isFinite(answer)) return String(answer);
  if (typeof answer !== "string" || answer.trim() === "") {
    throw new Error(
      `math grader: task ${task.id} has no usable data.answer (got ${describe(answer)}); ` +
        `it needs the final answer as a string or number. Fields present: ${Object.keys(task.data).join(", ") || "none"}.`,
    );
  }
  const hashes = answer.lastIndexOf("####");
  if (hashes >= 0) return answer.slice(hashes + 4).trim();
  if (/\\(?:boxed|fbox)(?![a-zA-Z])/.test(answer)) return lastBoxed(answer) ?? answer.trim();
  return answer.trim();
}

function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  return `${typeof value} ${JSON.stringify(value)?.slice(0, 40)}`;
}

/**
 * Grades a math response; see the file comment. Never throws on model output. `options` (the
 * comparison's time limit) is for direct callers; the registry calls it as a plain Grader.
 */
export const mathGrader = ((task: Task, response: string, options: MathEqualOptions = {}) => {
  const expected = mathGroundTruth(task);
  const found = extractMathAnswer(response);
  if (!found) {
    return {
      reward: 0,
      isCorrect: false,
      metadata: { extracted: null, expected, reason: "no answer found" },
    };
  }
  const isCorrect = mathAnswersEqual(found.answer, expected, options);
  return {
    reward: isCorrect ? 1 : 0,
    isCorrect,
    metadata: { extracted: found.answer, expected, extractedFrom: found.source },
  };
}) satisfies Grader;

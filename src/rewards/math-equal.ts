/**
 * When two final answers to a math problem are the same answer, decided as Math-Verify 0.9.0
 * (huggingface/Math-Verify) decides it: both are normalised (math/normalize.ts), shaped
 * (math/structure.ts: sets, tuples, intervals, unions, matrices, relations), parsed into
 * expressions (math/parse.ts) and compared by value — exactly, numerically, or at random points
 * when they have variables (math/compare.ts holds every rule and the gold/prediction asymmetry).
 *
 * Why our own parser rather than a computer-algebra library (measured on 19 representative
 * pairs, Node 20): @cortex-js/compute-engine 0.140 parses LaTeX well (17/19) but declares
 * Node ≥ 22.3, installs 46 MB and takes ~14 ms a comparison; nerdamer 1.1.13 and mathjs 15.2 read
 * no LaTeX and missed `\sin^2x+\cos^2x = 1` (mathjs also `(x+1)^2`), 5-42 ms each. None carries
 * Math-Verify's semantics (Float rounding, assignment unwrapping, interval-or-point pairs), which
 * would sit on top anyway; random-point evaluation decides identities the way simplify(a-b)=0 is
 * meant to, in well under a millisecond.
 *
 * Never throws: running past `timeoutMs` (checked inside every loop), and any failure inside, is
 * "not equal".
 */
import { Comparer } from "./math/compare.js";
import { normalizeWithUnit } from "./math/normalize.js";
import { shapeOf } from "./math/structure.js";

export { normalizeMathAnswer } from "./math/normalize.js";

export interface MathEqualOptions {
  /** Time allowed for one comparison, in milliseconds; past it the answer is "not equal". */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 1000;

/**
 * Longer than any real final answer (MATH-500's longest is under 100 characters). Longer text is
 * compared verbatim, which bounds grading time on a response that boxes an essay.
 */
const MAX_ANSWER_CHARS = 1000;

/**
 * Whether `predicted` is the same math answer as `expected` (the gold). Not symmetric: see
 * math/compare.ts for where the gold's form decides.
 */
export function mathAnswersEqual(
  predicted: string,
  expected: string,
  options: MathEqualOptions = {},
): boolean {
  try {
    return compareAnswers(predicted, expected, options);
  } catch {
    // OutOfTime is the time limit. Anything else would be a rule's bug (the fuzz tests call
    // compareAnswers to catch those), which must cost a match rather than crash a grading run.
    return false;
  }
}

/**
 * mathAnswersEqual without the safety net: throws OutOfTime past the limit, and whatever a bug
 * throws. For tests; graders call mathAnswersEqual.
 */
export function compareAnswers(
  predicted: string,
  expected: string,
  options: MathEqualOptions = {},
): boolean {
  if (predicted.length > MAX_ANSWER_CHARS || expected.length > MAX_ANSWER_CHARS) {
    return predicted.trim() === expected.trim() && predicted.trim() !== "";
  }
  const deadline = performance.now() + (options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const { text: gold, unit: goldUnit } = normalizeWithUnit(expected);
  const { text: pred, unit: predUnit } = normalizeWithUnit(predicted);
  if (gold === "" || pred === "") return false;
  // Units are dropped, but two different stated units are different answers (`5.4 cents` is not
  // `5.4 dollars`), where Math-Verify would ignore both.
  if (goldUnit !== undefined && predUnit !== undefined && goldUnit !== predUnit) return false;
  if (gold === pred) return true;
  const comparer = new Comparer(deadline);
  if (comparer.equal(shapeOf(gold), shapeOf(pred))) return true;
  // Other readings of a predicted number, tried against a gold that is one value: never the
  // gold's (MATH's `-2,1` is a list of two roots, never -2.1).
  const reading = numberReading(predicted.trim());
  return reading !== undefined && comparer.scalarsEqual(gold, reading);
}

/**
 * A predicted answer that is a list by its commas but one number by its digits: `58, 500` with
 * groups of three (a spaced thousands separator) is 58500; `3,5` without a space is 3.5 (a decimal
 * comma; with three digits after it, `3,500`, it is a thousands separator unless the integer part
 * is 0, `0,111`). Tried only after the list reading failed, so `3,5` still equals `5, 3`.
 */
function numberReading(raw: string): string | undefined {
  if (/^[+-]?[1-9]\d{0,2}(?:,\s*\d{3})+(?:\.\d+)?$/.test(raw)) return raw.replace(/[,\s]/g, "");
  const m = /^([+-]?\d+),(\d+)$/.exec(raw);
  if (!m || (m[2]!.length === 3 && !/^[+-]?0$/.test(m[1]!))) return undefined;
  return `${m[1]}.${m[2]}`;
}

/**
 * Graders: functions from (task, response) to a reward. Benchmarks name theirs in the catalog
 * (`grader: "math"`), and `getGrader` turns that name into the function.
 */
import { sharedSandboxes } from "../sandbox/shared.js";
import { multipleChoiceGrader } from "./choice.js";
import { codeGrader } from "./code.js";
import { countdownGrader } from "./countdown.js";
import { mathGrader } from "./math.js";
import { qaEmGrader, qaF1Grader } from "./qa.js";
import type { Grader } from "./types.js";

export { type ChoiceExtraction, extractChoice, multipleChoiceGrader } from "./choice.js";
export { type CodeGraderOptions, CodeGraderOptionsSchema, codeGrader } from "./code.js";
export {
  OUTPUT_COMPARES,
  type OutputCompare,
  outputMismatch,
  outputsMatch,
  type PyValue,
  parsePyJson,
  pyEqual,
} from "./code-compare.js";
export {
  type CodeLanguage,
  type CodeTask,
  CodeTaskSchema,
  type CodeTestOutcome,
  type CodeTestResult,
  type CodeTests,
  CodeTestsSchema,
  type ExtractedProgram,
  extractProgram,
  readCodeTask,
} from "./code-task.js";
export {
  type CountdownExpr,
  type CountdownGraderOptions,
  type CountdownParse,
  countdownGrader,
  parseCountdownEquation,
} from "./countdown.js";
export { cleanAnswerText, lastAnswerLine, lastBoxed, lastTagContent } from "./extract.js";
export {
  extractMathAnswer,
  type MathAnswerSource,
  mathGrader,
  mathGroundTruth,
} from "./math.js";
export { type MathEqualOptions, mathAnswersEqual, normalizeMathAnswer } from "./math-equal.js";
export {
  extractQaAnswer,
  normalizeQaAnswer,
  qaEmGrader,
  qaExactMatch,
  qaF1,
  qaF1Grader,
} from "./qa.js";
export type { Grader } from "./types.js";

/** The name a benchmark or config uses for a built-in grader. */
export type GraderName = "math" | "qa_f1" | "qa_em" | "countdown" | "multiple_choice" | "code";

/**
 * The built-in graders by name. `countdown` here is the 0/1 default (no format score); `code` runs
 * programs in the process's shared sandbox pool (sandbox/shared.ts: configureSandboxes picks the
 * backend; the pool starts on the first grade).
 */
export const graders: Record<GraderName, Grader> = {
  math: mathGrader,
  qa_f1: qaF1Grader,
  qa_em: qaEmGrader,
  countdown: countdownGrader(),
  multiple_choice: multipleChoiceGrader,
  code: codeGrader(sharedSandboxes),
};

/** Every built-in grader name, in registry order. */
export const graderNames = Object.keys(graders) as GraderName[];

export function isGraderName(name: string): name is GraderName {
  return Object.hasOwn(graders, name);
}

/** The grader called `name`; an unknown name is an error that lists the known ones. */
export function getGrader(name: string): Grader {
  if (isGraderName(name)) return graders[name];
  throw new Error(
    `Unknown grader "${name}". Known graders: ${graderNames.join(", ")}. ` +
      `For other scoring, pass your own Grader function (task, response) => EvalOutput.`,
  );
}

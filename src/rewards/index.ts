/**
 * Graders: functions from (task, response) to a reward. Benchmarks name theirs in the catalog
 * (`grader: "math"`), and `getGrader` turns that name into the function.
 */
import { sharedSandboxes } from "../sandbox/shared.js";
import { bfclGrader } from "./bfcl/grader.js";
import { multipleChoiceGrader } from "./choice.js";
import { chrfGrader } from "./chrf.js";
import { codeGrader } from "./code.js";
import { countdownGrader } from "./countdown.js";
import { instructionGrader } from "./instructions/grader.js";
import { IFBENCH_REGISTRY } from "./instructions/ifbench/index.js";
import { IFEVAL_REGISTRY } from "./instructions/ifeval/index.js";
import { judgeGrader, llmEqualityGrader, sharedJudge } from "./judge.js";
import { mathGrader } from "./math.js";
import { qaEmGrader, qaF1Grader } from "./qa.js";
import type { Grader } from "./types.js";

export { type BfclGraderOptions, BfclGraderOptionsSchema, bfclGrader } from "./bfcl/grader.js";
export { type ChoiceExtraction, extractChoice, multipleChoiceGrader } from "./choice.js";
export {
  type ChrfGraderOptions,
  ChrfGraderOptionsSchema,
  chrfGrader,
  chrfScore,
  extractTranslation,
} from "./chrf.js";
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
  configureJudge,
  type JudgeGraderOptions,
  judgeGrader,
  llmEqualityGrader,
  sharedJudge,
} from "./judge.js";
export {
  createJudge,
  directEndpoint,
  type Judge,
  type JudgeAnswer,
  type JudgeCache,
  type JudgeEndpoint,
  type JudgeOptions,
  type JudgeQuestion,
  type JudgeRoute,
} from "./judge-client.js";
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
export type GraderName =
  | "math"
  | "qa_f1"
  | "qa_em"
  | "countdown"
  | "multiple_choice"
  | "code"
  | "chrf"
  | "bfcl"
  | "ifbench"
  | "judge"
  | "llm_equality"
  | "ifeval";

/** The graders that ask an LLM judge (the run must configure one: the config's judge section). */
export const JUDGE_GRADERS: readonly GraderName[] = ["judge", "llm_equality"];

/**
 * The built-in graders by name. `countdown` here is the 0/1 default (no format score); `code` runs
 * programs in the process's shared sandbox pool (sandbox/shared.ts: configureSandboxes picks the
 * backend; the pool starts on the first grade). `ifbench` checks IFBench's 58 instructions
 * (instructions/ifbench/); `judge` and `llm_equality` ask the process's configured judge (judge.ts:
 * configureJudge, which rllm eval/train call from the judge section).
 */
export const graders: Record<GraderName, Grader> = {
  math: mathGrader,
  qa_f1: qaF1Grader,
  qa_em: qaEmGrader,
  countdown: countdownGrader(),
  multiple_choice: multipleChoiceGrader,
  code: codeGrader(sharedSandboxes),
  chrf: chrfGrader(),
  bfcl: bfclGrader(),
  ifbench: instructionGrader("ifbench", IFBENCH_REGISTRY),
  judge: judgeGrader(sharedJudge),
  llm_equality: llmEqualityGrader(sharedJudge),
  ifeval: instructionGrader("ifeval", IFEVAL_REGISTRY),
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

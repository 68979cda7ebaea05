/**
 * The `math` grader: GSM8K, MATH/MATH-500, AIME and any task whose `data.answer` is a final answer.
 * Reward 1 when the response's final answer equals the ground truth under math-equal.ts, else 0.
 */
import type { Task } from "../types/index.js";
import { lastAnswerLine, lastBoxed } from "./extract.js";
import { mathAnswersEqual } from "./math-equal.js";
import type { Grader } from "./types.js";

/** Where in the response the answer was found. */
export type MathAnswerSource = "boxed" | "answer_line";

/**
 * The final answer of a response: the last `\boxed{}`/`\fbox{}`, else the last answer line
 * (`The answer is X`, `Final answer: X`, `#### X`, `Answer: X`), else undefined.
 */
export function extractMathAnswer(
  response: string,
): { answer: string; source: MathAnswerSource } | undefined {
  const boxed = lastBoxed(response);
  if (boxed !== undefined) return { answer: boxed, source: "boxed" };
  const line = lastAnswerLine(response);
  if (line !== undefined) return { answer: line, source: "answer_line" };
  return undefined;
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

/** Grades a math response; see the file comment. Never throws on model output. */
export const mathGrader: Grader = (task, response) => {
  const expected = mathGroundTruth(task);
  const found = extractMathAnswer(response);
  if (!found) {
    return {
      reward: 0,
      isCorrect: false,
      metadata: { extracted: null, expected, reason: "no answer found" },
    };
  }
  const isCorrect = mathAnswersEqual(found.answer, expected);
  return {
    reward: isCorrect ? 1 : 0,
    isCorrect,
    metadata: { extracted: found.answer, expected, extractedFrom: found.source },
  };
};

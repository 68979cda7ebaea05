/**
 * Prompt pieces several catalog files share: reading a task field a prompt needs (a task without it
 * is an error naming the field, not a prompt with "undefined" in it) and how maths benchmarks are
 * put to the model — the problem alone as the user message, the final answer in \boxed{}, scored by
 * the `math` grader.
 */
import type { Task } from "../types/index.js";

/** `task.data[field]` as a non-empty string, for a prompt. */
export function taskField(task: Task, field: string): string {
  const value = task.data[field];
  if (typeof value !== "string" || value === "") {
    throw new Error(
      `task ${task.id}: data.${field} must be a non-empty string to build the prompt`,
    );
  }
  return value;
}

const MATH_SYSTEM_PROMPT =
  "You are a careful mathematician. Solve the problem step by step, showing your reasoning. " +
  "Then give the final answer, and nothing else, inside \\boxed{}, e.g. \\boxed{42}.";

/** How every maths benchmark is put to the model and scored: the problem alone, a boxed answer. */
export const MATH_PROMPTING = {
  grader: "math",
  systemPrompt: MATH_SYSTEM_PROMPT,
  userPrompt: (task: Task) => taskField(task, "question"),
  defaultAgent: "single-turn",
} as const;

import type { EvalOutput, Task } from "../types/index.js";

/**
 * A grader scores a model's final answer text against a task's ground truth (in `task.data`).
 * It never throws on model output, however malformed: a bad answer is reward 0 with the reason in
 * `metadata`. It throws only when the task itself lacks what the grader needs (a dataset error).
 */
export type Grader = (task: Task, response: string) => EvalOutput | Promise<EvalOutput>;

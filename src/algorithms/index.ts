/**
 * The RL maths of rllm, pure functions with no I/O: grouping, filters, advantage estimators,
 * episodes → training rows, loss specs. Read in this order: grouping → filters → advantages →
 * datums → loss → pipeline (which composes them).
 */
export * from "./advantages.js";
export * from "./datums.js";
export * from "./filters.js";
export * from "./grouping.js";
export * from "./loss.js";
export * from "./metrics.js";
export * from "./pipeline.js";
export type { StdKind } from "./stats.js";

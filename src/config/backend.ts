/**
 * Config sections of training that every backend shares: the optimizer and `rllm sft`. The
 * `backend` section itself is built from the backends' own schemas (backends/registry.ts).
 */
import { z } from "zod";

/** A backend section's own knobs (without `name`). */
export function backendOptions<T extends { name: string }>(c: T): Omit<T, "name"> {
  const { name: _name, ...rest } = c;
  return rest;
}

/** AdamW and the learning-rate schedule; the trainer owns the schedule, the backend the update. */
export const OptimConfigSchema = z.strictObject({
  /** Peak learning rate (default: 1e-3 for rllm sft, 1e-4 for rllm train). */
  lr: z.number().positive().max(10).optional(),
  warmupSteps: z.number().int().min(0).default(0),
  schedule: z.enum(["constant", "linear", "cosine"]).default("constant"),
  /** Where linear/cosine decay ends, as a fraction of lr. */
  minLrRatio: z.number().min(0).max(1).default(0),
  weightDecay: z.number().min(0).max(1).default(0.01),
  /** Clip the global gradient norm (0: no clipping). */
  maxGradNorm: z.number().min(0).default(1),
  beta1: z.number().min(0).max(1).default(0.9),
  beta2: z.number().min(0).max(1).default(0.95),
  eps: z.number().positive().default(1e-8),
});
export type OptimConfig = z.infer<typeof OptimConfigSchema>;

/** `rllm sft`: supervised fine-tuning on rows of {messages}. */
export const SftConfigSchema = z.strictObject({
  trainFile: z.string().min(1).optional(),
  valFile: z.string().min(1).optional(),
  epochs: z.number().int().positive().max(100_000).default(1),
  /** Rows per optimizer step. */
  batchSize: z.number().int().positive().max(65_536).default(16),
  /** Stop after this many steps (default: epochs × rows / batch). */
  maxSteps: z.number().int().positive().optional(),
  /** Write a checkpoint every this many steps (and always at the end). */
  saveFreq: z.number().int().positive().optional(),
  /** Validation loss every this many steps (needs valFile). */
  valFreq: z.number().int().positive().default(50),
  /** Shuffle seed. */
  seed: z.number().int().nonnegative().default(0),
  /** Rows longer than the model's context: "error" (default) or "truncate". */
  overlong: z.enum(["error", "truncate"]).default("error"),
  output: z.string().min(1).optional(),
});

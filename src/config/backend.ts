/**
 * Config sections of the training backends and the optimizer. Each backend has its own strict
 * section, so a knob the chosen backend does not have is an error that names it.
 */
import { z } from "zod";

/** The local model's vocabulary: 256 bytes + 8 specials (backends/local/tokenizer.ts). */
const LOCAL_VOCAB_SIZE = 264;

/** Architecture of the local backend's GPT (strict; unknown keys are errors). */
export const GptConfigSchema = z
  .strictObject({
    vocabSize: z.literal(LOCAL_VOCAB_SIZE).default(LOCAL_VOCAB_SIZE),
    dModel: z.number().int().min(8).max(4096).default(128),
    nLayers: z.number().int().min(1).max(64).default(2),
    nHeads: z.number().int().min(1).max(64).default(4),
    maxSeqLen: z.number().int().min(8).max(8192).default(256),
    mlpRatio: z.number().int().min(1).max(8).default(4),
    positional: z.enum(["learned", "rope"]).default("rope"),
    tiedHead: z.literal(true).default(true),
  })
  .superRefine((c, ctx) => {
    if (c.dModel % c.nHeads !== 0)
      ctx.addIssue({
        code: "custom",
        path: ["dModel"],
        message: `dModel ${c.dModel} must be a multiple of nHeads ${c.nHeads}`,
      });
    else if (c.positional === "rope" && (c.dModel / c.nHeads) % 2 !== 0)
      ctx.addIssue({
        code: "custom",
        path: ["nHeads"],
        message: `rope needs an even head size; dModel/nHeads = ${c.dModel / c.nHeads}`,
      });
  });

export const LocalSamplerConfigSchema = z.strictObject({
  /** Worker threads that generate (each holds a copy of the served weights). */
  workers: z.number().int().min(1).max(64).default(1),
  /** Most sequences generated together in one batch per worker. */
  maxBatch: z.number().int().min(1).max(4096).default(64),
  /** How long the first request of a batch waits for others to join it. */
  batchWindowMs: z.number().min(0).max(1000).default(2),
  host: z.string().min(1).default("127.0.0.1"),
  /** 0: an ephemeral port. */
  port: z.number().int().min(0).max(65535).default(0),
  /** The model name the sampler answers to. */
  modelName: z.string().min(1).default("rllm-local"),
});

export const LocalBackendConfigSchema = z.strictObject({
  /** Architecture of a freshly initialised model. */
  model: GptConfigSchema.optional(),
  /** Start from this checkpoint (a directory written by save()); its config is the model's. */
  checkpoint: z.string().min(1).optional(),
  /** Seed of the initialisation (without a checkpoint). */
  seed: z.number().int().nonnegative().default(0),
  /** Std of the initial weights (GPT-2: 0.02). */
  initStd: z.number().positive().max(1).default(0.02),
  /** Trainer replicas on worker threads (data parallel). */
  trainWorkers: z.number().int().min(1).max(64).default(2),
  /** Most padded tokens (rows × longest row) per forward/backward: gradient accumulation. */
  microBatchTokens: z.number().int().min(16).max(1_048_576).default(4096),
  /** Matmul kernels: wasm SIMD (falls back to JS where SIMD is missing) or plain JS. */
  kernel: z.enum(["wasm", "js"]).default("wasm"),
  sampler: LocalSamplerConfigSchema.default(LocalSamplerConfigSchema.parse({})),
});

/**
 * The `backend` section: one strict schema per backend, told apart by `name`, so a knob the chosen
 * backend does not have is an error that names it (more register later: torch, tinker).
 */
export const BackendConfigSchema = z.preprocess(
  // `name` defaults to "local", so `backend: {trainWorkers: 1}` means the local backend's knob
  (v) =>
    typeof v === "object" &&
    v !== null &&
    !Array.isArray(v) &&
    (v as { name?: unknown }).name === undefined
      ? { ...v, name: "local" }
      : v,
  z.discriminatedUnion("name", [LocalBackendConfigSchema.extend({ name: z.literal("local") })]),
);
export type BackendConfig = z.infer<typeof BackendConfigSchema>;

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

/**
 * What the local backend accepts and computes: its config section (strict: a knob it does not
 * have is an error naming it) and its capabilities. Loaded by the config layer through the
 * registry, so it imports zod and types only — never the model, the workers or the wasm kernels.
 */
import { z } from "zod";
import { ALL_LOSS_CAPABILITIES, type BackendCapabilities } from "../spi.js";

/** The losses the local model computes (algorithms/loss.ts): all of them. */
export const LOCAL_CAPABILITIES: BackendCapabilities = ALL_LOSS_CAPABILITIES;

/** The local model's vocabulary: 256 bytes + 8 specials (tokenizer.ts). */
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

const LocalSamplerConfigSchema = z.strictObject({
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
export type LocalBackendConfig = z.infer<typeof LocalBackendConfigSchema>;
export type LocalBackendConfigInput = z.input<typeof LocalBackendConfigSchema>;

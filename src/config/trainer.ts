/** The `trainer` section: the RL loop of `rllm train` (src/trainer/). */
import { z } from "zod";
import { SamplingParamsSchema } from "../types/index.js";

const positiveInt = z.number().int().positive();

export const TrainerConfigSchema = z.strictObject({
  /** Attempts per task: the GRPO group. */
  groupSize: positiveInt.max(1024).default(8),
  /** Tasks (groups) per training step. */
  batchSize: positiveInt.max(65_536).default(64),
  /** Passes over the training tasks. */
  /** Passes over the training tasks (default 1; with maxSeconds and no epochs: as many as fit). */
  epochs: positiveInt.optional(),
  /** Stop after this many steps (default: the epochs' worth). */
  maxSteps: positiveInt.optional(),
  /** Stop after this many seconds of training (checked between steps; a checkpoint is written). */
  maxSeconds: z.number().positive().optional(),
  /** Optimizer steps per batch: the batch's rows split into this many mini-batches (PPO-style). */
  miniBatches: positiveInt.max(1024).default(1),
  /** Validate every this many steps (0: only before and after training). */
  valFreq: z.number().int().min(0).default(10),
  /** Validate before the first step (the baseline). */
  valBeforeTrain: z.boolean().default(true),
  /** Checkpoint every this many steps (0: only at the end). */
  saveFreq: z.number().int().min(0).default(10),
  /** Generation runs ahead of training by at most `staleness` weight versions. */
  async: z.boolean().default(false),
  staleness: z.number().int().min(0).max(64).default(1),
  /**
   * Skip, with this probability, a task whose last trained group was settled — every attempt
   * scored the same (all right or all wrong), so the group taught nothing — when the epochs bring
   * it round again (0: off). Its next group is likely settled too: the generation goes to tasks
   * that still teach. A skipped task counts as consumed; no task is skipped twice in a row for
   * lack of others (after a whole dataset of skips the next one runs).
   */
  skipSettled: z.number().min(0).max(1).default(0),
  /**
   * Seed of the task order, of the sampling and of the trainer's other choices. Each rollout
   * samples with a seed drawn from it (engine `rolloutSeed`): a training group by its task's
   * visit, a validation rollout by (task, attempt) alone, so every validation draws the same
   * numbers and its curve moves with the model, not with the draw; an on-policy run on a server
   * that honours `seed` (the local backend, vLLM) repeats itself.
   */
  seed: z.number().int().nonnegative().default(0),
  trainSplit: z.string().optional(),
  valSplit: z.string().optional(),
  /** Training tasks taken from the split (default all). */
  maxTrainExamples: positiveInt.optional(),
  /** Validation tasks (default 200). */
  maxValExamples: positiveInt.default(200),
  /** Attempts per validation task: pass@1..k. */
  valAttempts: positiveInt.max(1024).default(4),
  samplingParams: SamplingParamsSchema.default({ temperature: 1 }),
  valSamplingParams: SamplingParamsSchema.default({ temperature: 1 }),
  dataDir: z.string().optional(),
  /** FILE[#export] of the rollout and evaluator; default the benchmark's (or its local recipe's). */
  agent: z.string().optional(),
  /** A CLI harness (claude-code, opencode, ...: `rllm harness list`) as the agent; excludes agent. */
  harness: z.string().min(1).optional(),
  evaluator: z.string().optional(),
  /** Where metrics.jsonl, checkpoints/ and traces.db go. */
  output: z.string().optional(),
  /** Continue the run in `output` from its latest checkpoint. */
  resume: z.boolean().default(false),
});
export type TrainerConfig = z.infer<typeof TrainerConfigSchema>;

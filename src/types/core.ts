/**
 * The data that flows through rllm, from a task to a training row. Every type is a zod schema first
 * so that anything read from disk, the network or user code is checked at the boundary, and every
 * value survives a JSON round trip unchanged.
 */
import { z } from "zod";
import { ChatMessageSchema, ToolCallSchema } from "./chat.js";

const JsonRecord = z.record(z.string(), z.unknown());

/** One problem from a dataset. `data` holds the benchmark's own fields (question, answer, tests...). */
export const TaskSchema = z.strictObject({
  id: z.string().min(1),
  /** Which benchmark or data source it came from; validation metrics are reported per source. */
  dataSource: z.string().optional(),
  /** Position in its dataset, so runs can be reproduced with --task-indices. */
  index: z.number().int().nonnegative().optional(),
  data: JsonRecord,
  metadata: JsonRecord.optional(),
});
export type Task = z.infer<typeof TaskSchema>;

/** Why an episode ended. The RL filters mask or keep episodes by this. */
export const TerminationReasonSchema = z.enum([
  "max_prompt_length_exceeded",
  "max_response_length_exceeded",
  "env_done",
  "max_turns_exceeded",
  "timeout",
  "error",
  "unknown",
]);
export type TerminationReason = z.infer<typeof TerminationReasonSchema>;

const TokenIds = z.array(z.number().int().nonnegative());

/**
 * One LLM call of a trajectory, with what the model saw and sampled. `traceId` joins it to the
 * gateway's TraceRecord (never positional matching).
 */
export const StepSchema = z.strictObject({
  traceId: z.string().optional(),
  /** The conversation as sent to the model. */
  messages: z.array(ChatMessageSchema).default([]),
  /** The assistant message the model produced. */
  response: z
    .strictObject({
      content: z.string().nullable(),
      reasoning: z.string().nullable().optional(),
      toolCalls: z.array(ToolCallSchema).optional(),
    })
    .optional(),
  promptIds: TokenIds.default([]),
  completionIds: TokenIds.default([]),
  /** Log-probabilities of completionIds under the sampling policy, same length. */
  logprobs: z.array(z.number()).default([]),
  finishReason: z.string().nullable().optional(),
  weightVersion: z.number().int().nonnegative().optional(),
  /**
   * Precomputed per-token advantages aligned with completionIds (on-policy distillation:
   * coef × (teacher logprob − student logprob)); used by the `precomputed` estimator.
   */
  advantages: z.array(z.number()).optional(),
  /** Reward for this step alone (per-step returns); the trajectory reward is used otherwise. */
  reward: z.number().optional(),
  done: z.boolean().optional(),
  info: JsonRecord.optional(),
});
export type Step = z.infer<typeof StepSchema>;
export type StepInput = z.input<typeof StepSchema>;

/** The steps one agent role took in an episode. `name` groups trajectories by role ("solver"...). */
export const TrajectorySchema = z.strictObject({
  name: z.string().default("default"),
  steps: z.array(StepSchema).default([]),
  reward: z.number().nullable().optional(),
  info: JsonRecord.optional(),
});
export type Trajectory = z.infer<typeof TrajectorySchema>;

/** One attempt at one task: its trajectories, reward and how it ended. */
export const EpisodeSchema = z.strictObject({
  id: z.string().min(1),
  taskId: z.string().min(1),
  task: TaskSchema.optional(),
  /** Which of the group's n attempts this is. */
  attempt: z.number().int().nonnegative().default(0),
  sessionId: z.string().optional(),
  trajectories: z.array(TrajectorySchema).default([]),
  reward: z.number().nullable().optional(),
  isCorrect: z.boolean().optional(),
  terminationReason: TerminationReasonSchema.default("unknown"),
  /** An infrastructure failure (gateway or upstream): excluded from scoring and training. */
  infraFailed: z.boolean().default(false),
  error: z.string().nullable().optional(),
  metrics: z.record(z.string(), z.number()).optional(),
  info: JsonRecord.optional(),
});
export type Episode = z.infer<typeof EpisodeSchema>;
export type EpisodeInput = z.input<typeof EpisodeSchema>;

/** Trajectories of one role across the episodes of one task: the unit advantages are computed on. */
export const TrajectoryGroupSchema = z.strictObject({
  groupId: z.string().min(1),
  taskId: z.string().min(1),
  role: z.string(),
  trajectories: z.array(TrajectorySchema),
  weightVersions: z.array(z.number().int().nonnegative()).default([]),
});
export type TrajectoryGroup = z.infer<typeof TrajectoryGroupSchema>;

/** Where the token ids of a trace came from. `none` means a hosted API that returns only text. */
export const TokenSourceSchema = z.enum(["upstream", "renderer", "none"]);
export type TokenSource = z.infer<typeof TokenSourceSchema>;

/** One sampled choice of a traced call (n > 1 gives several). */
export const TraceChoiceSchema = z.strictObject({
  index: z.number().int().nonnegative(),
  content: z.string().nullable(),
  reasoning: z.string().nullable().optional(),
  toolCalls: z.array(ToolCallSchema).optional(),
  finishReason: z.string().nullable(),
  completionIds: TokenIds.nullable(),
  logprobs: z.array(z.number()).nullable(),
});
export type TraceChoice = z.infer<typeof TraceChoiceSchema>;

/** What the gateway records for every LLM call, persisted before the response is released. */
export const TraceRecordSchema = z.strictObject({
  id: z.string().min(1),
  sessionId: z.string().min(1),
  /** The agent-facing API that was called. */
  api: z.enum([
    "chat.completions",
    "completions",
    "responses",
    "anthropic.messages",
    "gemini.generateContent",
  ]),
  upstream: z.string().nullable(),
  model: z.string().nullable(),
  /** The request as the agent sent it (in its own dialect). */
  request: JsonRecord,
  /** The conversation as sent upstream, in Chat Completions form (null for /v1/completions). */
  messages: z.array(ChatMessageSchema).nullable(),
  promptIds: TokenIds.nullable(),
  choices: z.array(TraceChoiceSchema),
  tokenSource: TokenSourceSchema,
  /** How the gateway built the prompt ids (token-in/token-out), e.g. "extended previous prompt". */
  promptNote: z.string().nullable().optional(),
  weightVersion: z.number().int().nonnegative(),
  promptTokens: z.number().int().nonnegative().nullable(),
  completionTokens: z.number().int().nonnegative().nullable(),
  latencyMs: z.number().nonnegative(),
  stream: z.boolean(),
  startedAt: z.number(),
  finishedAt: z.number(),
  status: z.number().int(),
  error: z.string().nullable(),
});
export type TraceRecord = z.infer<typeof TraceRecordSchema>;

/**
 * One training row, per token: what a backend's forwardBackward consumes. `lossMask` is 1 on sampled
 * tokens and 0 on prompt/observation tokens; `advantages` and `samplingLogprobs` are aligned with
 * `tokens` (0 where the mask is 0).
 */
export const DatumSchema = z
  .strictObject({
    tokens: TokenIds.min(1),
    lossMask: z.array(z.union([z.literal(0), z.literal(1)])),
    advantages: z.array(z.number()),
    samplingLogprobs: z.array(z.number()),
    weightVersion: z.number().int().nonnegative(),
    groupId: z.string(),
  })
  .superRefine((d, ctx) => {
    for (const key of ["lossMask", "advantages", "samplingLogprobs"] as const) {
      if (d[key].length !== d.tokens.length) {
        ctx.addIssue({
          code: "custom",
          path: [key],
          message: `has ${d[key].length} entries but tokens has ${d.tokens.length}; they must align`,
        });
      }
    }
  });
export type Datum = z.infer<typeof DatumSchema>;

/** What an evaluator returns for an episode. */
export const EvalOutputSchema = z.strictObject({
  reward: z.number(),
  isCorrect: z.boolean(),
  signals: z.record(z.string(), z.number()).optional(),
  metadata: JsonRecord.optional(),
});
export type EvalOutput = z.infer<typeof EvalOutputSchema>;

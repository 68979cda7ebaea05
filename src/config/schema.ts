/**
 * The one config schema of rllm. Every section is a strict zod object: a key that is not declared is
 * an error naming it (see load.ts for the "did you mean" suggestion). Each capability adds its own
 * section here; defaults live in the schema so `--help`, files and code agree.
 */

import { z } from "zod";
import { AlgorithmConfigSchema } from "../algorithms/pipeline.js";
import { BackendConfigSchema, backendNames } from "../backends/registry.js";
import { SandboxConfigSchema } from "../sandbox/registry.js";
import { SamplingParamsSchema } from "../types/index.js";
import { OptimConfigSchema, SftConfigSchema } from "./backend.js";
import { TrainerConfigSchema } from "./trainer.js";

/**
 * A time limit in seconds that a Node timer enforces: at most 2^31-1 ms (~24.8 days). Past it
 * Node fires a setTimeout at once and AbortSignal.timeout throws, so a huge value meant as
 * "never" would fail every call; it is a config error instead.
 */
const timerSeconds = () =>
  z
    .number()
    .positive()
    .max(
      2_147_483,
      "at most 2147483 s (~24.8 days, Node's longest timer); shorter limits are safer",
    );

export const UpstreamKindSchema = z.enum(["vllm", "sglang", "openai"]);
export type UpstreamKind = z.infer<typeof UpstreamKindSchema>;

export const UpstreamConfigSchema = z.strictObject({
  url: z.url({
    protocol: /^https?$/,
    error: "must be an http(s) URL such as http://127.0.0.1:8000",
  }),
  /**
   * vllm: OpenAI server with `return_token_ids`; sglang: native /generate with input ids (needs
   * `tokenizer`); openai: any OpenAI-compatible API, text only (no token ids).
   */
  kind: UpstreamKindSchema.default("vllm"),
  /** Sent as `Authorization: Bearer` to the upstream (hosted APIs). */
  apiKey: z
    .string()
    .regex(/^[^\r\n]*$/, "must be one line: a line break would end the header it is sent in")
    .optional(),
  /** The model name the upstream serves; defaults to gateway.model. */
  model: z.string().optional(),
});
export type UpstreamConfig = z.infer<typeof UpstreamConfigSchema>;

export const StoreConfigSchema = z.strictObject({
  /**
   * A SQLite file path, or "memory" for an in-memory store that is gone when the process ends.
   * Unset, each command decides: `rllm gateway` keeps $RLLM_HOME/gateway/traces.db (with or without
   * a config file); `rllm eval` and `rllm train` keep their run's traces in OUTPUT/traces.db and
   * refuse this key (set --output instead).
   */
  path: z.string().min(1).optional(),
  /** "normal" survives a killed process; "full" also survives an OS crash (fsync per write). */
  synchronous: z.enum(["normal", "full"]).default("normal"),
});

export const GatewayConfigSchema = z.strictObject({
  host: z.string().default("127.0.0.1"),
  port: z.number().int().min(0).max(65535).default(8089),
  upstreams: z.array(UpstreamConfigSchema).default([]),
  /** Pins the model name sent upstream, whatever the agent asks for. */
  model: z.string().optional(),
  /** When set, admin routes need `Authorization: Bearer <adminKey>`. */
  adminKey: z.string().min(8, "must be at least 8 characters").optional(),
  /**
   * A model directory with `tokenizer.json` and `tokenizer_config.json` (Hugging Face layout). With
   * it the gateway renders chat templates itself and sends token ids upstream (token-in/token-out);
   * required for SGLang.
   */
  tokenizer: z.string().optional(),
  /** Largest request body accepted, in bytes. */
  maxBodyBytes: z
    .number()
    .int()
    .positive()
    .default(16 * 1024 * 1024),
  /** Every upstream call is abandoned after this long (ms). */
  upstreamTimeoutMs: z.number().int().positive().default(600_000),
  /**
   * Most connections open to one upstream at a time; calls beyond it wait for a free connection.
   * High because an agent call holds its connection for the whole generation.
   */
  upstreamConnections: z.number().int().positive().max(65_536).default(4096),
  /** Connection failures before any byte reached the agent are retried this many times. */
  connectRetries: z.number().int().min(0).max(10).default(2),
  /** How often upstream health is probed (ms); 0 disables probing. */
  healthCheckIntervalMs: z.number().int().min(0).default(5_000),
  /** Sampling parameters applied to every session unless the session sets its own. */
  defaultSamplingParams: SamplingParamsSchema.default({}),
  /**
   * Keep the vLLM-only fields (token ids, logprobs) in responses even when the agent did not ask
   * for them. Off: the agent sees a plain OpenAI response.
   */
  exposeTokenIds: z.boolean().default(false),
});
export type GatewayConfig = z.infer<typeof GatewayConfigSchema>;

/** The model an eval or training run samples from (else the provider stored by `rllm model setup`). */
export const ModelConfigSchema = z.strictObject({
  baseUrl: z
    .url({ protocol: /^https?$/, error: "must be an http(s) URL such as http://127.0.0.1:8000/v1" })
    .optional(),
  apiKey: z.string().optional(),
  name: z.string().min(1).optional(),
  /** vllm/sglang give token ids; openai is any hosted API (text only). */
  kind: UpstreamKindSchema.optional(),
});

export const EngineConfigSchema = z.strictObject({
  /**
   * Rollouts running at once. Unset: the engine's DEFAULT_CONCURRENCY (64) in `rllm eval`; in
   * `rllm train`, every rollout of a step's batch at once (see trainer groupConcurrency).
   */
  concurrency: z.number().int().positive().max(100_000).optional(),
  /** Per-rollout limit in seconds, agent and evaluation included. */
  timeoutSeconds: timerSeconds().default(600),
  /** Retries of a rollout lost to an infrastructure failure (gateway or upstream). */
  infraRetries: z.number().int().min(0).max(20).default(2),
  /** A running gateway to use instead of starting one in process. */
  gateway: z.url().optional(),
  gatewayAdminKey: z.string().optional(),
});

export const EvalConfigSchema = z.strictObject({
  split: z.string().optional(),
  maxExamples: z.number().int().positive().optional(),
  /** Row positions, e.g. "0,3,7-9". */
  taskIndices: z.string().optional(),
  /** Attempts per task: pass@1..K. */
  attempts: z.number().int().positive().max(1024).default(1),
  /** A folder laid out <benchmark>/<split>.jsonl[.gz] | .parquet | .json. */
  dataDir: z.string().optional(),
  output: z.string().optional(),
  /** FILE[#export] of a rollout; default the benchmark's agent. */
  agent: z.string().optional(),
  /** A command run per rollout with the session in its environment (OPENAI_BASE_URL, ...). */
  agentCmd: z.string().optional(),
  /** A CLI harness (claude-code, opencode, ...: `rllm harness list`) as the agent; excludes agent and agentCmd. */
  harness: z.string().min(1).optional(),
  /** FILE[#export] of an evaluator; default the benchmark's grader. */
  evaluator: z.string().optional(),
  samplingParams: SamplingParamsSchema.default({}),
  /**
   * Seed the sampling of each (task, attempt) apart (engine `rolloutSeed`): the same checkpoint
   * evaluated twice gives the same answers where the server honours `seed`, and two checkpoints
   * are compared on common draws. Excludes `samplingParams.seed` (one seed for every rollout).
   */
  seed: z.number().int().nonnegative().optional(),
  /** Serve the model from this backend's checkpoint instead of calling a model server. */
  backend: z.enum(backendNames()).optional(),
  /** The checkpoint the backend serves (default: the run's recipe's base model, if any). */
  checkpoint: z.string().min(1).optional(),
});

/**
 * The LLM judge of the `judge` and `llm_equality` graders (cli/judge.ts wires it; rewards/judge.ts
 * and judge-client.ts say what it is asked and how it fails). Its calls go through an in-process
 * gateway of their own, traced in the run's store under sessions `judge/<hash>/<random>`.
 */
export const JudgeConfigSchema = z.strictObject({
  /**
   * The judge's OpenAI-compatible server (…/v1). Unset: the run's own model server (rllm eval's
   * --base-url or served checkpoint), asked for `model`; rllm train needs it set.
   */
  baseUrl: z
    .url({ protocol: /^https?$/, error: "must be an http(s) URL such as http://127.0.0.1:8000/v1" })
    .optional(),
  /** The judge model's name; a benchmark graded by a judge needs it. */
  model: z.string().min(1).optional(),
  /** Sent to the judge's server (unset with baseUrl unset: the run's model.apiKey). */
  apiKey: z
    .string()
    .regex(/^[^\r\n]*$/, "must be one line: a line break would end the header it is sent in")
    .optional(),
  /** The judge server's kind (unset: openai for a baseUrl, else the run's model.kind). */
  kind: UpstreamKindSchema.optional(),
  /** max_tokens of each judge call (its reasoning and verdict). */
  maxTokens: z.number().int().positive().default(2048),
  /** Retries of a failed call (connection, timeout, 429, 5xx) and of an unparsable verdict. */
  retries: z.number().int().min(0).max(10).default(3),
  /** Each judge call is abandoned after this long. */
  timeoutSeconds: timerSeconds().default(120),
  /** Reuse verdicts across runs from $RLLM_HOME/cache/judge.db (false: ask every time). */
  cache: z.boolean().default(true),
});
export type JudgeConfig = z.infer<typeof JudgeConfigSchema>;

export const RllmConfigSchema = z.strictObject({
  gateway: GatewayConfigSchema.default(GatewayConfigSchema.parse({})),
  store: StoreConfigSchema.default(StoreConfigSchema.parse({})),
  model: ModelConfigSchema.default({}),
  engine: EngineConfigSchema.default(EngineConfigSchema.parse({})),
  eval: EvalConfigSchema.default(EvalConfigSchema.parse({})),
  algorithm: AlgorithmConfigSchema.default(AlgorithmConfigSchema.parse({})),
  backend: BackendConfigSchema.default(BackendConfigSchema.parse({})),
  optim: OptimConfigSchema.default(OptimConfigSchema.parse({})),
  sft: SftConfigSchema.default(SftConfigSchema.parse({})),
  trainer: TrainerConfigSchema.default(TrainerConfigSchema.parse({})),
  /** Where untrusted code runs (code graders, tool-using agents). */
  sandbox: SandboxConfigSchema.default(SandboxConfigSchema.parse({})),
  /** The LLM judge of the judge and llm_equality graders. */
  judge: JudgeConfigSchema.default(JudgeConfigSchema.parse({})),
});
export type RllmConfig = z.infer<typeof RllmConfigSchema>;
export type RllmConfigInput = z.input<typeof RllmConfigSchema>;

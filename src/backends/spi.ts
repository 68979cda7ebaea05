/**
 * The training-backend SPI, modelled on the Tinker API: a narrow contract that a local CPU model, a
 * PyTorch worker, Tinker or any hosted fine-tuning service can satisfy. The trainer computes
 * advantages in TypeScript (src/algorithms) and hands a backend only tensors-to-be: Datums and a
 * LossSpec. A backend does the tensor maths and serves its current weights through an
 * OpenAI-compatible sampler that answers in vLLM's shape (token ids, logprobs), so the gateway
 * records what the model sampled exactly.
 *
 *   sampler()           → where to send generation requests, and which weights answer
 *   forwardBackward()   → loss and gradients accumulated for a batch of datums
 *   optimStep()         → apply the accumulated gradients (AdamW), clear them
 *   computeLogprobs()   → log π_θ of each datum's tokens under the current weights
 *   saveForSampler()    → make the current weights live on the sampler; a new weight version
 *   save() / load()     → a full checkpoint: weights, optimizer state, config
 *
 * A backend also declares its `capabilities`, the loss kinds and options it implements; whoever
 * starts a run checks its loss against them (checkLossSupported) before the first step, so a loss
 * the backend cannot compute is a startup error that names the option, never a silent no-op.
 */
import type { z } from "zod";
import { AggregationSchema, type LossSpec, LossSpecSchema } from "../algorithms/loss.js";
import type { Datum } from "../types/index.js";

export interface SamplerInfo {
  /** OpenAI-compatible base URL (ends in /v1). */
  baseURL: string;
  model: string;
  /** The weights the sampler serves now; advanced by saveForSampler(). */
  weightVersion: number;
  /** The upstream kind the gateway should treat it as ("vllm": token ids in its responses). */
  kind: "vllm" | "sglang" | "openai";
  /**
   * Every server generation may go to, when there are several or they are not `baseURL`'s
   * OpenAI front (vLLM/SGLang servers fed by weight sync): root URLs (no /v1), their kind, the
   * base model each serves (a request naming another model, e.g. a LoRA adapter of the current
   * version, asks for that adapter) and the key they want. Absent: `baseURL` alone.
   */
  upstreams?: { url: string; kind: "vllm" | "sglang"; model: string; apiKey?: string }[];
  /** A model directory the gateway renders chats with (kind "sglang": token in, token out). */
  tokenizer?: string;
  /**
   * How many weight versions stay servable at once (LoRA adapters kept loaded); absent: requests
   * of any version are answered (by the newest weights). An async run needs staleness + 1.
   */
  keepVersions?: number;
}

export interface ForwardBackwardResult {
  /** The aggregated loss of the batch (see algorithms/loss.ts for the formulas). */
  loss: number;
  /**
   * Per-batch metrics: e.g. `entropy`, `kl`, `clip_fraction`, `ratio/mean`, `tokens`,
   * `logprob_diff/max_abs` (trainer vs sampling logprobs).
   */
  metrics: Record<string, number>;
}

export interface ForwardBackwardOptions {
  /** The whole batch's token and row counts, when a batch is split over several calls. */
  denominators?: { tokens: number; rows: number };
  /**
   * log π_old for the policy ratio and the TIS weight: "sampling" (default) uses each datum's
   * samplingLogprobs (Tinker's convention), "current" the backend's own logprobs under the current
   * weights (detached; what verl recomputes as old_log_prob), or given per datum and token
   * (from computeLogprobs before the first of several optimizer steps on one batch).
   */
  proximal?: "sampling" | "current" | number[][];
}

export interface OptimParams {
  /** Learning rate for this step (the trainer owns the schedule). */
  lr: number;
  beta1?: number;
  beta2?: number;
  eps?: number;
  weightDecay?: number;
  /** Clip the global gradient norm to this (0 or undefined: no clipping). */
  maxGradNorm?: number;
}

export interface OptimStepResult {
  /** The gradient norm before clipping. */
  gradNorm: number;
  step: number;
  metrics: Record<string, number>;
}

/** What a backend can do: the loss kinds and options it implements. */
export interface BackendCapabilities {
  lossKinds: readonly LossSpec["kind"][];
  kl: boolean;
  entropyBonus: boolean;
  tisCap: boolean;
  aggregations: readonly string[];
}

/** Every loss kind, aggregation and option algorithms/loss.ts defines: a backend that computes them all. */
export const ALL_LOSS_CAPABILITIES: BackendCapabilities = {
  lossKinds: LossSpecSchema.options.map((o) => o.shape.kind.value),
  kl: true,
  entropyBonus: true,
  tisCap: true,
  aggregations: AggregationSchema.options,
};

export interface TrainingBackend {
  readonly name: string;
  readonly capabilities: BackendCapabilities;
  sampler(): Promise<SamplerInfo>;
  /**
   * Accumulates gradients of `loss` over `datums`. Called once per mini-batch; gradients add up
   * until optimStep(). `denominators` carries the whole batch's token and row counts when the
   * trainer splits a batch into several calls, so aggregation matches one big call.
   */
  forwardBackward(
    datums: Datum[],
    loss: LossSpec,
    options?: ForwardBackwardOptions,
  ): Promise<ForwardBackwardResult>;
  optimStep(optim: OptimParams): Promise<OptimStepResult>;
  /** log π_θ for every token of each datum (the first token of a row gets 0: nothing predicts it). */
  computeLogprobs(datums: Pick<Datum, "tokens">[]): Promise<number[][]>;
  saveForSampler(): Promise<{ weightVersion: number }>;
  save(dir: string): Promise<void>;
  load(dir: string): Promise<void>;
  close(): Promise<void>;
}

export class UnsupportedOptionError extends Error {
  constructor(backend: string, option: string, hint: string) {
    super(`backend "${backend}" does not support ${option}; ${hint}`);
    this.name = "UnsupportedOptionError";
  }
}

/**
 * Refuses, at startup, a loss the backend cannot compute — never a silent no-op. Names the option
 * and what the backend does support.
 */
export function checkLossSupported(
  backend: string,
  caps: BackendCapabilities,
  loss: LossSpec,
): void {
  if (!caps.lossKinds.includes(loss.kind)) {
    throw new UnsupportedOptionError(
      backend,
      `loss.kind "${loss.kind}"`,
      `it supports ${caps.lossKinds.join(", ")}`,
    );
  }
  const l = loss as Partial<Record<string, unknown>>;
  if (l.kl !== undefined && !caps.kl) {
    throw new UnsupportedOptionError(
      backend,
      "loss.kl (a KL penalty to a reference policy)",
      "remove it or pick another backend",
    );
  }
  if (l.entropyCoef !== undefined && l.entropyCoef !== 0 && !caps.entropyBonus) {
    throw new UnsupportedOptionError(
      backend,
      "loss.entropyCoef",
      "remove it or pick another backend",
    );
  }
  if (l.tisCap !== undefined && !caps.tisCap) {
    throw new UnsupportedOptionError(
      backend,
      "loss.tisCap (truncated importance sampling)",
      "remove it or pick another backend",
    );
  }
  if (typeof l.aggregation === "string" && !caps.aggregations.includes(l.aggregation)) {
    throw new UnsupportedOptionError(
      backend,
      `loss.aggregation "${l.aggregation}"`,
      `it supports ${caps.aggregations.join(", ")}`,
    );
  }
}

// ── Registering a backend (backends/registry.ts lists the definitions) ──────────────────────────

/** What every backend section has: `name` tells them apart; `checkpoint` is where training starts. */
export interface BackendSection {
  name: string;
  checkpoint?: string | undefined;
}

/** A backend's config schema: a strict object with `name: z.literal("<name>")`. */
export type BackendSectionSchema = z.ZodType<BackendSection> & z.core.$ZodTypeDiscriminable;

export interface BackendContext {
  /** Progress lines for the user (stderr by default). */
  log: (line: string) => void;
}

/** A checkpoint's weights served for evaluation, until close(). */
export interface ServedCheckpoint extends SamplerInfo {
  close(): Promise<void>;
}

export interface BackendDefinition<S extends BackendSectionSchema = BackendSectionSchema> {
  readonly name: string;
  readonly configSchema: S;
  readonly capabilities: BackendCapabilities;
  /** Starts the backend from its config section (`checkpoint`: the weights to start from). */
  create(config: z.output<S>, ctx: BackendContext): Promise<TrainingBackend>;
  /** Serves a checkpoint's weights without training (`rllm eval --backend NAME`); absent: cannot. */
  serve?(checkpoint: string, config: z.output<S>, ctx: BackendContext): Promise<ServedCheckpoint>;
}

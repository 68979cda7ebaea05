/**
 * Supervised fine-tuning: `cross_entropy` on the assistant tokens of chat rows, on any training
 * backend. Used by `rllm sft` and by the countdown warm start that produces rllm's base model.
 *
 *   rows {messages, tools?} ──render (the backend's chat format)──► {tokens, lossMask}
 *     ──shuffle per epoch (seeded)──► batches ──► forwardBackward + optimStep (lr schedule)
 *     ──► metrics.jsonl, validation loss, checkpoints
 */
import { appendFileSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { LossSpecSchema } from "../algorithms/loss.js";
import { learningRate } from "../algorithms/schedule.js";
import type { TrainingBackend } from "../backends/spi.js";
import type { OptimConfig } from "../config/backend.js";
import { seededPermutation, sftEpochSeed } from "../random.js";
import { type ChatMessage, ChatMessageSchema, type Tool, ToolSchema } from "../types/chat.js";
import type { Datum } from "../types/index.js";

/** One tokenized training row: 1 in lossMask where the model is trained to produce the token. */
export interface SftExample {
  tokens: number[];
  lossMask: (0 | 1)[];
}

/** Renders a conversation into tokens and the assistant-token mask (the backend's chat format). */
export type SftRenderer = (
  messages: ChatMessage[],
  tools?: Tool[],
) => {
  ids: number[];
  lossMask: number[];
};

const SftRowSchema = z.looseObject({
  messages: z.array(ChatMessageSchema).min(1),
  tools: z.array(ToolSchema).optional(),
});

export class SftDataError extends Error {
  override name = "SftDataError";
}

export interface LoadSftOptions {
  render: SftRenderer;
  maxSeqLen: number;
  /** A row longer than maxSeqLen: "error" (default) or "truncate" (keep the first maxSeqLen). */
  overlong?: "error" | "truncate";
}

/** Tokenizes rows of {messages, tools?}; `where(i)` names row i in errors. */
export function tokenizeSftRows(
  rows: readonly unknown[],
  options: LoadSftOptions,
  where: (i: number) => string = (i) => `row ${i}`,
): SftExample[] {
  const out: SftExample[] = [];
  rows.forEach((raw, i) => {
    const parsed = SftRowSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new SftDataError(
        `${where(i)}: ${issue.path.join(".") || "row"}: ${issue.message} (each row must be {"messages": [{"role": ..., "content": ...}, ...]})`,
      );
    }
    const { messages, tools } = parsed.data;
    if (!messages.some((m) => m.role === "assistant"))
      throw new SftDataError(
        `${where(i)}: no assistant message, so nothing to train on (add the assistant's reply)`,
      );
    let r: ReturnType<SftRenderer>;
    try {
      r = options.render(messages as ChatMessage[], tools as Tool[] | undefined);
    } catch (e) {
      throw new SftDataError(`${where(i)}: ${(e as Error).message}`);
    }
    let tokens = r.ids;
    let mask = r.lossMask;
    if (tokens.length > options.maxSeqLen) {
      if (options.overlong !== "truncate")
        throw new SftDataError(
          `${where(i)}: ${tokens.length} tokens, longer than the model's context (${options.maxSeqLen}); shorten it or pass overlong "truncate"`,
        );
      tokens = tokens.slice(0, options.maxSeqLen);
      mask = mask.slice(0, options.maxSeqLen);
    }
    out.push({ tokens, lossMask: mask.map((m) => (m ? 1 : 0)) });
  });
  return out;
}

/** Reads a JSONL file of {messages, tools?} rows; errors name the file and line. */
export function loadSftFile(path: string, options: LoadSftOptions): SftExample[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new SftDataError(`cannot read ${path}: ${(e as Error).message}`);
  }
  const rows: unknown[] = [];
  const lines: number[] = [];
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    try {
      rows.push(JSON.parse(line));
      lines.push(i + 1);
    } catch (e) {
      throw new SftDataError(
        `${path} line ${i + 1}: not JSON (${(e as Error).message}); each line must be one {"messages": [...]} object`,
      );
    }
  });
  if (rows.length === 0) throw new SftDataError(`${path} has no rows`);
  return tokenizeSftRows(rows, options, (i) => `${path} line ${lines[i]}`);
}

/** What an SFT loop needs of a backend (any TrainingBackend has it). */
export type SftBackend = Pick<
  TrainingBackend,
  "forwardBackward" | "optimStep" | "computeLogprobs" | "save"
>;

const CROSS_ENTROPY = LossSpecSchema.parse({ kind: "cross_entropy" });

/** The learning rate of rllm sft when none is configured. */
export const SFT_DEFAULT_LR = 1e-3;

/** Where runSft saves its final model in its output directory. */
export const SFT_MODEL_DIR = "model";

export interface SftStepMetrics {
  step: number;
  epoch: number;
  loss: number;
  lr: number;
  grad_norm: number;
  tokens: number;
  "time/step_s": number;
  tokens_per_s: number;
  "val/loss"?: number;
}

export interface SftOptions {
  backend: SftBackend;
  train: SftExample[];
  val?: SftExample[];
  epochs: number;
  batchSize: number;
  maxSteps?: number;
  optim: OptimConfig;
  seed: number;
  /** metrics.jsonl and checkpoints/step-N go here; the final model to OUTPUT/model. */
  output?: string;
  saveFreq?: number;
  valFreq?: number;
  onStep?: (m: SftStepMetrics, total: number) => void;
  signal?: AbortSignal;
}

export interface SftResult {
  steps: number;
  firstLoss: number;
  lastLoss: number;
  valLoss?: number;
  /** Where the final model was saved (OUTPUT/model), when an output was given. */
  model?: string;
  cancelled: boolean;
}

function asDatum(e: SftExample, i: number): Datum {
  return {
    tokens: e.tokens,
    lossMask: e.lossMask,
    advantages: new Array(e.tokens.length).fill(0),
    samplingLogprobs: new Array(e.tokens.length).fill(0),
    weightVersion: 0,
    groupId: String(i),
  };
}

/** Mean cross-entropy per masked token under the current weights (no gradient). */
export async function sftValLoss(backend: SftBackend, rows: SftExample[]): Promise<number> {
  let sum = 0;
  let n = 0;
  for (let i = 0; i < rows.length; i += 256) {
    const chunk = rows.slice(i, i + 256);
    const lp = await backend.computeLogprobs(chunk);
    chunk.forEach((r, j) => {
      for (let t = 1; t < r.tokens.length; t++)
        if (r.lossMask[t]) {
          sum -= lp[j]![t]!;
          n++;
        }
    });
  }
  return n ? sum / n : 0;
}

/** Runs SFT; every step appends one line to OUTPUT/metrics.jsonl. */
export async function runSft(o: SftOptions): Promise<SftResult> {
  if (o.train.length === 0) throw new SftDataError("no training rows");
  const perEpoch = Math.ceil(o.train.length / o.batchSize);
  const total = Math.min(o.maxSteps ?? Number.POSITIVE_INFINITY, perEpoch * o.epochs);
  const metricsFile = o.output ? join(o.output, "metrics.jsonl") : undefined;
  if (o.output) mkdirSync(o.output, { recursive: true });
  const schedule = {
    lr: o.optim.lr ?? SFT_DEFAULT_LR,
    warmupSteps: o.optim.warmupSteps,
    totalSteps: total,
    decay: o.optim.schedule,
    minRatio: o.optim.minLrRatio,
  };
  let step = 0;
  let firstLoss = Number.NaN;
  let lastLoss = Number.NaN;
  let valLoss: number | undefined;
  let cancelled = false;
  outer: for (let epoch = 0; epoch < o.epochs; epoch++) {
    const order = seededPermutation(o.train.length, sftEpochSeed(o.seed, epoch));
    for (let b = 0; b < perEpoch; b++) {
      if (step >= total) break outer;
      if (o.signal?.aborted) {
        cancelled = true;
        break outer;
      }
      const t0 = performance.now();
      const batch = order.slice(b * o.batchSize, (b + 1) * o.batchSize);
      const datums = batch.map((i) => asDatum(o.train[i]!, i));
      const fb = await o.backend.forwardBackward(datums, CROSS_ENTROPY);
      const lr = learningRate(schedule, step);
      const os = await o.backend.optimStep({
        lr,
        beta1: o.optim.beta1,
        beta2: o.optim.beta2,
        eps: o.optim.eps,
        weightDecay: o.optim.weightDecay,
        maxGradNorm: o.optim.maxGradNorm,
      });
      step++;
      const secs = (performance.now() - t0) / 1000;
      const tokens = datums.reduce((a, d) => a + d.tokens.length, 0);
      if (Number.isNaN(firstLoss)) firstLoss = fb.loss;
      lastLoss = fb.loss;
      const m: SftStepMetrics = {
        step,
        epoch,
        loss: fb.loss,
        lr,
        grad_norm: os.gradNorm,
        tokens,
        "time/step_s": secs,
        tokens_per_s: tokens / secs,
      };
      if (o.val?.length && (step % (o.valFreq ?? 50) === 0 || step === total)) {
        valLoss = await sftValLoss(o.backend, o.val);
        m["val/loss"] = valLoss;
      }
      if (metricsFile) appendFileSync(metricsFile, `${JSON.stringify(m)}\n`);
      o.onStep?.(m, total);
      if (o.output && o.saveFreq && step % o.saveFreq === 0 && step < total)
        await o.backend.save(join(o.output, "checkpoints", `step-${step}`));
    }
  }
  let model: string | undefined;
  if (o.output && step > 0) {
    model = join(o.output, SFT_MODEL_DIR);
    await o.backend.save(model);
  }
  return { steps: step, firstLoss, lastLoss, valLoss, model, cancelled };
}

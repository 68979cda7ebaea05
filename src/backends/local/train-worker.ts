/**
 * A trainer replica of the local backend, run in a worker thread (see backend.ts): it holds a copy
 * of the policy's weights (and, once a KL loss asks for it, of the reference policy's), and
 * computes gradients and logprobs for the rows the backend gives it. Rows are processed in
 * micro-batches of at most `microBatchTokens` padded tokens (gradient accumulation), longest first
 * so rows of similar length share a micro-batch.
 */
import type { LossSpec } from "../../algorithms/loss.js";
import { type LossDatum, lossAndGrad } from "./loss-and-grad.js";
import { Gpt, type GptConfig } from "./model.js";
import { serveWorker, withTransfer, workerInput } from "./worker-rpc.js";

export interface TrainWorkerData {
  config: GptConfig;
  kernel: "wasm" | "js";
}

export interface TrainRow {
  tokens: number[];
  lossMask: number[];
  advantages: number[];
  samplingLogprobs: number[];
  proximalLogprobs?: number[] | undefined;
}

export interface ForwardBackwardRequest {
  rows: TrainRow[];
  loss: LossSpec;
  denominators: { tokens: number; rows: number };
  microBatchTokens: number;
  /** log π_old = the current weights' own logprobs (detached), not the sampling logprobs. */
  proximalFromCurrent: boolean;
}

export interface ForwardBackwardReply {
  /** ∂L/∂θ of these rows (with the whole batch's denominators), flat. */
  grad: Float32Array;
  loss: number;
  /** Summed over micro-batches: token-weighted sums, not means (the backend divides). */
  sums: Record<string, number>;
  maxAbsDiff: number;
  /** log π_θ of each row (position 0: 0), in the order given. */
  logprobs: Float32Array[];
}

const { config, kernel } = workerInput<TrainWorkerData>();
const policy = new Gpt(config, { kernel });
let reference: Gpt | undefined;

/** Indices of `rows` in micro-batches of ≤ budget padded tokens, longest rows first. */
function microBatches(lengths: readonly number[], budget: number): number[][] {
  const order = lengths.map((_, i) => i).sort((a, b) => lengths[b]! - lengths[a]! || a - b);
  const out: number[][] = [];
  let cur: number[] = [];
  let width = 0;
  for (const i of order) {
    const w = Math.max(width, lengths[i]!);
    if (cur.length > 0 && w * (cur.length + 1) > budget) {
      out.push(cur);
      cur = [];
      width = 0;
    }
    cur.push(i);
    width = Math.max(width, lengths[i]!);
  }
  if (cur.length > 0) out.push(cur);
  return out;
}

/** log π of every token of each row under `model`, in micro-batches. */
function logprobsOf(model: Gpt, rows: readonly (readonly number[])[], budget: number) {
  const out: Float32Array[] = new Array(rows.length);
  for (const mb of microBatches(
    rows.map((r) => r.length),
    budget,
  )) {
    const T = Math.max(...mb.map((i) => rows[i]!.length));
    const tokens = new Int32Array(mb.length * T);
    mb.forEach((i, b) => {
      tokens.set(rows[i]!, b * T);
    });
    const lp = model.tokenLogprobs(tokens, mb.length, T);
    mb.forEach((i, b) => {
      out[i] = lp.slice(b * T, b * T + rows[i]!.length);
    });
  }
  return out;
}

serveWorker({
  setParams: (p: { params: Float32Array; which: "policy" | "reference" }) => {
    let model: Gpt;
    if (p.which === "policy") model = policy;
    else {
      reference ??= new Gpt(config, { kernel });
      model = reference;
    }
    if (p.params.length !== model.numParams)
      throw new RangeError(`${p.params.length} parameters sent, the model has ${model.numParams}`);
    model.paramData.set(p.params);
    return true;
  },

  computeLogprobs: (p: { rows: number[][]; microBatchTokens: number }) => {
    const lp = logprobsOf(policy, p.rows, p.microBatchTokens);
    return withTransfer(
      lp,
      lp.map((a) => a.buffer as ArrayBuffer),
    );
  },

  forwardBackward: (p: ForwardBackwardRequest): ForwardBackwardReply => {
    const needRef = p.loss.kl !== undefined;
    if (needRef && !reference) throw new Error("the reference weights were never sent");
    policy.zeroGrad();
    const sums: Record<string, number> = {};
    let loss = 0;
    let maxAbsDiff = 0;
    const logprobs: Float32Array[] = new Array(p.rows.length);
    for (const mb of microBatches(
      p.rows.map((r) => r.tokens.length),
      p.microBatchTokens,
    )) {
      const rows = mb.map((i) => p.rows[i]!);
      const ref = needRef
        ? logprobsOf(
            reference!,
            rows.map((r) => r.tokens),
            p.microBatchTokens,
          )
        : undefined;
      const prox = p.proximalFromCurrent
        ? logprobsOf(
            policy,
            rows.map((r) => r.tokens),
            p.microBatchTokens,
          )
        : undefined;
      const datums: LossDatum[] = rows.map((r, j) => ({
        tokens: r.tokens,
        lossMask: r.lossMask,
        advantages: r.advantages,
        samplingLogprobs: r.samplingLogprobs,
        proximalLogprobs: prox ? Array.from(prox[j]!) : r.proximalLogprobs,
        refLogprobs: ref ? Array.from(ref[j]!) : undefined,
      }));
      const r = lossAndGrad(policy, datums, p.loss, p.denominators);
      loss += r.loss;
      const n = r.metrics["loss/tokens"]!;
      for (const [k, v] of Object.entries(r.metrics)) {
        if (k === "logprob_diff/max_abs") maxAbsDiff = Math.max(maxAbsDiff, v);
        else if (k === "loss/tokens" || k === "loss/value") sums[k] = (sums[k] ?? 0) + v;
        else sums[k] = (sums[k] ?? 0) + v * n; // a per-token mean: weight by tokens
      }
      mb.forEach((i, j) => {
        logprobs[i] = Float32Array.from(r.logprobs[j]!);
      });
    }
    const grad = policy.gradData.slice();
    return withTransfer({ grad, loss, sums, maxAbsDiff, logprobs }, [
      grad.buffer as ArrayBuffer,
      ...logprobs.map((a) => a.buffer as ArrayBuffer),
    ]);
  },
});

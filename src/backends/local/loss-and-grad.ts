/**
 * The loss glue of the local model: datums → log π_θ (the model's forward) → the loss of
 * algorithms/loss.ts, token by token → ∂L/∂log π_θ (and ∂L/∂H) → the model's backward.
 */
import {
  aggregationScale,
  LossMetrics,
  type LossSpecInput,
  LossSpecSchema,
  tokenLoss,
} from "../../algorithms/loss.js";
import type { Gpt } from "./model.js";

/** What lossAndGrad reads of a row: a Datum's per-token fields plus optional policy logprobs. */
export interface LossDatum {
  tokens: readonly number[];
  lossMask: readonly number[];
  advantages: readonly number[];
  samplingLogprobs: readonly number[];
  /** log π_old (the trainer's recomputation of the sampling policy); defaults to samplingLogprobs. */
  proximalLogprobs?: readonly number[] | undefined;
  /** log π_ref, needed when the loss has a KL term. */
  refLogprobs?: readonly number[] | undefined;
}

interface LossAndGradResult {
  loss: number;
  metrics: Record<string, number>;
  /** log π_θ per row and token (position 0: 0), as computed for this step. */
  logprobs: number[][];
}

/**
 * One forward + backward over `datums`: computes log π_θ, the loss of algorithms/loss.ts
 * ({@link tokenLoss}, token by token, then the aggregation), and accumulates ∂L/∂θ into the model's
 * gradient buffer (call model.zeroGrad() between optimizer steps).
 *
 * Rows are padded to the longest with lossMask 0. Position 0 of a row never takes part (nothing
 * predicts it), whatever its mask says. `denominators` replaces the batch's own token count and
 * row count in the aggregation, for a batch split over several calls.
 *
 *   token-mean: sᵢ = 1/Σm,  seq-mean-token-sum: sᵢ = 1/N,  seq-mean-token-mean: sᵢ = 1/(N·Σ_t mᵢ)
 *   L = Σᵢ Σ_t sᵢ·m·ℓ_t,   ∂L/∂log π_θ(t) = sᵢ·m·∂ℓ_t/∂log π_θ,   ∂L/∂H_t = −sᵢ·m·c_H
 */
export function lossAndGrad(
  model: Gpt,
  datums: readonly LossDatum[],
  specInput: LossSpecInput,
  denominators?: { tokens: number; rows: number },
): LossAndGradResult {
  const spec = LossSpecSchema.parse(specInput);
  const B = datums.length;
  if (B === 0) return { loss: 0, metrics: { "loss/tokens": 0 }, logprobs: [] };
  datums.forEach((d, i) => {
    for (const key of [
      "lossMask",
      "advantages",
      "samplingLogprobs",
      "proximalLogprobs",
      "refLogprobs",
    ] as const) {
      const v = d[key];
      if (v !== undefined && v.length !== d.tokens.length)
        throw new RangeError(
          `datum ${i}: ${key} has ${v.length} entries but tokens has ${d.tokens.length}; they must align`,
        );
    }
  });
  const T = Math.max(...datums.map((d) => d.tokens.length));
  const tokens = new Int32Array(B * T);
  const mask = new Float64Array(B * T);
  datums.forEach((d, i) => {
    for (let t = 0; t < d.tokens.length; t++) {
      tokens[i * T + t] = d.tokens[t]!;
      mask[i * T + t] = t === 0 ? 0 : d.lossMask[t]!;
    }
  });
  const { logprobs, entropy } = model.forward(tokens, B, T, { needCache: true });

  // per-row mask sums and the aggregation's denominators
  const rowMask = new Float64Array(B);
  for (let i = 0; i < B; i++)
    for (let t = 0; t < T; t++) rowMask[i] = rowMask[i]! + mask[i * T + t]!;
  const maskSum = rowMask.reduce((a, b) => a + b, 0);
  const rowsWithTokens = rowMask.filter((m) => m > 0).length;
  const nTokens = denominators?.tokens ?? maskSum;
  const nRows = denominators?.rows ?? rowsWithTokens;
  const scaleOf = (i: number): number =>
    aggregationScale(spec.aggregation, rowMask[i]!, { tokens: nTokens, rows: nRows });

  const dLogprob = new Float64Array(B * T);
  const dEntropy = spec.entropyCoef > 0 ? new Float64Array(B * T) : undefined;
  let loss = 0;
  const metrics = new LossMetrics(spec);
  const out: number[][] = [];
  for (let i = 0; i < B; i++) {
    const d = datums[i]!;
    const s = scaleOf(i);
    out.push(Array.from(logprobs.subarray(i * T, i * T + d.tokens.length)));
    for (let t = 1; t < d.tokens.length; t++) {
      const k = i * T + t;
      const m = mask[k]!;
      if (m === 0) continue;
      const tl = tokenLoss(spec, {
        logprob: logprobs[k]!,
        samplingLogprob: d.samplingLogprobs[t]!,
        proximalLogprob: d.proximalLogprobs?.[t],
        refLogprob: d.refLogprobs?.[t],
        advantage: d.advantages[t]!,
        entropy: entropy[k]!,
      });
      loss += s * m * tl.value;
      dLogprob[k] = s * m * tl.grad;
      if (dEntropy) dEntropy[k] = -s * m * spec.entropyCoef;
      metrics.add(tl, entropy[k]!, logprobs[k]! - d.samplingLogprobs[t]!);
    }
  }
  model.backward(dLogprob, dEntropy);
  return { loss, logprobs: out, metrics: metrics.result(loss, maskSum) };
}

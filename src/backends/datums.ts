/**
 * What every backend checks and derives from a batch before its tensor maths, decided once here so
 * the local and torch backends (and any later one) refuse the same inputs with the same words:
 *
 *   checkTokenRows   every row fits the model's context and its ids are in its vocabulary
 *   checkDatums      that, plus lossMask/advantages/samplingLogprobs (and given proximal rows)
 *                    aligned with tokens, token for token
 *   batchDenominators  Σ m over the batch (position 0 of a row never counts: nothing predicts it)
 *                    and N, the rows with at least one masked-in token — the aggregation's
 *                    denominators (algorithms/loss.ts), for a batch split over several calls
 *   withOptimDefaults  the optimizer knobs a trainer left out: β₁ 0.9, β₂ 0.95, ε 1e-8, no weight
 *                    decay, no clipping
 */
import type { Datum } from "../types/index.js";
import type { OptimParams } from "./spi.js";

/** The model a batch is checked against. */
export interface ModelLimits {
  vocabSize: number;
  maxSeqLen: number;
  /** How to fit a longer row, e.g. "raise model.maxSeqLen". */
  contextHint: string;
}

/** Refuses a row longer than the context or with an id outside the vocabulary, naming it. */
export function checkTokenRows(rows: readonly Pick<Datum, "tokens">[], model: ModelLimits): void {
  rows.forEach((d, i) => {
    if (d.tokens.length > model.maxSeqLen)
      throw new RangeError(
        `datum ${i} has ${d.tokens.length} tokens; the model's context is ${model.maxSeqLen} (truncate it, or ${model.contextHint})`,
      );
    for (const t of d.tokens)
      if (!Number.isInteger(t) || t < 0 || t >= model.vocabSize)
        throw new RangeError(
          `datum ${i} has token id ${t}, outside the model's vocabulary [0, ${model.vocabSize})`,
        );
  });
}

/** checkTokenRows, plus every per-token array (and each given proximal row) aligned with tokens. */
export function checkDatums(
  datums: readonly Datum[],
  model: ModelLimits,
  proximal?: readonly (readonly number[])[],
): void {
  if (proximal && proximal.length !== datums.length)
    throw new RangeError(
      `proximal has ${proximal.length} rows for ${datums.length} datums; give one per datum`,
    );
  checkTokenRows(datums, model);
  datums.forEach((d, i) => {
    for (const key of ["lossMask", "advantages", "samplingLogprobs"] as const)
      if (d[key].length !== d.tokens.length)
        throw new RangeError(
          `datum ${i}: ${key} has ${d[key].length} entries but tokens has ${d.tokens.length}; they must align`,
        );
    if (proximal && proximal[i]!.length !== d.tokens.length)
      throw new RangeError(
        `proximal row ${i} has ${proximal[i]!.length} entries but tokens has ${d.tokens.length}`,
      );
  });
}

/** The batch's masked-in tokens (position 0 excluded) and rows with at least one of them. */
export function batchDenominators(datums: readonly Pick<Datum, "tokens" | "lossMask">[]): {
  tokens: number;
  rows: number;
} {
  let tokens = 0;
  let rows = 0;
  for (const d of datums) {
    let m = 0;
    for (let t = 1; t < d.tokens.length; t++) m += d.lossMask[t]!;
    tokens += m;
    if (m > 0) rows++;
  }
  return { tokens, rows };
}

/** Every optimizer knob, the trainer's where given (checks lr: finite, ≥ 0). */
export function withOptimDefaults(o: OptimParams): Required<OptimParams> {
  if (!(o.lr >= 0) || !Number.isFinite(o.lr))
    throw new RangeError(`optimStep: lr must be a finite number ≥ 0, got ${o.lr}`);
  return {
    lr: o.lr,
    beta1: o.beta1 ?? 0.9,
    beta2: o.beta2 ?? 0.95,
    eps: o.eps ?? 1e-8,
    weightDecay: o.weightDecay ?? 0,
    maxGradNorm: o.maxGradNorm ?? 0,
  };
}

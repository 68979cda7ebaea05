/**
 * Loss specs: what a backend's forwardBackward computes from a batch of Datums, described as data
 * so that every backend (local, torch, tinker, ...) implements the same maths, and a reference
 * implementation in plain JS that backends are tested against.
 *
 * Notation, per sampled token t of row i (tokens with lossMask 0 take no part):
 *
 *     log π_θ(t)     the policy being trained (the only thing gradients flow through)
 *     log μ(t)       the sampling policy that generated the token (Datum.samplingLogprobs)
 *     log π_old(t)   the proximal policy: the trainer's own recomputation of the sampling weights
 *                    (Backend.computeLogprobs); it defaults to log μ when not given
 *     log π_ref(t)   a frozen reference policy, for the KL penalty
 *     A_t            the advantage (Datum.advantages)
 *     m_t            the loss mask (Datum.lossMask)
 *     r_t = exp(log π_θ(t) − log π_old(t))     the policy ratio
 *     sg(·)          stop-gradient: used in the value, constant for the gradient
 *
 * ### Policy-gradient term ℓᵖᵍ_t, by `kind`
 *
 * - `cross_entropy` (supervised; advantages ignored):
 *
 *       ℓᵖᵍ_t = −log π_θ(t)
 *
 * - `importance_sampling` (REINFORCE with an importance ratio; Tinker's default RL loss):
 *
 *       ℓᵖᵍ_t = −w_t · r_t · A_t                     ∂/∂log π_θ = −w_t · r_t · A_t
 *
 * - `ppo` (Schulman et al. 2017, clipped surrogate; DAPO's "clip-higher" is clipHigh > clipLow,
 *   e.g. 0.28 vs 0.2, which leaves room for low-probability tokens to grow):
 *
 *       ℓᵖᵍ_t = w_t · max(−r_t·A_t, −clip(r_t, 1 − ε_low, 1 + ε_high)·A_t)
 *
 *   The gradient is −w_t·r_t·A_t where the unclipped term is the max, and 0 where the clipped one
 *   is (A_t > 0 and r_t > 1 + ε_high, or A_t < 0 and r_t < 1 − ε_low).
 *
 * - `cispo` (MiniMax-M1, 2025: clip the importance weight, not the update, so every token keeps a
 *   gradient; ε_low = 1 means no lower bound, as in the paper):
 *
 *       ℓᵖᵍ_t = −w_t · sg(clip(r_t, 1 − ε_low, 1 + ε_high)) · A_t · log π_θ(t)
 *       ∂/∂log π_θ = −w_t · clip(r_t, 1 − ε_low, 1 + ε_high) · A_t
 *
 * ### Truncated importance sampling (Yao et al. 2025, "Your efficient RL framework secretly brings
 * you off-policy RL training"), `tisCap` = C ≥ 1
 *
 *     w_t = sg(min(exp(log π_old(t) − log μ(t)), C))          (w_t = 1 without tisCap)
 *
 * It corrects the mismatch between the sampler's numerics and the trainer's; it needs the
 * trainer's recomputed log π_old — with log π_old = log μ the weight is 1.
 *
 * ### KL penalty to the reference, `kl: { coef: β, estimator }` (Schulman, "Approximating KL
 * divergence", 2020), with δ_t = log π_ref(t) − log π_θ(t):
 *
 *     k1 = −δ_t                    ∂/∂log π_θ = 1
 *     k2 = ½·δ_t²                  ∂/∂log π_θ = −δ_t
 *     k3 = exp(δ_t) − δ_t − 1      ∂/∂log π_θ = 1 − exp(δ_t)       (GRPO's estimator)
 *
 * ### Entropy bonus, `entropyCoef` = c_H, with H_t the entropy of the policy at token t:
 *
 *     ℓ_t = ℓᵖᵍ_t + β·k_t − c_H·H_t
 *
 * (H_t depends on the whole distribution, not just log π_θ(t): the reference takes H_t as an
 * input and its gradient output holds H_t fixed.)
 *
 * ### Aggregation over the batch, `aggregation`; N = rows with at least one masked-in token
 *
 *     token-mean           L = Σᵢ Σ_t m·ℓ / Σᵢ Σ_t m                (DAPO; the default)
 *     seq-mean-token-sum   L = (1/N) Σᵢ Σ_t m·ℓ                     (Dr. GRPO, up to a constant)
 *     seq-mean-token-mean  L = (1/N) Σᵢ (Σ_t m·ℓ / Σ_t m)           (the original GRPO)
 *
 * A batch with no masked-in token has L = 0. The denominators are over the whole batch given: a
 * backend that splits it into micro-batches must use the batch's denominators, not each piece's.
 */
import { z } from "zod";

export const KlEstimatorSchema = z.enum(["k1", "k2", "k3"]);
export type KlEstimator = z.infer<typeof KlEstimatorSchema>;

export const AggregationSchema = z.enum([
  "token-mean",
  "seq-mean-token-sum",
  "seq-mean-token-mean",
]);
export type Aggregation = z.infer<typeof AggregationSchema>;

const KlSchema = z.strictObject({
  /** β: the weight of the KL penalty. */
  coef: z.number().nonnegative(),
  estimator: KlEstimatorSchema.default("k3"),
});

/** Knobs every loss kind has. */
const common = {
  kl: KlSchema.optional(),
  /** c_H: the weight of the entropy bonus (needs per-token entropies from the backend). */
  entropyCoef: z.number().nonnegative().default(0),
  aggregation: AggregationSchema.default("token-mean"),
};

/** C: cap on the trainer/sampler importance weight (truncated IS). */
const tisCap = z
  .number()
  .min(1, "must be at least 1 (a weight cap below 1 would scale every token down)");

export const CrossEntropyLossSchema = z.strictObject({
  kind: z.literal("cross_entropy"),
  ...common,
});

export const ImportanceSamplingLossSchema = z.strictObject({
  kind: z.literal("importance_sampling"),
  tisCap: tisCap.optional(),
  ...common,
});

export const PpoLossSchema = z.strictObject({
  kind: z.literal("ppo"),
  /** ε_low: the ratio is clipped below at 1 − ε_low. */
  clipLow: z.number().positive().max(1).default(0.2),
  /** ε_high: the ratio is clipped above at 1 + ε_high (0.28 for DAPO's clip-higher). */
  clipHigh: z.number().positive().default(0.2),
  tisCap: tisCap.optional(),
  ...common,
});

export const CispoLossSchema = z.strictObject({
  kind: z.literal("cispo"),
  /** ε_low: the weight is clipped below at 1 − ε_low (1: no lower bound, as in MiniMax-M1). */
  clipLow: z.number().positive().max(1).default(1),
  /** ε_high: the weight is clipped above at 1 + ε_high. */
  clipHigh: z.number().positive().default(0.28),
  tisCap: tisCap.optional(),
  ...common,
});

/** The loss a backend computes. Every kind is a strict object: an unknown knob is an error. */
export const LossSpecSchema = z.discriminatedUnion("kind", [
  CrossEntropyLossSchema,
  ImportanceSamplingLossSchema,
  PpoLossSchema,
  CispoLossSchema,
]);
export type LossSpec = z.infer<typeof LossSpecSchema>;
export type LossSpecInput = z.input<typeof LossSpecSchema>;
export type LossKind = LossSpec["kind"];

// ── the reference implementation ────────────────────────────────────────────────────────────

/** One token's inputs. */
export interface TokenLossInput {
  logprob: number;
  samplingLogprob: number;
  proximalLogprob?: number | undefined;
  refLogprob?: number | undefined;
  advantage: number;
  entropy?: number | undefined;
}

/** One token's loss ℓ_t, its derivative ∂ℓ_t/∂log π_θ(t), and what went into them. */
export interface TokenLoss {
  value: number;
  grad: number;
  /** r_t (1 for cross_entropy). */
  ratio: number;
  /** Whether clipping changed this token (ppo: the clipped term won; cispo: the weight was cut). */
  clipped: boolean;
  /** w_t. */
  tisWeight: number;
  /** k_t, before β (0 without a KL term). */
  kl: number;
}

const clamp = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));

/** ℓ_t and ∂ℓ_t/∂log π_θ(t) for one token, exactly as the header's formulas. */
export function tokenLoss(spec: LossSpec, t: TokenLossInput): TokenLoss {
  const logOld = t.proximalLogprob ?? t.samplingLogprob;
  const ratio = spec.kind === "cross_entropy" ? 1 : Math.exp(t.logprob - logOld);
  const tisWeight =
    spec.kind !== "cross_entropy" && spec.tisCap !== undefined
      ? Math.min(Math.exp(logOld - t.samplingLogprob), spec.tisCap)
      : 1;
  let value: number;
  let grad: number;
  let clipped = false;
  const A = t.advantage;
  switch (spec.kind) {
    case "cross_entropy":
      value = -t.logprob;
      grad = -1;
      break;
    case "importance_sampling":
      value = -tisWeight * ratio * A;
      grad = -tisWeight * ratio * A;
      break;
    case "ppo": {
      const unclippedTerm = -ratio * A;
      const clippedTerm = -clamp(ratio, 1 - spec.clipLow, 1 + spec.clipHigh) * A;
      clipped = clippedTerm > unclippedTerm;
      value = tisWeight * Math.max(unclippedTerm, clippedTerm);
      grad = clipped ? 0 : -tisWeight * ratio * A;
      break;
    }
    case "cispo": {
      const weight = clamp(ratio, 1 - spec.clipLow, 1 + spec.clipHigh);
      clipped = weight !== ratio;
      value = -tisWeight * weight * A * t.logprob;
      grad = -tisWeight * weight * A;
      break;
    }
  }

  let kl = 0;
  if (spec.kl && spec.kl.coef > 0) {
    if (t.refLogprob === undefined) {
      throw new Error("the loss has a KL term but no reference logprobs were given");
    }
    const delta = t.refLogprob - t.logprob;
    let dk: number;
    switch (spec.kl.estimator) {
      case "k1":
        kl = -delta;
        dk = 1;
        break;
      case "k2":
        kl = 0.5 * delta * delta;
        dk = -delta;
        break;
      case "k3":
        kl = Math.exp(delta) - delta - 1;
        dk = 1 - Math.exp(delta);
        break;
    }
    value += spec.kl.coef * kl;
    grad += spec.kl.coef * dk;
  }
  if (spec.entropyCoef > 0) {
    if (t.entropy === undefined) {
      throw new Error("the loss has an entropy bonus but no per-token entropies were given");
    }
    value -= spec.entropyCoef * t.entropy;
  }
  return { value, grad, ratio, clipped, tisWeight, kl };
}

/**
 * The weight sᵢ of row i's masked-in tokens in the aggregated loss (and its gradient), given the
 * row's masked-in token count and the batch's totals (tokens, rows with at least one token):
 *   token-mean: sᵢ = 1/Σm,  seq-mean-token-sum: sᵢ = 1/N,  seq-mean-token-mean: sᵢ = 1/(N·Σ_t mᵢ).
 * A row with no masked-in token, or a batch with none, weighs 0.
 */
export function aggregationScale(
  aggregation: Aggregation,
  rowTokens: number,
  totals: { tokens: number; rows: number },
): number {
  if (totals.tokens === 0 || rowTokens === 0) return 0;
  switch (aggregation) {
    case "token-mean":
      return 1 / totals.tokens;
    case "seq-mean-token-sum":
      return 1 / totals.rows;
    case "seq-mean-token-mean":
      return 1 / (totals.rows * rowTokens);
  }
}

/**
 * The per-batch metrics of a loss, over its masked-in tokens (every backend reports these from
 * forwardBackward; a batch with no masked-in token has every mean 0):
 *
 *     loss/value                 L
 *     loss/tokens                Σ m (the batch's masked-in tokens)
 *     loss/ratio_mean            mean r_t
 *     loss/clip_fraction         share of tokens that clipping changed
 *     loss/tis_capped_fraction   share of tokens whose TIS weight hit the cap
 *     loss/kl_mean               mean k_t (before β)
 *     loss/entropy_mean          mean H_t (0 where no entropies were given)
 *     logprob_diff/max_abs       max |log π_θ(t) − log μ(t)| (trainer vs sampler)
 *
 * Accumulate each masked-in token in order with {@link add}, then read {@link result}.
 */
export class LossMetrics {
  private ratioSum = 0;
  private klSum = 0;
  private entropySum = 0;
  private clipped = 0;
  private capped = 0;
  private maxAbsDiff = 0;

  constructor(private readonly spec: LossSpec) {}

  /** One masked-in token: its {@link tokenLoss}, its entropy H_t, and log π_θ(t) − log μ(t). */
  add(tl: TokenLoss, entropy: number, logprobDiff: number): void {
    const spec = this.spec;
    this.ratioSum += tl.ratio;
    this.klSum += tl.kl;
    this.entropySum += entropy;
    if (tl.clipped) this.clipped++;
    if (spec.kind !== "cross_entropy" && spec.tisCap !== undefined && tl.tisWeight === spec.tisCap)
      this.capped++;
    this.maxAbsDiff = Math.max(this.maxAbsDiff, Math.abs(logprobDiff));
  }

  /** The metrics of a batch whose aggregated loss is `loss` and whose mask sums to `maskSum`. */
  result(loss: number, maskSum: number): Record<string, number> {
    const n = Math.max(maskSum, 1);
    return {
      "loss/value": loss,
      "loss/tokens": maskSum,
      "loss/ratio_mean": maskSum ? this.ratioSum / n : 0,
      "loss/clip_fraction": maskSum ? this.clipped / n : 0,
      "loss/tis_capped_fraction": maskSum ? this.capped / n : 0,
      "loss/kl_mean": maskSum ? this.klSum / n : 0,
      "loss/entropy_mean": maskSum ? this.entropySum / n : 0,
      "logprob_diff/max_abs": this.maxAbsDiff,
    };
  }
}

export interface LossRow {
  logprobs: readonly number[];
  samplingLogprobs: readonly number[];
  proximalLogprobs?: readonly number[] | undefined;
  refLogprobs?: readonly number[] | undefined;
  advantages: readonly number[];
  mask: readonly number[];
  entropy?: readonly number[] | undefined;
}

export interface ReferenceLossResult {
  /** L: the aggregated loss. */
  loss: number;
  /** ℓ_t per row and token (0 where the mask is 0). */
  perToken: number[][];
  /** ∂L/∂log π_θ(t) per row and token: what a backend's gradient must match (0 where masked). */
  grad: number[][];
  metrics: Record<string, number>;
}

/**
 * The reference loss over a batch: every backend's forwardBackward must agree with it (value and
 * gradient with respect to the policy logprobs) on the same inputs.
 */
export function referenceLoss(
  specInput: LossSpecInput,
  rows: readonly LossRow[],
): ReferenceLossResult {
  const spec = LossSpecSchema.parse(specInput);
  rows.forEach((row, i) => {
    const n = row.logprobs.length;
    const fields = [
      "samplingLogprobs",
      "proximalLogprobs",
      "refLogprobs",
      "advantages",
      "mask",
      "entropy",
    ] as const;
    for (const key of fields) {
      const v = row[key];
      if (v !== undefined && v.length !== n) {
        throw new RangeError(`row ${i}: ${key} has ${v.length} entries but logprobs has ${n}`);
      }
    }
  });

  const perToken: number[][] = [];
  const tokenGrad: number[][] = [];
  const rowMaskSums: number[] = [];
  let maskSum = 0;
  let rowsWithTokens = 0;
  const metrics = new LossMetrics(spec);
  for (const row of rows) {
    const values: number[] = [];
    const grads: number[] = [];
    let rowMask = 0;
    row.logprobs.forEach((logprob, t) => {
      const m = row.mask[t]!;
      if (m === 0) {
        values.push(0);
        grads.push(0);
        return;
      }
      const tl = tokenLoss(spec, {
        logprob,
        samplingLogprob: row.samplingLogprobs[t]!,
        proximalLogprob: row.proximalLogprobs?.[t],
        refLogprob: row.refLogprobs?.[t],
        advantage: row.advantages[t]!,
        entropy: row.entropy?.[t],
      });
      values.push(m * tl.value);
      grads.push(m * tl.grad);
      rowMask += m;
      metrics.add(tl, row.entropy?.[t] ?? 0, logprob - row.samplingLogprobs[t]!);
    });
    perToken.push(values);
    tokenGrad.push(grads);
    rowMaskSums.push(rowMask);
    maskSum += rowMask;
    if (rowMask > 0) rowsWithTokens++;
  }

  // L = Σ_rows Σ_t scale_i · m·ℓ, with scale_i from the aggregation; ∂L/∂logπ scales the same way.
  const scaleOf = (i: number): number =>
    aggregationScale(spec.aggregation, rowMaskSums[i]!, { tokens: maskSum, rows: rowsWithTokens });
  let loss = 0;
  const grad = tokenGrad.map((g, i) => {
    const s = scaleOf(i);
    for (const v of perToken[i]!) loss += s * v;
    return g.map((x) => s * x);
  });
  return { loss, perToken, grad, metrics: metrics.result(loss, maskSum) };
}

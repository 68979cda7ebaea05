/**
 * AdamW (Loshchilov & Hutter 2019: Adam with decoupled weight decay) and global gradient-norm
 * clipping. The learning-rate schedule is the trainer's (algorithms/schedule.ts).
 *
 * One step, for each parameter θ with gradient g (after clipping), t = step number from 1:
 *
 *   m ← β₁·m + (1 − β₁)·g
 *   v ← β₂·v + (1 − β₂)·g²
 *   m̂ = m/(1 − β₁ᵗ),  v̂ = v/(1 − β₂ᵗ)                     (bias correction)
 *   θ ← θ − lr·λ·θ                                         (decoupled decay; only where decayed)
 *   θ ← θ − lr·m̂/(√v̂ + ε)
 *
 * Weight decay applies to the matrices of the linear layers only (qkv, attention output, MLP):
 * not to biases, LayerNorm gains/biases, nor the token/position embeddings (as in nanoGPT and
 * minGPT: decaying a gain pulls it towards 0, not towards its identity 1, and the tied embedding
 * is also the output head, whose rows for rare tokens would be decayed away).
 *
 * Clipping: with ‖g‖ = √(Σ g²) over all parameters and c = maxGradNorm,
 *   g ← g·min(1, c/(‖g‖ + 1e-6))
 */
import { withOptimDefaults } from "../datums.js";
import type { OptimParams } from "../spi.js";
import type { ParamInfo } from "./model.js";

/** The SPI's optimizer step parameters (lr, betas, eps, weight decay, gradient-norm clip). */
export type AdamWParams = OptimParams;

export interface AdamWState {
  step: number;
  m: Float32Array;
  v: Float32Array;
}

/** √(Σ g²), accumulated in float64. */
export function gradNorm(grad: Float32Array): number {
  let s = 0;
  for (let i = 0; i < grad.length; i++) s += grad[i]! * grad[i]!;
  return Math.sqrt(s);
}

/** Scales `grad` in place so its norm is at most maxNorm; returns the norm before clipping. */
export function clipGradNorm(grad: Float32Array, maxNorm: number): number {
  const norm = gradNorm(grad);
  if (maxNorm > 0 && norm > maxNorm) {
    const c = maxNorm / (norm + 1e-6);
    for (let i = 0; i < grad.length; i++) grad[i] = grad[i]! * c;
  }
  return norm;
}

/** 1 where a parameter is weight-decayed, 0 where not (see the header for the rule). */
export function decayMask(params: readonly ParamInfo[], numParams: number): Uint8Array {
  const mask = new Uint8Array(numParams);
  for (const p of params) if (p.kind === "linear") mask.fill(1, p.offset, p.offset + p.size);
  return mask;
}

export class AdamW {
  readonly state: AdamWState;
  private readonly decay: Uint8Array;

  /** `decay` (1 = decayed) is aligned with the flat parameter buffer; all decayed when omitted. */
  constructor(numParams: number, decay?: Uint8Array) {
    this.state = { step: 0, m: new Float32Array(numParams), v: new Float32Array(numParams) };
    this.decay = decay ?? new Uint8Array(numParams).fill(1);
  }

  /** Clips `grad` (in place), updates `param` in place; returns the gradient norm before clipping. */
  step(
    param: Float32Array,
    grad: Float32Array,
    o: AdamWParams,
  ): { gradNorm: number; step: number } {
    const { lr, beta1: b1, beta2: b2, eps, weightDecay: wd, maxGradNorm } = withOptimDefaults(o);
    const norm = clipGradNorm(grad, maxGradNorm);
    const t = ++this.state.step;
    const c1 = 1 / (1 - b1 ** t);
    const c2 = 1 / (1 - b2 ** t);
    const { m, v } = this.state;
    const decay = this.decay;
    for (let i = 0; i < param.length; i++) {
      const g = grad[i]!;
      const mi = b1 * m[i]! + (1 - b1) * g;
      const vi = b2 * v[i]! + (1 - b2) * g * g;
      m[i] = mi;
      v[i] = vi;
      let p = param[i]!;
      if (decay[i] === 1) p -= lr * wd * p;
      param[i] = p - (lr * (mi * c1)) / (Math.sqrt(vi * c2) + eps);
    }
    return { gradNorm: norm, step: t };
  }
}

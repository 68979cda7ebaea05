/**
 * The learning-rate schedule: linear warmup, then constant, linear or cosine decay. The trainer
 * owns it and passes each step's lr to the backend's optimStep.
 */
export interface LrSchedule {
  /** Peak learning rate. */
  lr: number;
  warmupSteps: number;
  totalSteps: number;
  decay: "constant" | "linear" | "cosine";
  /** The floor the decay ends at, as a fraction of lr (default 0). */
  minRatio?: number;
}

/**
 * Learning rate at `step` (0-based): linear warmup lr·(step+1)/warmup over the first warmupSteps,
 * then constant, or decaying to lr·minRatio at totalSteps, linearly or along a half cosine:
 *   p = (step − warmup)/(total − warmup),   cosine: min + (lr − min)·½(1 + cos(π·p))
 */
export function learningRate(s: LrSchedule, step: number): number {
  if (step < s.warmupSteps) return (s.lr * (step + 1)) / s.warmupSteps;
  if (s.decay === "constant") return s.lr;
  const min = s.lr * (s.minRatio ?? 0);
  const span = Math.max(1, s.totalSteps - s.warmupSteps);
  const p = Math.min(1, (step - s.warmupSteps) / span);
  if (s.decay === "linear") return s.lr + (min - s.lr) * p;
  return min + (s.lr - min) * 0.5 * (1 + Math.cos(Math.PI * p));
}

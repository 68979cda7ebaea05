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
 * A run bounded by time rather than steps passes `progress` (the fraction of its time budget
 * spent, 0–1) and the decay follows that instead of the step count.
 */
export function learningRate(s: LrSchedule, step: number, progress?: number): number {
  if (step < s.warmupSteps) return (s.lr * (step + 1)) / s.warmupSteps;
  if (s.decay === "constant") return s.lr;
  const min = s.lr * (s.minRatio ?? 0);
  const span = Math.max(1, s.totalSteps - s.warmupSteps);
  const p = Math.max(0, Math.min(1, progress ?? (step - s.warmupSteps) / span));
  if (s.decay === "linear") return s.lr + (min - s.lr) * p;
  return min + (s.lr - min) * 0.5 * (1 + Math.cos(Math.PI * p));
}

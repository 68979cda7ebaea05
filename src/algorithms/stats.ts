/**
 * The few statistics the RL maths needs, written once so that every estimator and metric uses the
 * same definitions. Plain loops over number[]: batches are thousands of values, not millions.
 */

/** Which standard deviation: `sample` divides by n − 1 (Bessel), `population` by n. */
export type StdKind = "sample" | "population";

/** x̄ = (1/n) Σ xᵢ; NaN for an empty list (callers decide what an empty mean means). */
export function mean(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  let s = 0;
  for (const x of xs) s += x;
  return s / xs.length;
}

/**
 * sample:     s = √( Σ (xᵢ − x̄)² / (n − 1) )   (torch.std's default; TRL and verl use it for GRPO)
 * population: σ = √( Σ (xᵢ − x̄)² / n )         (numpy.std's default)
 *
 * With one value the sample std is undefined (0/0); we return 0, which every caller treats as
 * "no spread". An empty list gives NaN.
 */
export function std(xs: readonly number[], kind: StdKind = "sample"): number {
  const n = xs.length;
  if (n === 0) return Number.NaN;
  if (n === 1) return 0;
  const m = mean(xs);
  let ss = 0;
  for (const x of xs) ss += (x - m) * (x - m);
  return Math.sqrt(ss / (kind === "sample" ? n - 1 : n));
}

/**
 * Whether every value is the same. Tested exactly (max = min), not by std < tolerance, so that a
 * group like [0.1, 0.1, 0.1] whose mean carries rounding error still counts as all-equal.
 */
export function allEqual(xs: readonly number[]): boolean {
  for (const x of xs) if (x !== xs[0]) return false;
  return true;
}

/**
 * The p-th percentile (0 ≤ p ≤ 100) with linear interpolation between closest ranks, numpy's
 * default: position h = (n − 1)·p/100, value = x₍⌊h⌋₎ + (h − ⌊h⌋)·(x₍⌊h⌋+1₎ − x₍⌊h⌋₎) on sorted x.
 */
export function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return Number.NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  const h = ((sorted.length - 1) * p) / 100;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}

/** Small statistics and formatting helpers for the benchmarks. */

/** Nearest-rank percentile of ascending-sorted samples (q in 0..1); NaN when empty. */
export function percentile(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  const rank = Math.min(n, Math.max(1, Math.ceil(q * n)));
  return sorted[rank - 1]!;
}

export function sortedCopy(samples: readonly number[]): Float64Array {
  return Float64Array.from(samples).sort();
}

export function mean(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  let s = 0;
  for (const x of xs) s += x;
  return s / xs.length;
}

/** Milliseconds with a precision that suits the magnitude. */
export function fmtMs(ms: number): string {
  if (!Number.isFinite(ms)) return "–";
  const a = Math.abs(ms);
  if (a < 10) return `${ms.toFixed(2)} ms`;
  if (a < 100) return `${ms.toFixed(1)} ms`;
  return `${ms.toFixed(0)} ms`;
}

export function fmtInt(n: number): string {
  if (!Number.isFinite(n)) return "–";
  return Math.round(n).toLocaleString("en-US");
}

/** A markdown table; every row must have as many cells as `head`. */
export function markdownTable(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
  const sep = `| ${widths.map((w) => "-".repeat(w)).join(" | ")} |`;
  return [line(head), sep, ...rows.map(line)].join("\n");
}

/** The request mix's PRNG: the same seed gives the same mix. */
export { mulberry32 } from "../../src/random.js";

const CALIBRATION_FIXTURE = {
  messages: Array.from({ length: 8 }, (_, i) => ({
    role: i % 2 ? "assistant" : "user",
    content: "x".repeat(200),
  })),
  ids: Array.from({ length: 200 }, (_, i) => i),
};

/**
 * A machine-speed probe: µs for a fixed bit of JSON work (stringify + parse of a 2.5 KB object),
 * best of several short rounds. On a shared VM the same code runs up to ~2× slower at times with
 * no other process in sight; this number, taken next to a measurement, tells such periods apart.
 */
export function calibrate(rounds = 5, perRound = 200): number {
  let best = Number.POSITIVE_INFINITY;
  for (let r = 0; r < rounds; r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < perRound; i++) JSON.parse(JSON.stringify(CALIBRATION_FIXTURE));
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1000 / perRound);
  }
  return best;
}

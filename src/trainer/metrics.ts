/** The console table of `rllm train`: one line per step, the columns a run is watched by. */

const COLUMNS: [label: string, key: string, width: number, fmt: (v: number) => string][] = [
  ["step", "step", 5, (v) => String(v)],
  ["reward", "reward/mean", 7, (v) => v.toFixed(3)],
  ["correct", "correct/mean", 7, (v) => `${(v * 100).toFixed(1)}%`],
  ["val@1", "val/pass@1", 6, (v) => `${(v * 100).toFixed(1)}%`],
  ["loss", "loss", 8, (v) => v.toFixed(4)],
  ["entropy", "entropy", 7, (v) => v.toFixed(3)],
  ["kl", "kl", 7, (v) => v.toFixed(4)],
  ["clip", "clip_fraction", 6, (v) => v.toFixed(3)],
  ["Δlogp", "logprob_diff/max_abs", 7, (v) => v.toExponential(0)],
  ["stale", "staleness/max", 5, (v) => String(v)],
  ["gen s", "time/gen_wait_s", 6, (v) => v.toFixed(1)],
  ["train s", "time/train_s", 7, (v) => v.toFixed(1)],
  ["tok/s", "train/tokens_per_s", 7, (v) => String(Math.round(v))],
];

export function formatStepHeader(): string {
  return COLUMNS.map(([label, , w]) => label.padStart(w)).join(" ");
}

export function formatStepLine(m: Record<string, number>): string {
  return COLUMNS.map(([, key, w, fmt]) => {
    const v = m[key];
    return (v === undefined || !Number.isFinite(v) ? "–" : fmt(v)).padStart(w);
  }).join(" ");
}

/** The validation line of the console: "pass@1 12.5%  pass@2 20.0%". */
export function formatValidation(v: Record<string, number>): string {
  return Object.entries(v)
    .filter(([k]) => k.startsWith("val/pass@"))
    .map(([k, x]) => `${k.slice(4)} ${(x * 100).toFixed(1)}%`)
    .join("  ");
}

/**
 * Redraws a progress line on stderr every 250 ms while a batch generates; returns the function
 * that stops it and clears the line.
 */
export function startProgressBar(
  line: () => { ready: number; total: number; text: string },
): () => void {
  const timer = setInterval(() => {
    const { ready, total, text } = line();
    const width = 20;
    const filled = Math.min(width, Math.round((ready / total) * width));
    process.stderr.write(`\r[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${text}\x1b[K`);
  }, 250);
  return () => {
    clearInterval(timer);
    process.stderr.write("\r\x1b[K");
  };
}

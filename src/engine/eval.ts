/**
 * Evaluation results: pass@k with the unbiased estimator, the per-item table, and the files an eval
 * run leaves in its output directory (results.json, episodes/*.json).
 */
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Episode } from "../types/index.js";
import type { EngineMetrics } from "./engine.js";

/**
 * Unbiased pass@k for one task with n samples of which c are correct (Chen et al., 2021):
 *   pass@k = 1 − C(n−c, k) / C(n, k) = 1 − Π_{i=n−c+1}^{n} (1 − k/i)
 * computed as the product to stay exact-ish for large n. Defined for k ≤ n.
 */
export function passAtK(n: number, c: number, k: number): number {
  if (k > n) throw new RangeError(`pass@${k} needs at least ${k} samples, got ${n}`);
  if (n - c < k) return 1;
  let prod = 1;
  for (let i = n - c + 1; i <= n; i++) prod *= 1 - k / i;
  return 1 - prod;
}

export interface EvalItem {
  index: number | null;
  taskId: string;
  attempt: number;
  reward: number | null;
  isCorrect: boolean;
  error: string | null;
  terminationReason: string;
  infraFailed: boolean;
}

export interface EvalResults {
  benchmark: string;
  model: string;
  agent: string;
  /** Mean pass@1 over tasks with at least one scored attempt. */
  score: number | null;
  /** Scored items (task × attempt, infrastructure failures excluded). */
  total: number;
  correct: number;
  /** Items that ended in an agent error or a timeout. */
  errors: number;
  /** Items lost to infrastructure failures (excluded from the score). */
  infraFailed: number;
  passAtK: Record<string, number>;
  items: EvalItem[];
  cancelled: boolean;
  metrics: EngineMetrics;
  config: Record<string, unknown>;
  startedAt: string;
  finishedAt: string;
}

export function summarize(
  episodes: Episode[],
  info: {
    benchmark: string;
    model: string;
    agent: string;
    attempts: number;
    cancelled: boolean;
    metrics: EngineMetrics;
    config: Record<string, unknown>;
    startedAt: Date;
  },
): EvalResults {
  const items: EvalItem[] = episodes.map((e) => ({
    index: e.task?.index ?? null,
    taskId: e.taskId,
    attempt: e.attempt,
    reward: e.infraFailed ? null : (e.reward ?? null),
    isCorrect: !e.infraFailed && e.isCorrect === true,
    error: e.error ?? null,
    terminationReason: e.terminationReason,
    infraFailed: e.infraFailed,
  }));
  const byTask = new Map<string, { n: number; c: number }>();
  for (const it of items) {
    if (it.infraFailed) continue;
    const s = byTask.get(it.taskId) ?? { n: 0, c: 0 };
    s.n++;
    if (it.isCorrect) s.c++;
    byTask.set(it.taskId, s);
  }
  const passAt: Record<string, number> = {};
  for (let k = 1; k <= info.attempts; k++) {
    const vals = [...byTask.values()].filter((s) => s.n >= k).map((s) => passAtK(s.n, s.c, k));
    if (vals.length) passAt[String(k)] = vals.reduce((a, b) => a + b, 0) / vals.length;
  }
  const scored = items.filter((i) => !i.infraFailed);
  return {
    benchmark: info.benchmark,
    model: info.model,
    agent: info.agent,
    score: passAt["1"] ?? null,
    total: scored.length,
    correct: scored.filter((i) => i.isCorrect).length,
    errors: scored.filter(
      (i) => i.terminationReason === "error" || i.terminationReason === "timeout",
    ).length,
    infraFailed: items.length - scored.length,
    passAtK: passAt,
    items,
    cancelled: info.cancelled,
    metrics: info.metrics,
    config: info.config,
    startedAt: info.startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
  };
}

/** Writes a JSON file atomically (temp file + rename), so a killed run never leaves half a file. */
export function writeJsonAtomic(path: string, value: unknown): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(value, null, 2)}\n`);
  renameSync(tmp, path);
}

/** Writes each episode as it completes, so an interrupted run keeps what it did. */
export function episodeWriter(outputDir: string): (ep: Episode) => void {
  const dir = join(outputDir, "episodes");
  mkdirSync(dir, { recursive: true });
  return (ep) => {
    const idx = ep.task?.index ?? null;
    const base = `${idx !== null ? String(idx).padStart(5, "0") : ep.taskId.replace(/[^A-Za-z0-9._-]/g, "_")}_${ep.attempt}`;
    writeJsonAtomic(join(dir, `${base}.json`), ep);
  };
}

/** The summary table printed at the end of an eval run. */
/** "env_done 8 · max_turns_exceeded 2": how the items ended, most frequent first. */
function endings(items: EvalItem[]): string {
  const counts = new Map<string, number>();
  for (const it of items)
    counts.set(it.terminationReason, (counts.get(it.terminationReason) ?? 0) + 1);
  const sorted = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  return sorted.map(([reason, n]) => `${reason} ${n}`).join(" · ") || "–";
}

export function formatSummary(r: EvalResults): string {
  const pct = (x: number | null | undefined) => (x == null ? "–" : `${(x * 100).toFixed(1)}%`);
  const rows: [string, string][] = [
    ["benchmark", r.benchmark],
    ["model", r.model],
    ["agent", r.agent],
    ["score (pass@1)", pct(r.score)],
    ...Object.entries(r.passAtK)
      .filter(([k]) => k !== "1")
      .map(([k, v]): [string, string] => [`pass@${k}`, pct(v)]),
    ["correct / scored", `${r.correct} / ${r.total}`],
    ["errors (agent, timeout)", String(r.errors)],
    ["infrastructure failures", String(r.infraFailed)],
    ["endings", endings(r.items)],
    ...(r.metrics.prefixBreaks > 0
      ? [["steps not extending their turn", String(r.metrics.prefixBreaks)] as [string, string]]
      : []),
    ["rollouts/s", r.metrics.rolloutsPerSecond.toFixed(2)],
    ["wall time", `${(r.metrics.wallMs / 1000).toFixed(1)} s`],
  ];
  if (r.cancelled) rows.push(["cancelled", `yes (${r.metrics.skipped} not run)`]);
  const w = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `  ${k.padEnd(w)}  ${v}`).join("\n");
}

/**
 * Where a training run's metrics go: a `MetricsSink` takes one object of numbers per step. The
 * trainer writes every sink it is given the same way:
 *
 *     runStarted(run)          once, before anything else
 *     truncateAfter(step)      once: forget the steps after the one the run starts from (0 for a
 *                              fresh run; a resume runs the later steps again, so they must not
 *                              show up twice)
 *     write(step, metrics)     per step, in step order; a step can be written twice (the final
 *                              validation after the last step): the second write adds to it
 *
 * Two sinks live here, the two a run writes by default: the run directory's metrics.jsonl and
 * the run's SQLite store (what the dashboard reads). A logger to W&B or TensorBoard is a third
 * implementation of the same three methods.
 */
import { appendFileSync, existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import type { Store } from "./sqlite.js";

export type Metrics = Record<string, number>;

/** A training run, as its sinks are told of it. */
export interface MetricsRun {
  /** Stable across resumes of the same run. */
  id: string;
  kind: "train";
  config: unknown;
  /** Wall-clock start of this process's part of the run (ms since the epoch). */
  startedAt: number;
}

export interface MetricsSink {
  runStarted?(run: MetricsRun): void | Promise<void>;
  /** Forgets every step after `step`. */
  truncateAfter(step: number): void | Promise<void>;
  write(step: number, metrics: Metrics): void | Promise<void>;
}

/** Keeps the lines of a JSONL file whose `step` is at most `step` (atomically). */
export function truncateJsonl(path: string, step: number): void {
  if (!existsSync(path)) return;
  const kept = readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => {
      if (!l.trim()) return false;
      try {
        return (JSON.parse(l) as { step?: number }).step! <= step;
      } catch {
        return false; // a line cut by the kill
      }
    });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, kept.length ? `${kept.join("\n")}\n` : "");
  renameSync(tmp, path);
}

/** One line per write, `{"step": N, ...metrics}`; a second write of a step is a second line. */
export class JsonlMetricsSink implements MetricsSink {
  constructor(readonly path: string) {}

  truncateAfter(step: number): void {
    truncateJsonl(this.path, step);
  }

  write(step: number, metrics: Metrics): void {
    appendFileSync(this.path, `${JSON.stringify({ step, ...metrics })}\n`);
  }
}

/** The runs and metrics tables of a store; a second write of a step merges into its row. */
export class StoreMetricsSink implements MetricsSink {
  private runId: string | undefined;

  constructor(private readonly store: Store) {}

  /** Records the run (a resumed run keeps its first start time). */
  async runStarted(run: MetricsRun): Promise<void> {
    this.runId = run.id;
    await this.store.upsertRun(run);
  }

  truncateAfter(step: number): Promise<void> {
    return this.store.dropMetricsAfter(this.run(), step);
  }

  write(step: number, metrics: Metrics): Promise<void> {
    return this.store.putMetrics(this.run(), step, metrics);
  }

  private run(): string {
    if (this.runId === undefined)
      throw new Error("StoreMetricsSink: call runStarted(run) before writing the run's metrics");
    return this.runId;
  }
}

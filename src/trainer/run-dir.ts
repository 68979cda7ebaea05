/**
 * A training run's output directory: every file the trainer writes goes through here.
 *
 *   OUTPUT/
 *     config.json                 the resolved config of the run
 *     metrics.jsonl               one JSON object per step
 *     consumed.jsonl              {step, tasks: [{id, ordinal}], skipped?: [...], rejected?: [...]}
 *                                 per step: the tasks each step trained, and those it consumed
 *                                 without training them (skipSettled, rejection sampling)
 *     traces.db                   the gateway's traces and the run's metrics (SQLite)
 *     val/step-N.json             per-item validation results
 *     checkpoints/step-N/         backend/ (the backend's checkpoint) + trainer.json
 *     checkpoints/latest.json     {step, dir}: the last complete checkpoint
 *
 * Kill -9 safety: a checkpoint is built under a temporary name and renamed into place, and
 * latest.json is replaced atomically after it, so a kill at any moment leaves the previous
 * checkpoint intact; opening the directory removes what a killed run left half-written. On
 * resume, the per-step files are cut back to the checkpoint's step: the steps a crash lost are
 * run again, and each task shows up once.
 */
import { appendFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { writeJsonAtomic } from "../engine/eval.js";
import { JsonlMetricsSink, truncateJsonl } from "../store/metrics.js";
import type { LoadedTask } from "./loader.js";
import {
  cleanPartialCheckpoints,
  readLatest,
  type TrainerState,
  writeCheckpoint,
} from "./state.js";

/** One task of consumed.jsonl. */
function ref(t: LoadedTask): { id: string; ordinal: number } {
  return { id: t.task.id, ordinal: t.ordinal };
}

export class RunDir {
  readonly metricsPath: string;
  readonly consumedPath: string;
  readonly tracesPath: string;

  private constructor(readonly path: string) {
    this.metricsPath = join(path, "metrics.jsonl");
    this.consumedPath = join(path, "consumed.jsonl");
    this.tracesPath = join(path, "traces.db");
  }

  /** Creates the directory, or opens it and removes the partial checkpoints a kill left. */
  static open(path: string): RunDir {
    mkdirSync(path, { recursive: true });
    cleanPartialCheckpoints(path);
    return new RunDir(path);
  }

  /** The last complete checkpoint, or undefined when the run has none. */
  latest(): { dir: string; state: TrainerState } | undefined {
    return readLatest(this.path);
  }

  /** metrics.jsonl, as a metrics sink (it cuts the file back to the resumed step itself). */
  metricsSink(): JsonlMetricsSink {
    return new JsonlMetricsSink(this.metricsPath);
  }

  /** Cuts consumed.jsonl back to `step` (0: a fresh run starts it empty). */
  truncateConsumed(step: number): void {
    truncateJsonl(this.consumedPath, step);
  }

  writeConfig(config: unknown): void {
    writeJsonAtomic(join(this.path, "config.json"), config);
  }

  /** Records the tasks step `step` consumed: trained, and taken without training. */
  recordConsumed(
    step: number,
    trained: readonly LoadedTask[],
    unrun: { skipped?: readonly LoadedTask[]; rejected?: readonly LoadedTask[] } = {},
  ): void {
    const { skipped = [], rejected = [] } = unrun;
    appendFileSync(
      this.consumedPath,
      `${JSON.stringify({
        step,
        tasks: trained.map(ref),
        ...(skipped.length ? { skipped: skipped.map(ref) } : {}),
        ...(rejected.length ? { rejected: rejected.map(ref) } : {}),
      })}\n`,
    );
  }

  writeValidation(step: number, result: Record<string, unknown>): void {
    mkdirSync(join(this.path, "val"), { recursive: true });
    writeJsonAtomic(join(this.path, "val", `step-${step}.json`), { step, ...result });
  }

  /** Writes checkpoint step-N atomically: `saveBackend(dir)` fills DIR/backend, then trainer.json. */
  saveCheckpoint(
    state: TrainerState,
    saveBackend: (dir: string) => Promise<void>,
  ): Promise<string> {
    return writeCheckpoint(this.path, state, saveBackend);
  }
}

/**
 * Validation during training: every validation task × `attempts` rollouts at the current weights,
 * scored as `rllm eval` scores them (pass@k over all tasks, and per data source when there are
 * several; an infrastructure failure — a judge down — is left out of every score, reward mean
 * included, and counted in val/infra_failed). Every validation draws the same sampling seed per
 * (task, attempt), so the curve moves with the model, not with the draw. Per-item results go to
 * the run directory (val/step-N.json).
 */
import type { RllmConfig } from "../config/index.js";
import { runRollouts } from "../engine/engine.js";
import { summarize } from "../engine/eval.js";
import type { GatewayHandle } from "../engine/gateway.js";
import type { Evaluator, Rollout } from "../sdk/index.js";
import type { Episode, SamplingParams, Task } from "../types/index.js";
import { rolloutFailure } from "./producer.js";
import type { RunDir } from "./run-dir.js";

interface ValidationOptions {
  tasks: Task[];
  attempts: number;
  gateway: GatewayHandle;
  rollout: Rollout;
  evaluator: Evaluator<Episode>;
  model: string;
  samplingParams: SamplingParams;
  seed: number;
  /** concurrency: rollouts at once (unset: the engine's default). */
  engine: Pick<RllmConfig["engine"], "timeoutSeconds" | "infraRetries"> & { concurrency?: number };
  runDir: RunDir;
}

function mean(xs: number[]): number {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0;
}

export class Validation {
  constructor(private readonly o: ValidationOptions) {}

  /** Whether there is anything to validate on. */
  get enabled(): boolean {
    return this.o.tasks.length > 0;
  }

  /** Validates the weights of `weightVersion` after step `step`; the val/* metrics. */
  async run(step: number, weightVersion: number): Promise<Record<string, number>> {
    const o = this.o;
    if (!this.enabled) return {};
    const t0 = performance.now();
    const r = await runRollouts(o.tasks, {
      gateway: o.gateway,
      rollout: o.rollout,
      evaluator: o.evaluator,
      groupSize: o.attempts,
      concurrency: o.engine.concurrency,
      timeoutMs: o.engine.timeoutSeconds * 1000,
      infraRetries: o.engine.infraRetries,
      model: o.model,
      samplingParams: o.samplingParams,
      seed: o.seed,
      isValidation: true,
      runId: `val-${step}-v${weightVersion}`,
    });
    const broken = rolloutFailure(r.episodes, `validation at step ${step}`);
    if (broken) throw broken;
    const summary = (benchmark: string, episodes: Episode[]) =>
      summarize(episodes, {
        benchmark,
        model: o.model,
        agent: o.rollout.name,
        attempts: o.attempts,
        cancelled: false,
        metrics: r.metrics,
        config: {},
        startedAt: new Date(),
      });
    const out: Record<string, number> = {};
    const sources = new Map<string, Episode[]>();
    for (const e of r.episodes) {
      const s = e.task?.dataSource ?? "all";
      sources.set(s, [...(sources.get(s) ?? []), e]);
    }
    const all = summary("val", r.episodes);
    for (const [k, v] of Object.entries(all.passAtK)) out[`val/pass@${k}`] = v;
    if (sources.size > 1 || !sources.has("all"))
      for (const [src, eps] of sources)
        for (const [k, v] of Object.entries(summary(src, eps).passAtK))
          out[`val/${src}/pass@${k}`] = v;
    // An infra-failed episode (its judge unreachable) has no reward: left out, as from pass@k.
    const scored = r.episodes.filter((e) => !e.infraFailed);
    out["val/reward_mean"] = mean(scored.map((e) => e.reward ?? 0));
    out["val/infra_failed"] = r.episodes.length - scored.length;
    out["val/tasks"] = o.tasks.length;
    out["time/val_s"] = (performance.now() - t0) / 1000;
    o.runDir.writeValidation(step, { weightVersion, passAtK: all.passAtK, items: all.items });
    return out;
  }
}

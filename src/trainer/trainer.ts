/**
 * The RL loop: `new AgentTrainer({...}).train()`.
 *
 * One step:
 *   take a batch of groups (tasks × groupSize rollouts, run by the engine through the gateway
 *   against the backend's sampler, scored by the evaluator) → algorithms (filter, group,
 *   advantages, datums) → backend forwardBackward (+ optimStep per mini-batch) → saveForSampler
 *   (a new weight version, set on the gateway so traces carry it) → metrics → validation every
 *   valFreq steps → checkpoint every saveFreq steps.
 *
 * Generation and training overlap in one scheme: a producer launches groups while
 *
 *     groups launched < (steps done + 1 + staleness) × batchSize
 *
 * and a step waits for every group launched at a weight version ≤ current − staleness before it
 * takes more (oldest launch first), so no group is trained more than `staleness` versions after
 * the weights it was sampled with. Synchronous (on-policy) training is staleness 0: a batch is
 * launched, trained, and only then is the next launched. `async` uses the configured staleness
 * and turns on truncated importance sampling (tisCap 2, log π_old from the trainer's current
 * weights) unless the loss sets its own.
 */
import { appendFileSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { isSettledGroup } from "../algorithms/filters.js";
import { type LossSpec, LossSpecSchema } from "../algorithms/loss.js";
import { episodesToDatums } from "../algorithms/pipeline.js";
import { learningRate } from "../algorithms/schedule.js";
import type { TrainingBackend } from "../backends/spi.js";
import type { RllmConfig } from "../config/index.js";
import { runRollouts } from "../engine/engine.js";
import { summarize, writeJsonAtomic } from "../engine/eval.js";
import { InProcessGateway, type InProcessGatewaySettings } from "../engine/gateway.js";
import { mulberry32, seededPermutation } from "../random.js";
import type { Evaluator, Rollout } from "../sdk/index.js";
import type { Datum, Episode, Task } from "../types/index.js";
import { type LoadedTask, TaskLoader } from "./loader.js";
import { formatStepHeader, formatStepLine } from "./metrics.js";
import {
  cleanPartialCheckpoints,
  readLatest,
  TRAINER_STATE_FORMAT,
  type TrainerState,
  truncateJsonl,
  writeCheckpoint,
} from "./state.js";

export type StepMetrics = Record<string, number>;

export interface AgentTrainerOptions {
  rollout: Rollout;
  evaluator: Evaluator<Episode>;
  trainDataset: Task[];
  valDataset?: Task[];
  backend: TrainingBackend;
  config: Pick<RllmConfig, "trainer" | "algorithm" | "optim" | "engine">;
  /** The in-process gateway's settings from the gateway and store sections (inProcessGatewayConfig). */
  gateway?: InProcessGatewaySettings;
  /** Where metrics, checkpoints and traces go (default config.trainer.output). */
  output?: string;
  /** Lines for the console (default stderr). */
  log?: (line: string) => void;
  /** Stops after the current step (a checkpoint is written). */
  signal?: AbortSignal;
  onStep?: (metrics: StepMetrics) => void;
  /** Redraw a progress line on stderr while a batch generates (a TTY). */
  progress?: boolean;
}

export interface TrainResult {
  steps: number;
  /** Steps this call ran (after a resume: the new ones). */
  newSteps: number;
  weightVersion: number;
  lastCheckpoint?: string;
  /** Validation before the first step of this run and after the last (pass@1 over all tasks). */
  valBefore?: number;
  valAfter?: number;
  stoppedBy: "steps" | "data" | "time" | "signal";
}

interface GroupResult {
  loaded: LoadedTask;
  launchVersion: number;
  episodes: Episode[];
  /** Rollout failures from the engine (agent errors, timeouts, infra). */
  errors: number;
}

interface InFlight {
  loaded: LoadedTask;
  launchVersion: number;
  done: boolean;
  result?: GroupResult;
  promise: Promise<GroupResult>;
}

const TIS_CAP_DEFAULT = 2;

/** The learning rate of rllm train when none is configured (tuned on the local countdown recipe). */
export const RL_DEFAULT_LR = 1e-4;

/**
 * The error to stop with when every rollout in `episodes` failed (agent error, timeout, gateway or
 * model server down): a step or a validation without one finished rollout means the setup is
 * broken, and going on would only burn through the data with nothing learned.
 */
function rolloutFailure(episodes: readonly Episode[], what: string): Error | undefined {
  if (episodes.length === 0) return undefined;
  const failed = (e: Episode) =>
    e.infraFailed || e.terminationReason === "error" || e.terminationReason === "timeout";
  if (!episodes.every(failed)) return undefined;
  const first = episodes.find((e) => e.error)?.error ?? episodes[0]!.terminationReason;
  return new Error(
    `every rollout of ${what} failed (${episodes.length} of ${episodes.length}); the first error: ${first}. ` +
      "Check the agent, the evaluator and the model server, then run again (--resume continues from the last checkpoint).",
  );
}

function mean(xs: number[]): number {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0;
}

export class AgentTrainer {
  private readonly o: AgentTrainerOptions;
  private readonly log: (line: string) => void;

  constructor(options: AgentTrainerOptions) {
    this.o = options;
    this.log = options.log ?? ((l) => process.stderr.write(`${l}\n`));
  }

  /** The loss the backend computes: the configured one, with TIS on by default in async mode. */
  loss(): LossSpec {
    const cfg = this.o.config;
    const loss = LossSpecSchema.parse(cfg.algorithm.loss);
    if (cfg.trainer.async && loss.kind !== "cross_entropy" && loss.tisCap === undefined)
      return { ...loss, tisCap: TIS_CAP_DEFAULT };
    return loss;
  }

  async train(): Promise<TrainResult> {
    const { trainer: tc, optim, engine } = this.o.config;
    const backend = this.o.backend;
    const output = this.o.output ?? tc.output;
    if (!output) throw new Error("AgentTrainer needs an output directory (config.trainer.output)");
    mkdirSync(output, { recursive: true });
    cleanPartialCheckpoints(output);
    const loss = this.loss();
    const staleness = tc.async ? tc.staleness : 0;
    const metricsPath = join(output, "metrics.jsonl");
    const consumedPath = join(output, "consumed.jsonl");

    // ── resume ──────────────────────────────────────────────────────────────────────────────
    let state: TrainerState = {
      format: TRAINER_STATE_FORMAT,
      version: 1,
      step: 0,
      weightVersion: (await backend.sampler()).weightVersion,
      loader: { frontier: 0, beyond: [] },
      seed: tc.seed,
      elapsedSeconds: 0,
      savedAt: new Date().toISOString(),
    };
    const latest = tc.resume ? readLatest(output) : undefined;
    if (tc.resume && !latest)
      this.log(`resume: ${output} has no checkpoint yet; starting from step 0`);
    if (!tc.resume && readLatest(output))
      throw new Error(
        `${output} already holds a run with checkpoints; pass --resume to continue it or another --output`,
      );
    if (latest) {
      await backend.load(join(latest.dir, "backend"));
      state = latest.state;
      truncateJsonl(metricsPath, state.step);
      truncateJsonl(consumedPath, state.step);
      this.log(
        `resume: step ${state.step} from ${latest.dir} (weight version ${state.weightVersion}, ${state.loader.frontier} tasks consumed)`,
      );
    } else {
      truncateJsonl(metricsPath, 0);
      truncateJsonl(consumedPath, 0);
    }
    writeJsonAtomic(join(output, "config.json"), this.o.config);

    // a time budget without an epoch count runs as many epochs as fit in it
    const epochs = tc.epochs ?? (tc.maxSeconds !== undefined ? Number.POSITIVE_INFINITY : 1);
    const loader = new TaskLoader(this.o.trainDataset, tc.seed, epochs, state.loader);
    const perEpoch = Math.ceil(this.o.trainDataset.length / tc.batchSize);
    const maxSteps =
      tc.maxSteps ?? (Number.isFinite(epochs) ? perEpoch * epochs : Number.POSITIVE_INFINITY);
    // (maxSteps is open only under a time budget: a decaying lr then follows the time spent)
    const sampler = await backend.sampler();
    const gateway = await InProcessGateway.start(
      {
        healthCheckIntervalMs: 0,
        ...this.o.gateway?.config,
        upstreams: [{ url: sampler.baseURL, kind: sampler.kind, model: sampler.model }],
        model: sampler.model,
      },
      { storePath: join(output, "traces.db"), storeSynchronous: this.o.gateway?.storeSynchronous },
    );
    await gateway.setWeightVersion(sampler.weightVersion);
    let version = sampler.weightVersion;
    // metrics also go to the run's store (traces.db), for the dashboard
    const store = gateway.gateway.store;
    const runId = `train:${resolve(output)}`;
    await store.upsertRun({
      id: runId,
      kind: "train",
      config: this.o.config,
      startedAt: Date.now(),
    });
    await store.dropMetricsAfter(runId, state.step);
    const record = async (step: number, m: StepMetrics) => {
      appendFileSync(metricsPath, `${JSON.stringify({ step, ...m })}\n`);
      await store.putMetrics(runId, step, m);
    };

    // trainer.skipSettled: tasks whose last trained group was settled, and the tasks handed out
    // and skipped since the last step (consumed with the next one)
    const settled = new Set<string>(state.settled ?? []);
    let skipped: LoadedTask[] = [];
    let skipsInARow = 0;
    // the seed of a task's visit (its ordinal): its skip draw and its group's sampling
    const visitSeed = (ordinal: number) => (tc.seed * 1_000_003 + ordinal) >>> 0;
    const skip = (t: LoadedTask): boolean => {
      if (tc.skipSettled <= 0 || !settled.has(t.task.id)) return false;
      if (skipsInARow >= this.o.trainDataset.length) return false; // every task is settled
      // one draw per ordinal: a resumed run skips the same tasks again
      return mulberry32(visitSeed(t.ordinal))() < tc.skipSettled;
    };

    const runGroup = (loaded: LoadedTask, launchVersion: number): InFlight => {
      const f: InFlight = {
        loaded,
        launchVersion,
        done: false,
        promise: runRollouts([loaded.task], {
          gateway,
          rollout: this.o.rollout,
          evaluator: this.o.evaluator,
          groupSize: tc.groupSize,
          concurrency: tc.groupSize,
          timeoutMs: engine.timeoutSeconds * 1000,
          infraRetries: engine.infraRetries,
          model: sampler.model,
          samplingParams: tc.samplingParams,
          // a task's visit samples apart from its other visits: a rerun repeats it
          seed: visitSeed(loaded.ordinal),
          runId: `train-${loaded.ordinal}-v${launchVersion}`,
        }).then((r) => {
          const res: GroupResult = {
            loaded,
            launchVersion,
            episodes: r.episodes,
            errors: r.metrics.errors + r.metrics.timeouts + r.metrics.infraFailed,
          };
          f.done = true;
          f.result = res;
          return res;
        }),
      };
      return f;
    };

    const validate = async (step: number): Promise<StepMetrics> => {
      const val = this.o.valDataset;
      if (!val?.length) return {};
      const t0 = performance.now();
      const r = await runRollouts(val, {
        gateway,
        rollout: this.o.rollout,
        evaluator: this.o.evaluator,
        groupSize: tc.valAttempts,
        concurrency: engine.concurrency,
        timeoutMs: engine.timeoutSeconds * 1000,
        infraRetries: engine.infraRetries,
        model: sampler.model,
        samplingParams: tc.valSamplingParams,
        // every validation draws the same numbers per (task, attempt): the curve moves with the model
        seed: tc.seed,
        isValidation: true,
        runId: `val-${step}-v${version}`,
      });
      const broken = rolloutFailure(r.episodes, `validation at step ${step}`);
      if (broken) throw broken;
      const out: StepMetrics = {};
      const sources = new Map<string, Episode[]>();
      for (const e of r.episodes) {
        const s = e.task?.dataSource ?? "all";
        sources.set(s, [...(sources.get(s) ?? []), e]);
      }
      const all = summarize(r.episodes, {
        benchmark: "val",
        model: sampler.model,
        agent: this.o.rollout.name,
        attempts: tc.valAttempts,
        cancelled: false,
        metrics: r.metrics,
        config: {},
        startedAt: new Date(),
      });
      for (const [k, v] of Object.entries(all.passAtK)) out[`val/pass@${k}`] = v;
      if (sources.size > 1 || !sources.has("all"))
        for (const [src, eps] of sources) {
          const s = summarize(eps, {
            benchmark: src,
            model: sampler.model,
            agent: this.o.rollout.name,
            attempts: tc.valAttempts,
            cancelled: false,
            metrics: r.metrics,
            config: {},
            startedAt: new Date(),
          });
          for (const [k, v] of Object.entries(s.passAtK)) out[`val/${src}/pass@${k}`] = v;
        }
      out["val/reward_mean"] = mean(r.episodes.map((e) => e.reward ?? 0));
      out["val/tasks"] = val.length;
      out["time/val_s"] = (performance.now() - t0) / 1000;
      mkdirSync(join(output, "val"), { recursive: true });
      writeJsonAtomic(join(output, "val", `step-${step}.json`), {
        step,
        weightVersion: version,
        passAtK: all.passAtK,
        items: all.items,
      });
      return out;
    };

    const result: TrainResult = {
      steps: state.step,
      newSteps: 0,
      weightVersion: version,
      stoppedBy: "steps",
    };
    const startedAt = performance.now();
    const elapsedBefore = state.elapsedSeconds; // training time of earlier runs (resume)
    const elapsed = () => elapsedBefore + (performance.now() - startedAt) / 1000;
    let lastCheckpoint: string | undefined;
    let savedStep = -1;
    const save = async () => {
      state = {
        ...state,
        weightVersion: version,
        loader: loader.state(),
        elapsedSeconds: elapsed(),
        savedAt: new Date().toISOString(),
        ...(tc.skipSettled > 0 || settled.size > 0 ? { settled: [...settled].sort() } : {}),
      };
      lastCheckpoint = await writeCheckpoint(output, state, (dir) => backend.save(dir));
      savedStep = state.step;
    };

    try {
      if (state.step === 0 && tc.valBeforeTrain && this.o.valDataset?.length) {
        const v = await validate(0);
        result.valBefore = v["val/pass@1"];
        await record(0, v);
        this.log(`step 0 (before training): ${formatVal(v)}`);
      }
      this.log(formatStepHeader());

      // ── the producer ──────────────────────────────────────────────────────────────────────
      const inFlight: InFlight[] = [];
      let launched = 0; // groups launched by this process
      let stepsHere = 0; // steps done by this process
      const startStep = state.step;
      let exhausted = false;
      const groupCap = Math.max(1, Math.ceil(engine.concurrency / tc.groupSize));
      const pump = () => {
        while (
          !exhausted &&
          launched < (stepsHere + 1 + staleness) * tc.batchSize &&
          launched < (maxSteps - startStep) * tc.batchSize &&
          inFlight.filter((f) => !f.done).length < Math.max(groupCap, tc.batchSize)
        ) {
          const next = loader.take();
          if (!next) {
            exhausted = true;
            break;
          }
          if (skip(next)) {
            skipped.push(next);
            skipsInARow++;
            continue;
          }
          skipsInARow = 0;
          inFlight.push(runGroup(next, version));
          launched++;
        }
      };

      let stoppedBy: TrainResult["stoppedBy"] = "steps";
      while (state.step < maxSteps) {
        if (this.o.signal?.aborted) {
          stoppedBy = "signal";
          break;
        }
        if (tc.maxSeconds !== undefined && elapsed() >= tc.maxSeconds) {
          stoppedBy = "time";
          break;
        }
        const tStep = performance.now();
        pump();
        // groups that must be in this batch (they would get too stale), then fill oldest first
        const mustWait = inFlight.filter((f) => f.launchVersion <= version - staleness);
        const bar = this.o.progress
          ? setInterval(() => {
              const ready = inFlight.filter((f) => f.done).length;
              const width = 20;
              const filled = Math.min(width, Math.round((ready / tc.batchSize) * width));
              process.stderr.write(
                `\r[${"#".repeat(filled)}${"-".repeat(width - filled)}] step ${state.step + 1}${Number.isFinite(maxSteps) ? `/${maxSteps}` : ""}: ${ready}/${tc.batchSize} groups generated  ${elapsed().toFixed(0)} s\x1b[K`,
              );
            }, 250)
          : undefined;
        const batch: InFlight[] = [];
        try {
          await Promise.all(mustWait.map((f) => f.promise));
          const take = (f: InFlight) => {
            batch.push(f);
            inFlight.splice(inFlight.indexOf(f), 1);
          };
          for (const f of [...mustWait].slice(0, tc.batchSize)) take(f);
          while (batch.length < tc.batchSize && inFlight.length > 0) {
            const ready = inFlight
              .filter((f) => f.done)
              .sort((a, b) => a.launchVersion - b.launchVersion);
            if (ready.length) {
              take(ready[0]!);
              continue;
            }
            await Promise.race(inFlight.map((f) => f.promise));
          }
        } finally {
          if (bar) {
            clearInterval(bar);
            process.stderr.write("\r\x1b[K");
          }
        }
        if (batch.length === 0) {
          stoppedBy = "data";
          break;
        }
        const tGen = performance.now();
        const groups = batch.map((f) => f.result!);
        const episodes = groups.flatMap((g) => g.episodes);
        // Nothing to learn from, and its tasks must not count as trained: stop here (the last
        // checkpoint is intact; --resume after the fix runs these tasks again), once the groups
        // still generating (async mode) have settled.
        const broken = rolloutFailure(episodes, `step ${state.step + 1}`);
        if (broken) {
          await Promise.allSettled(inFlight.map((f) => f.promise));
          throw broken;
        }
        const m = await this.trainStep(
          groups,
          episodes,
          loss,
          version,
          state.step,
          optim,
          maxSteps,
          Number.isFinite(maxSteps) ? undefined : elapsed() / tc.maxSeconds!,
        );
        const saved = await backend.saveForSampler();
        version = saved.weightVersion;
        await gateway.setWeightVersion(version);
        const skippedNow = skipped;
        skipped = [];
        loader.markTrained([
          ...groups.map((g) => g.loaded.ordinal),
          ...skippedNow.map((t) => t.ordinal),
        ]);
        for (const g of groups)
          if (isSettledGroup(g.episodes)) settled.add(g.loaded.task.id);
          else settled.delete(g.loaded.task.id);
        state = { ...state, step: state.step + 1 };
        stepsHere++;
        result.newSteps++;
        appendFileSync(
          consumedPath,
          `${JSON.stringify({
            step: state.step,
            tasks: groups.map((g) => ({ id: g.loaded.task.id, ordinal: g.loaded.ordinal })),
            ...(skippedNow.length
              ? { skipped: skippedNow.map((t) => ({ id: t.task.id, ordinal: t.ordinal })) }
              : {}),
          })}\n`,
        );
        pump(); // the next batch starts generating while we validate and checkpoint
        const stepMetrics: StepMetrics = {
          step: state.step,
          epoch: groups[0]!.loaded.epoch,
          weight_version: version,
          ...m,
          ...(tc.skipSettled > 0
            ? { "data/skipped_settled": skippedNow.length, "data/settled_tasks": settled.size }
            : {}),
          "time/gen_wait_s": (tGen - tStep) / 1000,
          "time/step_s": (performance.now() - tStep) / 1000,
          // the share of the step the trainer sat waiting for generation (0 when fully overlapped)
          "time/trainer_idle_fraction": (tGen - tStep) / Math.max(1e-9, performance.now() - tStep),
          "time/elapsed_s": elapsed(),
        };
        if (tc.valFreq > 0 && state.step % tc.valFreq === 0 && state.step < maxSteps)
          Object.assign(stepMetrics, await validate(state.step));
        await record(state.step, stepMetrics);
        this.log(formatStepLine(stepMetrics));
        this.o.onStep?.(stepMetrics);
        if (tc.saveFreq > 0 && state.step % tc.saveFreq === 0) await save();
      }
      result.stoppedBy = stoppedBy;
      // wait for what is still generating (its tasks stay unconsumed), then the final checkpoint
      await Promise.allSettled(inFlight.map((f) => f.promise));
      if (state.step > 0 && savedStep !== state.step) await save();
      if (this.o.valDataset?.length && result.newSteps > 0) {
        const v = await validate(state.step);
        result.valAfter = v["val/pass@1"];
        await record(state.step, { final: 1, ...v });
        this.log(`step ${state.step} (after training): ${formatVal(v)}`);
      }
    } finally {
      await gateway.close();
    }
    result.steps = state.step;
    result.weightVersion = version;
    result.lastCheckpoint = lastCheckpoint;
    return result;
  }

  /** algorithms → forwardBackward/optimStep; returns the step's metrics. */
  private async trainStep(
    groups: GroupResult[],
    episodes: Episode[],
    loss: LossSpec,
    version: number,
    step: number,
    optim: RllmConfig["optim"],
    maxSteps: number,
    /** Fraction of the time budget spent, for a run bounded only by time. */
    progress: number | undefined,
  ): Promise<StepMetrics> {
    const cfg = this.o.config;
    const backend = this.o.backend;
    const m: StepMetrics = {};
    const scored = episodes.filter((e) => !e.infraFailed);
    m["reward/mean"] = mean(scored.map((e) => e.reward ?? 0));
    m["correct/mean"] = mean(scored.map((e) => (e.isCorrect ? 1 : 0)));
    m["rollout/errors"] = groups.reduce((a, g) => a + g.errors, 0);
    const t0 = performance.now();
    const pipe = episodesToDatums(episodes, { ...cfg.algorithm, loss });
    Object.assign(m, pipe.metrics);
    const datums = pipe.datums;
    const staleness = datums.map((d) => version - d.weightVersion);
    m["staleness/mean"] = mean(staleness);
    m["staleness/max"] = staleness.length ? Math.max(...staleness) : 0;
    m["staleness/launch_max"] = Math.max(...groups.map((g) => version - g.launchVersion));
    const lr = learningRate(
      {
        lr: optim.lr ?? RL_DEFAULT_LR,
        warmupSteps: optim.warmupSteps,
        totalSteps: maxSteps,
        decay: optim.schedule,
        minRatio: optim.minLrRatio,
      },
      step,
      progress,
    );
    m.lr = lr;
    if (datums.length === 0) {
      m.loss = 0;
      m["train/skipped"] = 1;
      m["time/train_s"] = (performance.now() - t0) / 1000;
      return m;
    }
    const k = Math.min(cfg.trainer.miniBatches, datums.length);
    // several optimizer steps per batch need log π_old from before the first of them
    const proximal: "current" | number[][] | undefined =
      k > 1
        ? await backend.computeLogprobs(datums)
        : this.o.config.trainer.async
          ? "current"
          : undefined;
    const order = seededPermutation(datums.length, (this.o.config.trainer.seed * 31 + step) >>> 0);
    let lossSum = 0;
    const sums: Record<string, number> = {};
    let tokens = 0;
    let gradNorm = 0;
    for (let b = 0; b < k; b++) {
      const idx = order.filter((_, i) => i % k === b);
      const mb: Datum[] = idx.map((i) => datums[i]!);
      const prox = Array.isArray(proximal) ? idx.map((i) => proximal[i]!) : proximal;
      const fb = await backend.forwardBackward(mb, loss, prox ? { proximal: prox } : undefined);
      const os = await backend.optimStep({
        lr,
        beta1: optim.beta1,
        beta2: optim.beta2,
        eps: optim.eps,
        weightDecay: optim.weightDecay,
        maxGradNorm: optim.maxGradNorm,
      });
      gradNorm = Math.max(gradNorm, os.gradNorm);
      lossSum += fb.loss;
      const n = fb.metrics["loss/tokens"] ?? 0;
      tokens += n;
      for (const [key, v] of Object.entries(fb.metrics)) {
        if (key === "logprob_diff/max_abs") sums[key] = Math.max(sums[key] ?? 0, v);
        else if (key === "loss/tokens" || key === "loss/rows") sums[key] = (sums[key] ?? 0) + v;
        else sums[key] = (sums[key] ?? 0) + v * n;
      }
    }
    for (const [key, v] of Object.entries(sums))
      m[key] =
        key === "logprob_diff/max_abs" || key === "loss/tokens" || key === "loss/rows"
          ? v
          : tokens
            ? v / tokens
            : 0;
    m.loss = lossSum / k;
    m.entropy = m["loss/entropy_mean"] ?? 0;
    m.kl = m["loss/kl_mean"] ?? 0;
    m.clip_fraction = m["loss/clip_fraction"] ?? 0;
    m["optim/grad_norm"] = gradNorm;
    const secs = (performance.now() - t0) / 1000;
    m["time/train_s"] = secs;
    const rowTokens = datums.reduce((a, d) => a + d.tokens.length, 0);
    m["train/tokens_per_s"] = rowTokens / secs;
    return m;
  }
}

function formatVal(v: StepMetrics): string {
  return Object.entries(v)
    .filter(([k]) => k.startsWith("val/pass@"))
    .map(([k, x]) => `${k.slice(4)} ${(x * 100).toFixed(1)}%`)
    .join("  ");
}

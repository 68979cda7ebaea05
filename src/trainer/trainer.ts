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
 * Generation and training overlap in one scheme (producer.ts): groups are launched while
 *
 *     groups launched < (steps done + 1 + staleness) × batchSize
 *
 * and a step waits for every group launched at a weight version ≤ current − staleness before it
 * takes more (oldest launch first), so no group is trained more than `staleness` versions after
 * the weights it was sampled with. Synchronous (on-policy) training is staleness 0: a batch is
 * launched, trained, and only then is the next launched. `async` uses the configured staleness
 * and turns on truncated importance sampling (tisCap 2, log π_old from the trainer's current
 * weights) unless the loss sets its own. `engine.concurrency`, where set, caps the rollouts
 * generating at once (see groupConcurrency).
 *
 * The run's files (metrics, consumed tasks, validation, checkpoints) are laid out in run-dir.ts;
 * metrics also go to every MetricsSink (store/metrics.ts).
 */
import { join, resolve } from "node:path";
import { type LossSpec, LossSpecSchema } from "../algorithms/loss.js";
import { episodesToDatums } from "../algorithms/pipeline.js";
import { learningRate } from "../algorithms/schedule.js";
import { checkLossSupported, type TrainingBackend } from "../backends/spi.js";
import type { RllmConfig } from "../config/index.js";
import { DEFAULT_CONCURRENCY, runRollouts } from "../engine/engine.js";
import { InProcessGateway, type InProcessGatewaySettings } from "../engine/gateway.js";
import { miniBatchSeed, mulberry32, seededPermutation, visitSeed } from "../random.js";
import type { Evaluator, Rollout } from "../sdk/index.js";
import { type MetricsSink, StoreMetricsSink } from "../store/metrics.js";
import { Store } from "../store/sqlite.js";
import type { Datum, Episode, Task } from "../types/index.js";
import { TaskLoader } from "./loader.js";
import { formatStepHeader, formatStepLine, formatValidation, startProgressBar } from "./metrics.js";
import { type Group, GroupProducer, rolloutFailure, SettledTasks } from "./producer.js";
import { rejectionSample } from "./rejection.js";
import { RunDir } from "./run-dir.js";
import { STEP_BACKEND_DIR, TRAINER_STATE_FORMAT, type TrainerState } from "./state.js";
import { Validation } from "./validation.js";

export type StepMetrics = Record<string, number>;

/**
 * The config sections the trainer reads. `engine.concurrency` caps the rollouts generating at once
 * (training groups and validation alike) where it is set; left unset (undefined), training keeps
 * at least one batch generating (and the staleness look-ahead), as many groups as 64 rollouts
 * allow beyond that, and validation runs 64 rollouts at once.
 */
export type AgentTrainerConfig = Pick<RllmConfig, "trainer" | "algorithm" | "optim"> & {
  engine: Omit<RllmConfig["engine"], "concurrency"> & { concurrency?: number };
};

/**
 * Training groups generating at once, and rollouts at once within a group: with engine.concurrency
 * c set, ⌊c / groupSize⌋ whole groups (one group of c when c < groupSize), so never more than c
 * rollouts; unset, at least a batch (see AgentTrainerConfig).
 */
function groupConcurrency(
  concurrency: number | undefined,
  groupSize: number,
  batchSize: number,
): { groups: number; rolloutsPerGroup: number } {
  if (concurrency === undefined)
    return {
      groups: Math.max(1, Math.ceil(DEFAULT_CONCURRENCY / groupSize), batchSize),
      rolloutsPerGroup: groupSize,
    };
  return {
    groups: Math.max(1, Math.floor(concurrency / groupSize)),
    rolloutsPerGroup: Math.min(groupSize, concurrency),
  };
}

export interface AgentTrainerOptions {
  rollout: Rollout;
  evaluator: Evaluator<Episode>;
  trainDataset: Task[];
  valDataset?: Task[];
  backend: TrainingBackend;
  config: AgentTrainerConfig;
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
  /**
   * More places each step's metrics go (a W&B or TensorBoard logger, a test), besides the two a run
   * always writes: the run directory's metrics.jsonl and the run's store (traces.db), which the
   * dashboard reads.
   */
  metricsSinks?: MetricsSink[];
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

const TIS_CAP_DEFAULT = 2;

/** The learning rate of rllm train when none is configured (tuned on the local countdown recipe). */
export const RL_DEFAULT_LR = 1e-4;

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
    const { trainer: tc, algorithm } = this.o.config;
    const backend = this.o.backend;
    const output = this.o.output ?? tc.output;
    if (!output) throw new Error("AgentTrainer needs an output directory (config.trainer.output)");
    if (tc.async && algorithm.rejectionSampling.enabled)
      throw new Error(
        "algorithm.rejectionSampling draws more groups at the current weights while a step waits, which only on-policy training does: set trainer.async to false, or algorithm.rejectionSampling.enabled to false",
      );
    const loss = this.loss();
    // a loss the backend cannot compute is refused before anything runs, never silently changed
    checkLossSupported(backend.name, backend.capabilities, loss);
    const run = RunDir.open(output);
    let state = await this.startOrResume(run);
    run.writeConfig(this.o.config);

    // a time budget without an epoch count runs as many epochs as fit in it
    const epochs = tc.epochs ?? (tc.maxSeconds !== undefined ? Number.POSITIVE_INFINITY : 1);
    const loader = new TaskLoader(this.o.trainDataset, tc.seed, epochs, state.loader);
    const perEpoch = Math.ceil(this.o.trainDataset.length / tc.batchSize);
    // (maxSteps is open only under a time budget: a decaying lr then follows the time spent)
    const maxSteps =
      tc.maxSteps ?? (Number.isFinite(epochs) ? perEpoch * epochs : Number.POSITIVE_INFINITY);
    const { gateway, store, model, weightVersion } = await this.startGateway(run);
    let version = weightVersion;
    const record = await this.openMetrics(run, store, state.step);
    const settled = new SettledTasks(
      tc.skipSettled,
      this.o.trainDataset.length,
      (ordinal) => mulberry32(visitSeed(tc.seed, ordinal))(),
      state.settled,
    );
    const producer = this.groupProducer({
      loader,
      settled,
      gateway,
      model,
      maxGroups: (maxSteps - state.step) * tc.batchSize,
    });
    const validation = new Validation({
      tasks: this.o.valDataset ?? [],
      attempts: tc.valAttempts,
      gateway,
      rollout: this.o.rollout,
      evaluator: this.o.evaluator,
      model,
      samplingParams: tc.valSamplingParams,
      // every validation draws the same numbers per (task, attempt): the curve moves with the model
      seed: tc.seed,
      engine: this.o.config.engine,
      runDir: run,
    });

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
      const ids = settled.state();
      state = {
        ...state,
        weightVersion: version,
        loader: producer.loaderState(),
        elapsedSeconds: elapsed(),
        savedAt: new Date().toISOString(),
        ...(ids ? { settled: ids } : {}),
      };
      lastCheckpoint = await run.saveCheckpoint(state, (dir) => backend.save(dir));
      savedStep = state.step;
    };

    try {
      if (state.step === 0 && tc.valBeforeTrain && validation.enabled) {
        const v = await validation.run(0, version);
        result.valBefore = v["val/pass@1"];
        await record(0, v);
        this.log(`step 0 (before training): ${formatValidation(v)}`);
      }
      this.log(formatStepHeader());

      while (state.step < maxSteps) {
        if (this.o.signal?.aborted) {
          result.stoppedBy = "signal";
          break;
        }
        if (tc.maxSeconds !== undefined && elapsed() >= tc.maxSeconds) {
          result.stoppedBy = "time";
          break;
        }
        const tStep = performance.now();
        const progressLine = () =>
          `step ${state.step + 1}${Number.isFinite(maxSteps) ? `/${maxSteps}` : ""}: ${producer.ready}/${tc.batchSize} groups generated  ${elapsed().toFixed(0)} s`;
        const batch = await this.generateBatch(producer, version, state.step + 1, progressLine);
        if (!batch) {
          result.stoppedBy = "data";
          break;
        }
        const tGen = performance.now();
        const progress = Number.isFinite(maxSteps) ? undefined : elapsed() / tc.maxSeconds!;
        const m = await this.trainStep(
          batch.trained,
          loss,
          version,
          state.step,
          maxSteps,
          progress,
        );
        version = (await backend.saveForSampler()).weightVersion;
        // a sampler may serve each version under its own name (a LoRA adapter per version)
        await gateway.setWeightVersion(version, (await backend.sampler()).model);
        const { skipped } = producer.commit(batch.trained, batch.rejected);
        state = { ...state, step: state.step + 1 };
        result.newSteps++;
        run.recordConsumed(
          state.step,
          batch.trained.map((g) => g.loaded),
          { skipped, rejected: batch.rejected.map((g) => g.loaded) },
        );
        producer.fill(version); // the next batch starts generating while we validate and checkpoint
        const stepMetrics: StepMetrics = {
          step: state.step,
          epoch: batch.epoch,
          weight_version: version,
          ...m,
          ...batch.metrics,
          ...(tc.skipSettled > 0
            ? { "data/skipped_settled": skipped.length, "data/settled_tasks": settled.settled.size }
            : {}),
          "time/gen_wait_s": (tGen - tStep) / 1000,
          "time/step_s": (performance.now() - tStep) / 1000,
          // the share of the step the trainer sat waiting for generation (0 when fully overlapped)
          "time/trainer_idle_fraction": (tGen - tStep) / Math.max(1e-9, performance.now() - tStep),
          "time/elapsed_s": elapsed(),
        };
        if (tc.valFreq > 0 && state.step % tc.valFreq === 0 && state.step < maxSteps)
          Object.assign(stepMetrics, await validation.run(state.step, version));
        await record(state.step, stepMetrics);
        this.log(formatStepLine(stepMetrics));
        this.o.onStep?.(stepMetrics);
        if (tc.saveFreq > 0 && state.step % tc.saveFreq === 0) await save();
      }
      // wait for what is still generating (its tasks stay unconsumed), then the final checkpoint
      await producer.drain();
      if (state.step > 0 && savedStep !== state.step) await save();
      if (validation.enabled && result.newSteps > 0) {
        const v = await validation.run(state.step, version);
        result.valAfter = v["val/pass@1"];
        await record(state.step, { final: 1, ...v });
        this.log(`step ${state.step} (after training): ${formatValidation(v)}`);
      }
    } finally {
      await gateway.close();
      store.close();
    }
    result.steps = state.step;
    result.weightVersion = version;
    result.lastCheckpoint = lastCheckpoint;
    return result;
  }

  /**
   * The gateway the rollouts go through, in process, in front of the backend's sampler, with the
   * run's store (traces.db: the traces, and the metrics for the dashboard).
   */
  private async startGateway(run: RunDir) {
    const sampler = await this.o.backend.sampler();
    const tc = this.o.config.trainer;
    const staleness = tc.async ? tc.staleness : 0;
    if (sampler.keepVersions !== undefined && staleness + 1 > sampler.keepVersions)
      throw new Error(
        `trainer.staleness ${staleness} lets groups sample with weights up to ${staleness} versions old, so ${staleness + 1} versions must stay loaded on the samplers, and they keep ${sampler.keepVersions} (backend.sampler.keepVersions): raise backend.sampler.keepVersions to ${staleness + 1}, or lower trainer.staleness`,
      );
    const upstreams = sampler.upstreams ?? [
      { url: sampler.baseURL, kind: sampler.kind, model: sampler.model },
    ];
    const store = new Store({
      path: run.tracesPath,
      synchronous: this.o.gateway?.storeSynchronous ?? "normal",
    });
    const gateway = await InProcessGateway.start(
      {
        healthCheckIntervalMs: 0,
        ...this.o.gateway?.config,
        upstreams,
        model: sampler.model,
        ...(sampler.tokenizer ? { tokenizer: sampler.tokenizer } : {}),
      },
      { store },
    ).catch((e: unknown) => {
      store.close();
      throw e;
    });
    await gateway.setWeightVersion(sampler.weightVersion, sampler.model);
    return { gateway, store, model: sampler.model, weightVersion: sampler.weightVersion };
  }

  /**
   * Tells every metrics sink of the run, cut back to `step` (the one it starts from); returns
   * the function that writes one step's metrics to all of them.
   */
  private async openMetrics(
    run: RunDir,
    store: Store,
    step: number,
  ): Promise<(step: number, metrics: StepMetrics) => Promise<void>> {
    const sinks: MetricsSink[] = [
      run.metricsSink(),
      new StoreMetricsSink(store),
      ...(this.o.metricsSinks ?? []),
    ];
    const info = {
      id: `train:${resolve(run.path)}`,
      kind: "train",
      config: this.o.config,
      startedAt: Date.now(),
    } as const;
    for (const sink of sinks) {
      await sink.runStarted?.(info);
      await sink.truncateAfter(step);
    }
    return async (s, m) => {
      for (const sink of sinks) await sink.write(s, m);
    };
  }

  /** The producer of training groups: each one task × groupSize rollouts through the gateway. */
  private groupProducer(o: {
    loader: TaskLoader;
    settled: SettledTasks;
    gateway: InProcessGateway;
    model: string;
    maxGroups: number;
  }): GroupProducer {
    const { trainer: tc, engine } = this.o.config;
    const inFlight = groupConcurrency(engine.concurrency, tc.groupSize, tc.batchSize);
    return new GroupProducer({
      loader: o.loader,
      batchSize: tc.batchSize,
      staleness: tc.async ? tc.staleness : 0,
      maxGroups: o.maxGroups,
      maxInFlight: inFlight.groups,
      settled: o.settled,
      generate: async (loaded, launchVersion) => {
        const r = await runRollouts([loaded.task], {
          gateway: o.gateway,
          rollout: this.o.rollout,
          evaluator: this.o.evaluator,
          groupSize: tc.groupSize,
          concurrency: inFlight.rolloutsPerGroup,
          timeoutMs: engine.timeoutSeconds * 1000,
          infraRetries: engine.infraRetries,
          model: o.model,
          samplingParams: tc.samplingParams,
          // a task's visit samples apart from its other visits: a rerun repeats it
          seed: visitSeed(tc.seed, loaded.ordinal),
          runId: `train-${loaded.ordinal}-v${launchVersion}`,
        });
        const errors = r.metrics.errors + r.metrics.timeouts + r.metrics.infraFailed;
        return { loaded, launchVersion, episodes: r.episodes, errors };
      },
    });
  }

  /**
   * Step `step`'s groups at weight version `version`: the producer's next batch, less what
   * rejection sampling rejected and plus what it drew instead; undefined when the data is used
   * up. Throws when every rollout of the batch failed (nothing to learn from, and its tasks must
   * not count as trained: the last checkpoint is intact, and --resume after the fix runs them
   * again), once the groups still generating (async mode) have settled.
   */
  private async generateBatch(
    producer: GroupProducer,
    version: number,
    step: number,
    progressLine: () => string,
  ): Promise<
    | { trained: Group[]; rejected: Group[]; epoch: number; metrics: Record<string, number> }
    | undefined
  > {
    const { trainer: tc, algorithm } = this.o.config;
    producer.fill(version);
    const stopBar = this.o.progress
      ? startProgressBar(() => ({
          ready: producer.ready,
          total: tc.batchSize,
          text: progressLine(),
        }))
      : undefined;
    let groups: Group[];
    try {
      groups = await producer.nextBatch(version);
    } finally {
      stopBar?.();
    }
    if (groups.length === 0) return undefined;
    const broken = rolloutFailure(
      groups.flatMap((g) => g.episodes),
      `step ${step}`,
    );
    if (broken) {
      await producer.drain();
      throw broken;
    }
    const epoch = groups[0]!.loaded.epoch;
    if (!algorithm.rejectionSampling.enabled)
      return { trained: groups, rejected: [], epoch, metrics: {} };
    const r = await rejectionSample(groups, (n) => producer.draw(n, version), {
      ...algorithm.rejectionSampling,
      targetGroups: tc.batchSize,
    });
    return { ...r, epoch };
  }

  /**
   * The state to start from: the run's latest checkpoint (its weights loaded into the backend, the
   * consumed tasks cut back to its step) under trainer.resume, else step 0 in a fresh directory.
   */
  private async startOrResume(run: RunDir): Promise<TrainerState> {
    const tc = this.o.config.trainer;
    const fresh: TrainerState = {
      format: TRAINER_STATE_FORMAT,
      version: 1,
      step: 0,
      weightVersion: (await this.o.backend.sampler()).weightVersion,
      loader: { frontier: 0, beyond: [] },
      seed: tc.seed,
      elapsedSeconds: 0,
      savedAt: new Date().toISOString(),
    };
    const latest = tc.resume ? run.latest() : undefined;
    if (tc.resume && !latest)
      this.log(`resume: ${run.path} has no checkpoint yet; starting from step 0`);
    if (!tc.resume && run.latest())
      throw new Error(
        `${run.path} already holds a run with checkpoints; pass --resume to continue it or another --output`,
      );
    if (!latest) {
      run.truncateConsumed(0);
      return fresh;
    }
    await this.o.backend.load(join(latest.dir, STEP_BACKEND_DIR));
    const { state } = latest;
    run.truncateConsumed(state.step);
    this.log(
      `resume: step ${state.step} from ${latest.dir} (weight version ${state.weightVersion}, ${state.loader.frontier} tasks consumed)`,
    );
    return state;
  }

  /** algorithms → forwardBackward/optimStep; returns the step's metrics. */
  private async trainStep(
    groups: Group[],
    loss: LossSpec,
    version: number,
    step: number,
    maxSteps: number,
    /** Fraction of the time budget spent, for a run bounded only by time. */
    progress: number | undefined,
  ): Promise<StepMetrics> {
    const cfg = this.o.config;
    const optim = cfg.optim;
    const backend = this.o.backend;
    const m: StepMetrics = {};
    const episodes = groups.flatMap((g) => g.episodes);
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
    m["staleness/launch_max"] = groups.length
      ? Math.max(...groups.map((g) => version - g.launchVersion))
      : 0; // (rejection sampling accepted none)
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
    const order = seededPermutation(datums.length, miniBatchSeed(this.o.config.trainer.seed, step));
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

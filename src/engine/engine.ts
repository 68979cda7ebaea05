/**
 * The rollout engine: runs every task × groupSize attempt through the user's agent, many at a time,
 * and turns each into a scored Episode.
 *
 * Per rollout: create a gateway session → run the agent with the session's URL and token → read the
 * session's traces → build the Episode (steps joined to traces by id) → evaluate → record.
 *
 * Failure classes, kept apart because training must treat them differently:
 * - infrastructure (the gateway or upstream failed, a connection was lost): retried up to
 *   `infraRetries` times with a fresh session; if it still fails the episode is `infraFailed` —
 *   excluded from scores and training, counted in metrics, never a silent zero;
 * - the evaluator failed for the infrastructure's reasons (an `InfrastructureError` — an LLM judge
 *   unreachable or never giving a parsable verdict — or any error `isInfraError` recognises): the
 *   episode is `infraFailed` with no reward and error "evaluator: ...", and it is NOT retried:
 *   re-running the agent would not mend the judge, which already retried its own calls (any other
 *   evaluator error is termination `error`, reward 0, as a failed task);
 * - the agent threw: termination `error` (reward 0: the agent failed the task);
 * - the agent ran past `timeoutMs`: termination `timeout` (what it did so far is still evaluated).
 *
 * Cancellation: aborting `signal` stops new rollouts; running ones finish or time out and every
 * result so far is kept. Aborting `hardSignal` also aborts the running ones.
 */
import { randomBytes } from "node:crypto";
import { setMaxListeners } from "node:events";
import { rolloutSeed } from "../random.js";
import type { Evaluator, NormalizedResult, Rollout, RolloutConfig } from "../sdk/index.js";
import {
  type Episode,
  InfrastructureError,
  type SamplingParams,
  type Task,
  type TraceRecord,
  type Trajectory,
} from "../types/index.js";
import {
  buildTrajectories,
  TraceJoinError,
  terminationOf,
  tokenCounts,
  tracesShowInfraFailure,
} from "./episode.js";
import { type GatewayHandle, GatewayUnavailableError } from "./gateway.js";
import type { Progress } from "./progress.js";

export interface EngineOptions {
  gateway: GatewayHandle;
  rollout: Rollout;
  evaluator?: Evaluator<Episode> | undefined;
  /** Attempts per task (the GRPO group size, or K for pass@K). */
  groupSize?: number;
  /** Rollouts at once (default DEFAULT_CONCURRENCY). */
  concurrency?: number;
  /**
   * Per-rollout limit of the agent (ms). The evaluator runs after it and is not cut by it (a
   * timed-out agent's work is still evaluated): graders bound their own work (the LLM judge:
   * judge.timeoutSeconds per call, judge.retries).
   */
  timeoutMs?: number;
  /** How often an infrastructure failure is retried with a fresh session. */
  infraRetries?: number;
  model: string;
  samplingParams?: SamplingParams;
  /**
   * Seeds the sampling per rollout: attempt `a` at task `t` samples with
   * `seed = rolloutSeed(seed, t.id, a)` (on top of `samplingParams`), so a run repeats its samples
   * where the model server honours `seed` (the local backend, vLLM, SGLang), and two models
   * evaluated with one seed are compared on common random draws. Retries keep the seed.
   */
  seed?: number;
  isValidation?: boolean;
  /** Prefix of session and episode ids; random by default. */
  runId?: string;
  metadata?: Record<string, unknown>;
  signal?: AbortSignal;
  hardSignal?: AbortSignal;
  onEpisode?: (episode: Episode) => void | Promise<void>;
  progress?: Progress;
  /** Keep gateway sessions after their traces were read (default: delete them; traces stay). */
  keepSessions?: boolean;
}

export interface EngineMetrics {
  rollouts: number;
  completed: number;
  infraFailed: number;
  errors: number;
  timeouts: number;
  retries: number;
  /** Rollouts never started because the run was cancelled. */
  skipped: number;
  meanReward: number | null;
  wallMs: number;
  rolloutsPerSecond: number;
  meanTimings: { setupMs: number; agentMs: number; tracesMs: number; evaluatorMs: number };
  tokens: { prompt: number; completion: number };
  /** Steps whose prompt did not extend the previous turn's tokens (episode.ts marks them). */
  prefixBreaks: number;
}

export interface EngineResult {
  episodes: Episode[];
  cancelled: boolean;
  metrics: EngineMetrics;
}

interface Work {
  task: Task;
  attempt: number;
}

/** An error that says the infrastructure, not the agent, failed. */
export function isInfraError(err: unknown): boolean {
  for (let e: unknown = err, i = 0; e instanceof Error && i < 4; i++) {
    if (e instanceof GatewayUnavailableError || e instanceof InfrastructureError) return true;
    const name = e.name;
    if (name === "APIConnectionError" || name === "APIConnectionTimeoutError") return true;
    const status = (e as { status?: unknown }).status;
    if (status === 502 || status === 503 || status === 504) return true;
    const code = (e as { code?: unknown }).code;
    if (
      typeof code === "string" &&
      /^(ECONNREFUSED|ECONNRESET|EPIPE|UND_ERR_SOCKET|UND_ERR_CONNECT_TIMEOUT)$/.test(code)
    ) {
      return true;
    }
    if (e instanceof TypeError && e.message === "fetch failed") return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** Rollouts at once when the caller does not say (`engine.concurrency` unset in rllm eval). */
export const DEFAULT_CONCURRENCY = 64;

export async function runRollouts(tasks: Task[], options: EngineOptions): Promise<EngineResult> {
  const groupSize = options.groupSize ?? 1;
  const concurrency = Math.max(1, options.concurrency ?? DEFAULT_CONCURRENCY);
  const runId = options.runId ?? `run-${randomBytes(4).toString("hex")}`;
  const work: Work[] = [];
  for (const task of tasks) for (let a = 0; a < groupSize; a++) work.push({ task, attempt: a });

  // Every running rollout listens on the run's signals; that many listeners is expected, not a leak.
  for (const s of [options.signal, options.hardSignal]) if (s) setMaxListeners(concurrency + 16, s);
  const started = Date.now();
  const episodes: Episode[] = [];
  const metrics: EngineMetrics = {
    rollouts: work.length,
    completed: 0,
    infraFailed: 0,
    errors: 0,
    timeouts: 0,
    retries: 0,
    skipped: 0,
    meanReward: null,
    wallMs: 0,
    rolloutsPerSecond: 0,
    meanTimings: { setupMs: 0, agentMs: 0, tracesMs: 0, evaluatorMs: 0 },
    tokens: { prompt: 0, completion: 0 },
    prefixBreaks: 0,
  };
  let rewardSum = 0;
  let rewardN = 0;
  options.progress?.start(work.length);

  let next = 0;
  const worker = async () => {
    for (;;) {
      if (options.signal?.aborted || options.hardSignal?.aborted) return;
      const w = work[next++];
      if (!w) return;
      const ep = await runOne(w, runId, options, metrics);
      episodes.push(ep);
      metrics.completed++;
      if (ep.infraFailed) metrics.infraFailed++;
      else if (ep.terminationReason === "error") metrics.errors++;
      else if (ep.terminationReason === "timeout") metrics.timeouts++;
      if (!ep.infraFailed && typeof ep.reward === "number") {
        rewardSum += ep.reward;
        rewardN++;
      }
      const m = ep.metrics ?? {};
      for (const k of ["setupMs", "agentMs", "tracesMs", "evaluatorMs"] as const) {
        metrics.meanTimings[k] += m[k] ?? 0;
      }
      metrics.tokens.prompt += m.promptTokens ?? 0;
      metrics.tokens.completion += m.completionTokens ?? 0;
      metrics.prefixBreaks += m.prefixBreaks ?? 0;
      options.progress?.update({
        done: metrics.completed,
        meanReward: rewardN ? rewardSum / rewardN : null,
        errors: metrics.errors + metrics.infraFailed + metrics.timeouts,
      });
      await options.onEpisode?.(ep);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, work.length) }, worker));

  metrics.skipped = work.length - metrics.completed;
  metrics.wallMs = Date.now() - started;
  metrics.rolloutsPerSecond = metrics.completed / Math.max(metrics.wallMs / 1000, 1e-9);
  metrics.meanReward = rewardN ? rewardSum / rewardN : null;
  for (const k of ["setupMs", "agentMs", "tracesMs", "evaluatorMs"] as const) {
    metrics.meanTimings[k] = metrics.completed ? metrics.meanTimings[k] / metrics.completed : 0;
  }
  options.progress?.finish();
  // Episodes in task order, then attempt, whatever order they finished in.
  const order = new Map(tasks.map((t, i) => [t.id, i]));
  episodes.sort((a, b) => order.get(a.taskId)! - order.get(b.taskId)! || a.attempt - b.attempt);
  return {
    episodes,
    cancelled:
      Boolean(options.signal?.aborted || options.hardSignal?.aborted) && metrics.skipped > 0,
    metrics,
  };
}

/** Infra-failed episodes that a retry would not mend (the evaluator's infrastructure failed). */
const notRetried = new WeakSet<Episode>();

async function runOne(
  w: Work,
  runId: string,
  options: EngineOptions,
  metrics: EngineMetrics,
): Promise<Episode> {
  const retries = options.infraRetries ?? 2;
  for (let retry = 0; ; retry++) {
    const out = await attemptOnce(w, runId, retry, options);
    if (!out.infraFailed || notRetried.has(out) || retry >= retries || options.hardSignal?.aborted)
      return out;
    metrics.retries++;
  }
}

/** The sampling seed of one rollout (src/random.ts); exported here too, where the engine uses it. */
export { rolloutSeed };

const SAFE_ID = /[^A-Za-z0-9._~:/@+=-]/g;

async function attemptOnce(
  w: Work,
  runId: string,
  retry: number,
  options: EngineOptions,
): Promise<Episode> {
  const { task, attempt } = w;
  const samplingParams =
    options.seed === undefined
      ? options.samplingParams
      : { ...options.samplingParams, seed: rolloutSeed(options.seed, task.id, attempt) };
  const safeTask =
    task.id
      .replace(SAFE_ID, "_")
      .replace(/\/+/g, "/")
      .replace(/^\/|\/$/g, "") || "task";
  const sessionId = `${runId}/${safeTask}/${attempt}${retry ? `/retry${retry}` : ""}`;
  const episode: Episode = {
    id: `${runId}/${safeTask}/${attempt}`,
    taskId: task.id,
    task,
    attempt,
    sessionId,
    trajectories: [],
    reward: null,
    terminationReason: "unknown",
    infraFailed: false,
    error: null,
    metrics: {},
  };
  const timings = { setupMs: 0, agentMs: 0, tracesMs: 0, evaluatorMs: 0 };
  // The agent's own counters; the engine's keys win over a counter of the same name.
  let agentMetrics: Record<string, number> = {};
  const finish = (patch: Partial<Episode>): Episode => {
    const ep: Episode = { ...episode, ...patch };
    ep.metrics = {
      ...agentMetrics,
      ...timings,
      ...tokenCounts(ep.trajectories),
      ...(retry ? { retries: retry } : {}),
    };
    return ep;
  };

  // 1. a session
  let t = performance.now();
  let session: { id: string; url: string; token: string };
  try {
    session = await options.gateway.createSession({
      id: sessionId,
      metadata: { taskId: task.id, attempt, runId, ...(options.metadata ?? {}) },
      ...(samplingParams ? { samplingParams } : {}),
    });
  } catch (err) {
    timings.setupMs = performance.now() - t;
    return finish({
      infraFailed: true,
      error: `could not create a gateway session: ${(err as Error).message}`,
    });
  }
  timings.setupMs = performance.now() - t;

  // 2. the agent, under a timeout and the hard-cancel signal
  const controller = new AbortController();
  let timedOut = false;
  const timeoutMs = options.timeoutMs ?? 600_000;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error(`rollout timed out after ${timeoutMs} ms`));
  }, timeoutMs);
  const onHard = () => controller.abort(new Error("the run was cancelled"));
  options.hardSignal?.addEventListener("abort", onHard, { once: true });
  const config: RolloutConfig = {
    baseURL: `${session.url}/v1`,
    sessionURL: session.url,
    apiKey: session.token,
    model: options.model,
    sessionId: session.id,
    samplingParams: samplingParams ?? {},
    isValidation: options.isValidation ?? false,
    metadata: { ...(options.metadata ?? {}), attempt },
    signal: controller.signal,
  };
  t = performance.now();
  let result: NormalizedResult | undefined;
  let agentError: unknown;
  try {
    result = await Promise.race([
      options.rollout.run(task, config),
      new Promise<never>((_, reject) => {
        if (controller.signal.aborted) reject(controller.signal.reason);
        controller.signal.addEventListener("abort", () => reject(controller.signal.reason), {
          once: true,
        });
      }),
    ]);
  } catch (err) {
    agentError = err;
  } finally {
    clearTimeout(timer);
    options.hardSignal?.removeEventListener("abort", onHard);
  }
  timings.agentMs = performance.now() - t;

  // 3. the traces
  t = performance.now();
  let traces: TraceRecord[];
  try {
    traces = await options.gateway.traces(session.id);
  } catch (err) {
    timings.tracesMs = performance.now() - t;
    return finish({
      infraFailed: true,
      error: `could not read the session's traces: ${(err as Error).message}`,
    });
  } finally {
    if (!options.keepSessions) await options.gateway.deleteSession(session.id).catch(() => {});
  }
  timings.tracesMs = performance.now() - t;

  // 4. the episode
  if (agentError !== undefined && !timedOut) {
    const infraTrace = tracesShowInfraFailure(traces);
    const message = agentError instanceof Error ? agentError.message : String(agentError);
    if (!options.hardSignal?.aborted && (isInfraError(agentError) || infraTrace)) {
      return finish({
        infraFailed: true,
        error: infraTrace ? `${message} (gateway: ${infraTrace.error})` : message,
        trajectories: safeTrajectories({ kind: "traces" }, traces, options.rollout.name),
      });
    }
    return finish({
      terminationReason: "error",
      error: message,
      reward: 0,
      isCorrect: false,
      trajectories: safeTrajectories({ kind: "traces" }, traces, options.rollout.name),
    });
  }
  let trajectories: Trajectory[];
  try {
    trajectories = buildTrajectories(result ?? { kind: "traces" }, traces, options.rollout.name);
  } catch (err) {
    if (!(err instanceof TraceJoinError)) throw err;
    return finish({ terminationReason: "error", error: err.message, reward: 0, isCorrect: false });
  }
  const extra = result?.kind === "trajectories" ? result : undefined;
  agentMetrics = extra?.metrics ?? {};
  const ended: Partial<Episode> = {
    trajectories,
    terminationReason: timedOut
      ? "timeout"
      : (extra?.terminationReason ?? terminationOf(trajectories, traces)),
    ...(timedOut ? { error: `rollout timed out after ${timeoutMs} ms` } : {}),
    ...(extra?.info ? { info: extra.info } : {}),
  };

  // 5. the score: the agent's own, else the evaluator's
  t = performance.now();
  let scored: Partial<Episode> = {};
  if (extra?.reward != null) {
    scored = { reward: extra.reward, isCorrect: extra.isCorrect ?? extra.reward > 0 };
  }
  if (options.evaluator) {
    try {
      const out = await options.evaluator.evaluate(task, finish(ended));
      scored = {
        reward: out.reward,
        isCorrect: out.isCorrect,
        ...(out.signals || out.metadata
          ? {
              info: {
                ...(ended.info ?? {}),
                eval: { signals: out.signals, metadata: out.metadata },
              },
            }
          : {}),
      };
    } catch (err) {
      timings.evaluatorMs = performance.now() - t;
      if (isInfraError(err)) {
        const ep = finish({
          ...ended,
          infraFailed: true,
          reward: null,
          error: `evaluator: ${(err as Error).message}`,
        });
        notRetried.add(ep);
        return ep;
      }
      return finish({
        ...ended,
        terminationReason: "error",
        error: `evaluator failed: ${(err as Error).message}`,
        reward: 0,
        isCorrect: false,
      });
    }
  }
  timings.evaluatorMs = performance.now() - t;
  const ep = finish({ ...ended, ...scored });
  // Trajectories without their own reward carry the episode's.
  if (typeof ep.reward === "number") {
    ep.trajectories = ep.trajectories.map((tr) =>
      tr.reward == null ? { ...tr, reward: ep.reward } : tr,
    );
  }
  return ep;
}

function safeTrajectories(result: NormalizedResult, traces: TraceRecord[], name: string) {
  try {
    return buildTrajectories(result, traces, name);
  } catch {
    return [];
  }
}

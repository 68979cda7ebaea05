/**
 * `rollout()` and `evaluator()`: how a user's agent and scoring function enter rllm. The agent is
 * ordinary code that talks to an OpenAI- or Anthropic-compatible endpoint; the engine hands it a
 * gateway session (base URL + token) and gets back either nothing (the gateway's traces are the
 * trajectory) or its own Episode/Trajectory, joined to the traces by trace id.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import {
  type EpisodeInput,
  type EvalOutput,
  EvalOutputSchema,
  type SamplingParams,
  type Task,
  type Trajectory,
  TrajectorySchema,
} from "../types/index.js";

/** What an agent gets for one rollout. */
export interface RolloutConfig {
  /** OpenAI-style base URL of the session (ends in /v1): `new OpenAI({baseURL, apiKey})`. */
  baseURL: string;
  /** The session URL without /v1: what Anthropic clients take as `baseURL` / ANTHROPIC_BASE_URL. */
  sessionURL: string;
  /** The session token, to pass as the client's API key. */
  apiKey: string;
  model: string;
  sessionId: string;
  samplingParams: SamplingParams;
  isValidation: boolean;
  metadata: Record<string, unknown>;
  /** Aborted when the rollout times out or the run is cancelled; pass it to the client call. */
  signal: AbortSignal;
}

export type RolloutFn = (task: Task, config: RolloutConfig) => unknown;

export interface Rollout {
  readonly kind: "rllm.rollout";
  readonly name: string;
  run(task: Task, config: RolloutConfig): Promise<NormalizedResult>;
}

/** The agent's result, checked: either "use the traces" or trajectories to join with them. */
export type NormalizedResult =
  | { kind: "traces" }
  | {
      kind: "trajectories";
      trajectories: Trajectory[];
      reward?: number | null;
      isCorrect?: boolean;
      info?: Record<string, unknown>;
      terminationReason?: EpisodeInput["terminationReason"];
      /** The agent's own counters (turns, tool calls...), merged into the episode's metrics. */
      metrics?: Record<string, number>;
    };

const sessionStore = new AsyncLocalStorage<RolloutConfig>();

/** The session of the rollout this code runs in (for helpers deep in an agent's call stack). */
export function currentSession(): RolloutConfig | undefined {
  return sessionStore.getStore();
}

export function rollout(fn: RolloutFn, options: { name?: string } = {}): Rollout {
  if (typeof fn !== "function") {
    throw new TypeError(
      `rollout() takes a function (task, config) => ..., got ${describeValue(fn)}`,
    );
  }
  const name = options.name ?? (fn.name || "agent");
  return {
    kind: "rllm.rollout",
    name,
    async run(task, config) {
      const value = await sessionStore.run(config, () => fn(task, config));
      return normalizeResult(value, name);
    },
  };
}

export function isRollout(value: unknown): value is Rollout {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as { kind?: unknown }).kind === "rllm.rollout"
  );
}

/** Checks what an agent returned; anything that is not void/Trajectory/Episode is a TypeError. */
export function normalizeResult(value: unknown, name: string): NormalizedResult {
  if (value === undefined || value === null) return { kind: "traces" };
  if (typeof value !== "object" || Array.isArray(value)) {
    throw new TypeError(
      `rollout "${name}" returned ${describeValue(value)}; return nothing (the gateway traces are the trajectory), a Trajectory {steps} or an Episode {trajectories}`,
    );
  }
  const v = value as Record<string, unknown>;
  if (Array.isArray(v.trajectories)) {
    const trajectories = v.trajectories.map((t, i) =>
      parseTrajectory(t, `${name}: trajectories[${i}]`),
    );
    return {
      kind: "trajectories",
      trajectories,
      ...(typeof v.reward === "number" || v.reward === null
        ? { reward: v.reward as number | null }
        : {}),
      ...(typeof v.isCorrect === "boolean" ? { isCorrect: v.isCorrect } : {}),
      ...(v.info && typeof v.info === "object" ? { info: v.info as Record<string, unknown> } : {}),
      ...(typeof v.terminationReason === "string"
        ? { terminationReason: v.terminationReason as EpisodeInput["terminationReason"] }
        : {}),
      ...(v.metrics !== undefined ? { metrics: parseMetrics(v.metrics, name) } : {}),
    };
  }
  if (Array.isArray(v.steps)) {
    const t = parseTrajectory({ name, ...v }, name);
    return {
      kind: "trajectories",
      trajectories: [t],
      ...(t.reward != null ? { reward: t.reward } : {}),
    };
  }
  throw new TypeError(
    `rollout "${name}" returned an object with neither "steps" nor "trajectories" (keys: ${Object.keys(v).join(", ") || "none"}); return nothing, a Trajectory or an Episode`,
  );
}

function parseMetrics(value: unknown, name: string): Record<string, number> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TypeError(
      `rollout "${name}" returned metrics ${describeValue(value)}; metrics is an object of name → number`,
    );
  }
  for (const [key, n] of Object.entries(value)) {
    if (typeof n !== "number" || !Number.isFinite(n)) {
      throw new TypeError(
        `rollout "${name}" returned metrics.${key} = ${describeValue(n)}; each metric is a finite number`,
      );
    }
  }
  return value as Record<string, number>;
}

function parseTrajectory(value: unknown, where: string): Trajectory {
  const r = TrajectorySchema.safeParse(value);
  if (!r.success) {
    const first = r.error.issues[0]!;
    throw new TypeError(
      `${where} is not a valid Trajectory: ${first.path.join(".") || "(root)"}: ${first.message}`,
    );
  }
  return r.data;
}

// ---- evaluator ----

export type EvaluatorFn<E> = (task: Task, episode: E) => unknown;

export interface Evaluator<E = unknown> {
  readonly kind: "rllm.evaluator";
  evaluate(task: Task, episode: E): Promise<EvalOutput>;
}

/**
 * Wraps a scoring function with rLLM's coercions: a boolean is reward 1/0; a number is the reward
 * with `isCorrect = reward > 0`; `[reward, isCorrect]` as given; an EvalOutput is checked.
 */
export function evaluator<E = unknown>(fn: EvaluatorFn<E>): Evaluator<E> {
  if (typeof fn !== "function") {
    throw new TypeError(
      `evaluator() takes a function (task, episode) => ..., got ${describeValue(fn)}`,
    );
  }
  return {
    kind: "rllm.evaluator",
    async evaluate(task, episode) {
      return coerceEvalOutput(await fn(task, episode));
    },
  };
}

export function isEvaluator(value: unknown): value is Evaluator {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as { kind?: unknown }).kind === "rllm.evaluator"
  );
}

export function coerceEvalOutput(value: unknown): EvalOutput {
  if (typeof value === "boolean") return { reward: value ? 1 : 0, isCorrect: value };
  if (typeof value === "number") {
    if (!Number.isFinite(value))
      throw new TypeError(`evaluator returned a non-finite reward (${value})`);
    return { reward: value, isCorrect: value > 0 };
  }
  if (Array.isArray(value)) {
    const [reward, isCorrect] = value as unknown[];
    if (
      value.length === 2 &&
      typeof reward === "number" &&
      Number.isFinite(reward) &&
      typeof isCorrect === "boolean"
    ) {
      return { reward, isCorrect };
    }
    throw new TypeError(
      `evaluator returned ${describeValue(value)}; a tuple must be [reward: number, isCorrect: boolean]`,
    );
  }
  if (value && typeof value === "object") {
    const v = value as Record<string, unknown>;
    const withDefault =
      typeof v.reward === "number" && v.isCorrect === undefined
        ? { ...v, isCorrect: v.reward > 0 }
        : v;
    const r = EvalOutputSchema.safeParse(withDefault);
    if (r.success && Number.isFinite(r.data.reward)) return r.data;
    const why = r.success
      ? "reward is not finite"
      : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new TypeError(
      `evaluator returned an invalid EvalOutput (${why}); expected {reward, isCorrect, signals?, metadata?}`,
    );
  }
  throw new TypeError(
    `evaluator returned ${describeValue(value)}; return a boolean, a number, [reward, isCorrect] or {reward, isCorrect}`,
  );
}

function describeValue(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return `an array of ${v.length}`;
  if (typeof v === "string") return `a string (${JSON.stringify(v.slice(0, 40))})`;
  return `a ${typeof v}`;
}

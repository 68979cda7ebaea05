/**
 * From what a rollout left behind — the gateway's traces of its session and, optionally, the
 * agent's own trajectories — to an Episode. Steps are joined to traces by trace id, never by
 * position: a step the agent reports carries the trace id the gateway returned in its response
 * header. A rollout that returns one trajectory without steps (and its info) gets every call of
 * the session as its steps, as a rollout that returns nothing does.
 */
import type { NormalizedResult } from "../sdk/index.js";
import type { Step, TerminationReason, TraceRecord, Trajectory } from "../types/index.js";

/** A step built from a successful trace (choice 0: the one an agent continues with). */
export function stepFromTrace(t: TraceRecord): Step {
  const c = t.choices[0];
  return {
    traceId: t.id,
    messages: t.messages ?? [],
    response: c
      ? {
          content: c.content,
          ...(c.reasoning != null ? { reasoning: c.reasoning } : {}),
          ...(c.toolCalls?.length ? { toolCalls: c.toolCalls } : {}),
        }
      : undefined,
    promptIds: t.promptIds ?? [],
    completionIds: c?.completionIds ?? [],
    logprobs: c?.logprobs ?? [],
    finishReason: c?.finishReason ?? null,
    weightVersion: t.weightVersion,
  };
}

export class TraceJoinError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TraceJoinError";
  }
}

/** The trajectories of an episode: the traces themselves, or the agent's steps filled from them. */
export function buildTrajectories(
  result: NormalizedResult,
  traces: TraceRecord[],
  rolloutName: string,
): Trajectory[] {
  const ok = traces.filter((t) => t.status === 200);
  if (result.kind === "traces") {
    return [{ name: rolloutName, steps: ok.map(stepFromTrace) }];
  }
  // One trajectory without steps (a CLI harness: the agent reports info, not its calls): every
  // call of the session is a step.
  const only = result.trajectories.length === 1 ? result.trajectories[0]! : undefined;
  if (only && only.steps.length === 0) return [{ ...only, steps: ok.map(stepFromTrace) }];
  const byId = new Map(traces.map((t) => [t.id, t]));
  return result.trajectories.map((traj) => ({
    ...traj,
    steps: traj.steps.map((step) => {
      if (!step.traceId) return step;
      const t = byId.get(step.traceId);
      if (!t) {
        throw new TraceJoinError(
          `trajectory "${traj.name}" has a step with trace id ${step.traceId}, which this session did not record; use the x-rllm-trace-id header of the call's response`,
        );
      }
      const fromTrace = stepFromTrace(t);
      // What the agent set explicitly wins; what it left empty comes from the trace.
      return {
        ...fromTrace,
        ...step,
        messages: step.messages.length ? step.messages : fromTrace.messages,
        promptIds: step.promptIds.length ? step.promptIds : fromTrace.promptIds,
        completionIds: step.completionIds.length ? step.completionIds : fromTrace.completionIds,
        logprobs: step.logprobs.length ? step.logprobs : fromTrace.logprobs,
        response: step.response ?? fromTrace.response,
        finishReason: step.finishReason ?? fromTrace.finishReason,
        weightVersion: step.weightVersion ?? fromTrace.weightVersion,
      };
    }),
  }));
}

const PROMPT_TOO_LONG =
  /context length|maximum context|too long|max_model_len|prompt is too long|exceeds the model/i;

/** Why an episode whose agent returned normally ended. */
export function terminationOf(
  trajectories: Trajectory[],
  traces: TraceRecord[],
): TerminationReason {
  if (traces.some((t) => t.status === 400 && t.error && PROMPT_TOO_LONG.test(t.error))) {
    return "max_prompt_length_exceeded";
  }
  const last = trajectories.at(-1)?.steps.at(-1);
  if (last?.finishReason === "length") return "max_response_length_exceeded";
  return "env_done";
}

/** Whether the traces show the gateway or upstream failing (not the agent): 5xx or no upstream. */
export function tracesShowInfraFailure(traces: TraceRecord[]): TraceRecord | undefined {
  return traces.find((t) => t.status === 502 || t.status === 503 || t.status === 504);
}

export function tokenCounts(trajectories: Trajectory[]): {
  turns: number;
  promptTokens: number;
  completionTokens: number;
} {
  let turns = 0;
  let promptTokens = 0;
  let completionTokens = 0;
  for (const t of trajectories) {
    for (const s of t.steps) {
      turns++;
      promptTokens += s.promptIds.length;
      completionTokens += s.completionIds.length;
    }
  }
  return { turns, promptTokens, completionTokens };
}

/**
 * From what a rollout left behind — the gateway's traces of its session and, optionally, the
 * agent's own trajectories — to an Episode. Steps are joined to traces by trace id, never by
 * position: a step the agent reports carries the trace id the gateway returned in its response
 * header. A rollout that returns one trajectory without steps (and its info: a CLI harness) gets
 * every call of the session as its steps, as a rollout that returns nothing does.
 *
 * Token-exactness (types/tokens.ts): a step whose prompt ids do not begin with the previous step's
 * prompt + completion ids (the model's own tokens re-tokenized, a history the agent rewrote, a
 * template that drops earlier reasoning) is marked `info.prefixBreak = {at, reason}` and counted
 * in the episode's metrics as `prefixBreaks`; training then starts a new row there (datums.ts).
 * The reason is the gateway's, when it rendered the prompt itself (token-in/token-out: its
 * promptNote says why it could not extend), else where the ids first differ.
 */
import { isPromptTooLong, type NormalizedResult } from "../sdk/index.js";
import {
  prefixBreakAt,
  type Step,
  type TerminationReason,
  type TraceRecord,
  type Trajectory,
} from "../types/index.js";

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
  const byId = new Map(traces.map((t) => [t.id, t]));
  // One trajectory without steps (a CLI harness: the agent reports info, not its calls): every
  // call of the session is a step.
  const only =
    result.kind === "trajectories" && result.trajectories.length === 1
      ? result.trajectories[0]!
      : undefined;
  const trajectories: Trajectory[] =
    result.kind === "traces"
      ? [{ name: rolloutName, steps: ok.map(stepFromTrace) }]
      : only && only.steps.length === 0
        ? [{ ...only, steps: ok.map(stepFromTrace) }]
        : joinSteps(result.trajectories, byId);
  return trajectories.map((traj) => ({ ...traj, steps: markPrefixBreaks(traj.steps, byId) }));
}

function joinSteps(trajectories: Trajectory[], byId: Map<string, TraceRecord>): Trajectory[] {
  return trajectories.map((traj) => ({
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

/** Each step whose prompt does not extend the previous step's turn, marked (see the header). */
function markPrefixBreaks(steps: Step[], byId: Map<string, TraceRecord>): Step[] {
  return steps.map((step, k) => {
    const at = k === 0 ? null : prefixBreakAt(steps[k - 1]!, step);
    if (at === null) return step;
    const note = step.traceId ? byId.get(step.traceId)?.promptNote : undefined;
    const reason = note?.startsWith("rendered: ")
      ? `the gateway re-rendered the prompt: ${note.slice("rendered: ".length)}`
      : `the prompt ids differ from step ${k - 1}'s prompt + completion at token ${at}`;
    return { ...step, info: { ...step.info, prefixBreak: { at, reason } } };
  });
}

/** Why an episode whose agent returned normally ended. */
export function terminationOf(
  trajectories: Trajectory[],
  traces: TraceRecord[],
): TerminationReason {
  if (traces.some((t) => t.status === 400 && t.error && isPromptTooLong(t.error))) {
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
  /** Steps marked `info.prefixBreak` (see the header). */
  prefixBreaks: number;
} {
  let turns = 0;
  let promptTokens = 0;
  let completionTokens = 0;
  let prefixBreaks = 0;
  for (const t of trajectories) {
    for (const s of t.steps) {
      turns++;
      promptTokens += s.promptIds.length;
      completionTokens += s.completionIds.length;
      if (s.info?.prefixBreak) prefixBreaks++;
    }
  }
  return { turns, promptTokens, completionTokens, prefixBreaks };
}

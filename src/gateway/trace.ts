/** Builds the TraceRecord of one call from what the upstream adapter returned. */
import { randomBytes } from "node:crypto";
import type { ChatMessage, TraceChoice, TraceRecord } from "../types/index.js";
import type { ChatOutcome, CompletionOutcome } from "./upstreams/types.js";

/**
 * Trace ids: a random per-process prefix and a counter. Unique across restarts and processes (the
 * prefix), ordered within a process, and free of a crypto call per request on the hot path; they
 * are identifiers, not secrets (the session token is the secret).
 */
const TRACE_PREFIX = `tr_${randomBytes(6).toString("hex")}`;
let traceCounter = 0;
export function newTraceId(): string {
  traceCounter++;
  return `${TRACE_PREFIX}${traceCounter.toString(36).padStart(8, "0")}`;
}

export interface TraceMeta {
  id: string;
  sessionId: string;
  api: TraceRecord["api"];
  upstream: string | null;
  model: string | null;
  request: Record<string, unknown>;
  messages: ChatMessage[] | null;
  weightVersion: number;
  stream: boolean;
  startedAt: number;
}

/** What a call's outcome adds to its meta: the record but for the meta's fields and the timing. */
interface TraceOutcome {
  model: string | null;
  promptIds: number[] | null;
  choices: TraceChoice[];
  tokenSource: TraceRecord["tokenSource"];
  /** Left undefined (so not stored) when the adapter gave none. */
  promptNote: string | undefined;
  promptTokens: number | null;
  completionTokens: number | null;
  status: number;
  error: string | null;
}

/**
 * The one place a TraceRecord is built. One object literal, keys in the order the stored JSON has
 * always had (meta's fields, then the outcome's; undefined ones are not stored): spreading `meta`
 * into a fresh object per call costs a dictionary-mode copy and a new hidden class each time.
 */
function traceRecord(meta: TraceMeta, o: TraceOutcome): TraceRecord {
  const finishedAt = Date.now();
  return {
    id: meta.id,
    sessionId: meta.sessionId,
    api: meta.api,
    upstream: meta.upstream,
    model: o.model,
    request: meta.request,
    messages: meta.messages,
    weightVersion: meta.weightVersion,
    stream: meta.stream,
    startedAt: meta.startedAt,
    promptIds: o.promptIds,
    choices: o.choices,
    tokenSource: o.tokenSource,
    promptNote: o.promptNote,
    promptTokens: o.promptTokens,
    completionTokens: o.completionTokens,
    latencyMs: finishedAt - meta.startedAt,
    finishedAt,
    status: o.status,
    error: o.error,
  };
}

export function chatTrace(meta: TraceMeta, outcome: ChatOutcome): TraceRecord {
  const completion = outcome.completion;
  const choices: TraceChoice[] = [];
  for (let i = 0; i < completion.choices.length; i++) {
    const c = completion.choices[i]!;
    const tokens = outcome.choices[i];
    const m = c.message;
    choices.push({
      index: c.index ?? i,
      content: m.content ?? null,
      reasoning: m.reasoning_content ?? (m as { reasoning?: string | null }).reasoning ?? null,
      // Only a choice that called tools stores the key.
      toolCalls: m.tool_calls?.length ? m.tool_calls : undefined,
      finishReason: c.finish_reason ?? null,
      completionIds: tokens?.completionIds ?? null,
      logprobs: tokens?.logprobs ?? null,
    });
  }
  return traceRecord(meta, {
    model: completion.model || meta.model,
    promptIds: outcome.promptIds,
    choices,
    tokenSource: outcome.tokenSource,
    promptNote: outcome.promptNote || undefined,
    promptTokens: completion.usage?.prompt_tokens ?? outcome.promptIds?.length ?? null,
    completionTokens: completion.usage?.completion_tokens ?? sumIds(outcome.choices),
    status: 200,
    error: null,
  });
}

export function completionTrace(meta: TraceMeta, outcome: CompletionOutcome): TraceRecord {
  const completion = outcome.completion;
  const choices: TraceChoice[] = [];
  for (let i = 0; i < completion.choices.length; i++) {
    const c = completion.choices[i]!;
    choices.push({
      index: c.index ?? i,
      content: c.text ?? null,
      finishReason: c.finish_reason ?? null,
      completionIds: outcome.choices[i]?.completionIds ?? null,
      logprobs: outcome.choices[i]?.logprobs ?? null,
    });
  }
  return traceRecord(meta, {
    model: completion.model || meta.model,
    promptIds: outcome.promptIds,
    choices,
    tokenSource: outcome.tokenSource,
    promptNote: undefined,
    promptTokens: completion.usage?.prompt_tokens ?? outcome.promptIds?.length ?? null,
    completionTokens: completion.usage?.completion_tokens ?? sumIds(outcome.choices),
    status: 200,
    error: null,
  });
}

export function failedTrace(meta: TraceMeta, status: number, error: string): TraceRecord {
  return traceRecord(meta, {
    model: meta.model,
    promptIds: null,
    choices: [],
    tokenSource: "none",
    promptNote: undefined,
    promptTokens: null,
    completionTokens: null,
    status,
    error,
  });
}

function sumIds(choices: { completionIds: number[] | null }[]): number | null {
  let n = 0;
  for (const c of choices) {
    if (!c.completionIds) return null;
    n += c.completionIds.length;
  }
  return n;
}

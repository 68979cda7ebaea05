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

export function chatTrace(meta: TraceMeta, outcome: ChatOutcome): TraceRecord {
  const finishedAt = Date.now();
  const choices: TraceChoice[] = outcome.completion.choices.map((c, i) => {
    const tokens = outcome.choices[i];
    const reasoning =
      c.message.reasoning_content ?? (c.message as { reasoning?: string | null }).reasoning ?? null;
    return {
      index: c.index ?? i,
      content: c.message.content ?? null,
      reasoning,
      ...(c.message.tool_calls?.length ? { toolCalls: c.message.tool_calls } : {}),
      finishReason: c.finish_reason ?? null,
      completionIds: tokens?.completionIds ?? null,
      logprobs: tokens?.logprobs ?? null,
    };
  });
  const usage = outcome.completion.usage;
  return {
    ...meta,
    model: outcome.completion.model || meta.model,
    promptIds: outcome.promptIds,
    choices,
    tokenSource: outcome.tokenSource,
    ...(outcome.promptNote ? { promptNote: outcome.promptNote } : {}),
    promptTokens: usage?.prompt_tokens ?? outcome.promptIds?.length ?? null,
    completionTokens: usage?.completion_tokens ?? sumIds(outcome.choices),
    latencyMs: finishedAt - meta.startedAt,
    finishedAt,
    status: 200,
    error: null,
  };
}

export function completionTrace(meta: TraceMeta, outcome: CompletionOutcome): TraceRecord {
  const finishedAt = Date.now();
  const usage = outcome.completion.usage;
  return {
    ...meta,
    model: outcome.completion.model || meta.model,
    promptIds: outcome.promptIds,
    choices: outcome.completion.choices.map((c, i) => ({
      index: c.index ?? i,
      content: c.text ?? null,
      finishReason: c.finish_reason ?? null,
      completionIds: outcome.choices[i]?.completionIds ?? null,
      logprobs: outcome.choices[i]?.logprobs ?? null,
    })),
    tokenSource: outcome.tokenSource,
    promptTokens: usage?.prompt_tokens ?? outcome.promptIds?.length ?? null,
    completionTokens: usage?.completion_tokens ?? sumIds(outcome.choices),
    latencyMs: finishedAt - meta.startedAt,
    finishedAt,
    status: 200,
    error: null,
  };
}

export function failedTrace(meta: TraceMeta, status: number, error: string): TraceRecord {
  const finishedAt = Date.now();
  return {
    ...meta,
    promptIds: null,
    choices: [],
    tokenSource: "none",
    promptTokens: null,
    completionTokens: null,
    latencyMs: finishedAt - meta.startedAt,
    finishedAt,
    status,
    error,
  };
}

function sumIds(choices: { completionIds: number[] | null }[]): number | null {
  let n = 0;
  for (const c of choices) {
    if (!c.completionIds) return null;
    n += c.completionIds.length;
  }
  return n;
}

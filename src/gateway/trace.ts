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

/*
 * The builders below write each record as one object literal, keys in the order the stored JSON
 * has always had (meta's fields, then the outcome's): spreading `meta` into a fresh object per
 * call costs a dictionary-mode copy and a new hidden class each time.
 */

export function chatTrace(meta: TraceMeta, outcome: ChatOutcome): TraceRecord {
  const finishedAt = Date.now();
  const completion = outcome.completion;
  const choices: TraceChoice[] = [];
  for (let i = 0; i < completion.choices.length; i++) {
    const c = completion.choices[i]!;
    const tokens = outcome.choices[i];
    const m = c.message;
    const reasoning = m.reasoning_content ?? (m as { reasoning?: string | null }).reasoning ?? null;
    choices.push(
      m.tool_calls?.length
        ? {
            index: c.index ?? i,
            content: m.content ?? null,
            reasoning,
            toolCalls: m.tool_calls,
            finishReason: c.finish_reason ?? null,
            completionIds: tokens?.completionIds ?? null,
            logprobs: tokens?.logprobs ?? null,
          }
        : {
            index: c.index ?? i,
            content: m.content ?? null,
            reasoning,
            finishReason: c.finish_reason ?? null,
            completionIds: tokens?.completionIds ?? null,
            logprobs: tokens?.logprobs ?? null,
          },
    );
  }
  const usage = completion.usage;
  const promptTokens = usage?.prompt_tokens ?? outcome.promptIds?.length ?? null;
  const completionTokens = usage?.completion_tokens ?? sumIds(outcome.choices);
  const model = completion.model || meta.model;
  if (outcome.promptNote) {
    return {
      id: meta.id,
      sessionId: meta.sessionId,
      api: meta.api,
      upstream: meta.upstream,
      model,
      request: meta.request,
      messages: meta.messages,
      weightVersion: meta.weightVersion,
      stream: meta.stream,
      startedAt: meta.startedAt,
      promptIds: outcome.promptIds,
      choices,
      tokenSource: outcome.tokenSource,
      promptNote: outcome.promptNote,
      promptTokens,
      completionTokens,
      latencyMs: finishedAt - meta.startedAt,
      finishedAt,
      status: 200,
      error: null,
    };
  }
  return {
    id: meta.id,
    sessionId: meta.sessionId,
    api: meta.api,
    upstream: meta.upstream,
    model,
    request: meta.request,
    messages: meta.messages,
    weightVersion: meta.weightVersion,
    stream: meta.stream,
    startedAt: meta.startedAt,
    promptIds: outcome.promptIds,
    choices,
    tokenSource: outcome.tokenSource,
    promptTokens,
    completionTokens,
    latencyMs: finishedAt - meta.startedAt,
    finishedAt,
    status: 200,
    error: null,
  };
}

export function completionTrace(meta: TraceMeta, outcome: CompletionOutcome): TraceRecord {
  const finishedAt = Date.now();
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
  const usage = completion.usage;
  return {
    id: meta.id,
    sessionId: meta.sessionId,
    api: meta.api,
    upstream: meta.upstream,
    model: completion.model || meta.model,
    request: meta.request,
    messages: meta.messages,
    weightVersion: meta.weightVersion,
    stream: meta.stream,
    startedAt: meta.startedAt,
    promptIds: outcome.promptIds,
    choices,
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
    id: meta.id,
    sessionId: meta.sessionId,
    api: meta.api,
    upstream: meta.upstream,
    model: meta.model,
    request: meta.request,
    messages: meta.messages,
    weightVersion: meta.weightVersion,
    stream: meta.stream,
    startedAt: meta.startedAt,
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

/**
 * The agent-facing API of a session: Chat Completions, Completions, Responses and Anthropic
 * Messages, streaming or not. Every dialect is translated to the canonical Chat Completions call,
 * which is sent to the session's upstream, recorded as a trace, and only then released to the agent:
 * a non-streaming response is sent after the trace is committed, a stream's final event likewise.
 */
import type { ServerResponse } from "node:http";
import type { GatewayConfig } from "../config/index.js";
import type { Store } from "../store/sqlite.js";
import {
  type ChatCompletion,
  type ChatCompletionChunk,
  type ChatCompletionRequest,
  ChatCompletionRequestSchema,
  type TraceRecord,
} from "../types/index.js";
import {
  AnthropicStreamTranslator,
  anthropicErrorBody,
  anthropicRequestToChat,
  chatToAnthropicResponse,
} from "./adapters/anthropic/index.js";
import {
  chatToGeminiResponse,
  type GeminiCall,
  GeminiStreamTranslator,
  geminiErrorBody,
  geminiRequestToChat,
} from "./adapters/gemini/index.js";
import {
  chatToResponsesResponse,
  ResponsesStreamTranslator,
  responsesRequestToChat,
} from "./adapters/responses/index.js";
import { badRequestFromIssues, HttpError } from "./errors.js";
import { formatSse, type SseEvent, sendJson, startSse } from "./http.js";
import type { Session } from "./sessions.js";
import { chatTrace, completionTrace, failedTrace, newTraceId, type TraceMeta } from "./trace.js";
import type { UpstreamPool } from "./upstreams/pool.js";
import { promptStateOf } from "./upstreams/prompt-state.js";
import {
  CallAbort,
  type CallSignal,
  type ChatOutcome,
  type Completion,
  type CompletionOutcome,
  type CompletionRequest,
  type UpstreamAdapter,
} from "./upstreams/types.js";
import { describe, type Upstream } from "./upstreams/upstream.js";

export type Dialect = "openai" | "anthropic" | "gemini";

export interface AgentApiDeps {
  config: GatewayConfig;
  store: Store;
  pool: UpstreamPool;
  adapterFor(u: Upstream): UpstreamAdapter;
  weightVersion(): number;
  /** The model every call is sent as (gateway.model, or the one set with the weight version). */
  model(): string | undefined;
}

/** What the agent asked to see of the vLLM-only fields. */
interface Exposure {
  logprobs: boolean;
  tokenIds: boolean;
}

export class AgentApi {
  constructor(private readonly deps: AgentApiDeps) {}

  async chatCompletions(session: Session, body: unknown, res: ServerResponse) {
    const chat = parseChat(body);
    const exposure: Exposure = {
      logprobs: chat.logprobs === true,
      tokenIds:
        (body as { return_token_ids?: unknown }).return_token_ids === true ||
        this.deps.config.exposeTokenIds,
    };
    const wantsUsage = chat.stream_options?.include_usage === true;
    await this.serveChat(session, "chat.completions", body, chat, res, {
      respond: (c) => agentCompletion(c, exposure),
      stream: () => ({
        chunk: (c) =>
          // The usage-only chunk is sent only to agents that asked for it.
          c.choices.length === 0 && c.usage && !wantsUsage
            ? []
            : [{ data: agentChunk(c, exposure) }],
        finish: () => [{ data: "[DONE]" }],
        error: (e) => [{ data: { error: openaiError(e).error } }],
      }),
    });
  }

  async responses(session: Session, body: unknown, res: ServerResponse) {
    await this.serveChat(session, "responses", body, responsesRequestToChat(body), res, {
      respond: (c) => chatToResponsesResponse(c, body),
      stream: () => {
        const t = new ResponsesStreamTranslator(body);
        return {
          chunk: (c) => t.push(c),
          finish: () => t.finish(),
          error: (e) => t.fail({ message: e.message, code: e.type }),
        };
      },
    });
  }

  async anthropicMessages(session: Session, body: unknown, res: ServerResponse) {
    await this.serveChat(session, "anthropic.messages", body, anthropicRequestToChat(body), res, {
      respond: (c) => chatToAnthropicResponse(c, body),
      stream: () => {
        const t = new AnthropicStreamTranslator(body);
        return {
          chunk: (c) => t.push(c),
          finish: () => t.finish(),
          error: (e) => t.fail({ status: e.status, message: e.message, type: e.type }),
        };
      },
    });
  }

  /** Gemini generateContent / streamGenerateContent: the model and streaming come from the URL. */
  async geminiGenerateContent(
    session: Session,
    body: unknown,
    call: GeminiCall,
    res: ServerResponse,
  ) {
    const chat = geminiRequestToChat(body, call);
    await this.serveChat(session, "gemini.generateContent", body, chat, res, {
      respond: (c) => chatToGeminiResponse(c),
      stream: () => {
        const t = new GeminiStreamTranslator(call.model);
        return {
          chunk: (c) => t.push(c),
          finish: () => t.finish(),
          error: (e) => t.fail({ status: e.status, message: e.message }),
        };
      },
    });
  }

  async completions(session: Session, body: unknown, res: ServerResponse) {
    const request = parseCompletionRequest(body);
    const exposure: Exposure = {
      logprobs: request.logprobs != null,
      tokenIds: request.return_token_ids === true || this.deps.config.exposeTokenIds,
    };
    const wantsUsage =
      (request.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
    const applied = this.applySession(session, request);
    await this.serve<CompletionOutcome, Completion>(session, res, {
      api: "completions",
      body,
      stream: request.stream === true,
      messages: null,
      call: (u, a, signal, onChunk) =>
        a.completions(u, {
          request: applied,
          model: this.modelFor(u, request.model),
          signal,
          ...(onChunk ? { onChunk } : {}),
        }),
      trace: completionTrace,
      respond: (o) => agentTextCompletion(o.completion, exposure),
      streamDialect: () => ({
        chunk: (c) =>
          c.choices.length === 0 && c.usage && !wantsUsage
            ? []
            : [{ data: agentTextCompletion(c, exposure) }],
        finish: () => [{ data: "[DONE]" }],
        error: (e) => [{ data: { error: openaiError(e).error } }],
      }),
    });
  }

  // ---- the shared path ----

  /** A chat call in any dialect: the dialect only shapes the response and its stream. */
  private serveChat(
    session: Session,
    api: TraceRecord["api"],
    body: unknown,
    chat: ChatCompletionRequest,
    res: ServerResponse,
    dialect: { respond(c: ChatCompletion): unknown; stream(): StreamDialect<ChatCompletionChunk> },
  ): Promise<void> {
    const request = this.applySession(session, chat) as ChatCompletionRequest;
    return this.serve<ChatOutcome, ChatCompletionChunk>(session, res, {
      api,
      body,
      stream: chat.stream === true,
      messages: request.messages,
      call: (u, a, signal, onChunk) =>
        a.chat(u, {
          request,
          model: this.modelFor(u, chat.model),
          signal,
          previous: session.previous,
          ...(onChunk ? { onChunk } : {}),
        }),
      trace: chatTrace,
      done: (o) => {
        session.previous = promptStateOf(request, o);
      },
      respond: (o) => dialect.respond(o.completion),
      streamDialect: dialect.stream,
    });
  }

  /**
   * One upstream call from start to finish: trace id, abort signal (agent gone, timeout), the call
   * with retries, the trace committed, and only then the response (or the stream's last event).
   */
  private async serve<O extends ChatOutcome | CompletionOutcome, K>(
    session: Session,
    res: ServerResponse,
    spec: {
      api: TraceRecord["api"];
      body: unknown;
      stream: boolean;
      messages: TraceRecord["messages"];
      call(
        u: Upstream,
        a: UpstreamAdapter,
        signal: CallSignal,
        onChunk?: (c: K) => void,
      ): Promise<O>;
      trace(meta: TraceMeta, outcome: O): TraceRecord;
      done?(outcome: O): void;
      respond(outcome: O): unknown;
      streamDialect(): StreamDialect<K>;
    },
  ): Promise<void> {
    const traceId = newTraceId();
    const meta = this.meta(session, traceId, spec.api, spec.body, spec.messages, spec.stream);
    const signal = callSignal(res);
    const dialect = spec.stream ? spec.streamDialect() : undefined;
    const sink = dialect ? new SseSink(res, this.headers(traceId)) : undefined;
    try {
      const outcome = (await this.callUpstream(meta, session, signal.signal, (u, a) =>
        spec.call(
          u,
          a,
          signal.signal,
          dialect && sink ? (c) => sink.write(dialect.chunk(c)) : undefined,
        ),
      )) as O;
      await this.record(spec.trace(meta, outcome));
      spec.done?.(outcome);
      if (!dialect || !sink) {
        sendJson(res, 200, spec.respond(outcome), this.headers(traceId));
        return;
      }
      sink.write(dialect.finish());
      sink.end();
    } catch (err) {
      // Before the first byte the caller answers with a plain error response.
      if (!dialect || !sink?.started) throw err;
      sink.write(dialect.error(asHttpError(err)));
      sink.end();
    } finally {
      signal.dispose();
    }
  }

  /**
   * Sends the call to the session's upstream (with retries of connection failures) and records a
   * failed trace when it fails, so that every call leaves a record.
   */
  private async callUpstream(
    meta: TraceMeta,
    session: Session,
    signal: CallSignal,
    call: (u: Upstream, a: UpstreamAdapter) => Promise<ChatOutcome | CompletionOutcome>,
  ): Promise<ChatOutcome | CompletionOutcome> {
    try {
      return await this.deps.pool.run(session.id, (u) => {
        meta.upstream = u.url;
        return call(u, this.deps.adapterFor(u));
      });
    } catch (err) {
      const e = asHttpError(err);
      if (!signal.aborted || e.status !== 499)
        await this.record(failedTrace(meta, e.status, e.message));
      else
        await this.record(
          failedTrace(
            meta,
            499,
            "the agent closed the connection before the response was complete",
          ),
        );
      throw e;
    }
  }

  /** Resolves once the trace has committed: only then may the response be released. */
  private async record(trace: TraceRecord): Promise<void> {
    await this.deps.store.insertTrace(trace);
  }

  /** The session's sampling parameters win over the agent's. */
  private applySession<T extends Record<string, unknown>>(session: Session, request: T): T {
    const out: Record<string, unknown> = { ...request };
    for (const [k, v] of Object.entries(session.samplingParams)) {
      if (v === undefined) continue;
      out[k] = v;
      if (k === "max_tokens") delete out.max_completion_tokens;
    }
    return out as T;
  }

  private modelFor(u: Upstream, asked: string | undefined): string | undefined {
    return this.deps.model() ?? u.model ?? asked;
  }

  private meta(
    session: Session,
    id: string,
    api: TraceRecord["api"],
    body: unknown,
    messages: TraceRecord["messages"],
    stream: boolean,
  ): TraceMeta {
    return {
      id,
      sessionId: session.id,
      api,
      upstream: null,
      model: this.deps.model() ?? null,
      request: body as Record<string, unknown>,
      messages,
      weightVersion: this.deps.weightVersion(),
      stream,
      startedAt: Date.now(),
    };
  }

  /** The headers of every agent response, as sendJson takes them. */
  private headers(traceId: string): string[] {
    return ["x-rllm-trace-id", traceId, "x-rllm-weight-version", String(this.deps.weightVersion())];
  }
}

/** How one dialect streams: its events for each canonical chunk, at the end, and on failure. */
interface StreamDialect<K> {
  chunk(c: K): SseEvent[];
  finish(): SseEvent[];
  error(e: HttpError): SseEvent[];
}

/**
 * Writes SSE events, sending the headers with the first ones. Events written in one turn of the
 * event loop (those of one upstream read) leave in one socket write, flushed before any further
 * I/O (process.nextTick): a stream is passed on as it arrives, without a syscall per event.
 */
class SseSink {
  /** Whether any event was written (the response is then a stream, whatever happens next). */
  started = false;
  private headSent = false;
  private pending = "";
  private scheduled = false;
  private readonly flushNow = () => this.flush();

  constructor(
    private readonly res: ServerResponse,
    private readonly headers: string[],
  ) {}

  write(events: SseEvent[]): void {
    if (events.length === 0 || this.res.destroyed) return;
    this.started = true;
    for (const e of events) this.pending += formatSse(e);
    if (!this.scheduled) {
      this.scheduled = true;
      process.nextTick(this.flushNow);
    }
  }

  private head(): void {
    if (this.headSent) return;
    startSse(this.res, this.headers);
    this.headSent = true;
  }

  private flush(): void {
    this.scheduled = false;
    if (this.pending === "" || this.res.destroyed || this.res.writableEnded) return;
    this.head();
    const text = this.pending;
    this.pending = "";
    this.res.write(text);
  }

  end(): void {
    this.head();
    this.started = true;
    const text = this.pending;
    this.pending = "";
    if (this.res.destroyed) return;
    if (text) this.res.end(text);
    else this.res.end();
  }
}

/**
 * The abort signal of one upstream call: fires when the agent goes away before the response is
 * complete. The call's timeout is not here: the upstream's HTTP client (upstreams/h1.ts) bounds every
 * call (headersTimeout for the answer to start, bodyTimeout for each gap in the body, both
 * gateway.upstreamTimeoutMs) from one sweep timer, which saves a timer and an AbortController per
 * call.
 */
function callSignal(res: ServerResponse) {
  const abort = new CallAbort();
  const onClose = () => {
    if (!res.writableFinished)
      abort.abort(new HttpError(499, "the client closed the request", "client_closed"));
  };
  res.on("close", onClose);
  return {
    signal: abort,
    dispose: () => {
      res.off("close", onClose);
    },
  };
}

export function asHttpError(err: unknown): HttpError {
  if (err instanceof HttpError) return err;
  return new HttpError(500, `internal gateway error: ${describe(err)}`, "server_error");
}

export function openaiError(e: HttpError): {
  error: { message: string; type: string; param: null; code: string | null };
} {
  return { error: { message: e.message, type: e.type, param: null, code: e.code } };
}

export function errorBody(e: HttpError, dialect: Dialect): unknown {
  if (dialect === "anthropic") {
    return anthropicErrorBody({ status: e.status, message: e.message, type: e.type });
  }
  if (dialect === "gemini") return geminiErrorBody({ status: e.status, message: e.message });
  return openaiError(e);
}

function parseChat(body: unknown): ChatCompletionRequest {
  const fast = plainChat(body);
  if (fast) return fast;
  const parsed = ChatCompletionRequestSchema.safeParse(body);
  if (!parsed.success) throw badRequestFromIssues("chat completion request", parsed.error.issues);
  return parsed.data;
}

const ROLES = new Set(["system", "developer", "user", "assistant", "tool", "function"]);

/**
 * The common chat request (text messages, no tools, plain sampling fields) checked by hand: the
 * same rules as ChatCompletionRequestSchema, at a fraction of zod's cost per call. Anything else,
 * valid or not, returns undefined and goes to zod, which alone words the errors. Like zod's
 * output, the request and its messages are fresh (shallow) copies of the agent's body; keys keep
 * the agent's order.
 */
export function plainChat(body: unknown): ChatCompletionRequest | undefined {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined;
  const b = body as Record<string, unknown>;
  const msgs = b.messages;
  if (!Array.isArray(msgs) || msgs.length === 0) return undefined;
  if (
    (b.model !== undefined && typeof b.model !== "string") ||
    b.tools !== undefined ||
    (b.stream !== undefined && typeof b.stream !== "boolean") ||
    (b.stream_options !== undefined && b.stream_options !== null) ||
    !optInt(b.n, 1, 128, false) ||
    !optNum(b.temperature, 0, 2, true) ||
    !(
      b.top_p === undefined ||
      b.top_p === null ||
      (typeof b.top_p === "number" && b.top_p > 0 && b.top_p <= 1)
    ) ||
    !optInt(b.max_tokens, 1, Number.MAX_SAFE_INTEGER, true) ||
    !optInt(b.max_completion_tokens, 1, Number.MAX_SAFE_INTEGER, true) ||
    !(b.stop === undefined || b.stop === null || typeof b.stop === "string") ||
    !(b.logprobs === undefined || b.logprobs === null || typeof b.logprobs === "boolean") ||
    !optInt(b.top_logprobs, 0, 20, true) ||
    !optInt(b.seed, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, true)
  ) {
    return undefined;
  }
  const messages: ChatCompletionRequest["messages"] = [];
  for (const m of msgs) {
    if (typeof m !== "object" || m === null || Array.isArray(m)) return undefined;
    const r = m as Record<string, unknown>;
    if (
      typeof r.role !== "string" ||
      !ROLES.has(r.role) ||
      !(r.content === undefined || r.content === null || typeof r.content === "string") ||
      (r.name !== undefined && typeof r.name !== "string") ||
      r.tool_calls !== undefined ||
      (r.tool_call_id !== undefined && typeof r.tool_call_id !== "string") ||
      !(
        r.reasoning_content === undefined ||
        r.reasoning_content === null ||
        typeof r.reasoning_content === "string"
      )
    ) {
      return undefined;
    }
    messages.push({ ...r } as ChatCompletionRequest["messages"][number]);
  }
  return { ...b, messages } as ChatCompletionRequest;
}

function optNum(v: unknown, min: number, max: number, nullable: boolean): boolean {
  if (v === undefined || (nullable && v === null)) return true;
  return typeof v === "number" && v >= min && v <= max;
}

function optInt(v: unknown, min: number, max: number, nullable: boolean): boolean {
  if (v === undefined || (nullable && v === null)) return true;
  return Number.isSafeInteger(v) && (v as number) >= min && (v as number) <= max;
}

function parseCompletionRequest(body: unknown): CompletionRequest {
  if (!body || typeof body !== "object" || Array.isArray(body)) {
    throw new HttpError(400, "invalid completion request: the body must be a JSON object");
  }
  const b = body as Record<string, unknown>;
  const p = b.prompt;
  const ok =
    typeof p === "string" ||
    (Array.isArray(p) &&
      p.length > 0 &&
      (p.every((x) => typeof x === "string") ||
        p.every((x) => Number.isInteger(x) && (x as number) >= 0) ||
        p.every((x) => Array.isArray(x) && x.every((y) => Number.isInteger(y) && y >= 0))));
  if (!ok) {
    throw new HttpError(
      400,
      "invalid completion request: prompt: must be a string, a list of strings, a list of token ids or a list of lists of token ids",
    );
  }
  if (b.stream !== undefined && typeof b.stream !== "boolean") {
    throw new HttpError(400, "invalid completion request: stream: must be a boolean");
  }
  if (b.n !== undefined && (!Number.isInteger(b.n) || (b.n as number) < 1)) {
    throw new HttpError(400, "invalid completion request: n: must be a positive integer");
  }
  return b as CompletionRequest;
}

/** The completion as the agent sees it: vLLM-only fields removed unless asked for. */
function agentCompletion(c: ChatCompletion, x: Exposure): ChatCompletion {
  if (x.tokenIds && x.logprobs) return c;
  const out: ChatCompletion = { ...c, choices: c.choices.map((ch) => stripChoice(ch, x)) };
  if (!x.tokenIds) delete out.prompt_token_ids;
  return out;
}

function agentChunk(c: ChatCompletionChunk, x: Exposure): ChatCompletionChunk {
  if (x.tokenIds && x.logprobs) return c;
  const out: ChatCompletionChunk = { ...c, choices: c.choices.map((ch) => stripChoice(ch, x)) };
  if (!x.tokenIds) delete out.prompt_token_ids;
  return out;
}

function agentTextCompletion(c: Completion, x: Exposure): Completion {
  if (x.tokenIds && x.logprobs) return c;
  return {
    ...c,
    choices: c.choices.map((ch) => {
      const o = stripChoice(ch, x);
      if (!x.tokenIds) delete o.prompt_token_ids;
      return o;
    }),
  };
}

function stripChoice<T extends { logprobs?: unknown; token_ids?: unknown }>(ch: T, x: Exposure): T {
  const o = { ...ch };
  if (!x.tokenIds) delete o.token_ids;
  if (!x.logprobs) o.logprobs = null;
  return o;
}

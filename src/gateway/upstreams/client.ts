/** HTTP calls to an upstream, with its failures turned into errors the agent can act on. */
import { HttpError } from "../errors.js";
import { SseParser } from "../http.js";
import type { H1Handler } from "./h1.js";
import { CallAbort, type CallSignal } from "./types.js";
import {
  describe,
  isConnectFailure,
  joinPath,
  type Upstream,
  UpstreamConnectError,
} from "./upstream.js";

/** Shared by every call. */
const JSON_HEADERS: Readonly<Record<string, string>> = { "content-type": "application/json" };

function postHeaders(u: Upstream): Readonly<Record<string, string>> {
  return u.apiKey ? { ...JSON_HEADERS, authorization: `Bearer ${u.apiKey}` } : JSON_HEADERS;
}

/**
 * POSTs `body` as JSON and resolves with the parsed JSON response, or throws an HttpError the
 * agent can read (connection failures as UpstreamConnectError, which the pool retries). The hot
 * path of the non-streaming adapters.
 */
export function postJson(
  u: Upstream,
  path: string,
  body: unknown,
  signal: CallSignal,
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    dispatchPost(u, path, body, signal, new UpstreamCall(u, signal, undefined, resolve, reject));
  });
}

/**
 * POSTs `body` as JSON and hands each `data:` payload of the SSE response to `onEvent` as it
 * arrives, parsed (as upstreamSse yields them); resolves at `[DONE]` or at the end of the body. An
 * error thrown by `onEvent` ends the call with that error.
 */
export function postSse(
  u: Upstream,
  path: string,
  body: unknown,
  signal: CallSignal,
  onEvent: (ev: Record<string, unknown>) => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    dispatchPost(
      u,
      path,
      body,
      signal,
      new UpstreamCall(u, signal, onEvent, resolve as (v: unknown) => void, reject),
    );
  });
}

function dispatchPost(
  u: Upstream,
  path: string,
  body: unknown,
  signal: CallSignal,
  call: SignalledCall,
): void {
  if (signal.aborted) {
    call.onError(abortError(signal));
    return;
  }
  call.listen();
  u.http.dispatch(
    {
      method: "POST",
      path: joinPath(u.url, path),
      headers: postHeaders(u),
      body: JSON.stringify(body),
    },
    call,
  );
}

/** Listens to the agent's abort signal for the length of one call. */
abstract class SignalledCall implements H1Handler {
  protected abortCall: ((err: Error) => void) | undefined;
  protected settled = false;
  private readonly onAbort = () => this.abortCall?.(abortError(this.signal));

  constructor(protected readonly signal: CallSignal) {}

  listen(): void {
    const s = this.signal;
    if (s instanceof CallAbort) s.once("abort", this.onAbort);
    else s.addEventListener("abort", this.onAbort, { once: true });
  }

  protected unlisten(): void {
    const s = this.signal;
    if (s instanceof CallAbort) s.removeListener("abort", this.onAbort);
    else s.removeEventListener("abort", this.onAbort);
  }

  onConnect(abort: (err: Error) => void): void {
    if (this.settled) {
      abort(new Error("the call has already ended"));
      return;
    }
    this.abortCall = abort;
    if (this.signal.aborted) abort(abortError(this.signal));
  }

  abstract onHeaders(status: number): void;
  abstract onData(chunk: Buffer): void;
  abstract onComplete(): void;
  abstract onError(err: Error): void;
}

/**
 * One JSON or SSE call, parsed as it arrives. Errors: before the response's head, connection
 * failures are retryable (UpstreamConnectError); after it, timeouts are 504 and the rest 502.
 */
class UpstreamCall extends SignalledCall {
  private status = 0;
  private headersSeen = false;
  private readonly chunks: Buffer[] = [];
  private parser: SseParser | undefined;

  constructor(
    private readonly u: Upstream,
    signal: CallSignal,
    private readonly onEvent: ((ev: Record<string, unknown>) => void) | undefined,
    private readonly resolve: (v: unknown) => void,
    private readonly reject: (err: unknown) => void,
  ) {
    super(signal);
  }

  private settle(): boolean {
    if (this.settled) return false;
    this.settled = true;
    this.unlisten();
    return true;
  }

  private succeed(value: unknown): void {
    if (this.settle()) this.resolve(value);
  }

  private fail(err: unknown): void {
    if (this.settle()) this.reject(err);
  }

  onHeaders(statusCode: number): void {
    this.headersSeen = true;
    this.status = statusCode;
    if (this.onEvent && statusCode < 400) this.parser = new SseParser();
  }

  onData(chunk: Buffer): void {
    if (this.settled) return;
    const parser = this.parser;
    if (!parser) {
      this.chunks.push(chunk);
      return;
    }
    try {
      for (const ev of parser.push(chunk)) {
        if (ev.data === "[DONE]") {
          // Done for the agent; the client reads the rest of the body and reuses the connection.
          this.succeed(undefined);
          return;
        }
        this.onEvent!(parseEvent(this.u, ev.data));
      }
    } catch (err) {
      this.fail(err);
      this.abortCall?.(err as Error);
    }
  }

  onComplete(): void {
    if (this.settled) return;
    const u = this.u;
    if (this.parser) {
      try {
        for (const ev of this.parser.end()) {
          if (ev.data === "[DONE]") break;
          this.onEvent!(parseEvent(u, ev.data));
        }
        this.succeed(undefined);
      } catch (err) {
        this.fail(err);
      }
      return;
    }
    let parsed: unknown;
    try {
      parsed = jsonBody(u, this.status, joinChunks(this.chunks));
    } catch (err) {
      this.fail(err);
      return;
    }
    this.succeed(parsed);
  }

  onError(err: Error): void {
    if (this.settled) return;
    const u = this.u;
    if (this.signal.aborted) this.fail(abortError(this.signal));
    else if (!this.headersSeen) {
      this.fail(
        isConnectFailure(err) ? new UpstreamConnectError(u.url, err) : fromTransportError(u, err),
      );
    } else if (this.parser) {
      this.fail(
        err instanceof HttpError
          ? err
          : new HttpError(
              502,
              `upstream ${u.url} stream broke: ${describe(err)}`,
              "upstream_error",
            ),
      );
    } else if (this.onEvent) {
      // An error status whose body broke off: the status alone (as upstreamSse reports it).
      this.fail(upstreamStatusError(u, this.status, ""));
    } else this.fail(fromTransportError(u, err));
  }
}

function joinChunks(c: Buffer[]): string {
  return c.length === 1
    ? c[0]!.toString("utf8")
    : c.length === 0
      ? ""
      : Buffer.concat(c).toString("utf8");
}

/** A whole response body as JSON, or the HttpError the agent sees for its status or its text. */
function jsonBody(u: Upstream, status: number, text: string): unknown {
  if (status >= 400) throw upstreamStatusError(u, status, text);
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(
      502,
      `upstream ${u.url} returned a body that is not JSON: ${JSON.stringify(text.slice(0, 200))}`,
      "upstream_error",
    );
  }
}

/** Bytes of a body nobody reads any more past which the call is cut off. */
const DUMP_LIMIT = 64 * 1024 * 1024;

/**
 * A response whose head has arrived, its body still coming: read it whole (`readUpstreamJson`) or
 * as an SSE stream (`upstreamSse`). Bodies are read as fast as the upstream sends them.
 */
export class UpstreamResponse extends SignalledCall {
  statusCode = 0;
  private readonly chunks: Buffer[] = [];
  private ended = false;
  private error: Error | undefined;
  private wake: (() => void) | undefined;
  private discarded = 0;
  private dropping = false;

  constructor(
    private readonly u: Upstream,
    signal: CallSignal,
    private readonly onHead: (res: UpstreamResponse) => void,
    private readonly onFail: (err: unknown) => void,
  ) {
    super(signal);
  }

  onHeaders(status: number): void {
    this.statusCode = status;
    this.onHead(this);
  }

  onData(chunk: Buffer): void {
    if (this.dropping) {
      this.discarded += chunk.length;
      if (this.discarded > DUMP_LIMIT) this.abortCall?.(new Error("an unread body too long"));
      return;
    }
    this.chunks.push(chunk);
    this.notify();
  }

  onComplete(): void {
    this.ended = true;
    this.settled = true;
    this.unlisten();
    this.notify();
  }

  onError(err: Error): void {
    const first = !this.settled;
    this.settled = true;
    this.unlisten();
    if (this.statusCode === 0) {
      // Before the head: the call itself failed.
      if (first) this.onFail(this.failure(err));
      return;
    }
    this.error = err;
    this.notify();
  }

  private failure(err: Error): Error {
    const u = this.u;
    if (this.signal.aborted) return abortError(this.signal);
    if (isConnectFailure(err)) return new UpstreamConnectError(u.url, err);
    return fromTransportError(u, err);
  }

  private notify(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  /** The next chunk, or undefined at the end; throws the transport's error if the body broke. */
  async next(): Promise<Buffer | undefined> {
    for (;;) {
      const c = this.chunks.shift();
      if (c) return c;
      if (this.error) throw this.signal.aborted ? abortError(this.signal) : this.error;
      if (this.ended) return undefined;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }

  /** The rest of the body as text. */
  async text(): Promise<string> {
    const parts: Buffer[] = [];
    for (let c = await this.next(); c; c = await this.next()) parts.push(c);
    return joinChunks(parts);
  }

  /** Nobody reads the rest: it is dropped as it arrives, so the connection can be reused. */
  discard(): void {
    this.dropping = true;
    this.chunks.length = 0;
  }
}

/** POSTs `body` as JSON; resolves once the response's head has arrived. */
export function upstreamPost(
  u: Upstream,
  path: string,
  body: unknown,
  signal: CallSignal,
): Promise<UpstreamResponse> {
  return new Promise((resolve, reject) => {
    dispatchPost(u, path, body, signal, new UpstreamResponse(u, signal, resolve, reject));
  });
}

/** A GET with its own time limit (health checks, the model list): status and body text. */
export async function upstreamGet(
  u: Upstream,
  path: string,
  timeoutMs: number,
): Promise<{ status: number; text: string }> {
  const signal = new CallAbort();
  const res = await new Promise<UpstreamResponse>((resolve, reject) => {
    u.http.dispatch(
      {
        method: "GET",
        path: joinPath(u.url, path),
        headers: u.apiKey ? { authorization: `Bearer ${u.apiKey}` } : {},
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      },
      new UpstreamResponse(u, signal, resolve, reject),
    );
  });
  return { status: res.statusCode, text: await res.text() };
}

function abortError(signal: CallSignal): Error {
  const reason = signal.reason;
  if (reason instanceof HttpError) return reason;
  return new HttpError(499, "the client closed the request", "client_closed");
}

/** Errors after the request was sent: timeouts and broken bodies. */
export function fromTransportError(u: Upstream, err: unknown): HttpError {
  const code = (err as { code?: string }).code ?? "";
  if (code === "RLLM_HEADERS_TIMEOUT" || code === "RLLM_BODY_TIMEOUT") {
    return new HttpError(
      504,
      `upstream ${u.url} did not answer in time (${describe(err)}); raise gateway.upstreamTimeoutMs if the model is just slow`,
      "upstream_timeout",
    );
  }
  if (err instanceof HttpError) return err;
  return new HttpError(502, `upstream ${u.url} failed: ${describe(err)}`, "upstream_error");
}

/** Reads a JSON body, or throws the upstream's error in a form the agent can read. */
export async function readUpstreamJson(u: Upstream, res: UpstreamResponse): Promise<unknown> {
  let text: string;
  try {
    text = await res.text();
  } catch (err) {
    throw fromTransportError(u, err);
  }
  return jsonBody(u, res.statusCode, text);
}

/**
 * An upstream's error status as the agent sees it: 4xx keeps its status (the request itself is at
 * fault, e.g. a prompt over the context length) with the upstream's message; 5xx becomes 502.
 */
export function upstreamStatusError(u: Upstream, status: number, text: string): HttpError {
  const message = errorMessageOf(text);
  if (status >= 400 && status < 500 && status !== 408 && status !== 429) {
    return new HttpError(
      status,
      `upstream rejected the request: ${message}`,
      "invalid_request_error",
    );
  }
  if (status === 429)
    return new HttpError(429, `upstream is rate limiting: ${message}`, "rate_limit_error");
  return new HttpError(502, `upstream ${u.url} answered ${status}: ${message}`, "upstream_error");
}

function errorMessageOf(text: string): string {
  try {
    const j = JSON.parse(text) as Record<string, unknown>;
    const e = j.error;
    if (e && typeof e === "object" && typeof (e as { message?: unknown }).message === "string") {
      return (e as { message: string }).message;
    }
    if (typeof e === "string") return e;
    if (typeof j.message === "string") return j.message;
    if (typeof j.detail === "string") return j.detail;
  } catch {
    // not JSON: fall through to the raw text
  }
  return text.slice(0, 500) || "(empty body)";
}

/**
 * The `data:` payloads of an upstream SSE body, parsed as JSON, until `[DONE]`. A payload that is
 * not JSON, or an `error` object inside the stream, ends the stream with a 502.
 */
export async function* upstreamSse(
  u: Upstream,
  res: UpstreamResponse,
): AsyncGenerator<Record<string, unknown>> {
  if (res.statusCode >= 400) {
    const text = await res.text().catch(() => "");
    throw upstreamStatusError(u, res.statusCode, text);
  }
  const parser = new SseParser();
  try {
    for (let chunk = await res.next(); chunk; chunk = await res.next()) {
      for (const ev of parser.push(chunk)) {
        if (ev.data === "[DONE]") return;
        yield parseEvent(u, ev.data);
      }
    }
    for (const ev of parser.end()) {
      if (ev.data === "[DONE]") return;
      yield parseEvent(u, ev.data);
    }
  } catch (err) {
    if (err instanceof HttpError) throw err;
    throw new HttpError(502, `upstream ${u.url} stream broke: ${describe(err)}`, "upstream_error");
  } finally {
    // Whatever is left (normally just the end of the body) is dropped as it arrives.
    res.discard();
  }
}

function parseEvent(u: Upstream, data: string): Record<string, unknown> {
  let obj: unknown;
  try {
    obj = JSON.parse(data);
  } catch {
    throw new HttpError(
      502,
      `upstream ${u.url} sent a stream event that is not JSON: ${JSON.stringify(data.slice(0, 200))}`,
      "upstream_error",
    );
  }
  if (!obj || typeof obj !== "object") {
    throw new HttpError(
      502,
      `upstream ${u.url} sent a stream event that is not an object`,
      "upstream_error",
    );
  }
  const o = obj as Record<string, unknown>;
  if (o.error || o.object === "error") {
    throw new HttpError(
      502,
      `upstream ${u.url} reported an error mid-stream: ${errorMessageOf(data)}`,
      "upstream_error",
    );
  }
  return o;
}

/** HTTP calls to an upstream, with its failures turned into errors the agent can act on. */
import type { Dispatcher } from "undici";
import { HttpError } from "../errors.js";
import { SseParser } from "../http.js";
import {
  describe,
  isConnectFailure,
  joinPath,
  type Upstream,
  UpstreamConnectError,
} from "./pool.js";
import { CallAbort, type CallSignal } from "./types.js";

/** Shared by every call (undici only reads request headers). */
const JSON_HEADERS: Readonly<Record<string, string>> = { "content-type": "application/json" };

export async function upstreamPost(
  u: Upstream,
  path: string,
  body: unknown,
  signal: CallSignal,
): Promise<Dispatcher.ResponseData> {
  try {
    return await u.dispatcher.request({
      path: joinPath(u.url, path),
      method: "POST",
      headers: u.apiKey ? { ...JSON_HEADERS, authorization: `Bearer ${u.apiKey}` } : JSON_HEADERS,
      body: JSON.stringify(body),
      signal,
    });
  } catch (err) {
    if (signal.aborted) throw abortError(signal);
    if (isConnectFailure(err)) throw new UpstreamConnectError(u.url, err);
    throw fromTransportError(u, err);
  }
}

/**
 * POSTs `body` as JSON and resolves with the parsed JSON response, or throws what upstreamPost and
 * readUpstreamJson would have thrown. The hot path of the non-streaming adapters: undici's
 * `dispatch` with a handler of our own, without the Readable stream and async resource that
 * `request()` builds per call.
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
 * arrives, parsed (what upstreamSse yields); resolves at `[DONE]` or at the end of the body. An
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
  call: UpstreamCall,
): void {
  if (signal.aborted) {
    call.onError(abortError(signal));
    return;
  }
  call.listen();
  u.dispatcher.dispatch(
    {
      path: joinPath(u.url, path),
      method: "POST",
      headers: u.apiKey ? { ...JSON_HEADERS, authorization: `Bearer ${u.apiKey}` } : JSON_HEADERS,
      body: JSON.stringify(body),
    },
    call,
  );
}

/**
 * One upstream call as an undici dispatch handler (the callback interface undici's own request()
 * is built on). Errors map as in upstreamPost (before the response's headers: connection failures
 * are retryable), readUpstreamJson and upstreamSse (after them).
 */
class UpstreamCall implements Dispatcher.DispatchHandler {
  private abortCall: ((err: Error) => void) | undefined;
  private status = 0;
  private headersSeen = false;
  private settled = false;
  private readonly chunks: Buffer[] = [];
  private parser: SseParser | undefined;
  private readonly onAbort = () => this.abortCall?.(abortError(this.signal));

  constructor(
    private readonly u: Upstream,
    private readonly signal: CallSignal,
    private readonly onEvent: ((ev: Record<string, unknown>) => void) | undefined,
    private readonly resolve: (v: unknown) => void,
    private readonly reject: (err: unknown) => void,
  ) {}

  listen(): void {
    const s = this.signal;
    if (s instanceof CallAbort) s.once("abort", this.onAbort);
    else s.addEventListener("abort", this.onAbort, { once: true });
  }

  private settle(): boolean {
    if (this.settled) return false;
    this.settled = true;
    const s = this.signal;
    if (s instanceof CallAbort) s.removeListener("abort", this.onAbort);
    else s.removeEventListener("abort", this.onAbort);
    return true;
  }

  private succeed(value: unknown): void {
    if (this.settle()) this.resolve(value);
  }

  private fail(err: unknown): void {
    if (this.settle()) this.reject(err);
  }

  onConnect(abort: (err?: Error) => void): void {
    if (this.settled) {
      abort(new Error("the call has already ended"));
      return;
    }
    this.abortCall = abort;
    if (this.signal.aborted) abort(abortError(this.signal));
  }

  onHeaders(statusCode: number): boolean {
    this.headersSeen = true;
    this.status = statusCode;
    if (this.onEvent && statusCode < 400) this.parser = new SseParser();
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.settled) return true;
    const parser = this.parser;
    if (!parser) {
      this.chunks.push(chunk);
      return true;
    }
    try {
      for (const ev of parser.push(chunk)) {
        if (ev.data === "[DONE]") {
          // Done for the agent; undici reads the rest of the body and reuses the connection.
          this.succeed(undefined);
          return true;
        }
        this.onEvent!(parseEvent(this.u, ev.data));
      }
    } catch (err) {
      this.fail(err);
      this.abortCall?.(err as Error);
    }
    return true;
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
    const c = this.chunks;
    const text =
      c.length === 1
        ? c[0]!.toString("utf8")
        : c.length === 0
          ? ""
          : Buffer.concat(c).toString("utf8");
    if (this.status >= 400) {
      this.fail(upstreamStatusError(u, this.status, text));
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      this.fail(
        new HttpError(
          502,
          `upstream ${u.url} returned a body that is not JSON: ${JSON.stringify(text.slice(0, 200))}`,
          "upstream_error",
        ),
      );
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

function abortError(signal: CallSignal): Error {
  const reason = signal.reason;
  if (reason instanceof HttpError) return reason;
  return new HttpError(499, "the client closed the request", "client_closed");
}

/** Errors after the request was sent: timeouts and broken bodies. */
export function fromTransportError(u: Upstream, err: unknown): HttpError {
  const code = (err as { code?: string }).code ?? "";
  if (code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT") {
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
export async function readUpstreamJson(
  u: Upstream,
  res: Dispatcher.ResponseData,
  signal: CallSignal,
): Promise<unknown> {
  let text: string;
  try {
    text = await res.body.text();
  } catch (err) {
    if (signal.aborted) throw abortError(signal);
    throw fromTransportError(u, err);
  }
  if (res.statusCode >= 400) throw upstreamStatusError(u, res.statusCode, text);
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

/** Bytes of a stream's body (all of it, not just the rest) past which dropping the rest aborts it. */
const DUMP_LIMIT = 64 * 1024 * 1024;

/**
 * The `data:` payloads of an upstream SSE body, parsed as JSON, until `[DONE]`. A payload that is
 * not JSON, or an `error` object inside the stream, ends the stream with a 502.
 */
export async function* upstreamSse(
  u: Upstream,
  res: Dispatcher.ResponseData,
  signal: CallSignal,
): AsyncGenerator<Record<string, unknown>> {
  if (res.statusCode >= 400) {
    const text = await res.body.text().catch(() => "");
    throw upstreamStatusError(u, res.statusCode, text);
  }
  const parser = new SseParser();
  // Iterated without destroy-on-return: leaving the loop at `[DONE]` would otherwise destroy the
  // body before its end arrived, and undici builds an error (with a stack trace) to do it.
  const body = res.body.iterator({ destroyOnReturn: false });
  let done = false;
  try {
    for await (const chunk of body) {
      for (const ev of parser.push(chunk as Buffer)) {
        if (ev.data === "[DONE]") {
          done = true;
          break;
        }
        yield parseEvent(u, ev.data);
      }
      if (done) break;
    }
    if (!done) {
      for (const ev of parser.end()) {
        if (ev.data === "[DONE]") return;
        yield parseEvent(u, ev.data);
      }
    }
  } catch (err) {
    if (err instanceof HttpError) throw err;
    if (signal.aborted) throw abortError(signal);
    throw new HttpError(502, `upstream ${u.url} stream broke: ${describe(err)}`, "upstream_error");
  } finally {
    // Whatever is left (normally just the end of the body) is read and dropped, so the connection
    // goes back to the pool; a body that never ends is cut by the pool's bodyTimeout.
    if (!res.body.readableEnded) res.body.dump({ limit: DUMP_LIMIT }).catch(() => {});
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

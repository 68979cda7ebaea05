/**
 * One model server's admin routes over HTTP: a call is retried on failure, then fails with what
 * the server said. Shared by the vLLM and SGLang weight syncs (weight-sync.ts).
 *
 * Decided here, once:
 *   - a failure is a connection error, a timeout or a non-2xx answer; each is tried `retries`
 *     more times (a fixed short pause between tries: a server that is loading answers again
 *     shortly, one that is down does not recover within a step), except an answer the caller
 *     marks final (`final`: a state a retry cannot change, e.g. a server flag missing), and a
 *     timeout where the caller says a second try could run beside the first (`retryTimeout`);
 *   - the error of the last try names the server, the route, the status and the server's own
 *     message, read from whichever envelope it used: vLLM's nested `{error: {message}}`, the flat
 *     `{message}` (older vLLM, SGLang's validation errors), FastAPI's `{detail}`, the RL routes'
 *     `{error: "..."}`, SGLang's `{success: false, message | error_message}`, or plain text;
 *   - SGLang answers some failures with 200 and `success: false` (older builds); that is a failure
 *     too;
 *   - a 404 `{"detail": "Not Found"}` means the route is not there: the server was started without
 *     the flag or environment variable that registers it, and the error says which (`hint`).
 */
import { Agent, request } from "undici";

export interface AdminOptions {
  /** Further tries after a failed one. */
  retries: number;
  /** Milliseconds one try may take. */
  timeoutMs: number;
  /** `Authorization: Bearer` on every call. */
  apiKey?: string | undefined;
  /** Milliseconds between tries (default 500). */
  retryDelayMs?: number;
}

/** A server's answer: its status and body, JSON when it parses, else the text. */
export interface AdminReply {
  status: number;
  body: unknown;
}

export class AdminCallError extends Error {
  constructor(
    readonly url: string,
    readonly route: string,
    readonly status: number | null,
    message: string,
    /** No answer came within the timeout: the server may still be running the call. */
    readonly timedOut = false,
    /** The body of the server's failed answer, when it answered. */
    readonly body?: unknown,
  ) {
    super(message);
    this.name = "AdminCallError";
  }
}

export class AdminClient {
  private readonly dispatcher: Agent;

  constructor(
    /** The server's root URL (no trailing `/`). */
    readonly url: string,
    private readonly o: AdminOptions,
  ) {
    this.dispatcher = new Agent({ connections: 4, keepAliveTimeout: 10_000 });
  }

  /**
   * `method route` with a JSON body (POST) and query; retried, then an AdminCallError.
   * `hint`: why a 404 "Not Found" would happen (the server flag the route needs); `final`: the
   * server messages a retry cannot change (those fail at once).
   */
  async call(
    method: "GET" | "POST",
    route: string,
    options: {
      body?: unknown;
      query?: Record<string, string>;
      hint?: string;
      final?: (message: string) => boolean;
      /** false: a try that timed out is the last (the server may still be running it). */
      retryTimeout?: boolean;
    } = {},
  ): Promise<AdminReply> {
    const query = options.query ? `?${new URLSearchParams(options.query)}` : "";
    let last: AdminCallError | undefined;
    let tries = 0;
    while (tries <= this.o.retries) {
      if (tries++ > 0) await sleep(this.o.retryDelayMs ?? 500);
      try {
        const reply = await this.once(method, route + query, options.body);
        const failed = failure(reply);
        if (failed === undefined) return reply;
        last = this.error(method, route, reply, failed, options.hint);
        if (options.final?.(failed)) break;
      } catch (e) {
        const timedOut = (e as Error).name === "TimeoutError";
        const why = timedOut
          ? `no answer within ${this.o.timeoutMs / 1000} s (backend.sampler.timeoutS)`
          : (e as Error).message;
        last = new AdminCallError(
          this.url,
          route,
          null,
          `${method} ${this.url}${route}: ${why}`,
          timedOut,
        );
        if (timedOut && options.retryTimeout === false) break;
      }
    }
    throw new AdminCallError(
      last!.url,
      last!.route,
      last!.status,
      `${last!.message} (${tries} ${tries === 1 ? "try" : "tries"})`,
      last!.timedOut,
      last!.body,
    );
  }

  private async once(method: string, path: string, body: unknown): Promise<AdminReply> {
    const res = await request(this.url + path, {
      method: method as "POST",
      dispatcher: this.dispatcher,
      // the whole call within timeoutMs; undici's own timeouts (300 s by default) no shorter
      signal: AbortSignal.timeout(this.o.timeoutMs),
      headersTimeout: this.o.timeoutMs,
      bodyTimeout: this.o.timeoutMs,
      headers: {
        ...(method === "POST" ? { "content-type": "application/json" } : {}),
        ...(this.o.apiKey ? { authorization: `Bearer ${this.o.apiKey}` } : {}),
      },
      ...(method === "POST" ? { body: JSON.stringify(body ?? {}) } : {}),
    });
    const text = await res.body.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // plain text (vLLM's LoRA routes, SGLang's /flush_cache)
    }
    return { status: res.statusCode, body: parsed };
  }

  private error(
    method: string,
    route: string,
    { status, body }: AdminReply,
    message: string,
    hint: string | undefined,
  ): AdminCallError {
    const notFound = status === 404 && message === "Not Found";
    return new AdminCallError(
      this.url,
      route,
      status,
      `${method} ${this.url}${route} answered ${status}: ${message}${notFound && hint ? ` — the route is missing: ${hint}` : ""}`,
      false,
      body,
    );
  }

  close(): Promise<void> {
    return this.dispatcher.close();
  }
}

/** The server's message when `reply` is a failure, else undefined. */
function failure(reply: AdminReply): string | undefined {
  const b = reply.body;
  const ok = reply.status >= 200 && reply.status < 300;
  if (ok && !(isObj(b) && b.success === false)) return undefined;
  return serverMessage(b) ?? `(no message; body ${JSON.stringify(b)?.slice(0, 300)})`;
}

/** The message of any of the envelopes the module header lists. */
export function serverMessage(b: unknown): string | undefined {
  if (typeof b === "string") return b.trim() || undefined;
  if (!isObj(b)) return undefined;
  if (isObj(b.error) && typeof b.error.message === "string") return b.error.message;
  for (const k of ["error", "error_message", "message", "detail"] as const) {
    const v = b[k];
    if (typeof v === "string" && v) return v;
    if (k === "detail" && v !== undefined) return JSON.stringify(v).slice(0, 500);
  }
  return undefined;
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * The HTTP client of the hosted sandbox services: JSON or bytes in, JSON or bytes out, the
 * service's own error message carried into the error, and retries where a retry is safe.
 *
 * Decided once:
 * - A request is retried on 429 and 5xx and on a connection that failed, up to RETRIES times with
 *   exponential backoff (BACKOFF_MS · 2^attempt, or the service's Retry-After when it sends one),
 *   unless it says `retry: "429"`: a request that is not idempotent (running a command) is retried
 *   only on 429, which the service sends before doing anything; after a 5xx the command may have run.
 * - A status in `accept` is a normal answer handed back to the caller (404 on a delete, 408 on a
 *   command's timeout). Any other non-2xx is a ServiceHttpError carrying the status and the
 *   service's message (`message` of its JSON error body, else the body's text).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { SandboxError } from "../types.js";

const RETRIES = 4;
const BACKOFF_MS = 250;

export class ServiceHttpError extends SandboxError {
  override name = "ServiceHttpError";
  constructor(
    readonly status: number,
    readonly serviceMessage: string,
    what: string,
  ) {
    super(`${what}: HTTP ${status}: ${serviceMessage}`);
  }
}

export interface ServiceRequest {
  method: "GET" | "POST" | "DELETE";
  /** Absolute URL. */
  url: string;
  query?: Record<string, string>;
  json?: unknown;
  body?: FormData | Uint8Array;
  /** Statuses returned to the caller rather than thrown. */
  accept?: number[];
  /** "429": not idempotent; retried only on 429. Default: 429, 5xx and connection failures. */
  retry?: "all" | "429";
  /** For the error message: what this request was doing ("create the sandbox"). */
  what: string;
}

export interface ServiceResponse {
  status: number;
  bytes: Uint8Array;
  json<T>(): T;
}

/** One service: its name (for messages) and the headers every request carries (auth). */
export class ServiceClient {
  constructor(
    readonly service: string,
    private readonly headers: Record<string, string>,
    private readonly hint: (status: number) => string = () => "",
  ) {}

  async request(req: ServiceRequest): Promise<ServiceResponse> {
    const url = new URL(req.url);
    for (const [k, v] of Object.entries(req.query ?? {})) url.searchParams.set(k, v);
    const headers: Record<string, string> = { ...this.headers };
    let body: string | FormData | Uint8Array | undefined;
    if (req.json !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(req.json);
    } else if (req.body !== undefined) {
      body = req.body;
    }
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await fetch(url, { method: req.method, headers, body });
      } catch (err) {
        if (req.retry !== "429" && attempt < RETRIES) {
          await sleep(BACKOFF_MS * 2 ** attempt);
          continue;
        }
        throw new SandboxError(
          `${this.service}: ${req.what}: cannot reach ${url.origin}: ${(err as Error).message}`,
        );
      }
      const bytes = new Uint8Array(await res.arrayBuffer());
      const status = res.status;
      if ((status >= 200 && status < 300) || req.accept?.includes(status)) {
        return {
          status,
          bytes,
          json: <T>() => JSON.parse(new TextDecoder().decode(bytes)) as T,
        };
      }
      const retriable = status === 429 || (req.retry !== "429" && status >= 500);
      if (retriable && attempt < RETRIES) {
        await sleep(retryDelayMs(res.headers.get("retry-after"), attempt));
        continue;
      }
      const hint = this.hint(status);
      throw new ServiceHttpError(
        status,
        serviceMessage(bytes) + (hint ? ` (${hint})` : ""),
        `${this.service}: ${req.what} (${req.method} ${url.pathname})`,
      );
    }
  }
}

function retryDelayMs(retryAfter: string | null, attempt: number): number {
  const seconds = retryAfter === null ? Number.NaN : Number(retryAfter);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds, 30) * 1000;
  return BACKOFF_MS * 2 ** attempt;
}

/** The message of an error body: `message` of a JSON body (an array joined), else the text. */
function serviceMessage(bytes: Uint8Array): string {
  const text = new TextDecoder().decode(bytes).trim();
  try {
    const parsed = JSON.parse(text) as { message?: unknown; error?: unknown };
    const m = parsed.message ?? parsed.error;
    if (Array.isArray(m)) return m.join(", ");
    if (typeof m === "string" && m) return m;
  } catch {
    // not JSON: the text itself
  }
  return text.slice(0, 500) || "(empty body)";
}

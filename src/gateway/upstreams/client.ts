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

export async function upstreamPost(
  u: Upstream,
  path: string,
  body: unknown,
  signal: AbortSignal,
): Promise<Dispatcher.ResponseData> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (u.apiKey) headers.authorization = `Bearer ${u.apiKey}`;
  try {
    return await u.dispatcher.request({
      path: joinPath(u.url, path),
      method: "POST",
      headers,
      body: JSON.stringify(body),
      signal,
    });
  } catch (err) {
    if (signal.aborted) throw abortError(signal);
    if (isConnectFailure(err)) throw new UpstreamConnectError(u.url, err);
    throw fromTransportError(u, err);
  }
}

function abortError(signal: AbortSignal): Error {
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
  signal: AbortSignal,
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

/**
 * The `data:` payloads of an upstream SSE body, parsed as JSON, until `[DONE]`. A payload that is
 * not JSON, or an `error` object inside the stream, ends the stream with a 502.
 */
export async function* upstreamSse(
  u: Upstream,
  res: Dispatcher.ResponseData,
  signal: AbortSignal,
): AsyncGenerator<Record<string, unknown>> {
  if (res.statusCode >= 400) {
    const text = await res.body.text().catch(() => "");
    throw upstreamStatusError(u, res.statusCode, text);
  }
  const parser = new SseParser();
  try {
    for await (const chunk of res.body) {
      for (const ev of parser.push(chunk as Buffer)) {
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
    if (signal.aborted) throw abortError(signal);
    throw new HttpError(502, `upstream ${u.url} stream broke: ${describe(err)}`, "upstream_error");
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

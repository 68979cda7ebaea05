/** Writing responses: JSON bodies, error bodies in each server's shape, and SSE streams. */
import type http from "node:http";
import type { FakeServer, Json } from "./context.js";
import type { FakeUpstreamConfig } from "./types.js";

export const DONE = "data: [DONE]\n\n";
const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
};

/** A request the server refuses, answered with `status` and the server's error body. */
export class BadRequest extends Error {
  constructor(
    message: string,
    readonly status = 400,
    readonly param: string | null = null,
  ) {
    super(message);
  }
}

export function isObj(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function intParam(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) ? Math.trunc(v) : undefined;
}

export function utf8Bytes(s: string): number[] {
  return Array.from(Buffer.from(s, "utf8"));
}

/**
 * The error body each server sends: hosted OpenAI's `{error: {type: "invalid_request_error"}}`,
 * SGLang's bare `{error: {message}}` on /generate and flat shape elsewhere, vLLM's nested shape
 * (or the flat legacy one, `errorFormat: "legacy"`).
 */
export function errorBody(
  s: FakeServer,
  status: number,
  message: string,
  endpoint: string,
  param: string | null,
): Json {
  const type =
    status === 404
      ? "NotFoundError"
      : status >= 500
        ? "InternalServerError"
        : status === 429
          ? "TooManyRequestsError"
          : "BadRequestError";
  if (s.kind === "openai")
    return {
      error: {
        message,
        type: status >= 500 ? "server_error" : "invalid_request_error",
        param,
        code: null,
      },
    };
  if (s.kind === "sglang") {
    if (endpoint === "/generate") return { error: { message } };
    return { object: "error", message, type, param, code: status };
  }
  if (s.options.errorFormat === "legacy")
    return { object: "error", message, type, param, code: status };
  return { error: { message, type, param, code: status } };
}

export function sendJson(
  res: http.ServerResponse,
  status: number,
  obj: unknown,
  headers?: Record<string, string>,
): void {
  if (res.destroyed) return;
  const body = JSON.stringify(obj);
  const h: http.OutgoingHttpHeaders = {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
  };
  if (headers) Object.assign(h, headers);
  res.writeHead(status, h);
  res.end(body);
}

/**
 * Writes SSE `chunks` (each a whole `data: ...\n\n` event), `config.tokenDelayMs` apart; with
 * `destroyAfter` >= 0 the socket is destroyed once that many chunks went out (a fault).
 */
export function writeStream(
  res: http.ServerResponse,
  chunks: readonly string[],
  destroyAfter: number,
  config: FakeUpstreamConfig,
): void {
  if (res.destroyed) return;
  res.writeHead(200, SSE_HEADERS);
  let i = 0;
  const step = () => {
    while (!res.destroyed) {
      if (i === destroyAfter) {
        if (i === 0) res.flushHeaders();
        setImmediate(() => res.socket?.destroy());
        return;
      }
      if (i >= chunks.length) {
        res.end();
        return;
      }
      const last = i + 1 === destroyAfter;
      if (last) {
        res.write(chunks[i++]!, () => setImmediate(() => res.socket?.destroy()));
        return;
      }
      res.write(chunks[i++]!);
      if (config.tokenDelayMs > 0) {
        setTimeout(step, config.tokenDelayMs);
        return;
      }
    }
  };
  step();
}

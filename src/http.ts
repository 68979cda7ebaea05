/**
 * HTTP helpers shared by every server of ours on node:http (the gateway, the sampler front end):
 * an error that carries its status, the OpenAI-shaped error body, a size-capped body reader and
 * JSON replies. Imports nothing of ours, so any layer may use it.
 *
 *   throw new HttpError(400, "messages must not be empty", { param: "messages" });
 *   const body = await readJsonBody(req, { limit, tooLarge: () => new HttpError(413, "...") });
 *   sendJson(res, 200, body, ["x-rllm-weight-version", "3"]);
 *
 * Error bodies, in the two dialects our servers answer in:
 *   "openai": `{error: {message, type, param, code}}`, type e.g. "invalid_request_error", code a
 *             string or null (OpenAI's API; the gateway);
 *   "vllm":   the same shape with type named after the status class ("BadRequestError",
 *             "NotFoundError", …) and code the status (vLLM's server; the sampler front end).
 */
import type { IncomingMessage, ServerResponse } from "node:http";

interface HttpErrorDetails {
  /** OpenAI's error type (default: from the status, e.g. 400 → "invalid_request_error"). */
  type?: string;
  code?: string | null;
  /** The request field at fault. */
  param?: string | null;
}

/** An error with an HTTP status, thrown anywhere below a route handler and rendered by the server. */
export class HttpError extends Error {
  readonly type: string;
  readonly code: string | null;
  readonly param: string | null;

  /** `details` as an object, or the type alone (then `code` as a fourth argument). */
  constructor(
    readonly status: number,
    message: string,
    details?: HttpErrorDetails | string,
    code: string | null = null,
  ) {
    super(message);
    this.name = "HttpError";
    const d: HttpErrorDetails = typeof details === "object" ? details : { type: details, code };
    this.type = d.type ?? defaultType(status);
    this.code = d.code ?? null;
    this.param = d.param ?? null;
  }
}

function defaultType(status: number): string {
  if (status === 400 || status === 413 || status === 422) return "invalid_request_error";
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 429) return "rate_limit_error";
  if (status === 502 || status === 503 || status === 504) return "upstream_error";
  return "server_error";
}

interface OpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string | number | null };
}

/** The error body of `e` in the OpenAI (the gateway's) or vLLM (the sampler's) dialect. */
export function openAIErrorBody(
  e: HttpError,
  dialect: "openai" | "vllm" = "openai",
): OpenAIErrorBody {
  if (dialect === "openai")
    return { error: { message: e.message, type: e.type, param: e.param, code: e.code } };
  const type =
    e.status === 404
      ? "NotFoundError"
      : e.status === 503
        ? "ServiceUnavailableError"
        : e.status >= 500
          ? "InternalServerError"
          : "BadRequestError";
  return { error: { message: e.message, type, param: e.param, code: e.status } };
}

interface BodyLimit {
  /** Most bytes accepted. */
  limit: number;
  /** The 413 to answer past it (each server names its own knob). */
  tooLarge: () => HttpError;
}

/**
 * Reads and parses a JSON body: past `limit` bytes (declared or received) the 413 of `tooLarge`,
 * the rest of the body drained so the reply can be read; an empty or malformed body is a 400.
 */
export function readJsonBody(
  req: IncomingMessage,
  { limit, tooLarge }: BodyLimit,
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers["content-length"]);
    if (Number.isFinite(declared) && declared > limit) {
      req.resume();
      reject(tooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on("data", (c: Buffer) => {
      if (failed) return;
      size += c.length;
      if (size > limit) {
        failed = true;
        reject(tooLarge());
        return;
      }
      chunks.push(c);
    });
    req.on("error", (err) => {
      if (!failed) reject(new HttpError(400, `could not read the request body: ${err.message}`));
      failed = true;
    });
    req.on("end", () => {
      if (failed) return;
      const text =
        chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8");
      if (text.trim() === "") {
        reject(new HttpError(400, "the request body is empty; send a JSON object"));
        return;
      }
      try {
        resolve(JSON.parse(text));
      } catch (err) {
        reject(new HttpError(400, `the request body is not valid JSON: ${(err as Error).message}`));
      }
    });
  });
}

/**
 * A JSON response. `headers` are extra header lines as a flat [name, value, ...] list: node:http
 * takes that without building a header object, and the head and body leave in one socket write.
 */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers?: readonly string[],
): void {
  const text = JSON.stringify(body);
  const head = [
    "content-type",
    "application/json",
    "content-length",
    String(Buffer.byteLength(text)),
  ];
  if (headers) for (const h of headers) head.push(h);
  res.writeHead(status, head);
  res.end(text);
}

/**
 * The front end's use of the shared HTTP helpers (src/http.ts): replies stamped with the weight
 * version, errors in vLLM's dialect, request bodies capped at 32 MiB.
 */
import type http from "node:http";
import { HttpError, openAIErrorBody, readJsonBody, sendJson } from "../../http.js";

export { HttpError };

const MAX_BODY_BYTES = 32 * 1024 * 1024;

/** A JSON reply with `x-rllm-weight-version`; nothing once the response has begun or the client left. */
export function sendVersioned(
  res: http.ServerResponse,
  status: number,
  body: unknown,
  version: number,
): void {
  if (res.destroyed || res.headersSent) return;
  sendJson(res, status, body, ["x-rllm-weight-version", String(version)]);
}

/** `e` as vLLM answers it: `{error: {message, type: "BadRequestError" | …, param, code: status}}`. */
export function sendError(res: http.ServerResponse, e: HttpError, version: number): void {
  sendVersioned(res, e.status, openAIErrorBody(e, "vllm"), version);
}

/** The request's JSON body (400 when empty or malformed, 413 past 32 MiB). */
export function readRequestJson(req: http.IncomingMessage): Promise<unknown> {
  return readJsonBody(req, {
    limit: MAX_BODY_BYTES,
    tooLarge: () => new HttpError(413, `request body over ${MAX_BODY_BYTES} bytes`),
  });
}

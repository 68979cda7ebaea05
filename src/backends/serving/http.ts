/** The front end's HTTP helpers: errors with a status and a param, vLLM's error body, JSON replies. */
import type http from "node:http";

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly param: string | null = null,
  ) {
    super(message);
  }
}

/** vLLM's error body: `type` named after the status class, `code` the status. */
export function errorBody(status: number, message: string, param: string | null) {
  const type =
    status === 404
      ? "NotFoundError"
      : status === 503
        ? "ServiceUnavailableError"
        : status >= 500
          ? "InternalServerError"
          : "BadRequestError";
  return { error: { message, type, param, code: status } };
}

export function sendJson(
  res: http.ServerResponse,
  status: number,
  body: unknown,
  version: number,
): void {
  if (res.destroyed || res.headersSent) return;
  const json = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(json),
    "x-rllm-weight-version": String(version),
  });
  res.end(json);
}

const MAX_BODY_BYTES = 32 * 1024 * 1024;

export function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        reject(new HttpError(413, `request body over ${MAX_BODY_BYTES} bytes`));
        req.destroy();
      } else chunks.push(c);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

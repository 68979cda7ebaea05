/** Small HTTP helpers for node:http: bounded JSON bodies, JSON replies, SSE framing and parsing. */
import type { IncomingMessage, ServerResponse } from "node:http";
import { HttpError } from "./errors.js";

/** Reads and parses a JSON body, refusing more than `limit` bytes with a 413. */
export function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers["content-length"]);
    if (Number.isFinite(declared) && declared > limit) {
      req.resume();
      reject(tooLarge(limit));
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
        reject(tooLarge(limit));
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

function tooLarge(limit: number): HttpError {
  return new HttpError(
    413,
    `the request body is larger than the gateway's limit of ${limit} bytes (gateway.maxBodyBytes)`,
    "request_too_large",
  );
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

/**
 * Starts an SSE response; `headers` as in sendJson. The head is not flushed on its own: it leaves
 * with the first event the caller writes next, in the same socket write.
 */
export function startSse(res: ServerResponse, headers?: readonly string[]): void {
  const head = [
    "content-type",
    "text/event-stream",
    "cache-control",
    "no-cache",
    "connection",
    "keep-alive",
    "x-accel-buffering",
    "no",
  ];
  if (headers) for (const h of headers) head.push(h);
  res.writeHead(200, head);
}

export interface SseEvent {
  event?: string;
  data: unknown;
}

export function formatSse(ev: SseEvent): string {
  const data = typeof ev.data === "string" ? ev.data : JSON.stringify(ev.data);
  return ev.event ? `event: ${ev.event}\ndata: ${data}\n\n` : `data: ${data}\n\n`;
}

/**
 * Incremental parser for a `text/event-stream` body: feed it bytes as they arrive and it yields
 * complete events (the joined `data:` lines and the optional `event:` name).
 */
export class SseParser {
  private buf = "";
  private readonly decoder = new TextDecoder();

  push(chunk: Uint8Array | string): { event?: string; data: string }[] {
    this.buf += typeof chunk === "string" ? chunk : this.decoder.decode(chunk, { stream: true });
    const out: { event?: string; data: string }[] = [];
    for (;;) {
      const m = /\r?\n\r?\n/.exec(this.buf);
      if (!m) break;
      const block = this.buf.slice(0, m.index);
      this.buf = this.buf.slice(m.index + m[0].length);
      const ev = parseBlock(block);
      if (ev) out.push(ev);
    }
    return out;
  }

  /** Whatever is left when the stream ends (a last event without its blank line). */
  end(): { event?: string; data: string }[] {
    const rest = this.buf + this.decoder.decode();
    this.buf = "";
    const ev = rest.trim() ? parseBlock(rest) : undefined;
    return ev ? [ev] : [];
  }
}

function parseBlock(block: string): { event?: string; data: string } | undefined {
  let event: string | undefined;
  const data: string[] = [];
  for (const line of block.split(/\r?\n/)) {
    if (line.startsWith("data:")) data.push(line.slice(line[5] === " " ? 6 : 5));
    else if (line.startsWith("event:")) event = line.slice(6).trim();
  }
  if (data.length === 0) return undefined;
  return event ? { event, data: data.join("\n") } : { data: data.join("\n") };
}

export function bearerToken(req: IncomingMessage): string | undefined {
  const auth = req.headers.authorization;
  if (typeof auth === "string") {
    const m = /^Bearer\s+(.+)$/i.exec(auth.trim());
    if (m) return m[1];
  }
  const key = req.headers["x-api-key"];
  return typeof key === "string" && key ? key : undefined;
}

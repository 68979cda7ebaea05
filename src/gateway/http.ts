/**
 * The gateway's HTTP helpers for node:http: its bounded JSON bodies and JSON replies (the shared
 * src/http.ts), SSE framing and parsing, bearer tokens.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { HttpError, readJsonBody as readBody, sendJson } from "../http.js";

export { sendJson };

/**
 * Reads and parses a JSON body, refusing more than `limit` bytes (gateway.maxBodyBytes) with a 413
 * and one nested deeper than MAX_JSON_DEPTH with a 400.
 */
export async function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  const body = await readBody(req, { limit, tooLarge: () => tooLarge(limit) });
  if (nestedDeeper(body, MAX_JSON_DEPTH)) {
    throw new HttpError(
      400,
      `the request body is nested deeper than ${MAX_JSON_DEPTH} levels (objects and arrays)`,
    );
  }
  return body;
}

/**
 * Deepest nesting of objects and arrays a body may have: what walks a request recursively (the
 * dialects' translators, JSON.stringify for the upstream and the trace) overflows the stack
 * somewhere past a few thousand levels, a 500.
 */
const MAX_JSON_DEPTH = 512;

/** Whether `value` nests objects/arrays deeper than `max` (walked without recursion). */
function nestedDeeper(value: unknown, max: number): boolean {
  const pending: [unknown, number][] = [[value, 1]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [v, depth] = next;
    if (v === null || typeof v !== "object") continue;
    if (depth > max) return true;
    for (const child of Object.values(v)) pending.push([child, depth + 1]);
  }
  return false;
}

function tooLarge(limit: number): HttpError {
  return new HttpError(
    413,
    `the request body is larger than the gateway's limit of ${limit} bytes (gateway.maxBodyBytes)`,
    "request_too_large",
  );
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

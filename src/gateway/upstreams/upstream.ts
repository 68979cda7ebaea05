/**
 * One upstream model server as the gateway sees it (its address, client and health counters), and
 * the facts about reaching it that the pool, the HTTP client and the adapters share: which errors
 * mean "could not talk to it", and how a path joins its URL. A leaf: the pool routes over these,
 * the client calls them, the adapters receive them.
 */
import type { UpstreamKind } from "../../config/index.js";
import type { H1Client } from "./h1.js";

export interface Upstream {
  readonly url: string;
  readonly kind: UpstreamKind;
  readonly apiKey: string | undefined;
  readonly model: string | undefined;
  readonly http: H1Client;
  healthy: boolean;
  inFlight: number;
  requests: number;
  failures: number;
  lastError: string | null;
  lastCheckedAt: number | null;
}

/** A failure to reach the upstream at all: safe to retry elsewhere. */
export class UpstreamConnectError extends Error {
  constructor(
    readonly upstream: string,
    cause: unknown,
  ) {
    super(`cannot reach upstream ${upstream}: ${describe(cause)}`);
    this.name = "UpstreamConnectError";
  }
}

export function describe(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: string }).code;
    const cause = (err as { cause?: unknown }).cause;
    const inner = cause instanceof Error ? ` (${cause.message})` : "";
    return `${code ? `${code}: ` : ""}${err.message}${inner}`;
  }
  return String(err);
}

const CONNECT_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EPIPE",
  "RLLM_CONNECT_TIMEOUT",
  "RLLM_SOCKET_CLOSED",
  "RLLM_CLIENT_CLOSED",
]);

/** Whether an error thrown before response headers arrived means "could not talk to it". */
export function isConnectFailure(err: unknown): boolean {
  let e: unknown = err;
  for (let i = 0; i < 3 && e instanceof Error; i++) {
    const code = (e as { code?: string }).code;
    if (code && CONNECT_CODES.has(code)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

export function normalizeUrl(url: string): string {
  return url.replace(/\/+$/, "");
}

/** Path prefixes by upstream URL: parsing the URL per call costs more than the rest of this. */
const prefixes = new Map<string, string>();

/** The request path on an upstream whose URL may carry a prefix (e.g. https://host/api). */
export function joinPath(base: string, path: string): string {
  let prefix = prefixes.get(base);
  if (prefix === undefined) {
    prefix = new URL(base).pathname.replace(/\/+$/, "");
    if (prefixes.size > 1024) prefixes.clear();
    prefixes.set(base, prefix);
  }
  // Hosted APIs are usually given as .../v1; do not double it.
  if (prefix.endsWith("/v1") && path.startsWith("/v1/")) return prefix + path.slice(3);
  return prefix + path;
}

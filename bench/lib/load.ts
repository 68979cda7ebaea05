/**
 * A closed-loop HTTP load generator on undici: `concurrency` virtual users, each with its own
 * keep-alive connection, sending requests from a fixed list back to back. Phases: priming (every
 * user opens its connection and completes one request; all wait for the last), warm-up, measured
 * window. Latency is taken per request with process.hrtime, from just before the request is sent
 * to the last byte of the body (the whole SSE stream for streaming calls). Requests/s counts the
 * completions inside the window; latencies are those of the requests sent and completed in it.
 */
import { Pool } from "undici";
import { mulberry32, percentile, sortedCopy } from "./stats.js";

export type RequestKind = "chat" | "chat_followup" | "chat_stream" | "completion";

export interface MixRequest {
  kind: RequestKind;
  /** The path after the target's base, e.g. "/v1/chat/completions". */
  path: string;
  stream: boolean;
  /** The JSON body, serialised once. */
  body: string;
}

const WORDS = (
  "the a model agent tool call returns value list file read write test check plan step next " +
  "answer question python function error output input state reward episode trace token prompt " +
  "sample batch policy update gradient loss score task solve code run result number string " +
  "search open close find move left right up down first last small large quick simple"
).split(" ");

const SYSTEM_PROMPTS = [
  "You are a helpful assistant. Answer briefly.",
  "You are a careful coding agent. Think step by step, then give the final answer only.",
  "You are a math tutor. Show the key step and the result.",
];

/** The number of distinct requests in a mix; virtual users walk it from different offsets. */
export const MIX_SIZE = 1024;

/**
 * The fixed request mix (same seed, same list): ~45% single-turn chat, ~25% chat with an
 * assistant + user follow-up, ~15% streaming chat, ~15% /v1/completions; max_tokens 8–32.
 * `extra` is merged into every body (e.g. the token-capture fields the gateway adds upstream).
 */
export function buildMix(seed: number, extra: Record<string, unknown> = {}): MixRequest[] {
  const rnd = mulberry32(seed);
  const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const sentence = (lo: number, hi: number) => {
    const n = int(lo, hi);
    const w: string[] = [];
    for (let i = 0; i < n; i++) w.push(pick(WORDS));
    return `${w.join(" ")}.`;
  };
  const out: MixRequest[] = [];
  for (let i = 0; i < MIX_SIZE; i++) {
    const r = rnd();
    const maxTokens = int(8, 32);
    if (r < 0.85) {
      const kind: RequestKind = r < 0.45 ? "chat" : r < 0.7 ? "chat_followup" : "chat_stream";
      const messages: { role: string; content: string }[] = [
        { role: "system", content: pick(SYSTEM_PROMPTS) },
        { role: "user", content: sentence(6, 40) },
      ];
      if (kind === "chat_followup") {
        messages.push({ role: "assistant", content: sentence(4, 30) });
        messages.push({ role: "user", content: sentence(3, 20) });
      }
      const body: Record<string, unknown> = {
        model: "fake-model",
        messages,
        max_tokens: maxTokens,
        temperature: 0.7,
        ...extra,
      };
      if (kind === "chat_stream") body.stream = true;
      out.push({
        kind,
        path: "/v1/chat/completions",
        stream: kind === "chat_stream",
        body: JSON.stringify(body),
      });
    } else {
      const body = {
        model: "fake-model",
        prompt: sentence(5, 30),
        max_tokens: maxTokens,
        temperature: 0.7,
        ...extra,
        ...(extra.logprobs === true ? { logprobs: 1 } : {}),
      };
      out.push({
        kind: "completion",
        path: "/v1/completions",
        stream: false,
        body: JSON.stringify(body),
      });
    }
  }
  return out;
}

/** Where one virtual user sends its requests. */
export interface VirtualUser {
  /** Origin, e.g. http://127.0.0.1:8001 */
  origin: string;
  /** Path prefix before /v1/..., e.g. "/sessions/<id>" ("" for the upstream itself). */
  prefix: string;
  headers: Record<string, string>;
}

export interface CellOptions {
  concurrency: number;
  warmupMs: number;
  durationMs: number;
  mix: readonly MixRequest[];
  users: readonly VirtualUser[];
  /** Called when the measured window opens and closes (e.g. to read servers' CPU time). */
  onWindow?: (edge: "start" | "end") => void;
}

export interface SlowRequest {
  /** The virtual user, and which of its requests (0 = its first, on a new connection). */
  vu: number;
  iter: number;
  /** When it was sent, in ms from the start of the cell (the warm-up comes first). */
  startMs: number;
  latencyMs: number;
  kind: RequestKind;
}

export interface KindStats {
  count: number;
  p50: number;
  p99: number;
}

export interface CellResult {
  concurrency: number;
  /** Requests completed successfully inside the measured window (what `rps` counts). */
  measured: number;
  windowMs: number;
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  /**
   * Priming (before the warm-up): every virtual user's first request on its new connection; how
   * long until all had completed, and their p50 and max latency.
   */
  prime: { ms: number; p50: number; max: number };
  /** The 10 slowest requests of the cell, warm-up included. */
  slowest: SlowRequest[];
  mean: number;
  byKind: Partial<Record<RequestKind, KindStats>>;
  /** Every successful request of the cell, warm-up and tail included (each one left a trace). */
  ok: number;
  /** Requests that ended in an error, by kind: http_<status>, connect, sse, body, ... */
  errors: Record<string, number>;
  errorCount: number;
  /** A few error messages, for diagnosis. */
  errorSamples: string[];
  /** CPU the load generator used over the window, as a fraction of one core. */
  loadgenCpu: number;
}

const CONNECT_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
  "UND_ERR_CONNECT_TIMEOUT",
]);

function errorKind(err: unknown): string {
  let e: unknown = err;
  for (let i = 0; i < 3 && e instanceof Error; i++) {
    const code = (e as { code?: string }).code;
    if (code && CONNECT_CODES.has(code)) return "connect";
    if (code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT") return "timeout";
    e = (e as { cause?: unknown }).cause;
  }
  return "client";
}

/** Checks one response body; returns an error kind or undefined when it is fine. */
function checkBody(req: MixRequest, text: string): string | undefined {
  if (req.stream) {
    // A complete stream ends with [DONE] and carries no error event.
    if (!text.trimEnd().endsWith("data: [DONE]")) return "sse";
    if (text.includes('data: {"error"')) return "sse";
    return undefined;
  }
  try {
    const j = JSON.parse(text) as { choices?: unknown };
    return Array.isArray(j.choices) && j.choices.length > 0 ? undefined : "body";
  } catch {
    return "body";
  }
}

const now = () => Number(process.hrtime.bigint()) / 1e6;

export async function runCell(o: CellOptions): Promise<CellResult> {
  const { concurrency, mix } = o;
  if (o.users.length !== concurrency) throw new Error("one virtual user per unit of concurrency");
  const pools = new Map<string, Pool>();
  for (const u of o.users) {
    if (!pools.has(u.origin)) {
      pools.set(
        u.origin,
        new Pool(u.origin, {
          connections: concurrency,
          pipelining: 1,
          keepAliveTimeout: 60_000,
          headersTimeout: 60_000,
          bodyTimeout: 60_000,
        }),
      );
    }
  }
  const samples: number[] = [];
  const kindSamples = new Map<RequestKind, number[]>();
  const errors: Record<string, number> = {};
  const errorSamples: string[] = [];
  let ok = 0;
  const fail = (kind: string, msg: string) => {
    errors[kind] = (errors[kind] ?? 0) + 1;
    if (errorSamples.length < 5) errorSamples.push(`${kind}: ${msg.slice(0, 300)}`);
  };

  // The slowest requests of the cell (priming and warm-up included).
  const slowest: SlowRequest[] = [];
  const t0 = now();
  const noteSlow = (
    vu: number,
    iter: number,
    startMs: number,
    latencyMs: number,
    kind: RequestKind,
  ) => {
    if (slowest.length >= 10 && latencyMs <= slowest[slowest.length - 1]!.latencyMs) return;
    slowest.push({ vu, iter, startMs, latencyMs, kind });
    slowest.sort((a, b) => b.latencyMs - a.latencyMs);
    if (slowest.length > 10) slowest.pop();
  };

  /** Sends one request; returns its latency in ms, or undefined when it failed (counted). */
  const send = async (
    pool: Pool,
    user: VirtualUser,
    headers: Record<string, string>,
    req: MixRequest,
  ): Promise<number | undefined> => {
    const s = now();
    let problem: string | undefined;
    let detail = "";
    try {
      const res = await pool.request({
        path: user.prefix + req.path,
        method: "POST",
        headers,
        body: req.body,
      });
      const text = await res.body.text();
      if (res.statusCode < 200 || res.statusCode >= 300) {
        problem = `http_${res.statusCode}`;
        detail = text;
      } else {
        problem = checkBody(req, text);
        if (problem) detail = text.slice(-300);
      }
    } catch (err) {
      problem = errorKind(err);
      detail = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    }
    if (problem) {
      fail(problem, detail);
      return undefined;
    }
    ok++;
    return now() - s;
  };

  // Priming: every virtual user opens its connection and completes one request, and all wait for
  // the last one before the clock starts. Opening hundreds of connections at once to a busy
  // single-threaded server serves the last ones late (seconds at 256); that is reported here, not
  // mixed into the steady-state latencies.
  const stride = Math.max(1, Math.floor(mix.length / concurrency));
  const primeLatencies: number[] = [];
  const users = o.users.map((user, i) => ({
    user,
    pool: pools.get(user.origin)!,
    headers: { "content-type": "application/json", ...user.headers },
    k: (i * stride + i) % mix.length,
    iter: 0,
  }));
  await Promise.all(
    users.map(async (u, i) => {
      const req = mix[u.k]!;
      u.k = (u.k + 1) % mix.length;
      const s = now();
      const ms = await send(u.pool, u.user, u.headers, req);
      noteSlow(i, u.iter++, s - t0, now() - s, req.kind);
      if (ms !== undefined) primeLatencies.push(ms);
    }),
  );
  const primeMs = now() - t0;

  // Then the warm-up, then the measured window, opened and closed by timers; the same moments are
  // used for the CPU readings, the samples and the rate.
  let phase: "warmup" | "measure" | "done" = "warmup";
  let cpuStart: NodeJS.CpuUsage | undefined;
  let cpuEnd: NodeJS.CpuUsage | undefined;
  let wallStart = 0;
  let wallEnd = 0;
  let completedInWindow = 0;
  let closed!: () => void;
  const windowClosed = new Promise<void>((r) => {
    closed = r;
  });
  setTimeout(() => {
    o.onWindow?.("start");
    cpuStart = process.cpuUsage();
    wallStart = now();
    phase = "measure";
    setTimeout(() => {
      phase = "done";
      wallEnd = now();
      cpuEnd = process.cpuUsage(cpuStart);
      o.onWindow?.("end");
      closed();
    }, o.durationMs);
  }, o.warmupMs);

  const vu = async (i: number) => {
    const u = users[i]!;
    while (phase !== "done") {
      const req = mix[u.k]!;
      u.k = (u.k + 1) % mix.length;
      const startedIn = phase;
      const s = now();
      const ms = await send(u.pool, u.user, u.headers, req);
      noteSlow(i, u.iter++, s - t0, now() - s, req.kind);
      if (ms === undefined || phase !== "measure") continue;
      // Throughput counts every completion in the window; latencies only the requests that were
      // also sent inside it.
      completedInWindow++;
      if (startedIn !== "measure") continue;
      samples.push(ms);
      const ks = kindSamples.get(req.kind);
      if (ks) ks.push(ms);
      else kindSamples.set(req.kind, [ms]);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, (_, i) => vu(i)));
  await windowClosed;
  await Promise.all([...pools.values()].map((p) => p.close()));

  const sorted = sortedCopy(samples);
  const primeSorted = sortedCopy(primeLatencies);
  const windowMs = wallEnd - wallStart;
  const byKind: Partial<Record<RequestKind, KindStats>> = {};
  for (const [kind, xs] of kindSamples) {
    const s = sortedCopy(xs);
    byKind[kind] = { count: s.length, p50: percentile(s, 0.5), p99: percentile(s, 0.99) };
  }
  let sum = 0;
  for (const x of sorted) sum += x;
  const cpuUs = cpuEnd ? cpuEnd.user + cpuEnd.system : Number.NaN;
  return {
    concurrency,
    measured: completedInWindow,
    windowMs,
    rps: (completedInWindow * 1000) / windowMs,
    p50: percentile(sorted, 0.5),
    p90: percentile(sorted, 0.9),
    p99: percentile(sorted, 0.99),
    max: sorted.length ? sorted[sorted.length - 1]! : Number.NaN,
    slowest,
    prime: {
      ms: primeMs,
      p50: percentile(primeSorted, 0.5),
      max: primeSorted.length ? primeSorted[primeSorted.length - 1]! : Number.NaN,
    },
    mean: sorted.length ? sum / sorted.length : Number.NaN,
    byKind,
    ok,
    errors,
    errorCount: Object.values(errors).reduce((a, b) => a + b, 0),
    errorSamples,
    loadgenCpu: cpuUs / 1000 / windowMs,
  };
}

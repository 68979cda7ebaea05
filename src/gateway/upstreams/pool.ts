/**
 * The set of upstream model servers and how calls are routed across them.
 *
 * - A session sticks to the upstream that served its first call, so multi-turn prompts hit the
 *   same server's prefix cache.
 * - A new session goes to the healthy upstream with the fewest calls in flight (counts go down
 *   when a call ends, however it ends), ties broken round-robin.
 * - Health is probed in the background; a connection failure marks an upstream unhealthy at once.
 * - Only connection failures are retried, and only before any byte reached the agent (the caller
 *   says so through `attempt`), on another healthy upstream when there is one.
 */
import type { UpstreamConfig } from "../../config/index.js";
import { HttpError } from "../errors.js";
import { upstreamGet } from "./client.js";
import { H1Client } from "./h1.js";
import { describe, normalizeUrl, type Upstream, UpstreamConnectError } from "./upstream.js";

export interface PoolOptions {
  timeoutMs: number;
  healthCheckIntervalMs: number;
  connectRetries: number;
  /** Connections kept per upstream. */
  connections?: number;
}

export class UpstreamPool {
  private readonly upstreams = new Map<string, Upstream>();
  private readonly sticky = new Map<string, string>();
  private rr = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    configs: UpstreamConfig[],
    private readonly options: PoolOptions,
  ) {
    for (const c of configs) this.add(c);
  }

  list(): Upstream[] {
    return [...this.upstreams.values()];
  }

  get(url: string): Upstream | undefined {
    return this.upstreams.get(normalizeUrl(url));
  }

  add(config: UpstreamConfig): Upstream {
    const url = normalizeUrl(config.url);
    if (this.upstreams.has(url)) throw new HttpError(409, `upstream ${url} is already registered`);
    const u: Upstream = {
      url,
      kind: config.kind,
      apiKey: config.apiKey,
      model: config.model,
      // Connections are per origin; a path prefix (e.g. /v1 of a hosted API) is added per request.
      http: new H1Client(new URL(url).origin, {
        connections: this.options.connections ?? 4096,
        keepAliveTimeout: 30_000,
        headersTimeout: this.options.timeoutMs,
        bodyTimeout: this.options.timeoutMs,
        connectTimeout: Math.min(10_000, this.options.timeoutMs),
      }),
      healthy: true,
      inFlight: 0,
      requests: 0,
      failures: 0,
      lastError: null,
      lastCheckedAt: null,
    };
    this.upstreams.set(url, u);
    return u;
  }

  async remove(url: string): Promise<boolean> {
    const u = this.upstreams.get(normalizeUrl(url));
    if (!u) return false;
    this.upstreams.delete(u.url);
    for (const [s, target] of this.sticky) if (target === u.url) this.sticky.delete(s);
    // Let calls in flight finish; new ones can no longer pick it.
    void u.http.close();
    return true;
  }

  /** The upstream for a session: its sticky one while healthy, else the least loaded healthy one. */
  pick(sessionId: string, exclude: ReadonlySet<string> = new Set()): Upstream {
    const stickyUrl = this.sticky.get(sessionId);
    if (stickyUrl && !exclude.has(stickyUrl)) {
      const u = this.upstreams.get(stickyUrl);
      if (u?.healthy) return u;
    }
    const all = this.list().filter((u) => !exclude.has(u.url));
    if (all.length === 0) {
      throw new HttpError(
        503,
        this.upstreams.size === 0
          ? "the gateway has no upstream; start it with --upstream URL or POST /admin/upstreams"
          : "no upstream is reachable; check the model servers (GET /admin/upstreams shows their state)",
        "upstream_unavailable",
      );
    }
    const healthy = all.filter((u) => u.healthy);
    // With none healthy, still try one: health can lag behind a server that just came back.
    const candidates = healthy.length ? healthy : all;
    let best: Upstream | undefined;
    const start = this.rr++;
    for (let i = 0; i < candidates.length; i++) {
      const u = candidates[(start + i) % candidates.length]!;
      if (!best || u.inFlight < best.inFlight) best = u;
    }
    this.sticky.set(sessionId, best!.url);
    return best!;
  }

  forget(sessionId: string): void {
    this.sticky.delete(sessionId);
  }

  /**
   * Runs `call` against the session's upstream, with in-flight accounting and retries of
   * connection failures. `call` must throw UpstreamConnectError only while nothing has been sent
   * to the agent yet; once it has, it must throw something else.
   */
  async run<T>(sessionId: string, call: (u: Upstream) => Promise<T>): Promise<T> {
    const tried = new Set<string>();
    let lastErr: unknown;
    for (let attempt = 0; attempt <= this.options.connectRetries; attempt++) {
      let u: Upstream;
      try {
        u = this.pick(sessionId, tried);
      } catch (err) {
        if (lastErr) break;
        throw err;
      }
      u.inFlight++;
      u.requests++;
      try {
        return await call(u);
      } catch (err) {
        if (!(err instanceof UpstreamConnectError)) throw err;
        u.failures++;
        u.healthy = false;
        u.lastError = err.message;
        lastErr = err;
        tried.add(u.url);
        // Every upstream failed once: allow a second round on all of them.
        if (tried.size >= this.upstreams.size) tried.clear();
      } finally {
        u.inFlight--;
      }
    }
    throw new HttpError(
      502,
      `${(lastErr as Error).message} (after ${this.options.connectRetries + 1} attempts)`,
      "upstream_error",
    );
  }

  startHealthChecks(): void {
    if (this.options.healthCheckIntervalMs <= 0 || this.timer) return;
    this.timer = setInterval(() => void this.checkAll(), this.options.healthCheckIntervalMs);
    this.timer.unref();
  }

  async checkAll(): Promise<void> {
    await Promise.all(this.list().map((u) => this.check(u)));
  }

  private async check(u: Upstream): Promise<void> {
    const path = u.kind === "openai" ? "/v1/models" : "/health";
    try {
      const res = await upstreamGet(u, path, 5_000);
      u.healthy = res.status < 500;
      u.lastError = u.healthy ? null : `health check ${path} answered ${res.status}`;
    } catch (err) {
      u.healthy = false;
      u.lastError = `health check ${path} failed: ${describe(err)}`;
    }
    u.lastCheckedAt = Date.now();
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await Promise.all(this.list().map((u) => u.http.close()));
  }
}

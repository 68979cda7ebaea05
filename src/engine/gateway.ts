/**
 * How the engine reaches the gateway: in process (it starts one, and calls it directly for the
 * admin work of each rollout — no HTTP round trip for creating sessions and reading traces) or a
 * remote gateway by URL (`--gateway URL`), over its admin API. Agents always use HTTP.
 */
import { Agent, request } from "undici";
import type { GatewayConfig } from "../config/index.js";
import { Gateway } from "../gateway/server.js";
import { sessionUrl } from "../gateway/sessions.js";
import type { Store } from "../store/sqlite.js";
import type { SamplingParams, TraceRecord } from "../types/index.js";

export interface SessionHandle {
  id: string;
  url: string;
  token: string;
}

export interface GatewayHandle {
  readonly url: string;
  createSession(body: {
    id: string;
    metadata?: Record<string, unknown>;
    samplingParams?: SamplingParams;
  }): Promise<SessionHandle>;
  traces(sessionId: string): Promise<TraceRecord[]>;
  deleteSession(sessionId: string): Promise<void>;
  setWeightVersion(version: number): Promise<void>;
  close(): Promise<void>;
}

/** A failure to talk to the gateway itself: always an infrastructure failure. */
export class GatewayUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "GatewayUnavailableError";
  }
}

export class InProcessGateway implements GatewayHandle {
  private constructor(readonly gateway: Gateway) {}

  static async start(
    config: Partial<GatewayConfig>,
    /** `store`: an open store to use (its owner closes it); else one opened at `storePath`. */
    options: { storePath?: string; store?: Store } = {},
  ): Promise<InProcessGateway> {
    const gw = new Gateway({
      config: { port: 0, host: "127.0.0.1", ...config },
      ...(options.storePath ? { storePath: options.storePath } : {}),
      ...(options.store ? { store: options.store } : {}),
    });
    await gw.listen();
    return new InProcessGateway(gw);
  }

  get url(): string {
    return this.gateway.url;
  }

  async createSession(body: Parameters<GatewayHandle["createSession"]>[0]): Promise<SessionHandle> {
    const s = await this.gateway.sessions.create(body);
    return { id: s.id, url: sessionUrl(this.gateway.url, s.id), token: s.token };
  }

  async traces(sessionId: string): Promise<TraceRecord[]> {
    return this.gateway.store.sessionTraces(sessionId).map((r) => r.trace);
  }

  async deleteSession(sessionId: string): Promise<void> {
    await this.gateway.sessions.delete(sessionId, false);
    this.gateway.pool.forget(sessionId);
  }

  async setWeightVersion(version: number): Promise<void> {
    this.gateway.setWeightVersion(version);
  }

  close(): Promise<void> {
    return this.gateway.close();
  }
}

export class RemoteGateway implements GatewayHandle {
  private readonly dispatcher = new Agent({ connections: 64, keepAliveTimeout: 30_000 });

  constructor(
    readonly url: string,
    private readonly adminKey?: string,
  ) {}

  private async call(method: string, path: string, body?: unknown): Promise<unknown> {
    let res: Awaited<ReturnType<typeof request>>;
    try {
      res = await request(this.url + path, {
        method: method as "GET",
        dispatcher: this.dispatcher,
        headers: {
          "content-type": "application/json",
          ...(this.adminKey ? { authorization: `Bearer ${this.adminKey}` } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
    } catch (err) {
      throw new GatewayUnavailableError(
        `cannot reach the gateway at ${this.url}: ${(err as Error).message}`,
      );
    }
    const text = await res.body.text();
    if (res.statusCode >= 500) {
      throw new GatewayUnavailableError(
        `gateway ${method} ${path} answered ${res.statusCode}: ${text.slice(0, 300)}`,
      );
    }
    if (res.statusCode >= 400) {
      throw new Error(
        `gateway ${method} ${path} answered ${res.statusCode}: ${text.slice(0, 300)}`,
      );
    }
    return text ? JSON.parse(text) : undefined;
  }

  async createSession(body: Parameters<GatewayHandle["createSession"]>[0]): Promise<SessionHandle> {
    return (await this.call("POST", "/sessions", body)) as SessionHandle;
  }

  async traces(sessionId: string): Promise<TraceRecord[]> {
    const out: TraceRecord[] = [];
    let after = 0;
    for (;;) {
      const page = (await this.call(
        "GET",
        `/sessions/${encodeURI(sessionId)}/traces?after=${after}&limit=10000`,
      )) as { data: TraceRecord[]; nextAfter: number | null };
      out.push(...page.data);
      if (page.nextAfter === null) return out;
      after = page.nextAfter;
    }
  }

  async deleteSession(sessionId: string): Promise<void> {
    await this.call("DELETE", `/sessions/${encodeURI(sessionId)}`);
  }

  async setWeightVersion(version: number): Promise<void> {
    await this.call("POST", "/admin/weight-version", { weightVersion: version });
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }
}

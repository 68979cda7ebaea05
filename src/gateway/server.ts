/**
 * The rllm gateway: an HTTP server between agents and model servers. It owns sessions, routes each
 * session's calls to an upstream, records every call as a trace (token ids and logprobs included)
 * before releasing the response, and serves the admin API the engine and trainer use.
 *
 * Routes (session ids may contain `/` and `:`; the agent API is found by its `/v1/...` suffix):
 *   GET  /health
 *   POST /sessions · GET /sessions · GET|DELETE /sessions/:id · GET /sessions/:id/traces
 *   GET  /traces/:id · POST /traces/query
 *   POST /admin/flush · GET|POST /admin/weight-version ({weightVersion, model?}: the version
 *   traces carry and the model calls are sent as) · GET|POST|DELETE /admin/upstreams
 *   /sessions/:id/v1/{chat/completions,completions,responses,messages,models}
 *   /sessions/:id/v1beta/models/{model}:{generateContent,streamGenerateContent} (the Gemini API;
 *   also under /v1/models/...; the token as x-goog-api-key, ?key= or a bearer token)
 *   /v1/...  (the same, with the session named by an X-Session-Id header)
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { z } from "zod";
import { type GatewayConfig, GatewayConfigSchema, UpstreamConfigSchema } from "../config/index.js";
import { type ChatRenderer, loadRendererSync } from "../hf/index.js";
import { Store } from "../store/sqlite.js";
import { AGENT_API, GEMINI_API } from "../types/index.js";
import { AgentApi, asHttpError, type Dialect, errorBody } from "./agent-api.js";
import { badRequestFromIssues, HttpError } from "./errors.js";
import { bearerToken, readJsonBody, sendJson } from "./http.js";
import { type Session, Sessions, safeEqual, sessionUrl, sessionView } from "./sessions.js";
import { upstreamGet } from "./upstreams/client.js";
import { OpenAICompatAdapter } from "./upstreams/openai-compat.js";
import { UpstreamPool } from "./upstreams/pool.js";
import { titoAdapters } from "./upstreams/tito-adapters.js";
import type { UpstreamAdapter } from "./upstreams/types.js";
import type { Upstream } from "./upstreams/upstream.js";

export interface GatewayOptions {
  config?: Partial<GatewayConfig>;
  /** An open store to use; otherwise one is opened at `storePath` (default in-memory). */
  store?: Store;
  storePath?: string;
  storeSynchronous?: "normal" | "full";
  /** Adapters by upstream kind; the defaults cover vllm and openai (and sglang with a tokenizer). */
  adapters?: Partial<Record<Upstream["kind"], UpstreamAdapter>>;
  /** A loaded renderer to use instead of loading `config.tokenizer` (tests share one). */
  renderer?: ChatRenderer;
}

export class Gateway {
  readonly config: GatewayConfig;
  readonly store: Store;
  readonly pool: UpstreamPool;
  readonly sessions: Sessions;
  private readonly api: AgentApi;
  private readonly server: Server;
  private readonly ownsStore: boolean;
  private readonly adapters: Partial<Record<Upstream["kind"], UpstreamAdapter>>;
  readonly renderer: ChatRenderer | undefined;
  private version: number;
  /** The model set with the weight version (a new adapter per version), over config.model. */
  private servedModel: string | undefined;
  private baseUrl = "";

  constructor(options: GatewayOptions = {}) {
    const parsed = GatewayConfigSchema.safeParse(options.config ?? {});
    if (!parsed.success) throw badRequestFromIssues("gateway config", parsed.error.issues);
    this.config = parsed.data;
    this.ownsStore = !options.store;
    this.store =
      options.store ??
      new Store({
        path: !options.storePath || options.storePath === "memory" ? ":memory:" : options.storePath,
        synchronous: options.storeSynchronous ?? "normal",
      });
    const openai = new OpenAICompatAdapter();
    // With a tokenizer the gateway renders prompts itself and sends token ids (token-in/token-out).
    const renderer =
      options.renderer ??
      (this.config.tokenizer ? loadRendererSync(this.config.tokenizer) : undefined);
    this.renderer = renderer;
    this.adapters = {
      vllm: openai,
      openai,
      ...(renderer ? titoAdapters(renderer) : {}),
      ...options.adapters,
    };
    for (const u of this.config.upstreams) this.checkKind(u.kind);
    this.pool = new UpstreamPool(this.config.upstreams, {
      timeoutMs: this.config.upstreamTimeoutMs,
      healthCheckIntervalMs: this.config.healthCheckIntervalMs,
      connectRetries: this.config.connectRetries,
      connections: this.config.upstreamConnections,
    });
    this.sessions = new Sessions(this.store, this.config.defaultSamplingParams);
    this.version = Number(this.store.getMeta("weight_version") ?? 0);
    this.api = new AgentApi({
      config: this.config,
      store: this.store,
      pool: this.pool,
      adapterFor: (u) => this.adapters[u.kind]!,
      weightVersion: () => this.version,
      model: () => this.servedModel ?? this.config.model,
    });
    this.server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
      void this.handle(req, res);
    });
    this.server.headersTimeout = 70_000;
  }

  private checkKind(kind: Upstream["kind"]): void {
    if (!this.adapters[kind]) {
      throw new HttpError(
        400,
        `upstream kind "${kind}" needs a tokenizer: start the gateway with --tokenizer DIR (a model directory with tokenizer.json and tokenizer_config.json)`,
      );
    }
  }

  get url(): string {
    return this.baseUrl;
  }

  get weightVersion(): number {
    return this.version;
  }

  /**
   * The weight version traces are tagged with from now on, and (`model`) the model name calls
   * are sent as from now on — a sampler that serves each version under its own name (a LoRA
   * adapter per version) switches both at once.
   */
  setWeightVersion(v: number, model?: string): void {
    if (model !== undefined) this.servedModel = model;
    this.version = v;
    this.store.setMeta("weight_version", String(v));
  }

  async listen(port = this.config.port, host = this.config.host): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(port, host, () => {
        this.server.off("error", reject);
        resolve();
      });
    });
    const addr = this.server.address() as AddressInfo;
    const h = addr.family === "IPv6" ? `[${addr.address}]` : addr.address;
    this.baseUrl = `http://${h === "0.0.0.0" || h === "[::]" ? "127.0.0.1" : h}:${addr.port}`;
    this.pool.startHealthChecks();
    return this.baseUrl;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeIdleConnections();
      setTimeout(() => this.server.closeAllConnections(), 2_000).unref();
    });
    await this.pool.close();
    if (this.ownsStore) this.store.close();
  }

  // ---- routing ----

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const path = q < 0 ? url : url.slice(0, q);
    const method = req.method ?? "GET";
    let dialect: Dialect = "openai";
    try {
      const g = GEMINI_API.exec(path);
      if (g) {
        dialect = "gemini";
        const [, prefix, model, api] = g as unknown as [string, string, string, string];
        const query = new URLSearchParams(q < 0 ? "" : url.slice(q + 1));
        await this.geminiCall(req, res, prefix, decodeModel(model), api, query, method);
        return;
      }
      const m = AGENT_API.exec(path);
      if (m) {
        const [, prefix, api] = m as unknown as [string, string, string];
        if (api === "messages") dialect = "anthropic";
        await this.agentCall(req, res, prefix!, api, method);
        return;
      }
      await this.adminRoute(
        req,
        res,
        path,
        new URLSearchParams(q < 0 ? "" : url.slice(q + 1)),
        method,
      );
    } catch (err) {
      const e = asHttpError(err);
      if (e.status >= 500 && e.status !== 502 && e.status !== 503 && e.status !== 504) {
        console.error(`[rllm gateway] ${method} ${path}: ${e.message}`);
      }
      if (res.headersSent) {
        res.end();
        return;
      }
      if (!res.destroyed) sendJson(res, e.status === 499 ? 400 : e.status, errorBody(e, dialect));
    }
  }

  private async agentCall(
    req: IncomingMessage,
    res: ServerResponse,
    prefix: string,
    api: string,
    method: string,
  ): Promise<void> {
    if (api === "models") {
      if (method !== "GET") throw methodNotAllowed(method, "/v1/models", "GET");
      if (prefix) this.session(req, prefix);
      await this.models(res);
      return;
    }
    if (method !== "POST") throw methodNotAllowed(method, `/v1/${api}`, "POST");
    let session: Session;
    if (prefix === "") {
      const header = req.headers["x-session-id"];
      if (typeof header !== "string" || !header) {
        throw new HttpError(
          400,
          "calls to /v1/... need a session: use /sessions/<id>/v1/... or send an X-Session-Id header",
        );
      }
      session = this.sessions.authorize(header, bearerToken(req), this.config.adminKey);
    } else {
      session = this.session(req, prefix);
    }
    const body = await readJsonBody(req, this.config.maxBodyBytes);
    if (api === "chat/completions") await this.api.chatCompletions(session, body, res);
    else if (api === "completions") await this.api.completions(session, body, res);
    else if (api === "responses") await this.api.responses(session, body, res);
    else await this.api.anthropicMessages(session, body, res);
  }

  /**
   * A Gemini API call. Its clients send the key as `x-goog-api-key` (the @google/genai SDK) or
   * `?key=`; either carries the session token. Only the SSE form of streamGenerateContent is
   * served (the SDK always asks for it).
   */
  private async geminiCall(
    req: IncomingMessage,
    res: ServerResponse,
    prefix: string,
    model: string,
    api: string,
    query: URLSearchParams,
    method: string,
  ): Promise<void> {
    if (method !== "POST") throw methodNotAllowed(method, `models/${model}:${api}`, "POST");
    const stream = api === "streamGenerateContent";
    if (stream && query.get("alt") !== "sse") {
      throw new HttpError(
        400,
        "streamGenerateContent is served as server-sent events only: add ?alt=sse to the URL",
      );
    }
    const header = req.headers["x-goog-api-key"];
    const token =
      (typeof header === "string" && header) || query.get("key") || bearerToken(req) || undefined;
    if (!token) {
      throw new HttpError(
        401,
        "missing session token: send the token POST /sessions returned as the API key (x-goog-api-key header or ?key=)",
      );
    }
    let session: Session;
    if (prefix === "") {
      const id = req.headers["x-session-id"];
      if (typeof id !== "string" || !id) {
        throw new HttpError(
          400,
          "calls to /v1beta/models/... need a session: use /sessions/<id>/v1beta/models/... or send an X-Session-Id header",
        );
      }
      session = this.sessions.authorize(id, token, this.config.adminKey);
    } else {
      session = this.session(req, prefix, token);
    }
    const body = await readJsonBody(req, this.config.maxBodyBytes);
    await this.api.geminiGenerateContent(session, body, { model, stream }, res);
  }

  private session(req: IncomingMessage, prefix: string, token = bearerToken(req)): Session {
    if (!prefix.startsWith("/sessions/")) throw new HttpError(404, `no route for ${prefix}/v1/...`);
    const id = decodeId(prefix.slice("/sessions/".length));
    return this.sessions.authorize(id, token, this.config.adminKey);
  }

  private async models(res: ServerResponse): Promise<void> {
    const names = new Set<string>();
    if (this.config.model) names.add(this.config.model);
    else for (const u of this.pool.list()) if (u.model) names.add(u.model);
    if (names.size === 0) {
      // Nothing pinned: ask an upstream what it serves.
      const u = this.pool.list().find((x) => x.healthy) ?? this.pool.list()[0];
      if (u) {
        try {
          const r = await upstreamGet(u, "/v1/models", 10_000);
          const j = JSON.parse(r.text) as { data?: { id?: string }[] };
          for (const m of j.data ?? []) if (typeof m.id === "string") names.add(m.id);
        } catch {
          // An unreachable upstream lists nothing; the agent still gets a valid (empty) list.
        }
      }
    }
    sendJson(res, 200, {
      object: "list",
      data: [...names].map((id) => ({ id, object: "model", created: 0, owned_by: "rllm" })),
    });
  }

  private requireAdmin(req: IncomingMessage): void {
    const key = this.config.adminKey;
    if (!key) return;
    const auth = req.headers.authorization;
    const m = typeof auth === "string" ? /^Bearer\s+(.+)$/i.exec(auth.trim()) : null;
    if (!m) throw new HttpError(401, "this admin route needs 'Authorization: Bearer <admin key>'");
    if (!safeEqual(m[1]!, key)) throw new HttpError(403, "wrong admin key");
  }

  private async adminRoute(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    query: URLSearchParams,
    method: string,
  ): Promise<void> {
    if (path === "/health") {
      if (method !== "GET") throw methodNotAllowed(method, path, "GET");
      const ups = this.pool.list();
      sendJson(res, 200, {
        status: ups.length > 0 && ups.some((u) => u.healthy) ? "ok" : "degraded",
        weightVersion: this.version,
        upstreams: ups.map((u) => ({ url: u.url, healthy: u.healthy, inFlight: u.inFlight })),
      });
      return;
    }
    if (path === "/sessions") {
      this.requireAdmin(req);
      if (method === "POST") {
        const body = await readOptionalJson(req, this.config.maxBodyBytes);
        const s = await this.sessions.create(body);
        sendJson(res, 201, { id: s.id, url: sessionUrl(this.baseUrl, s.id), token: s.token });
        return;
      }
      if (method === "GET") {
        const limit = intParam(query, "limit", 100, 1, 1000);
        const after = query.get("after") ?? "";
        const rows = this.sessions.list(after, limit);
        sendJson(res, 200, {
          data: rows.map((s) => sessionView(s, this.baseUrl)),
          nextAfter: rows.length === limit ? rows[rows.length - 1]!.id : null,
          total: this.store.countSessions(),
        });
        return;
      }
      throw methodNotAllowed(method, path, "GET, POST");
    }
    if (path.startsWith("/sessions/")) {
      this.requireAdmin(req);
      const rest = path.slice("/sessions/".length);
      if (rest.endsWith("/traces")) {
        if (method !== "GET") throw methodNotAllowed(method, path, "GET");
        const id = decodeId(rest.slice(0, -"/traces".length));
        if (!this.sessions.get(id) && this.store.sessionTraces(id, 0, 1).length === 0) {
          throw new HttpError(404, `unknown session ${JSON.stringify(id)}`);
        }
        const limit = intParam(query, "limit", 10_000, 1, 100_000);
        const after = intParam(query, "after", 0, 0, Number.MAX_SAFE_INTEGER);
        const rows = this.store.sessionTraces(id, after, limit);
        sendJson(res, 200, {
          data: rows.map((r) => r.trace),
          nextAfter: rows.length === limit ? rows[rows.length - 1]!.seq : null,
        });
        return;
      }
      const id = decodeId(rest);
      if (method === "GET") {
        const s = this.sessions.get(id);
        if (!s) throw new HttpError(404, `unknown session ${JSON.stringify(id)}`);
        sendJson(res, 200, sessionView(s, this.baseUrl));
        return;
      }
      if (method === "DELETE") {
        const purge = query.get("purge") === "true";
        const r = await this.sessions.delete(id, purge);
        if (!r.deleted) throw new HttpError(404, `unknown session ${JSON.stringify(id)}`);
        this.pool.forget(id);
        sendJson(res, 200, { id, deleted: true, tracesDeleted: r.tracesDeleted });
        return;
      }
      throw methodNotAllowed(method, path, "GET, DELETE");
    }
    if (path === "/traces/query") {
      this.requireAdmin(req);
      if (method !== "POST") throw methodNotAllowed(method, path, "POST");
      const body = TraceQuerySchema.safeParse(
        await readOptionalJson(req, this.config.maxBodyBytes),
      );
      if (!body.success) throw badRequestFromIssues("trace query", body.error.issues);
      const rows = this.store.queryTraces(body.data);
      const limit = body.data.limit ?? 1000;
      sendJson(res, 200, {
        data: rows.map((r) => r.trace),
        nextAfter: rows.length === limit ? rows[rows.length - 1]!.seq : null,
      });
      return;
    }
    if (path.startsWith("/traces/")) {
      this.requireAdmin(req);
      if (method !== "GET") throw methodNotAllowed(method, path, "GET");
      const id = decodeId(path.slice("/traces/".length));
      const t = this.store.getTrace(id);
      if (!t) throw new HttpError(404, `unknown trace ${JSON.stringify(id)}`);
      sendJson(res, 200, t.trace);
      return;
    }
    if (path === "/admin/flush") {
      this.requireAdmin(req);
      if (method !== "POST") throw methodNotAllowed(method, path, "POST");
      // Every trace is committed before its response; flush folds the WAL into the database file.
      const r = this.store.checkpoint();
      sendJson(res, 200, { flushed: true, traces: this.store.countTraces(), ...r });
      return;
    }
    if (path === "/admin/weight-version") {
      this.requireAdmin(req);
      const view = () => ({
        weightVersion: this.version,
        ...(this.servedModel !== undefined ? { model: this.servedModel } : {}),
      });
      if (method === "GET") {
        sendJson(res, 200, view());
        return;
      }
      if (method === "POST") {
        const body = WeightVersionSchema.safeParse(
          await readJsonBody(req, this.config.maxBodyBytes),
        );
        if (!body.success) throw badRequestFromIssues("weight version", body.error.issues);
        this.setWeightVersion(body.data.weightVersion, body.data.model);
        sendJson(res, 200, view());
        return;
      }
      throw methodNotAllowed(method, path, "GET, POST");
    }
    if (path === "/admin/upstreams") {
      this.requireAdmin(req);
      if (method === "GET") {
        sendJson(res, 200, { data: this.pool.list().map(upstreamView) });
        return;
      }
      if (method === "POST") {
        const body = UpstreamConfigSchema.safeParse(
          await readJsonBody(req, this.config.maxBodyBytes),
        );
        if (!body.success) throw badRequestFromIssues("upstream", body.error.issues);
        this.checkKind(body.data.kind);
        const u = this.pool.add(body.data);
        sendJson(res, 201, upstreamView(u));
        return;
      }
      if (method === "DELETE") {
        const body = z
          .strictObject({ url: z.string() })
          .safeParse(await readJsonBody(req, this.config.maxBodyBytes));
        if (!body.success) throw badRequestFromIssues("upstream removal", body.error.issues);
        if (!(await this.pool.remove(body.data.url))) {
          throw new HttpError(404, `no upstream ${body.data.url}; GET /admin/upstreams lists them`);
        }
        sendJson(res, 200, { url: body.data.url, removed: true });
        return;
      }
      throw methodNotAllowed(method, path, "GET, POST, DELETE");
    }
    throw new HttpError(404, `no route for ${method} ${path}`);
  }
}

const TraceQuerySchema = z.strictObject({
  sessionIds: z.array(z.string()).max(10_000).optional(),
  since: z.number().optional(),
  after: z.number().int().nonnegative().optional(),
  limit: z.number().int().positive().max(100_000).optional(),
});

const WeightVersionSchema = z.strictObject({
  weightVersion: z.number().int().nonnegative(),
  /** The model name calls are sent as from now on (absent: unchanged). */
  model: z.string().min(1).optional(),
});

function upstreamView(u: Upstream) {
  return {
    url: u.url,
    kind: u.kind,
    model: u.model ?? null,
    healthy: u.healthy,
    inFlight: u.inFlight,
    requests: u.requests,
    failures: u.failures,
    lastError: u.lastError,
    lastCheckedAt: u.lastCheckedAt,
  };
}

async function readOptionalJson(req: IncomingMessage, limit: number): Promise<unknown> {
  const len = req.headers["content-length"];
  if ((len === undefined || len === "0") && !req.headers["transfer-encoding"]) return {};
  return readJsonBody(req, limit);
}

function decodeId(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new HttpError(400, `session id ${JSON.stringify(raw)} is not valid percent-encoding`);
  }
}

function decodeModel(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new HttpError(
      400,
      `model ${JSON.stringify(raw)} in the URL is not valid percent-encoding`,
    );
  }
}

function intParam(
  q: URLSearchParams,
  name: string,
  dflt: number,
  min: number,
  max: number,
): number {
  const raw = q.get(name);
  if (raw === null) return dflt;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new HttpError(400, `query parameter ${name} must be an integer from ${min} to ${max}`);
  }
  return n;
}

function methodNotAllowed(method: string, path: string, allowed: string): HttpError {
  return new HttpError(405, `${method} is not allowed on ${path}; use ${allowed}`);
}

export async function startGateway(options: GatewayOptions = {}): Promise<Gateway> {
  const gw = new Gateway(options);
  await gw.listen();
  return gw;
}

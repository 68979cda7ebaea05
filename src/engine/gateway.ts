/**
 * How the engine reaches the gateway: in process (it starts one, and calls it directly for the
 * admin work of each rollout — no HTTP round trip for creating sessions and reading traces) or a
 * remote gateway by URL (`--gateway URL`), over its admin API. Agents always use HTTP.
 *
 * `rllm eval` and `rllm train` validate the whole `gateway` and `store` sections; what an
 * in-process gateway does with each key is decided once, in IN_PROCESS below: passed through, or
 * refused with an error that names the key, says why and what to use instead. A remote gateway
 * is configured where it runs, so with `--gateway URL` every key set in those sections is refused.
 */
import { Agent, request } from "undici";
import { ConfigError, type GatewayConfig, givenKeys, type RllmConfig } from "../config/index.js";
import { Gateway } from "../gateway/server.js";
import { sessionUrl } from "../gateway/sessions.js";
import type { Store } from "../store/sqlite.js";
import type { SamplingParams, TraceRecord } from "../types/index.js";

type Command = "rllm eval" | "rllm train";
/** Why an in-process gateway of a command cannot honour a key and what to use instead; else undefined. */
type Rule = (command: Command) => string | undefined;
const pass: Rule = () => undefined;

const fixedGateway = (command: Command) =>
  command === "rllm eval"
    ? "run `rllm gateway` with it and pass --gateway URL"
    : "there is none: rllm train runs its own gateway, on a free port; remove the key";

const IN_PROCESS: {
  gateway: Record<keyof GatewayConfig, Rule>;
  store: Record<keyof RllmConfig["store"], Rule>;
} = {
  gateway: {
    host: pass,
    port: (c) =>
      `the in-process gateway listens on a free port, so that runs never collide; for a fixed port: ${fixedGateway(c)}`,
    upstreams: (c) =>
      c === "rllm eval"
        ? "rllm eval's gateway calls the model of --base-url/--model (the model section) or of --backend local; for several upstreams run `rllm gateway --upstream ...` and pass --gateway URL"
        : "rllm train's gateway calls the training backend's sampler",
    model: (c) =>
      c === "rllm eval"
        ? "rllm eval names the model with --model (model.name)"
        : "the training backend's sampler names the model",
    adminKey: pass,
    tokenizer: (c) =>
      c === "rllm train"
        ? "the training backend's sampler takes text and gives token ids itself"
        : undefined,
    maxBodyBytes: pass,
    upstreamTimeoutMs: pass,
    upstreamConnections: pass,
    connectRetries: pass,
    healthCheckIntervalMs: pass,
    defaultSamplingParams: (c) =>
      c === "rllm eval"
        ? "rllm eval samples with --sampling-params/--temperature/... (eval.samplingParams)"
        : "rllm train samples with trainer.samplingParams (training) and trainer.valSamplingParams (validation)",
    exposeTokenIds: pass,
  },
  store: {
    path: (c) =>
      `${c} keeps the run's traces in OUTPUT/traces.db; choose the directory with --output (${c === "rllm eval" ? "eval" : "trainer"}.output)`,
    synchronous: pass,
  },
};

/** The gateway and store settings of an in-process gateway, from a run's config. */
export interface InProcessGatewaySettings {
  config: Partial<GatewayConfig>;
  storeSynchronous: RllmConfig["store"]["synchronous"];
}

/**
 * What an in-process gateway of `command` takes from the config's `gateway` and `store` sections
 * (the keys some layer set; upstreams and the model come from the run), or a ConfigError naming
 * the first key it cannot honour. Health probing is off unless asked for: the one upstream is
 * the run's own. With `engine.gateway` (a remote gateway) every key set in either section is an
 * error, and so is `engine.gateway` in `rllm train`, and `engine.gatewayAdminKey` without it.
 */
export function inProcessGatewayConfig(
  config: Pick<RllmConfig, "gateway" | "store" | "engine">,
  command: Command,
): InProcessGatewaySettings {
  const remote = config.engine.gateway;
  if (remote && command === "rllm train")
    throw new ConfigError(
      `engine.gateway: rllm train runs its own gateway in process (--gateway is rllm eval's); drop it`,
    );
  if (config.engine.gatewayAdminKey && !remote)
    throw new ConfigError(
      `engine.gatewayAdminKey: it is the admin key of a running gateway (--gateway URL) and ${command} has none; drop it (gateway.adminKey protects the in-process gateway's admin routes)`,
    );
  const out: Partial<GatewayConfig> = { healthCheckIntervalMs: 0 };
  for (const section of ["gateway", "store"] as const) {
    for (const key of givenKeys(config, section)) {
      const rule = (IN_PROCESS[section] as Record<string, Rule | undefined>)[key];
      const why = remote
        ? `--gateway ${remote} uses a running gateway, configured where it runs; drop it here`
        : rule?.(command);
      if (why) throw new ConfigError(`${section}.${key}: ${why}`);
      if (section === "gateway")
        (out as Record<string, unknown>)[key] = (config.gateway as Record<string, unknown>)[key];
    }
  }
  return { config: out, storeSynchronous: config.store.synchronous };
}

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
  /** Traces carry `version` from now on; `model`: calls are sent as this model from now on. */
  setWeightVersion(version: number, model?: string): Promise<void>;
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

  /**
   * Starts a gateway on a free port of 127.0.0.1 (unless `config` names a host). `storePath`:
   * its SQLite file (default in memory); `storeSynchronous`: that file's durability.
   */
  static async start(
    config: Partial<GatewayConfig>,
    /** `store`: an open store to use (its owner closes it); else one opened at `storePath`. */
    options: { storePath?: string; store?: Store; storeSynchronous?: "normal" | "full" } = {},
  ): Promise<InProcessGateway> {
    const gw = new Gateway({
      config: { port: 0, host: "127.0.0.1", ...config },
      ...(options.storePath ? { storePath: options.storePath } : {}),
      ...(options.store ? { store: options.store } : {}),
      ...(options.storeSynchronous ? { storeSynchronous: options.storeSynchronous } : {}),
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

  async setWeightVersion(version: number, model?: string): Promise<void> {
    this.gateway.setWeightVersion(version, model);
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

  async setWeightVersion(version: number, model?: string): Promise<void> {
    await this.call("POST", "/admin/weight-version", {
      weightVersion: version,
      ...(model !== undefined ? { model } : {}),
    });
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }
}

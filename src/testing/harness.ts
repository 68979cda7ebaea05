/** Test helpers: a gateway in front of fake upstreams, all on loopback, and small HTTP helpers. */
import type { GatewayConfig } from "../config/index.js";
import { Gateway, type GatewayOptions } from "../gateway/server.js";
import { type FakeUpstream, type FakeUpstreamOptions, startFakeUpstream } from "./fake-upstream.js";

export interface Stack {
  gateway: Gateway;
  upstreams: FakeUpstream[];
  url: string;
  close(): Promise<void>;
  /** Creates a session through the admin API and returns its id, url and token. */
  session(body?: Record<string, unknown>): Promise<{ id: string; url: string; token: string }>;
  admin(
    path: string,
    init?: { method?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<{
    status: number;
    body: unknown;
    headers: Headers;
  }>;
}

export async function startStack(
  options: {
    upstreams?: Partial<FakeUpstreamOptions>[];
    gateway?: Partial<GatewayConfig>;
    gatewayOptions?: Omit<GatewayOptions, "config">;
    adminKey?: string;
  } = {},
): Promise<Stack> {
  const ups = await Promise.all(
    (options.upstreams ?? [{}]).map((o) => startFakeUpstream({ kind: "vllm", ...o })),
  );
  const gateway = new Gateway({
    ...options.gatewayOptions,
    config: {
      port: 0,
      healthCheckIntervalMs: 0,
      upstreams: ups.map((u) => ({ url: u.url, kind: u.kind })),
      ...(options.adminKey ? { adminKey: options.adminKey } : {}),
      ...options.gateway,
    },
  });
  const url = await gateway.listen();
  const adminHeaders: Record<string, string> = options.adminKey
    ? { authorization: `Bearer ${options.adminKey}` }
    : {};
  const admin: Stack["admin"] = async (path, init = {}) => {
    const res = await fetch(url + path, {
      method: init.method ?? (init.body === undefined ? "GET" : "POST"),
      headers: { "content-type": "application/json", ...adminHeaders, ...init.headers },
      body:
        init.body === undefined
          ? undefined
          : typeof init.body === "string"
            ? init.body
            : JSON.stringify(init.body),
    });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, body, headers: res.headers };
  };
  return {
    gateway,
    upstreams: ups,
    url,
    admin,
    async session(body = {}) {
      const r = await admin("/sessions", { method: "POST", body });
      if (r.status !== 201)
        throw new Error(`session create failed: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body as { id: string; url: string; token: string };
    },
    async close() {
      await gateway.close();
      await Promise.all(ups.map((u) => u.close()));
    },
  };
}

/**
 * POST JSON with a bearer token; returns status, parsed body (or text) and headers. `B` types the
 * parsed body for the caller (a test's assertions), unchecked.
 */
export async function post<B = unknown>(
  url: string,
  body: unknown,
  token?: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: B; text: string; headers: Headers }> {
  const res = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // SSE or plain text
  }
  return { status: res.status, body: parsed as B, text, headers: res.headers };
}

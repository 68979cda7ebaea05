/**
 * The fake upstream's HTTP server: reads each request, records it, routes generation requests
 * (through the fault queue and the configured latency) to their dialect's handler and the rest to
 * the admin endpoints, and hands back the `FakeUpstream` handle.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { handleGet, handleOtherPost } from "./admin.js";
import { handleChat } from "./chat.js";
import { handleCompletions } from "./completions.js";
import { type FakeServer, fakeServer, type Json } from "./context.js";
import { applyFault, takeFault, truncatingRes } from "./faults.js";
import { handleGenerate } from "./sglang.js";
import type { FakeFault, FakeUpstream, FakeUpstreamOptions, RecordedRequest } from "./types.js";
import { handleWeights, isWeightRoute, unknownModel } from "./weights.js";
import { BadRequest, errorBody, isObj, sendJson } from "./wire.js";

/** The endpoints that generate; `/generate` only on SGLang. */
export const GEN_PATHS: ReadonlySet<string> = new Set([
  "/v1/chat/completions",
  "/v1/completions",
  "/generate",
]);

/** Starts a fake upstream on its own port (no replay front). */
export async function startGenerator(opts: FakeUpstreamOptions): Promise<FakeUpstream> {
  const s = fakeServer(opts);
  const record = opts.record ?? true;
  const maxRecorded = Math.max(1, opts.maxRecorded ?? 1000);
  const requests: RecordedRequest[] = [];
  const faults: FakeFault[] = [];
  const pending = new Set<http.ServerResponse>();
  let inFlight = 0;
  let totalRequests = 0;

  const recordReq = (
    method: string,
    path: string,
    body: unknown,
    headers: http.IncomingHttpHeaders,
  ) => {
    if (!record) return;
    if (requests.length >= maxRecorded) requests.splice(0, requests.length - maxRecorded + 1);
    requests.push({ method, path, body, headers, at: Date.now() });
  };

  const onRequest = (req: http.IncomingMessage, res: http.ServerResponse) => {
    totalRequests++;
    inFlight++;
    res.on("close", () => {
      inFlight--;
      pending.delete(res);
    });
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const path = q === -1 ? url : url.slice(0, q);
    const method = req.method ?? "GET";
    const query = new URLSearchParams(q === -1 ? "" : url.slice(q + 1));
    if (method === "GET" || method === "HEAD") {
      req.resume();
      recordReq(method, path, null, req.headers);
      if (isWeightRoute(s, "GET", path)) void handleWeights(s, path, query, null, res);
      else handleGet(s, path, res);
      return;
    }
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw =
        chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8");
      const { body, parseError } = parseBody(raw);
      recordReq(method, path, body, req.headers);
      if (isWeightRoute(s, method, path)) {
        void handleWeights(s, path, query, body, res);
        return;
      }
      if (!GEN_PATHS.has(path) || (s.kind !== "sglang" && path === "/generate")) {
        handleOtherPost(s, path, body, res);
        return;
      }
      if (parseError || !isObj(body)) {
        sendJson(
          res,
          400,
          errorBody(s, 400, "Invalid JSON body: expected a JSON object.", path, null),
        );
        return;
      }
      const fault = takeFault(faults, path);
      const run = (destroyAfter: number) => {
        if (destroyAfter >= 0) truncatingRes(res);
        handleGeneration(s, path, body, res, destroyAfter);
      };
      const go = () => {
        if (res.destroyed) return;
        if (fault) applyFault(s, fault, res, pending, run);
        else run(-1);
      };
      const start = () => {
        if (s.config.latencyMs > 0) setTimeout(go, s.config.latencyMs);
        else go();
      };
      // a paused server (or one updating its weights) holds new generation until it resumes
      const w = s.weights;
      if (!w) start();
      else
        w.whenOpen(() => {
          w.running++;
          res.on("close", () => w.running--);
          start();
        });
    });
  };

  const server = http.createServer({ keepAlive: true }, onRequest);
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 0;
  const host = opts.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  let closed = false;

  return {
    kind: s.kind,
    url: `http://${host.includes(":") ? `[${host}]` : host}:${addr.port}`,
    port: addr.port,
    model: s.model,
    requests,
    faults,
    config: s.config,
    get inFlight() {
      return inFlight;
    },
    get totalRequests() {
      return totalRequests;
    },
    weights: s.weights,
    setHealthy(healthy: boolean) {
      s.config.healthy = healthy;
    },
    clearRequests() {
      requests.length = 0;
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const res of pending) res.socket?.destroy();
      pending.clear();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/** One generation request, its refusals answered in the server's error shape. */
function handleGeneration(
  s: FakeServer,
  path: string,
  body: Json,
  res: http.ServerResponse,
  destroyAfter: number,
): void {
  try {
    if (
      s.options.checkModel &&
      s.kind !== "sglang" &&
      typeof body.model === "string" &&
      body.model !== s.model
    )
      throw new BadRequest(`The model \`${body.model}\` does not exist.`, 404, "model");
    const unknown = unknownModel(s, body);
    if (unknown) throw new BadRequest(unknown, s.kind === "vllm" ? 404 : 400, "model");
    if (path === "/v1/chat/completions") handleChat(s, body, res, destroyAfter);
    else if (path === "/v1/completions") handleCompletions(s, body, res, destroyAfter);
    else handleGenerate(s, body, res, destroyAfter);
  } catch (e) {
    if (e instanceof BadRequest)
      sendJson(res, e.status, errorBody(s, e.status, e.message, path, e.param));
    else
      sendJson(res, 500, errorBody(s, 500, e instanceof Error ? e.message : String(e), path, null));
  }
}

/** A POST body as JSON (empty: `{}`); unparsable bodies are kept as text, for the record. */
function parseBody(raw: string): { body: unknown; parseError: boolean } {
  try {
    return { body: raw.length > 0 ? JSON.parse(raw) : {}, parseError: false };
  } catch {
    return { body: raw, parseError: true };
  }
}

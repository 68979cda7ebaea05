/**
 * A bench-only baseline: the thinnest proxy the gateway's architecture allows (node:http server,
 * the gateway's own upstream client (src/gateway/upstreams/h1.ts), JSON parse of the request and of
 * the response, the same header handling), with no validation, no trace and no SQLite. What it costs is the floor under the
 * gateway's cost on this machine; the gap between the two is what the gateway's own work costs.
 *
 *   node --import tsx bench/lib/null-proxy.ts --port P --upstream URL
 *
 * Speaks just enough of the gateway's API for bench/gateway.ts: GET /health, POST /sessions (any
 * token works) and POST /sessions/<id>/v1/{chat/completions,completions} (a stream is passed on whole once it has ended).
 */
import { createServer, type IncomingMessage } from "node:http";
import { parseArgs } from "node:util";
import { H1Client, requestWhole } from "../../src/gateway/upstreams/h1.js";

const { values } = parseArgs({
  options: {
    port: { type: "string", default: "0" },
    upstream: { type: "string" },
    // Accepted and ignored, so the benchmark can start it like the gateway.
    db: { type: "string" },
    durability: { type: "string" },
  },
  strict: true,
});
if (!values.upstream) {
  process.stderr.write("--upstream URL is required\n");
  process.exit(2);
}

const client = new H1Client(values.upstream, {
  connections: 256,
  keepAliveTimeout: 30_000,
  headersTimeout: 60_000,
  bodyTimeout: 60_000,
  connectTimeout: 10_000,
});

/** POSTs `body`; the status and the whole response body (a stream is passed on whole). */
function post(path: string, body: string): Promise<{ status: number; body: Buffer }> {
  return requestWhole(client, {
    method: "POST",
    path,
    headers: { "content-type": "application/json" },
    body,
  });
}
let sessions = 0;
let base = "";

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
  void (async () => {
    const url = req.url ?? "/";
    if (url === "/health") {
      res.writeHead(200, { "content-type": "application/json", "content-length": 2 });
      res.end("{}");
      return;
    }
    if (url === "/sessions" && req.method === "POST") {
      await readBody(req);
      const id = `s${++sessions}`;
      const text = JSON.stringify({ id, url: `${base}/sessions/${id}`, token: "t" });
      res.writeHead(201, {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(text),
      });
      res.end(text);
      return;
    }
    const m = /^\/sessions\/[^/]+(\/v1\/(?:chat\/completions|completions))$/.exec(url);
    if (!m || req.method !== "POST") {
      res.writeHead(404, { "content-length": 0 });
      res.end();
      return;
    }
    const body = JSON.parse(await readBody(req)) as Record<string, unknown>;
    const up = await post(m[1]!, JSON.stringify(body));
    if (body.stream === true) {
      res.writeHead(up.status, { "content-type": "text/event-stream" });
      res.end(up.body);
      return;
    }
    const text = JSON.stringify(JSON.parse(up.body.toString("utf8")));
    res.writeHead(up.status, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(text),
    });
    res.end(text);
  })().catch((err: unknown) => {
    if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" });
    res.end(String(err));
  });
});

server.listen(Number(values.port), "127.0.0.1", () => {
  const addr = server.address();
  base = `http://127.0.0.1:${typeof addr === "object" && addr ? addr.port : 0}`;
  process.stdout.write(`READY ${base} (null proxy)\n`);
});

const stop = () => {
  server.close();
  server.closeAllConnections();
  void client.close().finally(() => process.exit(0));
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);

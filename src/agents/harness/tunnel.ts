/**
 * The gateway, and nothing else, inside a sandbox without network. The sandbox keeps its own
 * network namespace (a loopback of its own); the CLI reaches the gateway through two halves:
 *
 *   host:    a Unix socket in a fresh dir (mounted read-only into the sandbox at the same path)
 *            serving HTTP: a request for the session's own model API (the gateway's agent and
 *            Gemini routes under the session's path, which all check the session's token) is
 *            passed on to the gateway, any other path (admin routes, /health, /sessions, other
 *            sessions' paths) is answered 404 there — without an admin key (rllm eval's and
 *            train's in-process gateway) the admin routes need no token, and code in the sandbox
 *            must not set the weight version, add upstreams or read and delete sessions
 *   sandbox: forward.cjs, the CLI's parent: it listens on 127.0.0.1:<the gateway's port> inside
 *            the sandbox, pipes each connection to that socket, then runs the CLI (stdio
 *            inherited) and exits as it does (its code; its signal re-raised); a CLI that cannot
 *            be started exits 127 (not found) or 126 (other errors), as a shell reports it
 *
 * The CLI is given the gateway's URLs with the host 127.0.0.1 (same port, path and scheme; a port
 * under 1024, which the sandbox's unprivileged user cannot listen on, becomes 18080), so a gateway
 * on another host works too. Only plain http: the forwarder moves bytes, but an https
 * URL's certificate names the real host, which 127.0.0.1 is not; an https gateway is refused
 * (tunnelTarget returns undefined) and the runner falls back to the sandbox sharing the host's
 * network. A Unix socket on a read-only mount still accepts connections (the kernel refuses
 * writes there only to files, dirs and links); it is mode 0777 in a 0755 dir, so the sandbox's
 * unprivileged user can connect.
 */
import { chmodSync, rmSync, writeFileSync } from "node:fs";
import { type ClientRequest, createServer, type OutgoingHttpHeaders, request } from "node:http";
import { join } from "node:path";
import { ownedTempDir, sweepOwnedTempDirs } from "../../sandbox/owned-dirs.js";
import { AGENT_API, GEMINI_API } from "../../types/index.js";

/** The in-sandbox half: argv = [port, socket, ...the CLI's argv]. CommonJS: it runs from any dir. */
const FORWARDER = `"use strict";
const net = require("node:net");
const { spawn } = require("node:child_process");
const [port, socket, ...argv] = process.argv.slice(2);
const server = net.createServer((c) => {
  const u = net.connect(socket);
  c.pipe(u);
  u.pipe(c);
  c.on("error", () => u.destroy());
  u.on("error", () => c.destroy());
});
server.on("error", (e) => {
  process.stderr.write("rllm gateway forwarder: cannot listen on 127.0.0.1:" + port + ": " + e.message + "\\n");
  process.exit(125);
});
server.listen(Number(port), "127.0.0.1", () => {
  const child = spawn(argv[0], argv.slice(1), { stdio: "inherit" });
  child.on("error", (e) => {
    process.stderr.write("rllm: cannot start " + argv[0] + ": " + e.message + "\\n");
    process.exit(e.code === "ENOENT" ? 127 : 126);
  });
  child.on("exit", (code, signal) => {
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    }
    process.exit(code === null ? 1 : code);
  });
});
`;

export interface GatewayTunnel {
  /** The dir to mount into the sandbox (holds the socket and the forwarder). */
  readonly dir: string;
  /** The URL as the CLI inside the sandbox calls it. */
  url(gatewayUrl: string): string;
  /** argv that runs `command` behind the in-sandbox forwarder (node: the sandbox's path to node). */
  wrap(node: string, command: string[]): string[];
  close(): Promise<void>;
}

/** The gateway's host, port and the session's path, when a tunnel can carry it (plain http); else undefined. */
export function tunnelTarget(
  sessionURL: string,
): { host: string; port: number; path: string } | undefined {
  const url = new URL(sessionURL);
  if (url.protocol !== "http:") return undefined;
  return {
    host: url.hostname.replace(/^\[|\]$/g, ""),
    port: Number(url.port || 80),
    path: url.pathname.replace(/\/$/, ""),
  };
}

/**
 * Connections one tunnel holds open at once; more are closed as they come. A CLI keeps a few (its
 * HTTP client's pool); each costs rllm's process a descriptor (two with a request in flight),
 * and sandboxed code must not spend them all (every session's gateway calls would fail).
 */
const MAX_CONNECTIONS = 128;

/** Headers of one connection, not passed on (the tunnel's connections are its own). */
const HOP_BY_HOP = ["connection", "keep-alive", "proxy-connection", "upgrade"];
/** The tunnel's dir in the system's tmp dir: `rllm-gw-<pid>-XXXXXX` (sandbox/owned-dirs.ts). */
const TUNNEL_PREFIX = "rllm-gw-";

export async function openGatewayTunnel(target: {
  host: string;
  port: number;
  /** The session's path (/sessions/<id>): the only prefix passed on. */
  path: string;
}): Promise<GatewayTunnel> {
  sweepOwnedTempDirs(TUNNEL_PREFIX); // of rllm processes that died with a tunnel open
  const dir = ownedTempDir(TUNNEL_PREFIX);
  chmodSync(dir, 0o755);
  const socketPath = join(dir, "gateway.sock");
  writeFileSync(join(dir, "forward.cjs"), FORWARDER, { mode: 0o644 });
  const inside = target.port >= 1024 ? target.port : 18080;
  const calls = new Set<ClientRequest>();
  const server = createServer((req, res) => {
    const url = req.url ?? "/";
    const path = url.split("?")[0]!;
    const route = GEMINI_API.exec(path) ?? AGENT_API.exec(path);
    if (route?.[1] !== target.path) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          error: {
            message: `the sandbox reaches only its session's model API (${target.path}/v1/..., ${target.path}/v1beta/models/...), not ${path}`,
          },
        }),
      );
      return;
    }
    const up = request(
      {
        host: target.host,
        port: target.port,
        method: req.method,
        path: url,
        headers: withoutHopByHop(req.headers),
        agent: false,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, withoutHopByHop(answer.headers));
        answer.on("error", () => res.destroy());
        answer.pipe(res);
      },
    );
    calls.add(up);
    up.on("close", () => calls.delete(up));
    up.on("error", () => res.destroy());
    res.on("close", () => up.destroy());
    req.pipe(up);
  });
  server.maxConnections = MAX_CONNECTIONS;
  try {
    await new Promise<void>((done, fail) => {
      server.once("error", fail);
      server.listen(socketPath, () => done());
    });
    chmodSync(socketPath, 0o777);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    dir,
    url(gatewayUrl) {
      const url = new URL(gatewayUrl);
      url.hostname = "127.0.0.1";
      url.port = String(inside);
      return url.toString().replace(/\/$/, gatewayUrl.endsWith("/") ? "/" : "");
    },
    wrap(node, command) {
      return [node, join(dir, "forward.cjs"), String(inside), socketPath, ...command];
    },
    async close() {
      for (const c of calls) c.destroy();
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function withoutHopByHop(headers: OutgoingHttpHeaders): OutgoingHttpHeaders {
  const out = { ...headers };
  for (const h of HOP_BY_HOP) delete out[h];
  return out;
}

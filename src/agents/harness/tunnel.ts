/**
 * The gateway, and nothing else, inside a sandbox without network. The sandbox keeps its own
 * network namespace (a loopback of its own); the CLI reaches the gateway through two halves:
 *
 *   host:    a Unix socket in a fresh dir (mounted read-only into the sandbox at the same path)
 *            whose every connection is piped to the gateway's TCP address
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
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

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

/** The gateway's host and port, when a tunnel can carry it (plain http); else undefined. */
export function tunnelTarget(sessionURL: string): { host: string; port: number } | undefined {
  const url = new URL(sessionURL);
  if (url.protocol !== "http:") return undefined;
  return { host: url.hostname.replace(/^\[|\]$/g, ""), port: Number(url.port || 80) };
}

export async function openGatewayTunnel(target: {
  host: string;
  port: number;
}): Promise<GatewayTunnel> {
  const dir = mkdtempSync(join(tmpdir(), "rllm-gw-"));
  chmodSync(dir, 0o755);
  const socketPath = join(dir, "gateway.sock");
  writeFileSync(join(dir, "forward.cjs"), FORWARDER, { mode: 0o644 });
  const inside = target.port >= 1024 ? target.port : 18080;
  const open = new Set<Socket>();
  const server: Server = createServer((c) => {
    const u = connect(target.port, target.host);
    open.add(c).add(u);
    c.pipe(u);
    u.pipe(c);
    const end = () => {
      c.destroy();
      u.destroy();
      open.delete(c);
      open.delete(u);
    };
    c.on("error", end).on("close", end);
    u.on("error", end).on("close", end);
  });
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
      for (const s of open) s.destroy();
      await new Promise<void>((done) => server.close(() => done()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

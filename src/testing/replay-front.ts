/**
 * The fake upstream's replay mode (FakeUpstreamOptions.replay), for benchmarks: a bare TCP front
 * that answers a generation request whose path and body it has seen before with the bytes that
 * request got the first time, in one write, and passes everything else on to the fake upstream
 * behind it (over the gateway's own HTTP client).
 *
 * Why a bare front: in bench/gateway.ts the fake upstream stands for a GPU server on another
 * machine, yet shares the measured gateway's core. Behind node:http it cost 65–120 µs of that core
 * per request even when it only replayed; this costs little more than the socket reads and
 * writes, so the core's time goes to what is measured.
 *
 * What it does not do: chunked request bodies (400), streaming on a miss (a miss is answered once
 * the generator has finished; only its status, content type and body are passed on). Replayed
 * requests are not recorded and not counted in `inFlight`. Nothing is replayed while faults are
 * queued or a latency is set: those requests go to the generator as they are.
 */
import net from "node:net";
import { H1Client, requestWhole } from "../gateway/upstreams/h1.js";
import { GEN_PATHS } from "./fake-upstream/server.js";
import type { FakeUpstream } from "./fake-upstream/types.js";

const MAX_HEAD = 64 * 1024;
const MAX_ENTRIES = 100_000;

interface Request {
  method: string;
  path: string;
  body: string;
  close: boolean;
}

export async function startReplayFront(
  inner: FakeUpstream,
  port: number,
  host: string,
): Promise<FakeUpstream> {
  const generator = new H1Client(inner.url, {
    connections: 256,
    keepAliveTimeout: 30_000,
    headersTimeout: 600_000,
    bodyTimeout: 600_000,
    connectTimeout: 10_000,
  });
  /** path + "\n" + body → the whole response, head and body. */
  const replays = new Map<string, Buffer>();
  let hits = 0;
  const sockets = new Set<net.Socket>();

  const replayable = (path: string) =>
    GEN_PATHS.has(path) &&
    (inner.kind === "sglang" || path !== "/generate") &&
    inner.config.latencyMs === 0 &&
    inner.config.tokenDelayMs === 0 &&
    !inner.faults.some((f) => f.path === undefined || f.path === path);

  /** Passes a request on to the generator; resolves with the response to write. */
  const forward = async (r: Request): Promise<Buffer> => {
    let res: { status: number; body: Buffer };
    try {
      res = await requestWhole(
        generator,
        r.method === "GET"
          ? { method: "GET", path: r.path }
          : {
              method: "POST",
              path: r.path,
              headers: { "content-type": "application/json" },
              body: r.body,
            },
      );
    } catch (err) {
      const msg = JSON.stringify({ error: { message: `replay front: ${(err as Error).message}` } });
      return Buffer.from(
        `HTTP/1.1 502 Bad Gateway\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(msg)}\r\nconnection: close\r\n\r\n${msg}`,
      );
    }
    const { status, body } = res;
    const stream = status < 400 && /"stream"\s*:\s*true/.test(r.body);
    const wire = Buffer.concat([
      Buffer.from(
        `HTTP/1.1 ${status} ${status < 400 ? "OK" : "Error"}\r\n` +
          `content-type: ${stream ? "text/event-stream" : "application/json"}\r\n` +
          `content-length: ${body.length}\r\n\r\n`,
        "latin1",
      ),
      body,
    ]);
    if (status < 400 && GEN_PATHS.has(r.path) && replays.size < MAX_ENTRIES) {
      replays.set(`${r.path}\n${r.body}`, wire);
    }
    return wire;
  };

  const server = net.createServer((sock) => {
    sockets.add(sock);
    sock.setNoDelay(true);
    let buf: Buffer | null = null;
    let busy = false;
    sock.on("close", () => sockets.delete(sock));
    sock.on("error", () => {});

    /** Serves every complete request in `buf`, in order; a miss pauses it until answered. */
    const pump = (): void => {
      while (!busy && buf && buf.length > 0) {
        const end = buf.indexOf("\r\n\r\n");
        if (end < 0) {
          if (buf.length > MAX_HEAD) sock.destroy();
          return;
        }
        const head = buf.toString("latin1", 0, end);
        const eol = head.indexOf("\r\n");
        const line = eol < 0 ? head : head.slice(0, eol);
        const [method, path, version] = line.split(" ");
        if (!method || !path || !version?.startsWith("HTTP/1.")) {
          sock.end("HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
          return;
        }
        const lower = head.toLowerCase();
        if (/\r\ntransfer-encoding:/.test(lower)) {
          const msg = "the replay front takes Content-Length request bodies only";
          sock.end(
            `HTTP/1.1 400 Bad Request\r\ncontent-length: ${msg.length}\r\nconnection: close\r\n\r\n${msg}`,
          );
          return;
        }
        const len = Number(/\r\ncontent-length:\s*(\d+)/.exec(lower)?.[1] ?? 0);
        if (buf.length < end + 4 + len) return;
        const body = buf.toString("utf8", end + 4, end + 4 + len);
        buf = buf.length === end + 4 + len ? null : buf.subarray(end + 4 + len);
        const close =
          /\r\nconnection:\s*close/.test(lower) ||
          (version === "HTTP/1.0" && !/\r\nconnection:\s*keep-alive/.test(lower));
        const request: Request = { method, path, body, close };
        const hit = replayable(path) ? replays.get(`${path}\n${body}`) : undefined;
        if (hit) {
          hits++;
          if (close) sock.end(hit);
          else sock.write(hit);
          continue;
        }
        busy = true;
        void forward(request).then((wire) => {
          busy = false;
          if (sock.destroyed) return;
          if (request.close) {
            sock.end(wire);
            return;
          }
          sock.write(wire);
          pump();
        });
      }
    };

    sock.on("data", (d: Buffer) => {
      buf = buf ? Buffer.concat([buf, d]) : d;
      pump();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const addr = server.address() as net.AddressInfo;
  return {
    kind: inner.kind,
    url: `http://${host.includes(":") ? `[${host}]` : host}:${addr.port}`,
    port: addr.port,
    model: inner.model,
    requests: inner.requests,
    faults: inner.faults,
    config: inner.config,
    weights: inner.weights,
    get inFlight() {
      return inner.inFlight;
    },
    get totalRequests() {
      return inner.totalRequests + hits;
    },
    setHealthy: (h) => inner.setHealthy(h),
    clearRequests: () => inner.clearRequests(),
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await generator.close();
      await inner.close();
    },
  };
}

/**
 * A small Docker Engine API client over the daemon's Unix socket: JSON requests, the image pull's
 * progress stream, and an exec's hijacked connection. The wire contract (api/swagger.yaml and
 * daemon/server/router/container/exec.go of github.com/moby/moby) is summarized in
 * src/testing/fake-docker/contract.ts, which the tests' fake daemon enforces.
 *
 * Decided once:
 * - Every path is prefixed with the configured API version (`/v1.43/...`).
 * - A status >= 400 is a DockerEngineError carrying the status and the daemon's `{"message"}`
 *   verbatim (a body that is not that JSON is quoted as text).
 * - A pull's 200 stream can still fail: a line with `error`/`errorDetail` is thrown as an error.
 * - An exec's start is hijacked (`Connection: Upgrade`, `Upgrade: tcp`, answered 101); the
 *   non-TTY stream is multiplexed: frames of an 8-byte header (byte 0 the stream: 1 stdout,
 *   2 stderr; bytes 4-7 the payload length, big-endian) and the payload. Stdin is written on the
 *   same socket and half-closed (FIN) so the process sees EOF.
 */
import { Agent, type IncomingMessage, request } from "node:http";
import type { Socket } from "node:net";
import { SandboxError } from "../types.js";

export class DockerEngineError extends SandboxError {
  override name = "DockerEngineError";
  constructor(
    readonly status: number,
    readonly daemonMessage: string,
    what: string,
  ) {
    super(`Docker daemon: ${what} failed (HTTP ${status}): ${daemonMessage}`);
  }
}

export interface EngineRequest {
  query?: Record<string, string>;
  json?: unknown;
  body?: Uint8Array;
  contentType?: string;
}

export interface EngineResponse {
  status: number;
  headers: IncomingMessage["headers"];
  body: Buffer;
}

export class DockerEngine {
  /** Kept-alive connections for the JSON requests (an exec's hijacked one is its own). */
  private readonly agent = new Agent({ keepAlive: true });

  constructor(
    readonly socket: string,
    readonly apiVersion: string,
  ) {}

  /** Drops the kept-alive connections. */
  close(): void {
    this.agent.destroy();
  }

  url(path: string, query?: Record<string, string>): string {
    const qs = query ? `?${new URLSearchParams(query).toString()}` : "";
    return `/${this.apiVersion}${path}${qs}`;
  }

  /** One request; a status >= 400 throws DockerEngineError naming `method path`. */
  async request(method: string, path: string, r: EngineRequest = {}): Promise<EngineResponse> {
    const body =
      r.json !== undefined ? Buffer.from(JSON.stringify(r.json)) : r.body && Buffer.from(r.body);
    const headers: Record<string, string> = {};
    if (body) {
      headers["Content-Type"] = r.json !== undefined ? "application/json" : (r.contentType ?? "");
      headers["Content-Length"] = String(body.length);
    }
    const res = await new Promise<EngineResponse>((resolve, reject) => {
      const req = request(
        {
          socketPath: this.socket,
          agent: this.agent,
          method,
          path: this.url(path, r.query),
          headers,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              body: Buffer.concat(chunks),
            }),
          );
          res.on("error", reject);
        },
      );
      req.on("error", (err) => reject(this.connectError(err)));
      req.end(body);
    });
    if (res.status >= 400)
      throw new DockerEngineError(res.status, errorMessage(res.body), `${method} ${path}`);
    return res;
  }

  async json<T>(method: string, path: string, r: EngineRequest = {}): Promise<T> {
    const res = await this.request(method, path, r);
    return (res.body.length ? JSON.parse(res.body.toString("utf8")) : {}) as T;
  }

  /** POST /images/create?fromImage=&tag=; resolves when the progress stream ends without an error line. */
  async pull(image: string): Promise<void> {
    const { name, tag } = splitImage(image);
    const res = await this.request("POST", "/images/create", { query: { fromImage: name, tag } });
    for (const line of res.body.toString("utf8").split("\n")) {
      if (!line.trim()) continue;
      let m: { error?: string; errorDetail?: { message?: string } };
      try {
        m = JSON.parse(line);
      } catch {
        throw new DockerEngineError(
          200,
          `unreadable progress line ${JSON.stringify(line)}`,
          `pulling ${image}`,
        );
      }
      if (m.error || m.errorDetail) {
        throw new DockerEngineError(
          200,
          m.errorDetail?.message ?? m.error ?? "",
          `pulling ${image}`,
        );
      }
    }
  }

  /**
   * POST /exec/{id}/start, hijacked: `onFrame` gets each demultiplexed frame, `stdin` (if any) is
   * written then half-closed. Resolves when the daemon closes the stream. `abort()` on the returned
   * handle destroys the connection (the process is left to the caller to kill).
   */
  startExec(
    execId: string,
    stdin: Uint8Array | undefined,
    onFrame: (stream: number, payload: Buffer) => void,
  ): { done: Promise<void>; abort(): void } {
    let sock: Socket | undefined;
    const body = Buffer.from(JSON.stringify({ Detach: false, Tty: false }));
    const done = new Promise<void>((resolve, reject) => {
      const req = request({
        socketPath: this.socket,
        method: "POST",
        path: this.url(`/exec/${execId}/start`),
        headers: {
          "Content-Type": "application/json",
          "Content-Length": String(body.length),
          Connection: "Upgrade",
          Upgrade: "tcp",
        },
      });
      req.on("error", (err) => reject(this.connectError(err)));
      req.on("response", (res) => {
        // Not upgraded: an error answer (404 no such exec, 409 not running).
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          reject(
            new DockerEngineError(
              res.statusCode ?? 0,
              errorMessage(Buffer.concat(chunks)),
              `POST /exec/${execId}/start`,
            ),
          ),
        );
      });
      req.on("upgrade", (_res, socket, head) => {
        sock = socket;
        const demux = new Demuxer(onFrame);
        if (head.length) demux.push(head);
        socket.on("data", (c: Buffer) => demux.push(c));
        socket.on("end", () => {
          socket.destroy();
          resolve();
        });
        socket.on("close", () => resolve());
        socket.on("error", reject);
        if (stdin?.length) socket.write(stdin);
        socket.end(); // half-close: EOF on the process's stdin; the output keeps coming
      });
      req.end(body);
    });
    return { done, abort: () => sock?.destroy() };
  }

  private connectError(err: NodeJS.ErrnoException): Error {
    if (err.code === "ENOENT" || err.code === "ECONNREFUSED" || err.code === "EACCES") {
      return new SandboxError(
        `cannot reach the Docker daemon at ${this.socket} (${err.code}): start Docker (e.g. \`systemctl start docker\`), give this user access to the socket (the docker group), or set sandbox.socket to the daemon's socket (unix:///path, as DOCKER_HOST)`,
      );
    }
    return err;
  }
}

/** The daemon's `{"message": ...}`, or the body as text. */
function errorMessage(body: Buffer): string {
  const text = body.toString("utf8").trim();
  try {
    const parsed = JSON.parse(text) as { message?: unknown };
    if (typeof parsed.message === "string") return parsed.message;
  } catch {}
  return text || "(empty body)";
}

/** `repo[:tag]` or `repo@digest` → the pull's fromImage and tag (default "latest": never "all tags"). */
export function splitImage(image: string): { name: string; tag: string } {
  const at = image.indexOf("@");
  if (at >= 0) return { name: image.slice(0, at), tag: image.slice(at + 1) };
  const colon = image.lastIndexOf(":");
  if (colon > image.lastIndexOf("/"))
    return { name: image.slice(0, colon), tag: image.slice(colon + 1) };
  return { name: image, tag: "latest" };
}

/** Splits the multiplexed stream into frames (header: stream byte, 3 zero bytes, BE uint32 length). */
export class Demuxer {
  private buf: Buffer = Buffer.alloc(0);
  constructor(private readonly onFrame: (stream: number, payload: Buffer) => void) {}

  push(chunk: Buffer): void {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    while (this.buf.length >= 8) {
      const size = this.buf.readUInt32BE(4);
      if (this.buf.length < 8 + size) return;
      const stream = this.buf[0] as number;
      this.onFrame(stream, this.buf.subarray(8, 8 + size));
      this.buf = this.buf.subarray(8 + size);
    }
  }
}

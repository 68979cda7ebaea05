/**
 * The gateway's HTTP/1.1 client for its upstreams: keep-alive connections to one origin (http or
 * https), one request at a time on each, with the timeouts an LLM call needs.
 *
 * Why not undici: every agent call is one upstream call, and on the gateway's hot path undici's
 * generality (request/response streams, its dispatcher chain, a timer per phase) cost a third of
 * what a bare node:http proxy costs per call (bench/gateway.ts, --gateway null-proxy). This client
 * does only what the gateway needs: a request written in one `write`, the response head parsed
 * from the first bytes, the body handed over as the socket delivers it (Content-Length, chunked,
 * or until close).
 *
 * Failures carry a `code`:
 * - before any byte of the response: the socket's own (ECONNREFUSED, ECONNRESET, ...),
 *   `RLLM_CONNECT_TIMEOUT`, or `RLLM_SOCKET_CLOSED` (closed before answering); the upstream pool
 *   retries these elsewhere. A reused keep-alive connection that the server closed just as a
 *   request went out is retried here once on a new connection, as no answer began.
 * - `RLLM_HEADERS_TIMEOUT` (no complete response head within `headersTimeout` of the request),
 *   `RLLM_BODY_TIMEOUT` (a gap of `bodyTimeout` in the body), `RLLM_BAD_RESPONSE` (not HTTP/1.x),
 *   and `RLLM_SOCKET_CLOSED` after the head (the body broke off).
 */
import net from "node:net";
import tls from "node:tls";

export interface H1Handler {
  /** The call is on a connection; `abort` ends it with `err` (the connection is dropped). */
  onConnect(abort: (err: Error) => void): void;
  onHeaders(status: number): void;
  onData(chunk: Buffer): void;
  onComplete(): void;
  onError(err: Error): void;
}

export interface H1Request {
  method: "GET" | "POST";
  /** Path and query, starting with `/`. */
  path: string;
  /** Extra header lines, already lower-case names; host and content-length are set here. */
  headers?: Readonly<Record<string, string>>;
  body?: string;
  headersTimeout?: number;
  bodyTimeout?: number;
}

export interface H1Options {
  /** Connections kept open at most; calls beyond wait in order. */
  connections: number;
  /** An idle connection is closed after this long (or the server's own keep-alive hint). */
  keepAliveTimeout: number;
  headersTimeout: number;
  bodyTimeout: number;
  connectTimeout: number;
}

export class H1Error extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = "H1Error";
  }
}

/** The response head may not grow past this (bytes). */
const MAX_HEAD = 64 * 1024;
const CRLF = 0x0a0d; // "\r\n" read as a little-endian uint16

interface Call {
  req: H1Request;
  handler: H1Handler;
  /** Bytes of the request as written. */
  wire: string;
  /** Set when a reused connection failed before answering and the call went to a new one. */
  retried: boolean;
}

enum Body {
  None,
  Fixed,
  Chunked,
  UntilClose,
}

enum Phase {
  Connect,
  Headers,
  Body,
}

enum Chunk {
  Size,
  Data,
  DataEnd,
  Trailers,
}

class Connection {
  readonly socket: net.Socket;
  call: Call | null = null;
  /** Whether this connection has served a call before the current one. */
  reused = false;
  idleSince = 0;
  /** When the current phase times out (ms, performance.now clock); 0 when none. */
  deadline = 0;
  /** What the deadline bounds, and its length (ms). */
  private phase = Phase.Connect;
  private phaseMs = 0;
  private connected = false;
  // response state
  private head: Buffer | null = null;
  private inBody = false;
  private gotBytes = false;
  private mode = Body.None;
  private remaining = 0;
  private chunkState = Chunk.Size;
  private partial: Buffer | null = null;
  private keepAlive = true;
  /** The server's keep-alive hint (ms), or 0. */
  serverIdleMs = 0;

  constructor(
    private readonly client: H1Client,
    secure: boolean,
  ) {
    const o = client.target;
    this.socket = secure
      ? tls.connect({
          host: o.host,
          port: o.port,
          ...(net.isIP(o.host) ? {} : { servername: o.host }),
        })
      : net.connect({ host: o.host, port: o.port });
    this.socket.setNoDelay(true);
    this.socket.on(secure ? "secureConnect" : "connect", () => {
      this.connected = true;
      if (this.call)
        this.setDeadline(
          this.call.req.headersTimeout ?? client.options.headersTimeout,
          Phase.Headers,
        );
    });
    this.socket.on("data", (d: Buffer) => this.onData(d));
    this.socket.on("error", (err) => this.onSocketEnd(err));
    this.socket.on("close", () => this.onSocketEnd(null));
    // The server half-closed: no further response can come on this connection.
    this.socket.on("end", () => this.onSocketEnd(null));
  }

  start(call: Call): void {
    this.call = call;
    this.head = null;
    this.inBody = false;
    this.gotBytes = false;
    this.partial = null;
    this.keepAlive = true;
    if (this.connected)
      this.setDeadline(
        call.req.headersTimeout ?? this.client.options.headersTimeout,
        Phase.Headers,
      );
    else this.setDeadline(this.client.options.connectTimeout, Phase.Connect);
    this.socket.write(call.wire);
  }

  private setDeadline(ms: number, phase: Phase): void {
    this.deadline = performance.now() + ms;
    this.phase = phase;
    this.phaseMs = ms;
  }

  /** Called by the client's sweep. */
  timeout(): void {
    const ms = this.phaseMs;
    this.fail(
      this.phase === Phase.Connect
        ? new H1Error(`connect timeout after ${ms} ms`, "RLLM_CONNECT_TIMEOUT")
        : this.phase === Phase.Headers
          ? new H1Error(`no response within ${ms} ms`, "RLLM_HEADERS_TIMEOUT")
          : new H1Error(`the response body paused for over ${ms} ms`, "RLLM_BODY_TIMEOUT"),
    );
  }

  abort(call: Call, err: Error): void {
    if (this.call !== call) return;
    this.fail(err);
  }

  /** Ends the current call with `err` and drops the connection. */
  private fail(err: Error): void {
    const call = this.call;
    this.call = null;
    this.deadline = 0;
    this.socket.destroy();
    this.client.dropped(this);
    if (call) call.handler.onError(err);
  }

  private onSocketEnd(err: Error | null): void {
    const call = this.call;
    if (!call) {
      // Idle (or already failed): just forget it.
      this.socket.destroy();
      this.client.dropped(this);
      return;
    }
    if (this.inBody && this.mode === Body.UntilClose && !err) {
      this.finish();
      return;
    }
    if (!this.gotBytes && this.reused && !call.retried) {
      // The server closed an idle connection as this call went out on it: nothing was answered,
      // so the call goes to a new connection.
      this.call = null;
      this.deadline = 0;
      this.socket.destroy();
      this.client.dropped(this);
      call.retried = true;
      this.client.redispatch(call);
      return;
    }
    const code = (err as { code?: string } | null)?.code;
    this.fail(
      this.gotBytes || !code
        ? new H1Error(
            err
              ? `the connection broke: ${err.message}`
              : this.gotBytes
                ? "the upstream closed the connection before the response was complete"
                : "the upstream closed the connection before answering",
            "RLLM_SOCKET_CLOSED",
          )
        : err!,
    );
  }

  private onData(data: Buffer): void {
    const call = this.call;
    if (!call) {
      // Bytes nobody asked for: the connection is out of step, drop it.
      this.socket.destroy();
      this.client.dropped(this);
      return;
    }
    this.gotBytes = true;
    if (!this.inBody) {
      const buf = this.head ? Buffer.concat([this.head, data]) : data;
      const rest = this.parseHead(buf);
      if (rest === undefined) return;
      if (this.call !== call) return;
      if (!this.inBody) return; // the whole response was the head
      // From here each gap in the body is bounded, the first one from the head's arrival.
      this.setDeadline(call.req.bodyTimeout ?? this.client.options.bodyTimeout, Phase.Body);
      if (rest.length === 0) return;
      data = rest;
    } else {
      this.setDeadline(call.req.bodyTimeout ?? this.client.options.bodyTimeout, Phase.Body);
    }
    this.body(data);
  }

  /**
   * Parses response heads (skipping 1xx) from `buf`; returns the bytes after the final head, or
   * undefined when the head is incomplete (kept) or the call ended.
   */
  private parseHead(buf: Buffer): Buffer | undefined {
    for (;;) {
      const end = buf.indexOf("\r\n\r\n");
      if (end < 0) {
        if (buf.length > MAX_HEAD) this.bad("the response head is over 64 KiB");
        else this.head = buf;
        return undefined;
      }
      this.head = null;
      const text = buf.toString("latin1", 0, end);
      const m = /^HTTP\/1\.([01]) (\d{3})(?: |\r|$)/.exec(text);
      if (!m) {
        this.bad(`not an HTTP/1.x response: ${JSON.stringify(text.slice(0, 80))}`);
        return undefined;
      }
      const status = Number(m[2]);
      const rest = buf.subarray(end + 4);
      if (status >= 100 && status < 200) {
        buf = rest;
        if (buf.length === 0) return undefined;
        continue;
      }
      let length = -1;
      let chunked = false;
      let connection = "";
      let lineStart = text.indexOf("\r\n");
      while (lineStart >= 0) {
        const next = text.indexOf("\r\n", lineStart + 2);
        const line = text.slice(lineStart + 2, next < 0 ? text.length : next);
        lineStart = next;
        const colon = line.indexOf(":");
        if (colon <= 0) {
          this.bad(`a malformed header line: ${JSON.stringify(line.slice(0, 80))}`);
          return undefined;
        }
        const name = line.slice(0, colon).toLowerCase();
        if (name === "content-length") {
          const v = line.slice(colon + 1).trim();
          const n = /^\d+$/.test(v) ? Number(v) : Number.NaN;
          if (!Number.isSafeInteger(n) || (length >= 0 && n !== length)) {
            this.bad(`a bad content-length: ${JSON.stringify(v)}`);
            return undefined;
          }
          length = n;
        } else if (name === "transfer-encoding") {
          chunked = /(?:^|,)\s*chunked\s*$/i.test(line.slice(colon + 1));
        } else if (name === "connection") {
          connection = line
            .slice(colon + 1)
            .trim()
            .toLowerCase();
        } else if (name === "keep-alive") {
          const t = /timeout=(\d+)/i.exec(line);
          if (t) this.serverIdleMs = Number(t[1]) * 1000;
        }
      }
      this.keepAlive =
        m[1] === "1" ? !/\bclose\b/.test(connection) : /\bkeep-alive\b/.test(connection);
      if (chunked) {
        this.mode = Body.Chunked;
        this.chunkState = Chunk.Size;
      } else if (length >= 0) {
        this.mode = length > 0 ? Body.Fixed : Body.None;
        this.remaining = length;
      } else if (status === 204 || status === 304) {
        this.mode = Body.None;
      } else {
        this.mode = Body.UntilClose;
        this.keepAlive = false;
      }
      this.inBody = true;
      const call = this.call!;
      call.handler.onHeaders(status);
      if (this.call !== call) return undefined;
      if (this.mode === Body.None) {
        if (rest.length > 0) this.keepAlive = false;
        this.finish();
        return undefined;
      }
      return rest;
    }
  }

  private bad(why: string): void {
    this.fail(new H1Error(`malformed HTTP response: ${why}`, "RLLM_BAD_RESPONSE"));
  }

  private body(data: Buffer): void {
    const call = this.call!;
    if (this.mode === Body.UntilClose) {
      call.handler.onData(data);
      return;
    }
    if (this.mode === Body.Fixed) {
      if (data.length < this.remaining) {
        this.remaining -= data.length;
        call.handler.onData(data);
        return;
      }
      const extra = data.length > this.remaining;
      call.handler.onData(extra ? data.subarray(0, this.remaining) : data);
      if (this.call !== call) return;
      this.remaining = 0;
      if (extra) this.keepAlive = false;
      this.finish();
      return;
    }
    this.chunked(data);
  }

  private chunked(input: Buffer): void {
    const call = this.call!;
    const data = this.partial ? Buffer.concat([this.partial, input]) : input;
    this.partial = null;
    let p = 0;
    while (p < data.length) {
      if (this.chunkState === Chunk.Data) {
        const n = Math.min(this.remaining, data.length - p);
        call.handler.onData(data.subarray(p, p + n));
        if (this.call !== call) return;
        p += n;
        this.remaining -= n;
        if (this.remaining === 0) this.chunkState = Chunk.DataEnd;
        continue;
      }
      if (this.chunkState === Chunk.DataEnd) {
        if (data.length - p < 2) break;
        if (data.readUInt16LE(p) !== CRLF) {
          this.bad("a chunk not followed by CRLF");
          return;
        }
        p += 2;
        this.chunkState = Chunk.Size;
        continue;
      }
      const eol = data.indexOf("\r\n", p);
      if (eol < 0) {
        if (data.length - p > 4096) {
          this.bad("a chunk-size line over 4 KiB");
          return;
        }
        break;
      }
      const line = data.toString("latin1", p, eol);
      p = eol + 2;
      if (this.chunkState === Chunk.Trailers) {
        if (line === "") {
          if (p < data.length) this.keepAlive = false;
          this.finish();
          return;
        }
        continue;
      }
      const semi = line.indexOf(";");
      const hex = (semi < 0 ? line : line.slice(0, semi)).trim();
      if (!/^[0-9a-fA-F]{1,12}$/.test(hex)) {
        this.bad(`a bad chunk size: ${JSON.stringify(line.slice(0, 40))}`);
        return;
      }
      const size = Number.parseInt(hex, 16);
      if (size === 0) this.chunkState = Chunk.Trailers;
      else {
        this.remaining = size;
        this.chunkState = Chunk.Data;
      }
    }
    if (p < data.length) this.partial = data.subarray(p);
  }

  /** The response is complete: the handler hears of it after the connection is free again. */
  private finish(): void {
    const call = this.call!;
    this.call = null;
    this.deadline = 0;
    this.inBody = false;
    this.reused = true;
    if (this.keepAlive && !this.socket.destroyed) this.client.released(this);
    else {
      this.socket.destroy();
      this.client.dropped(this);
    }
    call.handler.onComplete();
  }
}

/** A call whose whole body is wanted: its status and body once the response is complete. */
export function requestWhole(
  client: H1Client,
  req: H1Request,
): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    let status = 0;
    const parts: Buffer[] = [];
    client.dispatch(req, {
      onConnect() {},
      onHeaders(s) {
        status = s;
      },
      onData(c) {
        parts.push(c);
      },
      onComplete() {
        resolve({ status, body: parts.length === 1 ? parts[0]! : Buffer.concat(parts) });
      },
      onError: reject,
    });
  });
}

/** Keep-alive HTTP/1.1 connections to one origin. */
export class H1Client {
  readonly target: { host: string; port: number; hostHeader: string };
  private readonly secure: boolean;
  private readonly all = new Set<Connection>();
  private readonly idle: Connection[] = [];
  private readonly queue: Call[] = [];
  private sweepTimer: NodeJS.Timeout | undefined;
  private readonly sweepMs: number;
  private closing = false;
  private closed: (() => void) | undefined;

  constructor(
    origin: string,
    readonly options: H1Options,
  ) {
    const u = new URL(origin);
    if (u.protocol !== "http:" && u.protocol !== "https:") {
      throw new Error(`upstream URL ${origin} must be http:// or https://`);
    }
    this.secure = u.protocol === "https:";
    const host = u.hostname.startsWith("[") ? u.hostname.slice(1, -1) : u.hostname;
    this.target = {
      host,
      port: u.port ? Number(u.port) : this.secure ? 443 : 80,
      hostHeader: u.host,
    };
    this.sweepMs = Math.max(
      5,
      Math.min(
        1000,
        Math.floor(
          Math.min(options.headersTimeout, options.bodyTimeout, options.connectTimeout) / 8,
        ),
      ),
    );
  }

  /** Sends the request; the handler hears how it goes (always exactly one of onComplete/onError). */
  dispatch(req: H1Request, handler: H1Handler): void {
    if (this.closing) {
      handler.onError(
        new H1Error("the upstream was removed from the gateway", "RLLM_CLIENT_CLOSED"),
      );
      return;
    }
    let wire = `${req.method} ${req.path} HTTP/1.1\r\nhost: ${this.target.hostHeader}\r\n`;
    if (req.headers) for (const k in req.headers) wire += `${k}: ${req.headers[k]}\r\n`;
    wire +=
      req.body === undefined
        ? "\r\n"
        : `content-length: ${Buffer.byteLength(req.body)}\r\n\r\n${req.body}`;
    this.redispatch({ req, handler, wire, retried: false });
  }

  /** @internal */
  redispatch(call: Call): void {
    let conn = this.idle.pop();
    if (!conn) {
      if (this.all.size >= this.options.connections) {
        this.queue.push(call);
        return;
      }
      conn = new Connection(this, this.secure);
      this.all.add(conn);
      this.startSweep();
    }
    this.run(conn, call);
  }

  private run(conn: Connection, call: Call): void {
    conn.start(call);
    call.handler.onConnect((err) => conn.abort(call, err));
  }

  /** @internal A connection is free for the next call. */
  released(conn: Connection): void {
    const next = this.queue.shift();
    if (next) {
      this.run(conn, next);
      return;
    }
    if (this.closing) {
      conn.socket.destroy();
      this.dropped(conn);
      return;
    }
    conn.idleSince = performance.now();
    this.idle.push(conn);
  }

  /** @internal A connection is gone. */
  dropped(conn: Connection): void {
    if (!this.all.delete(conn)) return;
    const i = this.idle.indexOf(conn);
    if (i >= 0) this.idle.splice(i, 1);
    // A waiting call gets the freed slot.
    const next = this.queue.shift();
    if (next) this.redispatch(next);
    if (this.all.size === 0) {
      this.stopSweep();
      if (this.closing) this.closed?.();
    }
  }

  private startSweep(): void {
    if (this.sweepTimer) return;
    this.sweepTimer = setInterval(() => this.sweep(), this.sweepMs);
    this.sweepTimer.unref();
  }

  private stopSweep(): void {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.sweepTimer = undefined;
  }

  private sweep(): void {
    const now = performance.now();
    for (const c of [...this.all]) {
      if (c.call) {
        if (c.deadline > 0 && now >= c.deadline) c.timeout();
      } else {
        const limit =
          c.serverIdleMs > 0
            ? Math.min(this.options.keepAliveTimeout, Math.max(c.serverIdleMs - 1000, 500))
            : this.options.keepAliveTimeout;
        if (now - c.idleSince >= limit) {
          c.socket.destroy();
          this.dropped(c);
        }
      }
    }
  }

  /** No new calls; calls in flight finish; resolves when every connection is closed. */
  close(): Promise<void> {
    this.closing = true;
    for (const c of [...this.idle]) {
      c.socket.destroy();
      this.dropped(c);
    }
    const waiting = this.queue.splice(0);
    for (const call of waiting) {
      call.handler.onError(
        new H1Error("the upstream was removed from the gateway", "RLLM_CLIENT_CLOSED"),
      );
    }
    if (this.all.size === 0) {
      this.stopSweep();
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.closed = resolve;
    });
  }

  /** Connections open now (for tests and the admin view). */
  get connections(): number {
    return this.all.size;
  }
}

/**
 * The gateway's HTTP/1.1 upstream client against raw TCP servers on loopback that write exactly
 * the bytes under test: body framings (Content-Length, chunked split anywhere, until close, 1xx),
 * keep-alive reuse, malformed responses, timeouts, the keep-alive race, queueing, abort and close.
 */
import assert from "node:assert/strict";
import { createServer as createHttpServer } from "node:http";
import net from "node:net";
import { after, test } from "node:test";
import tls from "node:tls";
import { H1Client, type H1Error, type H1Options, type H1Request, requestWhole } from "./h1.js";

const OPTS: H1Options = {
  connections: 8,
  keepAliveTimeout: 30_000,
  headersTimeout: 2_000,
  bodyTimeout: 2_000,
  connectTimeout: 2_000,
};

const servers: net.Server[] = [];
after(() => {
  for (const s of servers) s.close();
});

/** A raw server: `onRequest(socket, head, body, n)` for each request read off a connection. */
async function rawServer(
  onRequest: (sock: net.Socket, head: string, body: string, n: number) => void,
): Promise<{ url: string; connections: () => number; requests: () => number }> {
  let conns = 0;
  let n = 0;
  const server = net.createServer((sock) => {
    conns++;
    let buf = "";
    sock.on("data", (d) => {
      buf += d.toString("latin1");
      for (;;) {
        const end = buf.indexOf("\r\n\r\n");
        if (end < 0) return;
        const head = buf.slice(0, end);
        const len = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
        if (buf.length < end + 4 + len) return;
        const body = buf.slice(end + 4, end + 4 + len);
        buf = buf.slice(end + 4 + len);
        onRequest(sock, head, body, ++n);
      }
    });
    sock.on("error", () => {});
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as net.AddressInfo).port;
  return { url: `http://127.0.0.1:${port}`, connections: () => conns, requests: () => n };
}

interface Result {
  status: number;
  body: string;
  chunks: number;
}

async function call(client: H1Client, req: Partial<H1Request> = {}): Promise<Result> {
  let chunks = 0;
  let status = 0;
  const parts: Buffer[] = [];
  await new Promise<void>((resolve, reject) => {
    client.dispatch(
      { method: "POST", path: "/x", body: "{}", ...req },
      {
        onConnect() {},
        onHeaders(s) {
          status = s;
        },
        onData(c) {
          chunks++;
          parts.push(Buffer.from(c));
        },
        onComplete: resolve,
        onError: reject,
      },
    );
  });
  return { status, body: Buffer.concat(parts).toString("utf8"), chunks };
}

function ok(body: string, extra = ""): string {
  return `HTTP/1.1 200 OK\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;
}

test("the request goes out as one HTTP/1.1 message with host, headers and content-length", async () => {
  let seen = "";
  let seenBody = "";
  const s = await rawServer((sock, head, body) => {
    seen = head;
    seenBody = Buffer.from(body, "latin1").toString("utf8");
    sock.write(ok('{"ok":true}'));
  });
  const c = new H1Client(s.url, OPTS);
  const r = await call(c, {
    path: "/v1/chat/completions",
    headers: { "content-type": "application/json", authorization: "Bearer k" },
    body: '{"q":"héllo"}',
  });
  assert.deepEqual([r.status, r.body], [200, '{"ok":true}']);
  const lines = seen.split("\r\n");
  assert.equal(lines[0], "POST /v1/chat/completions HTTP/1.1");
  assert.ok(lines.includes(`host: ${new URL(s.url).host}`));
  assert.ok(lines.includes("content-type: application/json"));
  assert.ok(lines.includes("authorization: Bearer k"));
  assert.ok(lines.includes("content-length: 14"), "bytes, not characters");
  assert.equal(seenBody, '{"q":"héllo"}');
  const g = await call(c, { method: "GET", path: "/health", body: undefined });
  assert.equal(g.status, 200);
  assert.match(seen, /^GET \/health HTTP\/1\.1\r\n/);
  assert.doesNotMatch(seen, /content-length/);
  const whole = await requestWhole(c, { method: "POST", path: "/w", body: "{}" });
  assert.deepEqual([whole.status, whole.body.toString()], [200, '{"ok":true}']);
  await c.close();
});

test("chunked bodies parse wherever the bytes are split; extensions and trailers are skipped", async () => {
  const wire =
    "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n" +
    "5;ext=1\r\nhello\r\n1\r\n \r\nA\r\n0123456789\r\n0\r\nx-trailer: t\r\n\r\n";
  for (let cut = 1; cut < wire.length; cut += 3) {
    const s = await rawServer((sock) => {
      sock.write(wire.slice(0, cut));
      setImmediate(() => sock.write(wire.slice(cut)));
    });
    const c = new H1Client(s.url, OPTS);
    const r = await call(c);
    assert.equal(r.body, "hello 0123456789", `split at ${cut}`);
    // The connection is reused afterwards: the framing left nothing behind.
    assert.equal((await call(c)).body, "hello 0123456789");
    assert.equal(s.connections(), 1);
    await c.close();
  }
});

test("every framing: content-length in pieces, 204, until close, 1xx before the answer", async () => {
  const s = await rawServer((sock, head) => {
    const what = /^POST \/(\w+)/.exec(head)![1];
    if (what === "pieces") {
      sock.write("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n01234");
      setTimeout(() => sock.write("56789"), 20);
    } else if (what === "empty") sock.write("HTTP/1.1 204 No Content\r\n\r\n");
    else if (what === "close") sock.end("HTTP/1.1 200 OK\r\n\r\nuntil the end");
    else if (what === "info") sock.write("HTTP/1.1 100 Continue\r\n\r\n" + ok("after 100"));
    else if (what === "http10") sock.end("HTTP/1.0 200 OK\r\ncontent-length: 2\r\n\r\nhi");
  });
  const c = new H1Client(s.url, OPTS);
  const p = await call(c, { path: "/pieces" });
  assert.deepEqual([p.body, p.chunks], ["0123456789", 2]);
  assert.deepEqual(await call(c, { path: "/empty" }), { status: 204, body: "", chunks: 0 });
  assert.equal((await call(c, { path: "/info" })).body, "after 100");
  assert.equal(s.connections(), 1, "kept alive so far");
  assert.equal((await call(c, { path: "/close" })).body, "until the end");
  assert.equal(c.connections, 0, "a body read until close ends the connection");
  assert.equal((await call(c, { path: "/http10" })).body, "hi");
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(c.connections, 0, "HTTP/1.0 without keep-alive is not reused");
  await c.close();
});

test("connection: close and extra bytes after a response are not reused", async () => {
  const s = await rawServer((sock, _h, _b, n) => {
    if (n === 1) sock.write(ok("a", "connection: close\r\n"));
    else if (n === 2) sock.write(ok("b") + "HTTP/1.1 200 OK\r\n");
    else sock.write(ok("c"));
  });
  const c = new H1Client(s.url, OPTS);
  assert.equal((await call(c)).body, "a");
  assert.equal((await call(c)).body, "b");
  assert.equal((await call(c)).body, "c");
  assert.equal(s.connections(), 3);
  await c.close();
});

test("malformed responses fail with RLLM_BAD_RESPONSE and the client goes on", async () => {
  const bad = [
    "garbage\r\n\r\n",
    "HTTP/2 200\r\n\r\n",
    "HTTP/1.1 200 OK\r\nno colon here\r\n\r\n",
    "HTTP/1.1 200 OK\r\ncontent-length: 12x\r\n\r\n",
    "HTTP/1.1 200 OK\r\ncontent-length: 1\r\ncontent-length: 2\r\n\r\n",
    "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n",
    "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nabXY",
  ];
  let i = 0;
  const s = await rawServer((sock) => {
    const w = bad[i++];
    sock.write(w ?? ok("fine"));
  });
  const c = new H1Client(s.url, OPTS);
  for (const w of bad) {
    await assert.rejects(call(c), (e: H1Error) => {
      assert.equal(e.code, "RLLM_BAD_RESPONSE", w);
      assert.match(e.message, /malformed HTTP response/);
      return true;
    });
  }
  assert.equal((await call(c)).body, "fine");
  await c.close();
});

test("an oversized response head is refused", async () => {
  const s = await rawServer((sock) => {
    sock.write(`HTTP/1.1 200 OK\r\nx-big: ${"a".repeat(70 * 1024)}`);
  });
  const c = new H1Client(s.url, OPTS);
  await assert.rejects(
    call(c),
    (e: H1Error) => e.code === "RLLM_BAD_RESPONSE" && /64 KiB/.test(e.message),
  );
  await c.close();
});

test("timeouts: no head in time, a silent body, a connect that never completes", async () => {
  const s = await rawServer((sock, head) => {
    if (head.startsWith("POST /head-only"))
      sock.write("HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\n");
    if (head.startsWith("POST /silent-body"))
      sock.write("HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\n01");
    // /no-head: never answers
  });
  const c = new H1Client(s.url, { ...OPTS, headersTimeout: 150, bodyTimeout: 150 });
  const t0 = Date.now();
  await assert.rejects(
    call(c, { path: "/no-head" }),
    (e: H1Error) => e.code === "RLLM_HEADERS_TIMEOUT",
  );
  const took = Date.now() - t0;
  assert.ok(took >= 140 && took < 1000, `headers timeout after ${took} ms`);
  await assert.rejects(
    call(c, { path: "/silent-body" }),
    (e: H1Error) => e.code === "RLLM_BODY_TIMEOUT",
  );
  // The head alone, then nothing: the body's timeout runs from the head's arrival.
  await assert.rejects(
    call(c, { path: "/head-only" }),
    (e: H1Error) => e.code === "RLLM_BODY_TIMEOUT",
  );
  // A per-request limit wins over the client's.
  const t1 = Date.now();
  await assert.rejects(
    call(c, { path: "/no-head", headersTimeout: 40 }),
    (e: H1Error) => e.code === "RLLM_HEADERS_TIMEOUT",
  );
  assert.ok(Date.now() - t1 < 140);
  await c.close();
  // https to a server that never answers the TLS handshake: the connection never completes.
  const mute = await rawServer(() => {});
  const hang = new H1Client(mute.url.replace("http:", "https:"), { ...OPTS, connectTimeout: 100 });
  const t2 = Date.now();
  await assert.rejects(call(hang), (e: H1Error) => e.code === "RLLM_CONNECT_TIMEOUT");
  assert.ok(Date.now() - t2 < 1000);
  await hang.close();
});

test("a refused connection fails with the socket's code", async () => {
  const probe = net.createServer();
  await new Promise<void>((r) => probe.listen(0, "127.0.0.1", r));
  const port = (probe.address() as net.AddressInfo).port;
  await new Promise((r) => probe.close(r));
  const c = new H1Client(`http://127.0.0.1:${port}`, OPTS);
  await assert.rejects(call(c), (e: H1Error) => e.code === "ECONNREFUSED");
  assert.equal(c.connections, 0);
  await c.close();
});

test("the keep-alive race: a reused connection closed before answering is retried once on a new one", async () => {
  const s = await rawServer((sock, _h, _b, n) => {
    // The 2nd request arrives on the reused connection, which the server then drops unanswered.
    if (n === 2) sock.destroy();
    else sock.write(ok(`r${n}`));
  });
  const c = new H1Client(s.url, OPTS);
  assert.equal((await call(c)).body, "r1");
  assert.equal((await call(c)).body, "r3", "answered by the retry");
  assert.equal(s.requests(), 3);
  // A fresh connection dropped unanswered is not retried here (the pool decides).
  const s2 = await rawServer((sock) => sock.destroy());
  const c2 = new H1Client(s2.url, OPTS);
  await assert.rejects(
    call(c2),
    (e: H1Error) => e.code === "RLLM_SOCKET_CLOSED" && /before answering/.test(e.message),
  );
  assert.equal(s2.requests(), 1);
  // A body cut off mid-way is not retried either.
  const s3 = await rawServer((sock) => sock.end("HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\n01"));
  const c3 = new H1Client(s3.url, OPTS);
  await assert.rejects(
    call(c3),
    (e: H1Error) =>
      e.code === "RLLM_SOCKET_CLOSED" && /before the response was complete/.test(e.message),
  );
  await Promise.all([c.close(), c2.close(), c3.close()]);
});

test("beyond `connections`, calls wait their turn; idle connections close after keepAliveTimeout", async () => {
  let open = 0;
  let most = 0;
  const s = await rawServer((sock, _h, _b, n) => {
    open++;
    most = Math.max(most, open);
    setTimeout(() => {
      open--;
      sock.write(ok(`r${n}`));
    }, 10);
  });
  const c = new H1Client(s.url, { ...OPTS, connections: 3, keepAliveTimeout: 100 });
  const results = await Promise.all(Array.from({ length: 12 }, () => call(c)));
  assert.equal(results.length, 12);
  assert.deepEqual(new Set(results.map((r) => r.body)).size, 12);
  assert.equal(most, 3);
  assert.equal(s.connections(), 3);
  assert.equal(c.connections, 3);
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(c.connections, 0, "idle connections expired");
  await c.close();
});

test("abort drops the connection and fails the call with the given error; close waits for calls in flight", async () => {
  const s = await rawServer((sock, head) => {
    if (head.startsWith("POST /slow")) setTimeout(() => sock.write(ok("slow")), 150);
  });
  const c = new H1Client(s.url, OPTS);
  const err = new Error("agent left");
  await assert.rejects(
    new Promise((resolve, reject) => {
      c.dispatch(
        { method: "POST", path: "/never", body: "{}" },
        {
          onConnect: (abort) => setTimeout(() => abort(err), 30),
          onHeaders() {},
          onData() {},
          onComplete: () => resolve(undefined),
          onError: reject,
        },
      );
    }),
    (e) => e === err,
  );
  assert.equal(c.connections, 0);
  const slow = call(c, { path: "/slow" });
  const closed = c.close();
  await assert.rejects(call(c), (e: H1Error) => e.code === "RLLM_CLIENT_CLOSED");
  assert.equal((await slow).body, "slow", "the call in flight completes");
  await closed;
  assert.equal(c.connections, 0);
});

test("against node:http: keep-alive hint, chunked streaming as it is written", async () => {
  const server = createHttpServer((req, res) => {
    if (req.url === "/stream") {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: 1\n\n");
      setTimeout(() => res.end("data: 2\n\n"), 30);
      return;
    }
    res.end("plain");
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  const c = new H1Client(url, OPTS);
  const r = await call(c, { path: "/stream" });
  assert.equal(r.body, "data: 1\n\ndata: 2\n\n");
  assert.ok(r.chunks >= 2, "delivered as it came");
  assert.equal((await call(c, { method: "GET", path: "/", body: undefined })).body, "plain");
  await c.close();
  server.close();
});

/** A self-signed certificate for localhost (test fixture; valid for 100 years). */
const TEST_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgE6owsU6iW6f7BKBJ
HUcPaW2O13fSSMMVkUzcfEhrrg+hRANCAASd4BTkS5u6uahOazueTqD6bCNlA7wo
Wktgkhk5m+ueC0riaCoLMBRDv2orQzEnjBC/36KST95rYGyrhdv72Q3G
-----END PRIVATE KEY-----`;
const TEST_CERT = `-----BEGIN CERTIFICATE-----
MIIBgDCCASWgAwIBAgIUYSs3LkkuHLD1ohh6TFmQp5IcMEYwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTIwMTAxMjUyNFoYDzIxMjYxMTA3
MDEyNTI0WjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAASd4BTkS5u6uahOazueTqD6bCNlA7woWktgkhk5m+ueC0riaCoLMBRD
v2orQzEnjBC/36KST95rYGyrhdv72Q3Go1MwUTAdBgNVHQ4EFgQUcdGauaqUECI1
d5WA2T8Sr7qm0r0wHwYDVR0jBBgwFoAUcdGauaqUECI1d5WA2T8Sr7qm0r0wDwYD
VR0TAQH/BAUwAwEB/zAKBggqhkjOPQQDAgNJADBGAiEAwPbYTrcl+kwRr+UuvpYL
IbUVI+Crp7DeOjdwE5sLvk0CIQDNrHcW08cCYfk/oZBkaVuj1lJSNb7JA1M6D9vY
dJThRQ==
-----END CERTIFICATE-----`;

test("https upstreams speak TLS: a certificate nobody signed is refused with the TLS error", async () => {
  const server = tls.createServer({ key: TEST_KEY, cert: TEST_CERT }, (sock) => {
    sock.on("data", () => sock.write(ok("secret")));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as net.AddressInfo).port;
  const c = new H1Client(`https://localhost:${port}`, OPTS);
  await assert.rejects(call(c), (e: H1Error) => {
    assert.match(e.code, /SELF_SIGNED|UNABLE_TO_VERIFY/);
    return true;
  });
  assert.equal(c.connections, 0);
  await c.close();
});

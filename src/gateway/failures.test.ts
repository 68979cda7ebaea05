import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { Store } from "../store/sqlite.js";
import { startFakeUpstream } from "../testing/fake-upstream.js";
import { post, type Stack, startStack } from "../testing/harness.js";
import type { TraceRecord } from "../types/index.js";
import { Gateway } from "./server.js";

const CHAT = { messages: [{ role: "user", content: "hi" }] };

describe("bad input and upstream failures", () => {
  let s: Stack;
  before(async () => {
    s = await startStack({
      gateway: { maxBodyBytes: 4096, upstreamTimeoutMs: 800, connectRetries: 1 },
    });
  });
  after(() => s.close());

  test("malformed requests are 400/413 with a message naming the problem; nothing recorded is lost", async () => {
    const sess = await s.session();
    const ok = await post(`${sess.url}/v1/chat/completions`, CHAT, sess.token);
    assert.equal(ok.status, 200);
    const url = `${sess.url}/v1/chat/completions`;
    const cases: [unknown, number, RegExp][] = [
      ["{bad json", 400, /not valid JSON/],
      ["", 400, /body is empty/],
      [{}, 400, /messages/],
      [{ messages: [] }, 400, /messages: messages must hold at least one message/],
      [{ messages: "hi" }, 400, /messages/],
      [{ messages: [{ role: "wizard", content: "x" }] }, 400, /messages\.0\.role/],
      [{ messages: [{ role: "user", content: 5 }] }, 400, /messages\.0\.content/],
      [{ ...CHAT, temperature: "hot" }, 400, /temperature/],
      [{ ...CHAT, n: 0 }, 400, /\bn\b/],
      [{ ...CHAT, stream: "yes" }, 400, /stream/],
      [{ ...CHAT, tools: [{ type: "function" }] }, 400, /tools\.0\.function/],
      [
        { messages: [{ role: "user", content: "x".repeat(5000) }] },
        413,
        /larger than the gateway's limit of 4096 bytes/,
      ],
    ];
    for (const [body, status, pattern] of cases) {
      const r = await post(url, body as object, sess.token);
      assert.equal(r.status, status, `${JSON.stringify(body).slice(0, 60)} → ${r.text}`);
      const msg = (r.body as { error: { message: string } }).error.message;
      assert.match(msg, pattern);
    }
    const comp = await post(`${sess.url}/v1/completions`, { prompt: { a: 1 } }, sess.token);
    assert.equal(comp.status, 400);
    assert.match(comp.text, /prompt: must be a string/);
    const resp = await post(`${sess.url}/v1/responses`, { input: 42 }, sess.token);
    assert.equal(resp.status, 400);
    assert.match(resp.text, /input/);
    // Only the one good call is recorded, and it is intact.
    const ts = ((await s.admin(`/sessions/${sess.id}/traces`)).body as { data: TraceRecord[] })
      .data;
    assert.equal(ts.length, 1);
    assert.equal(ts[0]!.id, ok.headers.get("x-rllm-trace-id"));
  });

  test("upstream errors map to 4xx/5xx and are traced with the error", async () => {
    const sess = await s.session();
    const url = `${sess.url}/v1/chat/completions`;
    const up = s.upstreams[0]!;
    const expect = async (status: number, pattern: RegExp) => {
      const r = await post(url, CHAT, sess.token);
      assert.equal(r.status, status, r.text);
      assert.match((r.body as { error: { message: string } }).error.message, pattern);
      return r;
    };
    up.faults.push({
      kind: "status",
      status: 500,
      body: { error: { message: "CUDA out of memory" } },
    });
    await expect(502, /answered 500: CUDA out of memory/);
    up.faults.push({
      kind: "status",
      status: 400,
      body: { error: { message: "maximum context length is 4096" } },
    });
    await expect(400, /upstream rejected the request: maximum context length is 4096/);
    up.faults.push({ kind: "garbage" });
    await expect(502, /not JSON/);
    up.faults.push({ kind: "hang" });
    await expect(504, /did not answer in time|longer than 800 ms/);
    up.faults.push({ kind: "destroy" }, { kind: "destroy" });
    await expect(502, /cannot reach upstream|after 2 attempts/);
    // The gateway is still up and serving (both retries' faults were consumed).
    for (let i = 0; i < 2; i++) {
      const good = await post(url, CHAT, sess.token);
      assert.equal(good.status, 200, good.text);
    }
    const ts = ((await s.admin(`/sessions/${sess.id}/traces`)).body as { data: TraceRecord[] })
      .data;
    assert.deepEqual(
      ts.map((t) => t.status),
      [502, 400, 502, 504, 502, 200, 200],
    );
    assert.ok(ts.slice(0, 5).every((t) => t.error && t.choices.length === 0));
    assert.ok(ts.slice(5).every((t) => t.error === null && t.choices.length === 1));
  });

  test("a failure mid-stream ends the stream with an error event and a failed trace", async () => {
    const sess = await s.session();
    s.upstreams[0]!.faults.push({ kind: "destroy-mid-stream", afterChunks: 3 });
    const r = await post(`${sess.url}/v1/chat/completions`, { ...CHAT, stream: true }, sess.token);
    assert.equal(r.status, 200);
    assert.match(r.text, /data: \{"error":\{"message":"upstream .* stream broke|data: \{"error"/);
    assert.doesNotMatch(r.text, /\[DONE\]/);
    const t = (await s.admin(`/traces/${r.headers.get("x-rllm-trace-id")}`)).body as TraceRecord;
    assert.equal(t.status, 502);
    assert.ok(t.error);
  });

  test("an agent that hangs up mid-call leaves a 499 trace; the timeout bounds a silent upstream", async () => {
    const sess = await s.session();
    const up = s.upstreams[0]!;
    up.faults.push({ kind: "delay", ms: 400 });
    const ac = new AbortController();
    const call = fetch(`${sess.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${sess.token}` },
      body: JSON.stringify(CHAT),
      signal: ac.signal,
    });
    setTimeout(() => ac.abort(), 100);
    await assert.rejects(call);
    let ts: TraceRecord[] = [];
    for (let i = 0; i < 50 && ts.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
      ts = ((await s.admin(`/sessions/${sess.id}/traces`)).body as { data: TraceRecord[] }).data;
    }
    assert.equal(ts.length, 1);
    assert.equal(ts[0]!.status, 499);
    assert.match(ts[0]!.error!, /closed the connection/);
  });

  test("a retry happens only before any byte reached the agent", async () => {
    const sess = await s.session();
    const up = s.upstreams[0]!;
    const before = up.totalRequests;
    up.faults.push({ kind: "destroy" });
    const r = await post(`${sess.url}/v1/chat/completions`, CHAT, sess.token);
    assert.equal(r.status, 200, "a dropped connection before the response is retried");
    assert.equal(up.totalRequests - before, 2);
    const before2 = up.totalRequests;
    up.faults.push({ kind: "destroy-mid-stream", afterChunks: 2 });
    const r2 = await post(`${sess.url}/v1/chat/completions`, { ...CHAT, stream: true }, sess.token);
    assert.match(r2.text, /"error"/);
    assert.equal(up.totalRequests - before2, 1, "no retry once bytes were sent");
  });
});

describe("upstream timeouts", () => {
  test("a stream that goes silent is cut by the pool's body timeout: an error event and a failed trace", async () => {
    // A bare upstream: answers headers and one event, then goes silent. (A silent upstream before
    // its headers is the "hang" fault above.)
    const server = createServer((req, res) => {
      req.resume();
      if (req.url?.includes("chat")) {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(
          `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 0, model: "m", choices: [{ index: 0, delta: { role: "assistant", content: "a" }, finish_reason: null }] })}\n\n`,
        );
      }
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as AddressInfo).port;
    const gw = new Gateway({
      config: {
        port: 0,
        healthCheckIntervalMs: 0,
        upstreamTimeoutMs: 300,
        connectRetries: 0,
        upstreams: [{ url: `http://127.0.0.1:${port}`, kind: "vllm" }],
      },
    });
    const url = await gw.listen();
    try {
      const sess = (await post(`${url}/sessions`, {})).body as {
        id: string;
        url: string;
        token: string;
      };
      const started = Date.now();
      const r = await post(
        `${sess.url}/v1/chat/completions`,
        { ...CHAT, stream: true },
        sess.token,
      );
      assert.equal(r.status, 200);
      assert.match(r.text, /data: \{"error"/);
      assert.doesNotMatch(r.text, /\[DONE\]/);
      assert.ok(Date.now() - started < 5_000);
      const t = (await post(`${url}/traces/query`, { sessionIds: [sess.id] })).body as {
        data: TraceRecord[];
      };
      assert.equal(t.data.length, 1);
      assert.equal(t.data[0]!.status, 502);
      assert.match(t.data[0]!.error!, /stream broke: RLLM_BODY_TIMEOUT/);
    } finally {
      await gw.close();
      server.closeAllConnections();
      server.close();
    }
  });
});

describe("routing across upstreams", () => {
  test("sticky sessions, least-loaded placement, failover when one dies", async () => {
    const s = await startStack({
      upstreams: [{ latencyMs: 150 }, { latencyMs: 150 }],
      gateway: { connectRetries: 2 },
    });
    try {
      const [a, b] = s.upstreams as [(typeof s.upstreams)[0], (typeof s.upstreams)[0]];
      const sessions = await Promise.all([1, 2, 3, 4].map(() => s.session()));
      // Four concurrent first calls spread evenly: least loaded with in-flight counts.
      await Promise.all(sessions.map((x) => post(`${x.url}/v1/chat/completions`, CHAT, x.token)));
      assert.equal(a.totalRequests, 2);
      assert.equal(b.totalRequests, 2);
      // Each session sticks to its upstream on later calls.
      const where = new Map<string, string>();
      for (const x of sessions) {
        const r = await post(`${x.url}/v1/chat/completions`, CHAT, x.token);
        const t = (await s.admin(`/traces/${r.headers.get("x-rllm-trace-id")}`))
          .body as TraceRecord;
        const all = ((await s.admin(`/sessions/${x.id}/traces`)).body as { data: TraceRecord[] })
          .data;
        assert.equal(all[0]!.upstream, t.upstream, "same upstream as the first call");
        where.set(x.id, t.upstream!);
      }
      for (const u of s.gateway.pool.list())
        assert.equal(u.inFlight, 0, "in-flight counts come back down");
      // Kill upstream a: its sessions fail over to b.
      await a.close();
      const moved = sessions.find((x) => where.get(x.id) === a.url)!;
      const r = await post(`${moved.url}/v1/chat/completions`, CHAT, moved.token);
      assert.equal(r.status, 200);
      const t = (await s.admin(`/traces/${r.headers.get("x-rllm-trace-id")}`)).body as TraceRecord;
      assert.equal(t.upstream, b.url);
      const ups = (await s.admin("/admin/upstreams")).body as {
        data: { url: string; healthy: boolean }[];
      };
      assert.equal(ups.data.find((u) => u.url === a.url)?.healthy, false);
    } finally {
      await s.close();
    }
  });

  test("health checks mark upstreams down and up; admin can add and remove upstreams", async () => {
    const s = await startStack({ gateway: { healthCheckIntervalMs: 50 } });
    try {
      const up = s.upstreams[0]!;
      up.setHealthy(false);
      await new Promise((r) => setTimeout(r, 200));
      let h = (await s.admin("/health")).body as { status: string };
      assert.equal(h.status, "degraded");
      up.setHealthy(true);
      await new Promise((r) => setTimeout(r, 200));
      h = (await s.admin("/health")).body as { status: string };
      assert.equal(h.status, "ok");
      const extra = await startFakeUpstream({ kind: "vllm" });
      const add = await s.admin("/admin/upstreams", { body: { url: extra.url, kind: "vllm" } });
      assert.equal(add.status, 201);
      assert.equal((await s.admin("/admin/upstreams", { body: { url: extra.url } })).status, 409);
      assert.equal((await s.admin("/admin/upstreams", { body: { url: "not a url" } })).status, 400);
      assert.equal(
        (await s.admin("/admin/upstreams", { body: { url: extra.url + "0", kind: "sglang" } }))
          .status,
        400,
      );
      const list = (await s.admin("/admin/upstreams")).body as { data: unknown[] };
      assert.equal(list.data.length, 2);
      const del = await s.admin("/admin/upstreams", { method: "DELETE", body: { url: up.url } });
      assert.equal(del.status, 200);
      const sess = await s.session();
      const r = await post(`${sess.url}/v1/chat/completions`, CHAT, sess.token);
      assert.equal(r.status, 200);
      assert.equal(
        extra.requests.filter((q) => q.path === "/v1/chat/completions").length,
        1,
        "calls go to the remaining upstream",
      );
      await s.admin("/admin/upstreams", { method: "DELETE", body: { url: extra.url } });
      const none = await post(`${sess.url}/v1/chat/completions`, CHAT, sess.token);
      assert.equal(none.status, 503);
      assert.match(none.text, /no upstream/);
      await extra.close();
    } finally {
      await s.close();
    }
  });
});

describe("durability", () => {
  test("a trace whose response reached the agent survives kill -9 of the gateway", async () => {
    const up = await startFakeUpstream({ kind: "vllm" });
    const dir = mkdtempSync(join(tmpdir(), "rllm-gw-"));
    const db = join(dir, "traces.db");
    const cli = new URL("../cli/index.ts", import.meta.url).pathname;
    const child = spawn(
      process.execPath,
      ["--import", "tsx", cli, "gateway", "--port", "0", "--upstream", up.url, "--db", db],
      { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, RLLM_HOME: dir } },
    );
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = "";
        child.stdout.on("data", (d: Buffer) => {
          out += d.toString();
          const m = /listening on (http:\/\/\S+)/.exec(out);
          if (m) resolve(m[1]!);
        });
        child.stderr.on("data", (d: Buffer) => {
          out += d.toString();
        });
        child.on("exit", () => reject(new Error(`gateway exited: ${out}`)));
      });
      const sess = (await post(`${url}/sessions`, {})).body as {
        url: string;
        token: string;
        id: string;
      };
      const client = new OpenAI({ baseURL: `${sess.url}/v1`, apiKey: sess.token });
      const ids: string[] = [];
      for (let i = 0; i < 20; i++) {
        const r = await client.chat.completions
          .create({ model: "m", messages: [{ role: "user", content: `q${i}` }] })
          .withResponse();
        ids.push(r.response.headers.get("x-rllm-trace-id")!);
      }
      child.kill("SIGKILL");
      await new Promise((r) => child.once("exit", r));
      const store = new Store({ path: db });
      try {
        for (const id of ids) assert.ok(store.getTrace(id), `trace ${id} survived`);
        assert.equal(store.sessionTraces(sess.id).length, 20);
        assert.ok(store.getSession(sess.id), "the session survived too");
      } finally {
        store.close();
      }
    } finally {
      child.kill("SIGKILL");
      await up.close();
    }
  });
});

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { post, type Stack, startStack } from "../testing/harness.js";
import type { TraceRecord } from "../types/index.js";

const ADMIN = "admin-key-123456";

describe("sessions and admin API", () => {
  let s: Stack;
  before(async () => {
    s = await startStack({ adminKey: ADMIN });
  });
  after(() => s.close());

  test("POST /sessions returns id, url and token; ids may contain / and :", async () => {
    const r = await s.admin("/sessions", { body: { id: "run-1/task:7/0", metadata: { task: 7 } } });
    assert.equal(r.status, 201);
    const b = r.body as { id: string; url: string; token: string };
    assert.equal(b.id, "run-1/task:7/0");
    assert.equal(b.url, `${s.url}/sessions/run-1/task:7/0`);
    assert.match(b.token, /^rllm-/);
    const got = await s.admin(`/sessions/run-1/task:7/0`);
    assert.equal(got.status, 200);
    assert.deepEqual((got.body as { metadata: unknown }).metadata, { task: 7 });
    assert.equal((got.body as { token?: string }).token, undefined, "the token is never listed");
    // The agent API works under that URL.
    const chat = await post(
      `${b.url}/v1/chat/completions`,
      { messages: [{ role: "user", content: "hi" }] },
      b.token,
    );
    assert.equal(chat.status, 200, chat.text);
  });

  test("an id is generated when none is given; a duplicate id is a 409", async () => {
    const a = await s.session();
    assert.match(a.id, /^[0-9a-f-]{36}$/);
    const dup = await s.admin("/sessions", { body: { id: a.id } });
    assert.equal(dup.status, 409);
    assert.match(JSON.stringify(dup.body), /already exists/);
  });

  test("bad session bodies are 400s that name the field", async () => {
    for (const [body, pattern] of [
      [{ id: 5 }, /id/],
      [{ id: "a//b" }, /id: must not start or end with \//],
      [{ id: "bad id" }, /id: may hold/],
      [{ samplingParams: { temperature: "hot" } }, /samplingParams.temperature/],
      [{ samplingParams: { temprature: 1 } }, /temprature/],
      [{ metadata: [] }, /metadata/],
      [{ extra: true }, /extra/],
    ] as const) {
      const r = await s.admin("/sessions", { body });
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.match(JSON.stringify(r.body), pattern);
    }
    const bad = await s.admin("/sessions", { body: "{not json" });
    assert.equal(bad.status, 400);
    assert.match(JSON.stringify(bad.body), /not valid JSON/);
  });

  test("GET /sessions pages by cursor", async () => {
    for (const id of ["p/1", "p/2", "p/3"]) await s.session({ id });
    const all: string[] = [];
    let after = "p/";
    for (;;) {
      const r = await s.admin(`/sessions?limit=2&after=${encodeURIComponent(after)}`);
      const b = r.body as { data: { id: string }[]; nextAfter: string | null };
      all.push(...b.data.map((x) => x.id).filter((id) => id.startsWith("p/")));
      if (!b.nextAfter?.startsWith("p/")) break;
      after = b.nextAfter;
    }
    assert.deepEqual(all, ["p/1", "p/2", "p/3"]);
    const bad = await s.admin("/sessions?limit=0");
    assert.equal(bad.status, 400);
    assert.match(JSON.stringify(bad.body), /limit must be an integer/);
  });

  test("DELETE keeps traces unless purge=true; the token stops working", async () => {
    const a = await s.session({ id: "del/1" });
    await post(
      `${a.url}/v1/chat/completions`,
      { messages: [{ role: "user", content: "x" }] },
      a.token,
    );
    const del = await s.admin("/sessions/del/1", { method: "DELETE" });
    assert.deepEqual(del.body, { id: "del/1", deleted: true, tracesDeleted: 0 });
    const traces = await s.admin("/sessions/del/1/traces");
    assert.equal((traces.body as { data: unknown[] }).data.length, 1, "traces outlive the session");
    const again = await post(
      `${a.url}/v1/chat/completions`,
      { messages: [{ role: "user", content: "x" }] },
      a.token,
    );
    assert.equal(again.status, 404);
    const b = await s.session({ id: "del/2" });
    await post(
      `${b.url}/v1/chat/completions`,
      { messages: [{ role: "user", content: "x" }] },
      b.token,
    );
    const purge = await s.admin("/sessions/del/2?purge=true", { method: "DELETE" });
    assert.equal((purge.body as { tracesDeleted: number }).tracesDeleted, 1);
    assert.equal((await s.admin("/sessions/del/2")).status, 404);
    assert.equal((await s.admin("/sessions/nope", { method: "DELETE" })).status, 404);
  });

  test("traces: by session, by id, by query; unknown ids are 404", async () => {
    const a = await s.session({ id: "tq/1" });
    const b = await s.session({ id: "tq/2" });
    const t0 = Date.now() - 1;
    const r1 = await post(
      `${a.url}/v1/chat/completions`,
      { messages: [{ role: "user", content: "one" }] },
      a.token,
    );
    const r2 = await post(
      `${b.url}/v1/chat/completions`,
      { messages: [{ role: "user", content: "two" }] },
      b.token,
    );
    const id1 = r1.headers.get("x-rllm-trace-id")!;
    const byId = await s.admin(`/traces/${id1}`);
    assert.equal((byId.body as TraceRecord).sessionId, "tq/1");
    const q = await s.admin("/traces/query", { body: { sessionIds: ["tq/1", "tq/2"], since: t0 } });
    const ids = (q.body as { data: TraceRecord[] }).data.map((t) => t.id);
    assert.deepEqual(ids, [id1, r2.headers.get("x-rllm-trace-id")]);
    const limited = await s.admin("/traces/query", {
      body: { sessionIds: ["tq/1", "tq/2"], limit: 1 },
    });
    assert.equal((limited.body as { data: unknown[]; nextAfter: number }).data.length, 1);
    assert.equal(typeof (limited.body as { nextAfter: number }).nextAfter, "number");
    assert.equal((await s.admin("/traces/tr_nope")).status, 404);
    assert.equal((await s.admin("/sessions/nope/traces")).status, 404);
    const badQ = await s.admin("/traces/query", { body: { sessionIds: "tq/1" } });
    assert.equal(badQ.status, 400);
    assert.match(JSON.stringify(badQ.body), /sessionIds/);
  });

  test("admin routes need the admin key; a session token is not enough", async () => {
    const a = await s.session();
    const noKey = await fetch(`${s.url}/sessions`, { method: "POST", body: "{}" });
    assert.equal(noKey.status, 401);
    const wrong = await fetch(`${s.url}/sessions`, {
      method: "GET",
      headers: { authorization: "Bearer nope" },
    });
    assert.equal(wrong.status, 403);
    const asAgent = await fetch(`${s.url}/sessions/${a.id}/traces`, {
      headers: { authorization: `Bearer ${a.token}` },
    });
    assert.equal(asAgent.status, 403);
    for (const path of ["/admin/weight-version", "/admin/upstreams", "/traces/x"]) {
      assert.equal((await fetch(s.url + path)).status, 401, path);
    }
    assert.equal((await fetch(`${s.url}/health`)).status, 200, "health is open");
  });

  test("session calls need the session's own token", async () => {
    const a = await s.session();
    const b = await s.session();
    const body = { messages: [{ role: "user", content: "hi" }] };
    const none = await post(`${a.url}/v1/chat/completions`, body);
    assert.equal(none.status, 401);
    assert.match(JSON.stringify(none.body), /missing session token/);
    const other = await post(`${a.url}/v1/chat/completions`, body, b.token);
    assert.equal(other.status, 403);
    assert.match(JSON.stringify(other.body), /does not belong to session/);
    const viaKey = await post(`${a.url}/v1/chat/completions`, body, undefined, {
      "x-api-key": a.token,
    });
    assert.equal(viaKey.status, 200);
    const unknown = await post(`${s.url}/sessions/ghost/v1/chat/completions`, body, a.token);
    assert.equal(unknown.status, 404);
    assert.match(JSON.stringify(unknown.body), /unknown session \\"ghost\\"/);
  });

  test("root /v1 routes take the session from X-Session-Id", async () => {
    const a = await s.session({ id: "hdr:1" });
    const body = { messages: [{ role: "user", content: "hi" }] };
    const ok = await post(`${s.url}/v1/chat/completions`, body, a.token, {
      "x-session-id": "hdr:1",
    });
    assert.equal(ok.status, 200, ok.text);
    const trace = await s.admin(`/traces/${ok.headers.get("x-rllm-trace-id")}`);
    assert.equal((trace.body as TraceRecord).sessionId, "hdr:1");
    const missing = await post(`${s.url}/v1/chat/completions`, body, a.token);
    assert.equal(missing.status, 400);
    assert.match(JSON.stringify(missing.body), /X-Session-Id/);
  });

  test("weight version: set by admin, stamped on traces and responses, persisted", async () => {
    assert.deepEqual((await s.admin("/admin/weight-version")).body, { weightVersion: 0 });
    const set = await s.admin("/admin/weight-version", { body: { weightVersion: 3 } });
    assert.deepEqual(set.body, { weightVersion: 3 });
    const a = await s.session();
    const r = await post(
      `${a.url}/v1/chat/completions`,
      { messages: [{ role: "user", content: "v" }] },
      a.token,
    );
    assert.equal(r.headers.get("x-rllm-weight-version"), "3");
    const t = await s.admin(`/traces/${r.headers.get("x-rllm-trace-id")}`);
    assert.equal((t.body as TraceRecord).weightVersion, 3);
    assert.equal(s.gateway.store.getMeta("weight_version"), "3");
    const bad = await s.admin("/admin/weight-version", { body: { weightVersion: -1 } });
    assert.equal(bad.status, 400);
    await s.admin("/admin/weight-version", { body: { weightVersion: 0 } });
  });

  test("flush, unknown routes and wrong methods", async () => {
    const f = await s.admin("/admin/flush", { method: "POST" });
    assert.equal(f.status, 200);
    assert.equal((f.body as { flushed: boolean }).flushed, true);
    assert.equal((await s.admin("/nope")).status, 404);
    assert.equal((await s.admin("/admin/flush")).status, 405);
    const a = await s.session();
    const get = await fetch(`${a.url}/v1/chat/completions`, {
      headers: { authorization: `Bearer ${a.token}` },
    });
    assert.equal(get.status, 405);
  });
});

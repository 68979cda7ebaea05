import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import type { TraceRecord } from "../types/index.js";
import { Store } from "./sqlite.js";

function trace(id: string, sessionId: string, finishedAt: number): TraceRecord {
  return {
    id,
    sessionId,
    api: "chat.completions",
    upstream: "http://127.0.0.1:1",
    model: "m",
    request: { messages: [{ role: "user", content: "hi" }] },
    messages: [{ role: "user", content: "hi" }],
    promptIds: [1, 2, 3],
    choices: [
      {
        index: 0,
        content: "yo",
        reasoning: null,
        finishReason: "stop",
        completionIds: [4, 5],
        logprobs: [-0.1, -0.2],
      },
    ],
    tokenSource: "upstream",
    weightVersion: 0,
    promptTokens: 3,
    completionTokens: 2,
    latencyMs: 1,
    stream: false,
    startedAt: finishedAt - 1,
    finishedAt,
    status: 200,
    error: null,
  };
}

test("sessions: insert, get, list with cursor, delete keeps or purges traces", async () => {
  const s = new Store({ path: ":memory:" });
  for (const id of ["a", "b/1", "c:2"]) {
    await s.insertSession({
      id,
      token: `t-${id}`,
      metadata: { k: id },
      samplingParams: { temperature: 1 },
      createdAt: 1,
    });
  }
  assert.deepEqual(s.getSession("b/1")?.metadata, { k: "b/1" });
  assert.equal(s.getSession("nope"), undefined);
  const page1 = s.listSessions("", 2);
  assert.deepEqual(
    page1.map((r) => r.id),
    ["a", "b/1"],
  );
  assert.deepEqual(
    s.listSessions("b/1", 2).map((r) => r.id),
    ["c:2"],
  );
  await s.insertTrace(trace("t1", "a", 10));
  await s.insertTrace(trace("t2", "b/1", 11));
  assert.equal(await s.deleteSession("a", false), 0);
  assert.equal(s.getTrace("t1")?.trace.id, "t1", "traces survive a plain delete");
  assert.equal(await s.deleteSession("b/1", true), 1);
  assert.equal(s.getTrace("t2"), undefined);
  assert.equal(s.countSessions(), 1);
  s.close();
});

test("traces: round trip, per session in order, query by session/time/cursor", async () => {
  const s = new Store({ path: ":memory:" });
  await s.insertTrace(trace("x1", "s1", 100));
  await s.insertTrace(trace("x2", "s2", 200));
  await s.insertTrace(trace("x3", "s1", 300));
  assert.deepEqual(s.getTrace("x1")?.trace, trace("x1", "s1", 100));
  assert.deepEqual(
    s.sessionTraces("s1").map((r) => r.trace.id),
    ["x1", "x3"],
  );
  assert.deepEqual(
    s.queryTraces({ sessionIds: ["s1", "s2"], since: 150 }).map((r) => r.trace.id),
    ["x2", "x3"],
  );
  const first = s.queryTraces({ limit: 1 });
  assert.deepEqual(
    s.queryTraces({ after: first[0]!.seq }).map((r) => r.trace.id),
    ["x2", "x3"],
  );
  await assert.rejects(s.insertTrace(trace("x1", "s1", 1)), /UNIQUE/);
  assert.equal(s.countTraces(), 3, "a failed insert leaves what was recorded untouched");
  s.close();
});

test("group commit: writes of one tick share a transaction; a failing write fails alone", async () => {
  const s = new Store({ path: ":memory:" });
  const results = await Promise.allSettled([
    s.insertTrace(trace("g1", "s", 1)),
    s.insertTrace(trace("g1", "s", 2)),
    s.insertTrace(trace("g2", "s", 3)),
  ]);
  assert.deepEqual(
    results.map((r) => r.status),
    ["fulfilled", "rejected", "fulfilled"],
  );
  assert.deepEqual(
    s.sessionTraces("s").map((r) => r.trace.finishedAt),
    [1, 3],
  );
  // close() commits what is still queued.
  void s.insertTrace(trace("g3", "s", 4));
  s.close();
});

test("a committed trace survives kill -9 of the writing process (WAL)", () => {
  const dir = mkdtempSync(join(tmpdir(), "rllm-store-"));
  const path = join(dir, "t.db");
  // The child writes 50 traces then kills itself with SIGKILL: no close, no checkpoint.
  const child = spawnSync(
    process.execPath,
    [
      "--import",
      "tsx",
      "-e",
      `import { Store } from ${JSON.stringify(new URL("./sqlite.ts", import.meta.url).pathname)};
       const s = new Store({ path: ${JSON.stringify(path)} });
       for (let i = 0; i < 50; i++) await s.insertTrace(${trace.toString()}("k" + i, "s", i));
       process.kill(process.pid, "SIGKILL");`,
    ],
    { encoding: "utf8" },
  );
  assert.equal(child.signal, "SIGKILL", child.stderr);
  const s = new Store({ path });
  assert.equal(s.countTraces(), 50);
  assert.equal(s.getTrace("k49")?.trace.choices[0]?.completionIds?.length, 2);
  s.close();
});

test("meta and a clear error for an unusable path", () => {
  const s = new Store({ path: ":memory:" });
  s.setMeta("weight_version", "3");
  s.setMeta("weight_version", "4");
  assert.equal(s.getMeta("weight_version"), "4");
  s.close();
  const dir = mkdtempSync(join(tmpdir(), "rllm-store-"));
  writeFileSync(join(dir, "file"), "x");
  // A path under a regular file can never be created.
  assert.throws(
    () => new Store({ path: join(dir, "file", "t.db") }),
    /ENOTDIR|cannot open the store/,
  );
});

test("under a steady stream of writes the WAL is checkpointed off the event loop and stays bounded", async () => {
  const dir = mkdtempSync(join(tmpdir(), "rllm-store-"));
  const path = join(dir, "t.db");
  const store = new Store({ path, maxWalPages: 2_000 });
  const pad = "x".repeat(3_000);
  let n = 0;
  let maxWal = 0;
  try {
    // ~80 MB of traces, committed in groups as a busy gateway would: without checkpoints the WAL
    // would hold all of it (~2 pages a trace, ~200 MB); a WAL checkpointed but never restarted
    // too. The bound leaves room for what is written while a checkpoint runs.
    for (let round = 0; round < 800; round++) {
      const writes: Promise<number>[] = [];
      for (let i = 0; i < 32; i++) {
        n++;
        const t = trace(`t${n}`, `s${n % 64}`, 1_000 + n);
        t.request = { pad };
        writes.push(store.insertTrace(t));
      }
      await Promise.all(writes);
      if (existsSync(`${path}-wal`)) maxWal = Math.max(maxWal, statSync(`${path}-wal`).size);
    }
    assert.equal(store.countTraces(), n);
    assert.ok(maxWal < 120 * 1024 * 1024, `the WAL grew to ${maxWal} bytes`);
    assert.equal(store.getTrace(`t${n}`)?.trace.request.pad, pad);
  } finally {
    store.close();
  }
  const again = new Store({ path });
  try {
    assert.equal(again.countTraces(), n, "every trace is in the file after close");
  } finally {
    again.close();
  }
});

import assert from "node:assert/strict";
import { extname } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { WorkerClient, workerModuleUrl } from "./worker-rpc.js";

const fixture = new URL(
  `../../testing/echo-worker${extname(fileURLToPath(import.meta.url))}`,
  import.meta.url,
);

describe("worker-rpc", () => {
  it("resolves sibling modules with this file's extension", () => {
    const u = workerModuleUrl("train-worker");
    assert.match(u.pathname, /\/backends\/local\/train-worker\.(ts|js)$/);
  });

  it("answers calls in order, with the worker's data, and carries errors back", async () => {
    const w = await WorkerClient.start(fixture, { greeting: "hi" });
    try {
      const [a, b] = await Promise.all([
        w.call<number>("slow", { ms: 30 }),
        w.call<{ greeting: string; p: unknown }>("echo", [1, 2]),
      ]);
      assert.equal(a, 30);
      assert.deepEqual(b, { greeting: "hi", p: [1, 2] });
      await assert.rejects(w.call("fail", { message: "bad row 3" }), {
        name: "RangeError",
        message: "bad row 3",
      });
      await assert.rejects(w.call("nope", null), /unknown op nope/);
      const buf = await w.call<Float32Array>("buffer", { n: 4 });
      assert.deepEqual(Array.from(buf), [1.5, 1.5, 1.5, 1.5]);
      assert.equal(w.busy, false);
    } finally {
      await w.close();
    }
    await assert.rejects(w.call("echo", 1), /closed/);
  });

  it("a worker that dies rejects the call in flight and every later one", async () => {
    const w = await WorkerClient.start(fixture, { greeting: "x" });
    await assert.rejects(w.call("die", null), /exited with code 3/);
    await assert.rejects(w.call("echo", 1), /exited with code 3/);
    await w.close();
  });
});

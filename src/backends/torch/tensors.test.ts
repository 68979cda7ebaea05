import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import {
  callWithTensors,
  expectTensor,
  flatRows,
  float32,
  int32,
  int64,
  readExchangeFile,
  splitRows,
} from "./tensors.js";
import { WorkerProcess } from "./worker.js";

const FAKE = join(import.meta.dirname, "fixtures", "fake_worker.py");

test("rows go flat with their lengths and come back split", () => {
  const rows = [[1, 2, 3], [], [4]];
  const { values, lengths } = flatRows(rows);
  assert.deepEqual(Array.from(values), [1, 2, 3, 4]);
  assert.deepEqual(Array.from(lengths), [3, 0, 1]);
  assert.deepEqual(splitRows(values, lengths), rows);
  assert.throws(() => splitRows([1, 2], [3]), /the row lengths add up to 3 but there are 2 values/);
  assert.deepEqual(int64([0, 2 ** 40]).data, BigInt64Array.from([0n, 2n ** 40n]));
});

test("a call's tensors reach the worker and its reply's come back; both files are removed", async () => {
  const w = await WorkerProcess.start({
    python: "python3",
    role: "trainer",
    entry: [FAKE],
    env: { FAKE_WORKER_MODE: "echo" },
    startupTimeoutMs: 10_000,
  });
  try {
    const { result, tensors } = await callWithTensors(
      w,
      "double",
      { extra: 1 },
      {
        tokens: int32([1, -2, 2 ** 29]),
        mask: float32([0.5, 1.25]),
        seeds: int64([3, 2 ** 40]),
      },
      { timeoutMs: 10_000 },
    );
    assert.ok(typeof result.tensors === "string");
    assert.deepEqual(Array.from(expectTensor(tensors!, "tokens", "I32", "double")), [
      2,
      -4,
      2 ** 30,
    ]);
    assert.deepEqual(Array.from(expectTensor(tensors!, "mask", "F32", "double")), [1, 2.5]);
    assert.deepEqual(tensors!.seeds!.data, BigInt64Array.from([6n, 2n ** 41n]));
    assert.throws(
      () => expectTensor(tensors!, "logprobs", "F32", "double"),
      /the worker's double reply lacks tensor "logprobs" \(it has tokens, mask, seeds\)/,
    );
    assert.throws(
      () => expectTensor(tensors!, "mask", "I32", "double"),
      /has "mask" as F32; the protocol says I32/,
    );
    assert.deepEqual(readdirSync(w.exchange), ["rpc.sock"], "request and reply files are removed");
    // a call without tensors passes its params as they are
    const plain = await callWithTensors(w, "init", { a: 1 }, null, { timeoutMs: 5_000 });
    assert.equal(plain.tensors, null);
    assert.deepEqual(plain.result.params, { a: 1 });
    await assert.rejects(
      readExchangeFile(w, "/etc/passwd", "compute_logprobs"),
      /compute_logprobs reply names tensors at "\/etc\/passwd", not a file in its exchange directory/,
    );
  } finally {
    await w.close();
  }
});

import assert from "node:assert/strict";
import { test } from "node:test";
import { mulberry32, secureRandomBytes, seededPermutation } from "./random.js";

test("mulberry32 and seededPermutation are fixed by their seed", () => {
  const a = mulberry32(5);
  const b = mulberry32(5);
  const xs = Array.from({ length: 8 }, () => a());
  assert.deepEqual(
    xs,
    Array.from({ length: 8 }, () => b()),
  );
  assert.ok(xs.every((x) => x >= 0 && x < 1));
  const p = seededPermutation(50, 3);
  assert.deepEqual(p, seededPermutation(50, 3));
  assert.deepEqual(
    [...p].sort((x, y) => x - y),
    Array.from({ length: 50 }, (_, i) => i),
  );
  assert.notDeepEqual(p, seededPermutation(50, 4));
});

test("secureRandomBytes: the asked length, never the same bytes twice, across pool refills", () => {
  const seen = new Set<string>();
  // 16-byte draws cross the 4 KiB pool's refill many times; odd sizes misalign them
  for (let i = 0; i < 3000; i++) {
    const n = i % 7 === 0 ? 13 : 16;
    const b = secureRandomBytes(n);
    assert.equal(b.length, n);
    const hex = b.toString("hex");
    assert.ok(!seen.has(hex), `draw ${i} repeated an earlier one`);
    seen.add(hex);
  }
  // larger than the pool: drawn directly
  assert.equal(secureRandomBytes(10_000).length, 10_000);
  // the result is the caller's own copy: writing to it does not touch later draws
  const a = secureRandomBytes(32);
  a.fill(0);
  const b = secureRandomBytes(32);
  assert.notDeepEqual(b, Buffer.alloc(32));
  // bytes look uniform: over 48 KB every byte value appears
  const counts = new Uint32Array(256);
  for (let i = 0; i < 3000; i++) for (const x of secureRandomBytes(16)) counts[x]!++;
  assert.ok(counts.every((c) => c > 0));
});

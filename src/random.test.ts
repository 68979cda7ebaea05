import assert from "node:assert/strict";
import { test } from "node:test";
import {
  epochOrderSeed,
  miniBatchSeed,
  mixSeed,
  mulberry32,
  rolloutSeed,
  secureRandomBytes,
  seededPermutation,
  sftEpochSeed,
  visitSeed,
} from "./random.js";

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

// The seed derivations moved here from sampler.ts / generate.ts (mixSeed), engine.ts
// (rolloutSeed) and the trainer (visitSeed): values computed with the code before the move, so a
// change of any of them (and of every seeded run) shows up here.
test("mixSeed gives the values of the sampler's and generate()'s former copies", () => {
  const cases: [number, number, number][] = [
    [0, 0, 520022130],
    [0, 1, 861682017],
    [1, 0, 3955302380],
    [42, 7, 2820543618],
    [-1, 3, 1587572149],
    [4294967295, 127, 1472070585],
    [123456789, 0, 3639280071],
  ];
  for (const [seed, index, want] of cases) assert.equal(mixSeed(seed, index), want);
});

test("rolloutSeed gives the engine's former values: sha256 of (seed, task, attempt), 31 bits", () => {
  assert.equal(rolloutSeed(0, "t/1", 0), 1842395306);
  assert.equal(rolloutSeed(7, "t/1", 1), 460126299);
  assert.equal(rolloutSeed(7, "countdown/12", 3), 941269043);
  assert.equal(rolloutSeed(123, "", 0), 2024429826);
});

test("visitSeed is the trainer's (seed · 1 000 003 + ordinal) mod 2³²", () => {
  const cases: [number, number, number][] = [
    [0, 0, 0],
    [0, 5, 5],
    [1, 0, 1000003],
    [7, 3, 7000024],
    [42, 1000, 42001126],
    [4294967295, 2, 4293967295],
  ];
  for (const [seed, ordinal, want] of cases) assert.equal(visitSeed(seed, ordinal), want);
});

test("the trainer's and rllm sft's order seeds keep the formulas they had inline", () => {
  // (seed · 7919 + epoch · 104 729) mod 2³², (seed · 31 + step) mod 2³², seed · 1009 + epoch
  assert.equal(epochOrderSeed(5, 2), 249053);
  assert.equal(epochOrderSeed(123456789, 3), 2697050086);
  assert.equal(miniBatchSeed(5, 7), 162);
  assert.equal(miniBatchSeed(4e9, 7), 3740915719);
  assert.equal(sftEpochSeed(5, 2), 5047);
});

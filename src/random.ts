import { randomFillSync } from "node:crypto";

/**
 * mulberry32: a tiny 32-bit PRNG, uniform in [0, 1). The arithmetic is exact (Math.imul,
 * unsigned shifts), so a seed gives the same stream on every machine — what seeded task
 * generation, model initialisation, sampling and property tests all need.
 */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** 0 … n−1 in a seeded random order (Fisher–Yates driven by mulberry32(seed)). */
export function seededPermutation(n: number, seed: number): number[] {
  const rand = mulberry32(seed);
  const order = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}

/**
 * Cryptographically random bytes from a pool refilled 4 KiB at a time: ids and session tokens
 * are drawn on every request, and one getrandom call each cost tens of µs on a VM. Every byte is
 * handed out once; the result is a copy the caller owns.
 */
const POOL = Buffer.alloc(4096);
let poolAt = POOL.length;
export function secureRandomBytes(n: number): Buffer {
  if (n > POOL.length) return randomFillSync(Buffer.alloc(n));
  if (poolAt + n > POOL.length) {
    randomFillSync(POOL);
    poolAt = 0;
  }
  const out = Buffer.from(POOL.subarray(poolAt, poolAt + n));
  POOL.fill(0, poolAt, poolAt + n);
  poolAt += n;
  return out;
}

/**
 * Seeded randomness, one copy of each mechanism: the PRNG (mulberry32), a seeded permutation, the
 * seed derivations of sampling, and pooled cryptographic bytes for ids and tokens.
 *
 * Seed derivations (each a pure function of its inputs, the same on every machine):
 *   rolloutSeed(seed, taskId, attempt)  the sampling seed of one rollout of a run (engine, eval)
 *   visitSeed(seed, ordinal)            the seed of a task's ordinal-th visit in training
 *   mixSeed(seed, index)                the seed of sample `index` of a request or prompt seeded
 *                                       `seed` (the sampler's n samples, generate()'s prompts)
 *   epochOrderSeed(seed, epoch)         the training tasks' order in an epoch (trainer/loader.ts)
 *   miniBatchSeed(seed, step)           how a step's datums are split into mini-batches
 *   sftEpochSeed(seed, epoch)           rllm sft's row order in an epoch
 *   contentSeed(text)                   a fixed order tied to a dataset row's own text (the order
 *                                       of gpqa_diamond's options)
 */
import { createHash, randomFillSync } from "node:crypto";

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
 * A 32-bit mix of (seed, index) (splitmix-style finaliser), so per-sample streams are unrelated:
 * sample j of a request seeded S draws from mulberry32(mixSeed(S, j)). Seeds are taken mod 2³².
 */
export function mixSeed(seed: number, index: number): number {
  let z = (Math.imul(seed >>> 0, 0x9e3779b1) ^ Math.imul(index + 1, 0x85ebca6b)) >>> 0;
  z = Math.imul(z ^ (z >>> 16), 0x7feb352d) >>> 0;
  z = Math.imul(z ^ (z >>> 15), 0x846ca68b) >>> 0;
  return (z ^ (z >>> 16)) >>> 0;
}

/** A 32-bit seed from `text` alone: the first four bytes of its SHA-256 (UTF-8), big-endian. */
export function contentSeed(text: string): number {
  return createHash("sha256").update(text, "utf8").digest().readUInt32BE(0);
}

/** The sampling seed of attempt `attempt` at task `taskId` in a run seeded with `seed`: 0 … 2³¹−1. */
export function rolloutSeed(seed: number, taskId: string, attempt: number): number {
  const h = createHash("sha256").update(`${seed}\0${taskId}\0${attempt}`).digest();
  return h.readUInt32BE(0) & 0x7fffffff;
}

/**
 * The seed of a task's `ordinal`-th visit in a training run seeded with `seed` (its skip draw and
 * its group's sampling): (seed · 1 000 003 + ordinal) mod 2³².
 */
export function visitSeed(seed: number, ordinal: number): number {
  return (seed * 1_000_003 + ordinal) >>> 0;
}

/** The order of the training tasks in `epoch`: (seed · 7919 + epoch · 104 729) mod 2³². */
export function epochOrderSeed(seed: number, epoch: number): number {
  return (seed * 7919 + epoch * 104_729) >>> 0;
}

/** The split of step `step`'s datums into mini-batches: (seed · 31 + step) mod 2³². */
export function miniBatchSeed(seed: number, step: number): number {
  return (seed * 31 + step) >>> 0;
}

/** rllm sft's row order in `epoch`: seed · 1009 + epoch (mulberry32 takes it mod 2³²). */
export function sftEpochSeed(seed: number, epoch: number): number {
  return seed * 1009 + epoch;
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

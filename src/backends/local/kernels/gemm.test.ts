import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { gemmJs } from "./gemm-js.js";
import { GemmPool } from "./gemm-pool.js";
import { gemmWorkspaceBytes, instantiateGemm } from "./gemm-wasm.js";

type Layout = "NN" | "TN" | "NT";

function strides(M: number, N: number, K: number, layout: Layout) {
  return {
    sai: layout === "TN" ? 1 : K,
    sak: layout === "TN" ? M : 1,
    sbk: layout === "NT" ? 1 : N,
    sbj: layout === "NT" ? K : 1,
  };
}

function rand(n: number, seed: number): Float32Array {
  const a = new Float32Array(n);
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    a[i] = x / 4294967296 - 0.5;
  }
  return a;
}

function naive(M: number, N: number, K: number, A: Float32Array, B: Float32Array, l: Layout) {
  const { sai, sak, sbk, sbj } = strides(M, N, K, l);
  const C = new Float64Array(M * N);
  for (let i = 0; i < M; i++)
    for (let j = 0; j < N; j++) {
      let s = 0;
      for (let k = 0; k < K; k++) s += A[i * sai + k * sak]! * B[k * sbk + j * sbj]!;
      C[i * N + j] = s;
    }
  return C;
}

function maxDiff(a: ArrayLike<number>, b: ArrayLike<number>, offset = 0): number {
  let d = 0;
  for (let i = 0; i < b.length; i++) d = Math.max(d, Math.abs(a[i]! - b[i]! - offset));
  return d;
}

// odd sizes exercise every edge path (partial row blocks, partial column panels, K remainder)
const SHAPES: [number, number, number][] = [
  [1, 1, 1],
  [5, 7, 3],
  [13, 21, 9],
  [33, 260, 17],
  [64, 64, 64],
  [130, 40, 1030], // K large enough to split M into several L2 blocks
];
const LAYOUTS: Layout[] = ["NN", "TN", "NT"];

describe("gemm kernels", () => {
  const memory = new WebAssembly.Memory({ initial: 512, maximum: 65536, shared: true });
  const heap = new Float32Array(memory.buffer);

  for (const shape of [undefined, { mr: 2, nr: 16, unroll: 1 }]) {
    test(`wasm ${shape ? `${shape.mr}x${shape.nr}` : "default"} matches naive, all layouts, C = and C +=`, () => {
      const g = instantiateGemm(memory, shape).exports;
      for (const [M, N, K] of SHAPES)
        for (const l of LAYOUTS) {
          const A = rand(M * K, M + 7 * K);
          const B = rand(K * N, N + 3 * K);
          const { sai, sak, sbk, sbj } = strides(M, N, K, l);
          const pA = 0;
          const pB = pA + A.length * 4;
          const pC = pB + B.length * 4;
          const ws = pC + M * N * 4 + 64;
          heap.set(A, pA / 4);
          heap.set(B, pB / 4);
          const ref = naive(M, N, K, A, B, l);
          heap.fill(7, pC / 4, pC / 4 + M * N);
          g.gemm(M, N, K, pA, sai, sak, pB, sbk, sbj, pC, N, 0, ws);
          const C = heap.subarray(pC / 4, pC / 4 + M * N);
          assert.ok(maxDiff(C, ref) < 1e-4, `${M}x${N}x${K} ${l}`);
          heap.fill(1, pC / 4, pC / 4 + M * N);
          g.gemm(M, N, K, pA, sai, sak, pB, sbk, sbj, pC, N, 1, ws);
          assert.ok(maxDiff(C, ref, 1) < 1e-4, `${M}x${N}x${K} ${l} accumulate`);
        }
    });
  }

  test("a workspace of gemmWorkspaceBytes(K) holds every call with an inner dimension ≤ K", () => {
    const g = instantiateGemm(memory).exports;
    // the training forward sizes one workspace by its largest K (B·T rows: 3,776 for 64 × 59)
    // and runs every GEMM of the step in it; K = 264 (the vocabulary) packs more rows of A
    const big = 3_776;
    const bytes = gemmWorkspaceBytes(big);
    for (const K of [1, 5, 128, 264, 512, 1_000, 2_000, big]) {
      // two whole blocks of the most rows a block of this K packs (mc), as the forward's are
      const mc = Math.max(5, Math.floor(131_072 / K / 5) * 5);
      // (N = 9: a partial column tile, which goes through the scratch tile past packed B)
      const [M, N] = [Math.min(2 * mc, 4_000), 9];
      const A = rand(M * K, K);
      const B = rand(K * N, K + 1);
      const pA = 0;
      const pB = pA + A.length * 4;
      const pC = pB + B.length * 4;
      const ws = (pC + M * N * 4 + 63) & ~63;
      const guard = (ws + bytes) / 4;
      const G = 1 << 16; // 256 KiB of guard
      assert.ok(guard + G < heap.length);
      heap.set(A, pA / 4);
      heap.set(B, pB / 4);
      heap.fill(12345, guard, guard + G);
      g.gemm(M, N, K, pA, K, 1, pB, N, 1, pC, N, 0, ws);
      for (let i = guard; i < guard + G; i++)
        assert.equal(
          heap[i],
          12345,
          `K = ${K} wrote past its workspace at +${(i - guard) * 4} bytes`,
        );
      if (K <= 264) {
        const ref = naive(M, N, K, A, B, "NN");
        assert.ok(maxDiff(heap.subarray(pC / 4, pC / 4 + M * N), ref) < 1e-3, `K = ${K}`);
      }
    }
  });

  test("wasm gemm_batched computes each product", () => {
    const g = instantiateGemm(memory).exports;
    const [M, N, K, count] = [6, 10, 5, 3];
    const A = rand(count * M * K, 1);
    const B = rand(count * K * N, 2);
    const pA = 0;
    const pB = A.length * 4;
    const pC = pB + B.length * 4;
    heap.set(A, pA / 4);
    heap.set(B, pB / 4);
    g.gemm_batched(count, M * K, K * N, M * N, M, N, K, pA, K, 1, pB, N, 1, pC, N, 0, 1 << 20);
    for (let b = 0; b < count; b++) {
      const ref = naive(M, N, K, A.subarray(b * M * K), B.subarray(b * K * N), "NN");
      const C = heap.subarray(pC / 4 + b * M * N, pC / 4 + (b + 1) * M * N);
      assert.ok(maxDiff(C, ref) < 1e-5);
    }
  });

  test("plain JS kernel matches naive", () => {
    for (const [M, N, K] of SHAPES.slice(0, 5))
      for (const l of LAYOUTS) {
        const A = rand(M * K, 3);
        const B = rand(K * N, 4);
        const C = new Float32Array(M * N);
        gemmJs({ M, N, K, A, B, C, ldc: N, ...strides(M, N, K, l) });
        assert.ok(maxDiff(C, naive(M, N, K, A, B, l)) < 1e-4, `${M}x${N}x${K} ${l}`);
      }
  });

  test("2-thread pool splits rows, columns and batches correctly", async () => {
    const ws = 16 << 20;
    const pool = await GemmPool.create({
      threads: 2,
      memory,
      workspace: ws,
      workspaceBytes: gemmWorkspaceBytes(2048),
    });
    try {
      for (const [M, N, K] of [
        [64, 7, 9], // split by rows
        [3, 100, 9], // split by columns
        [33, 260, 17],
      ] as const)
        for (const l of LAYOUTS) {
          const A = rand(M * K, 5);
          const B = rand(K * N, 6);
          const pA = 0;
          const pB = A.length * 4;
          const pC = pB + B.length * 4;
          heap.set(A, pA / 4);
          heap.set(B, pB / 4);
          const st = strides(M, N, K, l);
          pool.gemm({ M, N, K, A: pA, B: pB, C: pC, ldc: N, ...st }, true);
          const C = heap.subarray(pC / 4, pC / 4 + M * N);
          assert.ok(maxDiff(C, naive(M, N, K, A, B, l)) < 1e-4, `${M}x${N}x${K} ${l}`);
        }
      const [M, N, K, count] = [8, 8, 8, 5];
      const A = rand(count * M * K, 8);
      const B = rand(count * K * N, 9);
      heap.set(A, 0);
      heap.set(B, A.length);
      const pC = (A.length + B.length) * 4;
      pool.gemmBatched({
        M,
        N,
        K,
        A: 0,
        B: A.length * 4,
        C: pC,
        ldc: N,
        ...strides(M, N, K, "NN"),
        count,
        strideA: M * K,
        strideB: K * N,
        strideC: M * N,
      });
      for (let b = 0; b < count; b++) {
        const ref = naive(M, N, K, A.subarray(b * M * K), B.subarray(b * K * N), "NN");
        const C = heap.subarray(pC / 4 + b * M * N, pC / 4 + (b + 1) * M * N);
        assert.ok(maxDiff(C, ref) < 1e-5, `batch ${b}`);
      }
    } finally {
      await pool.close();
    }
  });
});

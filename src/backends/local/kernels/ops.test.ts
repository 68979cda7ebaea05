import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { mulberry32 } from "../../../random.js";
import { gelu, geluGrad } from "../functional.js";
import { type LossDatum, lossAndGrad } from "../loss-and-grad.js";
import { DEFAULT_GPT_CONFIG, Gpt } from "../model.js";
import { instantiateOps } from "./ops-wasm.js";

/** A fresh memory with the ops, and a bump allocator of float offsets into it. */
function setup(floats = 1 << 18) {
  const memory = new WebAssembly.Memory({
    initial: Math.ceil((floats * 4) / 65536) + 1,
    maximum: 65536,
  });
  const ops = instantiateOps(memory);
  const h = new Float32Array(memory.buffer);
  let top = 16;
  const alloc = (n: number, fill?: (i: number) => number): number => {
    const off = top;
    top += (n + 3) & ~3;
    if (fill) for (let i = 0; i < n; i++) h[off + i] = fill(i);
    return off;
  };
  return { ops, h, alloc };
}

const maxAbs = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  let d = 0;
  for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i]! - b[i]!));
  return d;
};

describe("wasm ops (ops-wasm.ts) against plain JS", () => {
  const rand = mulberry32(7);
  const r = (s = 1) => s * (2 * rand() - 1);

  test("gelu and its derivative", () => {
    const { ops, h, alloc } = setup();
    const n = 1204; // not a multiple of 8: the 1-vector tail runs too
    const x = alloc(n, (i) => -10 + (20 * i) / n);
    const y = alloc(n);
    const d = alloc(n);
    ops.gelu(x * 4, y * 4, d * 4, n);
    for (let i = 0; i < n; i++) {
      const xi = h[x + i]!;
      assert.ok(Math.abs(h[y + i]! - gelu(xi)) < 2e-6 * Math.max(1, Math.abs(xi)), `gelu(${xi})`);
      assert.ok(Math.abs(h[d + i]! - geluGrad(xi)) < 1e-5, `gelu'(${xi})`);
    }
  });

  test("LayerNorm forward and backward", () => {
    const { ops, h, alloc } = setup();
    const N = 5;
    const D = 12;
    const x = alloc(N * D, () => r(3));
    const g = alloc(D, () => 1 + r(0.3));
    const b = alloc(D, () => r(0.3));
    const y = alloc(N * D);
    const mean = alloc(N);
    const rstd = alloc(N);
    ops.ln_fwd(x * 4, g * 4, b * 4, y * 4, mean * 4, rstd * 4, N, D);
    const dy = alloc(N * D, () => r());
    const dx = alloc(N * D);
    const dg = alloc(D);
    const db = alloc(D);
    ops.ln_bwd(x * 4, g * 4, mean * 4, rstd * 4, dy * 4, dx * 4, dg * 4, db * 4, N, D);
    const refY: number[] = [];
    const refDx: number[] = [];
    const refDg = new Array<number>(D).fill(0);
    const refDb = new Array<number>(D).fill(0);
    for (let i = 0; i < N; i++) {
      const row = Array.from(h.subarray(x + i * D, x + (i + 1) * D));
      const mu = row.reduce((a, v) => a + v, 0) / D;
      const rs = 1 / Math.sqrt(row.reduce((a, v) => a + (v - mu) ** 2, 0) / D + 1e-5);
      const xh = row.map((v) => (v - mu) * rs);
      const dxh = xh.map((_, j) => h[dy + i * D + j]! * h[g + j]!);
      const mD = dxh.reduce((a, v) => a + v, 0) / D;
      const mDX = dxh.reduce((a, v, j) => a + v * xh[j]!, 0) / D;
      for (let j = 0; j < D; j++) {
        refY.push(xh[j]! * h[g + j]! + h[b + j]!);
        refDx.push(rs * (dxh[j]! - mD - xh[j]! * mDX));
        refDg[j] = refDg[j]! + h[dy + i * D + j]! * xh[j]!;
        refDb[j] = refDb[j]! + h[dy + i * D + j]!;
      }
    }
    assert.ok(maxAbs(h.subarray(y, y + N * D), refY) < 1e-5);
    assert.ok(maxAbs(h.subarray(dx, dx + N * D), refDx) < 1e-5);
    assert.ok(maxAbs(h.subarray(dg, dg + D), refDg) < 1e-5);
    assert.ok(maxAbs(h.subarray(db, db + D), refDb) < 1e-5);
  });

  test("softmax over rows, with its statistics, and the affine backward scaling", () => {
    const { ops, h, alloc } = setup();
    const N = 3;
    const V = 20;
    const z = alloc(N * V, () => r(15));
    const p = alloc(N * V);
    const st = alloc(3 * N);
    ops.softmax_rows(z * 4, p * 4, st * 4, N, V);
    for (let i = 0; i < N; i++) {
      const row = Array.from(h.subarray(z + i * V, z + (i + 1) * V));
      const m = Math.max(...row);
      const e = row.map((v) => Math.exp(v - m));
      const s = e.reduce((a, v) => a + v, 0);
      const sz = e.reduce((a, v, j) => a + v * row[j]!, 0);
      assert.equal(h[st + 3 * i], Math.fround(m));
      assert.ok(Math.abs(h[st + 3 * i + 1]! / s - 1) < 1e-6);
      assert.ok(Math.abs(h[st + 3 * i + 2]! - sz) < 1e-5 * Math.max(1, Math.abs(sz)));
      for (let j = 0; j < V; j++)
        assert.ok(Math.abs(h[p + i * V + j]! - e[j]! / s) < 1e-6 * Math.max(1e-3, e[j]! / s));
    }
    const before = Array.from(h.subarray(p, p + V));
    ops.scale_affine(p * 4, z * 4, V, 0.3, -0.2);
    for (let j = 0; j < V; j++)
      assert.ok(Math.abs(h[p + j]! - before[j]! * (0.3 - 0.2 * h[z + j]!)) < 1e-6);
  });

  test("causal attention softmax and its backward", () => {
    const { ops, h, alloc } = setup();
    const T = 12;
    const rows = 7;
    const i0 = 5; // the block's first row sees i0 + 1 keys
    const scale = 0.37;
    const p = alloc(rows * T, () => r(5));
    const s0 = Array.from(h.subarray(p, p + rows * T));
    ops.attn_softmax(p * 4, rows, T, i0 + 1, scale);
    for (let q = 0; q < rows; q++) {
      const n = i0 + 1 + q;
      const row = s0.slice(q * T, q * T + n).map((v) => v * scale);
      const m = Math.max(...row);
      const e = row.map((v) => Math.exp(v - m));
      const s = e.reduce((a, v) => a + v, 0);
      for (let j = 0; j < T; j++) {
        const want = j < n ? e[j]! / s : 0;
        assert.ok(Math.abs(h[p + q * T + j]! - want) < 1e-6, `row ${q} col ${j}`);
      }
    }
    const ds = alloc(rows * T, () => r());
    const d0 = Array.from(h.subarray(ds, ds + rows * T));
    ops.softmax_bwd(ds * 4, p * 4, rows, T, T, scale);
    for (let q = 0; q < rows; q++) {
      let dot = 0;
      for (let j = 0; j < T; j++) dot += d0[q * T + j]! * h[p + q * T + j]!;
      for (let j = 0; j < T; j++) {
        const want = scale * h[p + q * T + j]! * (d0[q * T + j]! - dot);
        assert.ok(Math.abs(h[ds + q * T + j]! - want) < 1e-6);
      }
    }
  });

  test("rope forward then backward is the identity; colsum; vadd; vmul", () => {
    const { ops, h, alloc } = setup();
    const T = 3;
    const half = 4;
    const rows = 6;
    const stride = 24;
    const x = alloc(rows * stride, () => r());
    const cos = alloc(T * half, (i) => Math.cos(i * 0.7));
    const sin = alloc(T * half, (i) => Math.sin(i * 0.7));
    const x0 = Array.from(h.subarray(x, x + rows * stride));
    ops.rope(x * 4, cos * 4, sin * 4, rows, T, stride, 2, half, 1);
    // row 4 is at position 1: its first pair (x_0, x_4) turns by angle 1·half·0.7
    const a = half * 0.7;
    const [u, v] = [x0[4 * stride]!, x0[4 * stride + half]!];
    assert.ok(Math.abs(h[x + 4 * stride]! - (u * Math.cos(a) - v * Math.sin(a))) < 1e-6);
    assert.ok(Math.abs(h[x + 4 * stride + half]! - (v * Math.cos(a) + u * Math.sin(a))) < 1e-6);
    // the third slice of each row (columns 16…23) is beyond nh = 2: untouched
    assert.equal(h[x + 4 * stride + 20], Math.fround(x0[4 * stride + 20]!));
    ops.rope(x * 4, cos * 4, sin * 4, rows, T, stride, 2, half, -1);
    assert.ok(maxAbs(h.subarray(x, x + rows * stride), x0) < 1e-6);

    const cols = 8;
    const src = alloc(3 * cols, () => r());
    const dst = alloc(cols, () => 1);
    ops.colsum(dst * 4, src * 4, 3, cols);
    for (let j = 0; j < cols; j++) {
      const want = 1 + h[src + j]! + h[src + cols + j]! + h[src + 2 * cols + j]!;
      assert.ok(Math.abs(h[dst + j]! - want) < 1e-6);
    }
    const c = alloc(cols);
    ops.vadd(src * 4, dst * 4, c * 4, cols);
    for (let j = 0; j < cols; j++) assert.equal(h[c + j], Math.fround(h[src + j]! + h[dst + j]!));
    ops.vmul(c * 4, dst * 4, cols);
    for (let j = 0; j < cols; j++)
      assert.equal(h[c + j], Math.fround(Math.fround(h[src + j]! + h[dst + j]!) * h[dst + j]!));
  });

  test("gemv_nn, gemv_nt and the decode attention against naive products", () => {
    const { ops, h, alloc } = setup();
    const [M, N, K] = [3, 20, 7]; // N: one 16-wide strip and one 4-wide one
    const A = alloc(M * K, () => r());
    const B = alloc(K * N, () => r());
    const C = alloc(M * N, () => r());
    const c0 = Array.from(h.subarray(C, C + M * N));
    ops.gemv_nn(M, N, K, A * 4, K, B * 4, N, C * 4, N, 1);
    for (let i = 0; i < M; i++)
      for (let j = 0; j < N; j++) {
        let s = c0[i * N + j]!;
        for (let k = 0; k < K; k++) s += h[A + i * K + k]! * h[B + k * N + j]!;
        assert.ok(Math.abs(h[C + i * N + j]! - s) < 1e-5);
      }
    const K4 = 8;
    const A2 = alloc(M * K4, () => r());
    const B2 = alloc(N * K4, () => r());
    const C2 = alloc(M * N);
    ops.gemv_nt(M, N, K4, A2 * 4, K4, B2 * 4, K4, C2 * 4, N);
    for (let i = 0; i < M; i++)
      for (let j = 0; j < N; j++) {
        let s = 0;
        for (let k = 0; k < K4; k++) s += h[A2 + i * K4 + k]! * h[B2 + j * K4 + k]!;
        assert.ok(Math.abs(h[C2 + i * N + j]! - s) < 1e-5);
      }
    // attention of one query over n cached keys: heads of 4 dims (the 4-wide paths only), of 32
    // (blocks of 16 dims) and of 20 (16 + 4); n below, at and past blocks of 16 keys
    for (const [n, H, hd] of [
      [5, 2, 4],
      [1, 4, 32],
      [16, 4, 32],
      [45, 4, 32],
      [37, 3, 20],
    ] as const) {
      const D = H * hd;
      const ldk = ((n + 3) & ~3) + 4; // rows longer than the keys: lanes past n are never used
      const q = alloc(D, () => r());
      const kt = alloc(D * ldk, () => Number.NaN); // transposed keys; padding lanes NaN
      for (let j = 0; j < n - 1; j++) for (let d = 0; d < D; d++) h[kt + d * ldk + j] = r(2);
      const knew = alloc(D, () => r(2)); // key n − 1: the call stores it in the cache
      const vb = alloc(n * D, () => r());
      const out = alloc(D);
      const sc = alloc(n + 4);
      ops.attn_decode(q * 4, knew * 4, kt * 4, ldk, vb * 4, n, H, hd, D, out * 4, sc * 4, 0.5);
      for (let d = 0; d < D; d++) assert.equal(h[kt + d * ldk + n - 1], h[knew + d]);
      for (let head = 0; head < H; head++) {
        const s = Array.from({ length: n }, (_, j) => {
          let d = 0;
          for (let c = 0; c < hd; c++)
            d += h[q + head * hd + c]! * h[kt + (head * hd + c) * ldk + j]!;
          return d * 0.5;
        });
        const m = Math.max(...s);
        const e = s.map((v) => Math.exp(v - m));
        const tot = e.reduce((a, v) => a + v, 0);
        for (let c = 0; c < hd; c++) {
          let want = 0;
          for (let j = 0; j < n; j++) want += (e[j]! / tot) * h[vb + j * D + head * hd + c]!;
          const got = h[out + head * hd + c]!;
          assert.ok(
            Math.abs(got - want) < 1e-5,
            `n ${n} hd ${hd} head ${head} dim ${c}: ${got} vs ${want}`,
          );
        }
      }
    }
  });

  test("the model's blocked causal attention (T > 128) gives the plain path's gradients", () => {
    const B = 2;
    const T = 200; // blocks of 64 rows, the last one partial
    const rand2 = mulberry32(1);
    const datums: LossDatum[] = Array.from({ length: B }, () => {
      const tokens = Array.from({ length: T }, () => Math.floor(rand2() * 264));
      return {
        tokens,
        lossMask: tokens.map(() => 1),
        advantages: tokens.map(() => rand2() - 0.5),
        samplingLogprobs: tokens.map(() => -5),
      };
    });
    const grads = (["wasm", "js"] as const).map((kernel) => {
      const m = new Gpt(DEFAULT_GPT_CONFIG, { seed: 0, kernel, initStd: 0.1 });
      m.zeroGrad();
      lossAndGrad(m, datums, { kind: "ppo", entropyCoef: 0.01 });
      return m.gradData.slice();
    });
    let scale = 0;
    for (const g of grads[1]!) scale = Math.max(scale, Math.abs(g));
    assert.ok(maxAbs(grads[0]!, grads[1]!) < 1e-5 * scale);
  });
});

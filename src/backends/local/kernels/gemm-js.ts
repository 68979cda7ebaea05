/**
 * Plain-JavaScript single-precision GEMM over Float32Array: the portable fallback and the
 * reference the wasm kernel is compared against.
 *
 *   C[M×N] (+)= op(A)[M×K] · op(B)[K×N],   A(i,k) = A[aOff + i*sai + k*sak],
 *                                          B(k,j) = B[bOff + k*sbk + j*sbj]
 *
 * Same algorithm as the wasm kernel: pack A into 4-row panels and B into 4-column panels
 * (contiguous, zero-padded), then a 4×4 register-tiled micro-kernel with the k loop innermost.
 * V8 does not vectorise, so this is scalar float64 arithmetic (16 accumulators + 8 operands fit
 * the 16 xmm registers only just; see the benchmark).
 */

export interface GemmArgs {
  M: number;
  N: number;
  K: number;
  A: Float32Array;
  aOff?: number;
  sai: number;
  sak: number;
  B: Float32Array;
  bOff?: number;
  sbk: number;
  sbj: number;
  C: Float32Array;
  cOff?: number;
  ldc: number;
  accumulate?: boolean;
}

const MR = 4;
const NR = 4;

let packA = new Float32Array(0);
let packB = new Float32Array(0);

export function gemmJs(a: GemmArgs): void {
  const { M, N, K, A, sai, sak, B, sbk, sbj, C, ldc } = a;
  const aOff = a.aOff ?? 0;
  const bOff = a.bOff ?? 0;
  const cOff = a.cOff ?? 0;
  const acc = a.accumulate === true;
  const mBlocks = Math.ceil(M / MR);
  if (packA.length < mBlocks * MR * K) packA = new Float32Array(mBlocks * MR * K);
  if (packB.length < NR * K) packB = new Float32Array(NR * K);
  const pa = packA;
  const pb = packB;

  // pack A: pa[ib][k][r]
  for (let ib = 0; ib < mBlocks; ib++) {
    const i0 = ib * MR;
    const rv = Math.min(MR, M - i0);
    let d = ib * MR * K;
    for (let k = 0; k < K; k++) {
      const src = aOff + i0 * sai + k * sak;
      for (let r = 0; r < MR; r++) pa[d++] = r < rv ? A[src + r * sai]! : 0;
    }
  }

  for (let j0 = 0; j0 < N; j0 += NR) {
    const nv = Math.min(NR, N - j0);
    // pack B panel: pb[k][c]
    for (let k = 0, d = 0; k < K; k++) {
      const src = bOff + k * sbk + j0 * sbj;
      for (let c = 0; c < NR; c++) pb[d++] = c < nv ? B[src + c * sbj]! : 0;
    }
    for (let ib = 0; ib < mBlocks; ib++) {
      const i0 = ib * MR;
      const rv = Math.min(MR, M - i0);
      let c00 = 0,
        c01 = 0,
        c02 = 0,
        c03 = 0;
      let c10 = 0,
        c11 = 0,
        c12 = 0,
        c13 = 0;
      let c20 = 0,
        c21 = 0,
        c22 = 0,
        c23 = 0;
      let c30 = 0,
        c31 = 0,
        c32 = 0,
        c33 = 0;
      let p = ib * MR * K;
      let q = 0;
      for (let k = 0; k < K; k++, p += MR, q += NR) {
        const b0 = pb[q]!;
        const b1 = pb[q + 1]!;
        const b2 = pb[q + 2]!;
        const b3 = pb[q + 3]!;
        const a0 = pa[p]!;
        c00 += a0 * b0;
        c01 += a0 * b1;
        c02 += a0 * b2;
        c03 += a0 * b3;
        const a1 = pa[p + 1]!;
        c10 += a1 * b0;
        c11 += a1 * b1;
        c12 += a1 * b2;
        c13 += a1 * b3;
        const a2 = pa[p + 2]!;
        c20 += a2 * b0;
        c21 += a2 * b1;
        c22 += a2 * b2;
        c23 += a2 * b3;
        const a3 = pa[p + 3]!;
        c30 += a3 * b0;
        c31 += a3 * b1;
        c32 += a3 * b2;
        c33 += a3 * b3;
      }
      const t = [c00, c01, c02, c03, c10, c11, c12, c13, c20, c21, c22, c23, c30, c31, c32, c33];
      if (rv === MR && nv === NR) {
        let o = cOff + i0 * ldc + j0;
        for (let r = 0; r < MR; r++, o += ldc) {
          if (acc) {
            C[o] = C[o]! + t[r * 4]!;
            C[o + 1] = C[o + 1]! + t[r * 4 + 1]!;
            C[o + 2] = C[o + 2]! + t[r * 4 + 2]!;
            C[o + 3] = C[o + 3]! + t[r * 4 + 3]!;
          } else {
            C[o] = t[r * 4]!;
            C[o + 1] = t[r * 4 + 1]!;
            C[o + 2] = t[r * 4 + 2]!;
            C[o + 3] = t[r * 4 + 3]!;
          }
        }
      } else {
        for (let r = 0; r < rv; r++) {
          const o = cOff + (i0 + r) * ldc + j0;
          for (let c = 0; c < nv; c++) C[o + c] = (acc ? C[o + c]! : 0) + t[r * 4 + c]!;
        }
      }
    }
  }
}

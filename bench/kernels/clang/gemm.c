// Reference-only: the wasm GEMM written in C and compiled by clang-14 for wasm32+simd128, to see
// what good ahead-of-time codegen gives under V8 (bench/kernels/matmul.ts, column "clang-wasm").
// Built by bench/kernels/clang/build.sh; not part of the product (it would need clang at build
// time or a committed .wasm).
//
// gemm(): same contract and algorithm as src/backends/local/kernels/gemm-wasm.ts — strided A/B,
// pack A in MR-row panels and B in NR-column panels, MR×NR register tile, mul+add (no FMA).
// gemm_naive(): plain i-k-j loops over contiguous A·B, left to clang's auto-vectoriser.
#include <wasm_simd128.h>

#define MR 2
#define NR 16
#define MCMAX_FLOATS (64 * 1024)

static float packA[MCMAX_FLOATS + 4096 * MR];
static float packB[4096 * NR];

static void kernel(int K, const float* pa, const float* pb, float* C, int ldc, int rv, int nv,
                   int acc) {
  v128_t c00 = wasm_f32x4_splat(0), c01 = c00, c02 = c00, c03 = c00;
  v128_t c10 = c00, c11 = c00, c12 = c00, c13 = c00;
  for (int k = 0; k < K; k++, pa += MR, pb += NR) {
    v128_t b0 = wasm_v128_load(pb), b1 = wasm_v128_load(pb + 4);
    v128_t b2 = wasm_v128_load(pb + 8), b3 = wasm_v128_load(pb + 12);
    v128_t a0 = wasm_v128_load32_splat(pa);
    c00 = wasm_f32x4_add(c00, wasm_f32x4_mul(a0, b0));
    c01 = wasm_f32x4_add(c01, wasm_f32x4_mul(a0, b1));
    c02 = wasm_f32x4_add(c02, wasm_f32x4_mul(a0, b2));
    c03 = wasm_f32x4_add(c03, wasm_f32x4_mul(a0, b3));
    v128_t a1 = wasm_v128_load32_splat(pa + 1);
    c10 = wasm_f32x4_add(c10, wasm_f32x4_mul(a1, b0));
    c11 = wasm_f32x4_add(c11, wasm_f32x4_mul(a1, b1));
    c12 = wasm_f32x4_add(c12, wasm_f32x4_mul(a1, b2));
    c13 = wasm_f32x4_add(c13, wasm_f32x4_mul(a1, b3));
  }
  float t[MR * NR];
  v128_t* tv = (v128_t*)t;
  tv[0] = c00; tv[1] = c01; tv[2] = c02; tv[3] = c03;
  tv[4] = c10; tv[5] = c11; tv[6] = c12; tv[7] = c13;
  for (int r = 0; r < rv; r++)
    for (int j = 0; j < nv; j++) C[r * ldc + j] = (acc ? C[r * ldc + j] : 0) + t[r * NR + j];
}

__attribute__((export_name("gemm"))) void gemm(int M, int N, int K, const float* A, int sai,
                                                 int sak, const float* B, int sbk, int sbj,
                                                 float* C, int ldc, int acc) {
  int mcmax = (MCMAX_FLOATS / (K > 0 ? K : 1)) / MR * MR;
  if (mcmax < MR) mcmax = MR;
  for (int i0 = 0; i0 < M; i0 += mcmax) {
    int mc = M - i0 < mcmax ? M - i0 : mcmax;
    float* d = packA;
    for (int ib = 0; ib < mc; ib += MR) {
      int rv = mc - ib < MR ? mc - ib : MR;
      for (int k = 0; k < K; k++)
        for (int r = 0; r < MR; r++)
          *d++ = r < rv ? A[(i0 + ib + r) * sai + k * sak] : 0.0f;
    }
    for (int j0 = 0; j0 < N; j0 += NR) {
      int nv = N - j0 < NR ? N - j0 : NR;
      float* q = packB;
      for (int k = 0; k < K; k++)
        for (int c = 0; c < NR; c++) *q++ = c < nv ? B[k * sbk + (j0 + c) * sbj] : 0.0f;
      for (int ib = 0; ib < mc; ib += MR) {
        int rv = mc - ib < MR ? mc - ib : MR;
        kernel(K, packA + ib * K, packB, C + (i0 + ib) * ldc + j0, ldc, rv, nv, acc);
      }
    }
  }
}

__attribute__((export_name("gemm_naive"))) void gemm_naive(int M, int N, int K,
                                                             const float* restrict A,
                                                             const float* restrict B,
                                                             float* restrict C) {
  for (int i = 0; i < M * N; i++) C[i] = 0;
  for (int i = 0; i < M; i++)
    for (int k = 0; k < K; k++) {
      const float a = A[i * K + k];
      for (int j = 0; j < N; j++) C[i * N + j] += a * B[k * N + j];
    }
}

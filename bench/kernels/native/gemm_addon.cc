// Reference-only native GEMM for the kernel spike (bench/kernels/matmul.ts): the ceiling a
// compiled addon would reach. Needs a C++ compiler and the Node headers at install time, which
// the product avoids; built by bench/kernels/native/build.sh into bench/kernels/native/build/.
//
//   openblas(layout, M, N, K, A, B, C)   cblas_sgemm from libopenblas0 (same BLAS torch uses)
//   native(layout, M, N, K, A, B, C)     own 4-row blocked loop, gcc -O3 -march=native
//
// layout: 0 = A·B (A MxK, B KxN), 1 = Aᵀ·B (A KxM), 2 = A·Bᵀ (B NxK). C is MxN row-major.
#include <node_api.h>

#include <cstdint>
#include <cstring>
#include <vector>

extern "C" {
// cblas prototypes (libopenblas0 ships the symbol; no -dev headers needed)
enum { CblasRowMajor = 101 };
enum { CblasNoTrans = 111, CblasTrans = 112 };
void cblas_sgemm(int order, int transA, int transB, int M, int N, int K, float alpha,
                 const float* A, int lda, const float* B, int ldb, float beta, float* C, int ldc);
}

namespace {

float* f32(napi_env env, napi_value v) {
  napi_typedarray_type t;
  size_t len;
  void* data;
  napi_value ab;
  size_t off;
  napi_get_typedarray_info(env, v, &t, &len, &data, &ab, &off);
  return static_cast<float*>(data);
}

int32_t i32(napi_env env, napi_value v) {
  int32_t x = 0;
  napi_get_value_int32(env, v, &x);
  return x;
}

napi_value OpenBlas(napi_env env, napi_callback_info info) {
  size_t argc = 7;
  napi_value a[7];
  napi_get_cb_info(env, info, &argc, a, nullptr, nullptr);
  int layout = i32(env, a[0]), M = i32(env, a[1]), N = i32(env, a[2]), K = i32(env, a[3]);
  const float* A = f32(env, a[4]);
  const float* B = f32(env, a[5]);
  float* C = f32(env, a[6]);
  int ta = layout == 1 ? CblasTrans : CblasNoTrans;
  int tb = layout == 2 ? CblasTrans : CblasNoTrans;
  int lda = layout == 1 ? M : K;
  int ldb = layout == 2 ? K : N;
  cblas_sgemm(CblasRowMajor, ta, tb, M, N, K, 1.0f, A, lda, B, ldb, 0.0f, C, N);
  return nullptr;
}

std::vector<float> scratchA, scratchB;

napi_value Native(napi_env env, napi_callback_info info) {
  size_t argc = 7;
  napi_value a[7];
  napi_get_cb_info(env, info, &argc, a, nullptr, nullptr);
  int layout = i32(env, a[0]), M = i32(env, a[1]), N = i32(env, a[2]), K = i32(env, a[3]);
  const float* A = f32(env, a[4]);
  const float* B = f32(env, a[5]);
  float* __restrict C = f32(env, a[6]);
  // bring A to MxK and B to KxN row-major
  if (layout == 1) {
    scratchA.resize(size_t(M) * K);
    for (int k = 0; k < K; k++)
      for (int i = 0; i < M; i++) scratchA[size_t(i) * K + k] = A[size_t(k) * M + i];
    A = scratchA.data();
  }
  if (layout == 2) {
    scratchB.resize(size_t(K) * N);
    for (int j = 0; j < N; j++)
      for (int k = 0; k < K; k++) scratchB[size_t(k) * N + j] = B[size_t(j) * K + k];
    B = scratchB.data();
  }
  std::memset(C, 0, sizeof(float) * size_t(M) * N);
  int i = 0;
  for (; i + 4 <= M; i += 4) {
    float* __restrict c0 = C + size_t(i) * N;
    float* __restrict c1 = c0 + N;
    float* __restrict c2 = c1 + N;
    float* __restrict c3 = c2 + N;
    for (int k = 0; k < K; k++) {
      const float a0 = A[size_t(i) * K + k], a1 = A[size_t(i + 1) * K + k];
      const float a2 = A[size_t(i + 2) * K + k], a3 = A[size_t(i + 3) * K + k];
      const float* __restrict b = B + size_t(k) * N;
      for (int j = 0; j < N; j++) {
        c0[j] += a0 * b[j];
        c1[j] += a1 * b[j];
        c2[j] += a2 * b[j];
        c3[j] += a3 * b[j];
      }
    }
  }
  for (; i < M; i++)
    for (int k = 0; k < K; k++) {
      const float av = A[size_t(i) * K + k];
      for (int j = 0; j < N; j++) C[size_t(i) * N + j] += av * B[size_t(k) * N + j];
    }
  return nullptr;
}

napi_value Init(napi_env env, napi_value exports) {
  napi_value fn;
  napi_create_function(env, "openblas", NAPI_AUTO_LENGTH, OpenBlas, nullptr, &fn);
  napi_set_named_property(env, exports, "openblas", fn);
  napi_create_function(env, "native", NAPI_AUTO_LENGTH, Native, nullptr, &fn);
  napi_set_named_property(env, exports, "native", fn);
  return exports;
}

}  // namespace

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)

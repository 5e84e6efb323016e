// cuBLASLt under Seer: descriptors and their attributes, the heuristic query, and matmuls with
// epilogues, single and strided-batched, timed by the program itself with CUDA events.
#include <cublasLt.h>

#include "common.h"

namespace {

struct Layouts {
  cublasLtMatrixLayout_t a, b, c;
};

Layouts square(int64_t n, cudaDataType type, int32_t batch) {
  Layouts l;
  CHECK_BLAS(cublasLtMatrixLayoutCreate(&l.a, type, n, n, n));
  CHECK_BLAS(cublasLtMatrixLayoutCreate(&l.b, type, n, n, n));
  CHECK_BLAS(cublasLtMatrixLayoutCreate(&l.c, type, n, n, n));
  if (batch > 1) {
    const int64_t stride = n * n;
    for (cublasLtMatrixLayout_t m : {l.a, l.b, l.c}) {
      CHECK_BLAS(cublasLtMatrixLayoutSetAttribute(m, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch,
                                                  sizeof batch));
      CHECK_BLAS(cublasLtMatrixLayoutSetAttribute(m, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                                                  &stride, sizeof stride));
    }
  }
  return l;
}

void destroy(const Layouts& l) {
  CHECK_BLAS(cublasLtMatrixLayoutDestroy(l.a));
  CHECK_BLAS(cublasLtMatrixLayoutDestroy(l.b));
  CHECK_BLAS(cublasLtMatrixLayoutDestroy(l.c));
}

}  // namespace

int main() {
  CHECK(cudaSetDevice(0));
  cublasLtHandle_t lt;
  CHECK_BLAS(cublasLtCreate(&lt));
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  result_int("lt_version", static_cast<long long>(cublasLtGetVersion()));

  const int64_t big = 8192, mid = 4096;
  void *a, *b, *c, *bias, *workspace;
  CHECK(cudaMalloc(&a, big * big * 2));
  CHECK(cudaMalloc(&b, big * big * 2));
  CHECK(cudaMalloc(&c, big * big * 2));
  CHECK(cudaMalloc(&bias, big * 2));
  const size_t workspace_bytes = 32 << 20;
  CHECK(cudaMalloc(&workspace, workspace_bytes));
  const float one = 1, zero = 0;

  // D = A B + bias, bf16 with FP32 accumulation (what cublasGemmEx does, plus the epilogue).
  cublasLtMatmulDesc_t desc;
  CHECK_BLAS(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  const int32_t transa = CUBLAS_OP_T;
  CHECK_BLAS(
      cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &transa, sizeof transa));
  const cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_BIAS;
  CHECK_BLAS(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue,
                                            sizeof epilogue));
  CHECK_BLAS(
      cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias));
  uint32_t epilogue_back = 0;
  size_t written = 0;
  CHECK_BLAS(cublasLtMatmulDescGetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue_back,
                                            sizeof epilogue_back, &written));
  result_int("epilogue_back", epilogue_back);
  result_int("epilogue_size", static_cast<long long>(written));
  int32_t transa_back = -1;
  CHECK_BLAS(cublasLtMatmulDescGetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &transa_back,
                                            sizeof transa_back, nullptr));
  result_int("transa_back", transa_back);
  const int32_t no_transpose = CUBLAS_OP_N;
  CHECK_BLAS(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &no_transpose,
                                            sizeof no_transpose));

  Layouts l = square(big, CUDA_R_16BF, 1);
  cublasLtMatmulPreference_t pref;
  CHECK_BLAS(cublasLtMatmulPreferenceCreate(&pref));
  const uint64_t max_workspace = workspace_bytes;
  CHECK_BLAS(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                  &max_workspace, sizeof max_workspace));
  cublasLtMatmulHeuristicResult_t results[4] = {};
  int count = 0;
  CHECK_BLAS(
      cublasLtMatmulAlgoGetHeuristic(lt, desc, l.a, l.b, l.c, l.c, pref, 4, results, &count));
  result_int("heuristic_count", count);
  result_int("heuristic_state", results[0].state);
  result_int("heuristic_workspace_ok", results[0].workspaceSize <= max_workspace);
  result_num("heuristic_waves", results[0].wavesCount);

  double us = time_us(s, 5, [&] {
    CHECK_BLAS(cublasLtMatmul(lt, desc, &one, a, l.a, b, l.b, &zero, c, l.c, c, l.c,
                              &results[0].algo, workspace, workspace_bytes, s));
  });
  result_gemm("lt_bf16_8192", us, 2.0 * big * big * big);

  // The same matmul without an epilogue, with a descriptor placed by the program itself.
  cublasLtMatmulDescOpaque_t plain_storage;
  cublasLtMatmulDesc_t plain = &plain_storage;
  CHECK_BLAS(cublasLtMatmulDescInit(plain, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  us = time_us(s, 2, [&] {
    CHECK_BLAS(cublasLtMatmul(lt, plain, &one, a, l.a, b, l.b, &zero, c, l.c, c, l.c, nullptr,
                              workspace, workspace_bytes, s));
  });
  result_gemm("lt_plain_bf16_8192", us, 2.0 * big * big * big);

  // One 4096^3 matmul, and four in one strided-batched call.
  Layouts one_mid = square(mid, CUDA_R_16BF, 1);
  us = time_us(s, 3, [&] {
    CHECK_BLAS(cublasLtMatmul(lt, desc, &one, a, one_mid.a, b, one_mid.b, &zero, c, one_mid.c, c,
                              one_mid.c, nullptr, workspace, workspace_bytes, s));
  });
  result_gemm("lt_bf16_4096", us, 2.0 * mid * mid * mid);
  Layouts four = square(mid, CUDA_R_16BF, 4);
  int32_t batch_back = 0;
  CHECK_BLAS(cublasLtMatrixLayoutGetAttribute(four.a, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT,
                                              &batch_back, sizeof batch_back, &written));
  result_int("batch_back", batch_back);
  int64_t stride_back = 0;
  CHECK_BLAS(cublasLtMatrixLayoutGetAttribute(four.a, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                                              &stride_back, sizeof stride_back, &written));
  result_int("stride_back", stride_back);
  us = time_us(s, 3, [&] {
    CHECK_BLAS(cublasLtMatmul(lt, desc, &one, a, four.a, b, four.b, &zero, c, four.c, c, four.c,
                              nullptr, workspace, workspace_bytes, s));
  });
  result_gemm("lt_bf16_4096x4", us, 2.0 * mid * mid * mid * 4);

  // FP8 inputs, bf16 output, no epilogue.
  cublasLtMatrixLayout_t a8, b8;
  CHECK_BLAS(cublasLtMatrixLayoutCreate(&a8, CUDA_R_8F_E4M3, mid, mid, mid));
  CHECK_BLAS(cublasLtMatrixLayoutCreate(&b8, CUDA_R_8F_E4M3, mid, mid, mid));
  us = time_us(s, 2, [&] {
    CHECK_BLAS(cublasLtMatmul(lt, plain, &one, a, a8, b, b8, &zero, c, one_mid.c, c, one_mid.c,
                              nullptr, workspace, workspace_bytes, s));
  });
  result_gemm("lt_fp8_4096", us, 2.0 * mid * mid * mid);
  CHECK_BLAS(cublasLtMatrixLayoutDestroy(a8));
  CHECK_BLAS(cublasLtMatrixLayoutDestroy(b8));

  // Errors: no handle, a zero-sized request, inconsistent shapes.
  result_int("null_handle_rc", cublasLtMatmul(nullptr, desc, &one, a, l.a, b, l.b, &zero, c, l.c, c,
                                              l.c, nullptr, nullptr, 0, s));
  result_int("zero_request_rc",
             cublasLtMatmulAlgoGetHeuristic(lt, desc, one_mid.a, one_mid.b, one_mid.c, one_mid.c,
                                            pref, 0, results, &count));
  cublasLtMatrixLayout_t narrow;
  CHECK_BLAS(cublasLtMatrixLayoutCreate(&narrow, CUDA_R_16BF, mid, 100, mid));
  result_int("mismatch_rc", cublasLtMatmul(lt, desc, &one, a, one_mid.a, b, narrow, &zero, c,
                                           one_mid.c, c, one_mid.c, nullptr, nullptr, 0, s));
  CHECK_BLAS(cublasLtMatrixLayoutDestroy(narrow));
  destroy(l);
  destroy(one_mid);
  destroy(four);

  CHECK(cudaStreamSynchronize(s));
  CHECK_BLAS(cublasLtMatmulPreferenceDestroy(pref));
  CHECK_BLAS(cublasLtMatmulDescDestroy(desc));
  CHECK_BLAS(cublasLtDestroy(lt));
  result_int("done", 1);
  return 0;
}

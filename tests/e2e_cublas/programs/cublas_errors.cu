// cuBLAS misuse and unsupported functions under Seer: the status codes the real library
// returns, and one message per unimplemented function.
#include <cstring>

#include "common.h"

int main() {
  CHECK(cudaSetDevice(0));
  result_int("create_null_rc", cublasCreate(nullptr));
  cublasHandle_t h;
  CHECK_BLAS(cublasCreate(&h));
  int version = 0;
  CHECK_BLAS(cublasGetVersion(h, &version));
  result_int("version", version);
  int major = -1;
  CHECK_BLAS(cublasGetProperty(MAJOR_VERSION, &major));
  result_int("major", major);
  std::printf("RESULT status_name %s\n", cublasGetStatusName(CUBLAS_STATUS_INVALID_VALUE));
  result_int("status_string_ok", std::strcmp(cublasGetStatusString(CUBLAS_STATUS_NOT_INITIALIZED),
                                             "the library was not initialized") == 0);

  float* d;
  CHECK(cudaMalloc(&d, 1 << 20));
  const float one = 1, zero = 0;
  result_int("null_handle_rc", cublasSgemm(nullptr, CUBLAS_OP_N, CUBLAS_OP_N, 16, 16, 16, &one, d,
                                           16, d, 16, &zero, d, 16));
  result_int("negative_m_rc", cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, -1, 16, 16, &one, d, 16, d,
                                          16, &zero, d, 16));
  result_int("small_lda_rc", cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 32, 16, 16, &one, d, 16, d,
                                         16, &zero, d, 32));
  result_int("bad_op_rc", cublasSgemm(h, static_cast<cublasOperation_t>(7), CUBLAS_OP_N, 16, 16, 16,
                                      &one, d, 16, d, 16, &zero, d, 16));
  result_int("null_alpha_rc", cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 16, 16, 16, nullptr, d, 16,
                                          d, 16, &zero, d, 16));
  result_int(
      "mixed_types_rc",
      cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 16, 16, 16, &one, d, CUDA_R_16BF, 16, d, CUDA_R_16F,
                   16, &zero, d, CUDA_R_32F, 16, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  result_int("negative_batch_rc",
             cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, 16, 16, 16, &one, d, 16, 256, d,
                                       16, 256, &zero, d, 16, 256, -1));
  result_int("empty_gemm_rc",
             cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 0, 16, 16, &one, d, 1, d, 16, &zero, d, 1));
  result_int("gemv_bad_inc_rc",
             cublasSgemv(h, CUBLAS_OP_N, 16, 16, &one, d, 16, d, 0, &zero, d, 1));
  result_int("dot_null_result_rc", cublasSdot(h, 16, d, 1, d, 1, nullptr));
  result_int("bad_pointer_mode_rc", cublasSetPointerMode(h, static_cast<cublasPointerMode_t>(5)));

  // Not implemented by Seer: CUBLAS_STATUS_NOT_SUPPORTED every time, one message.
  for (int i = 0; i < 2; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "strsm_rc_%d", i);
    result_int(name, cublasStrsm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
                                 CUBLAS_DIAG_NON_UNIT, 16, 16, &one, d, 16, d, 16));
  }
  std::fflush(stdout);

  CHECK_BLAS(cublasDestroy(h));
  result_int("destroy_again_rc", cublasDestroy(h));
  result_int("after_destroy_rc", cublasSaxpy(h, 16, &one, d, 1, d, 1));
  CHECK(cudaFree(d));
  result_int("done", 1);
  return 0;
}

// cuBLAS under Seer: GEMMs of several types and forms, level-1/2 routines, and the blocking of
// host-pointer-mode results, each timed by the program itself with CUDA events.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "common.h"

namespace {

constexpr double gemm_flops(double m, double n, double k, double batch = 1) {
  return 2 * m * n * k * batch;
}

}  // namespace

int main() {
  CHECK(cudaSetDevice(0));
  cublasHandle_t h;
  CHECK_BLAS(cublasCreate(&h));
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  CHECK_BLAS(cublasSetStream(h, s));
  cudaStream_t got = nullptr;
  CHECK_BLAS(cublasGetStream(h, &got));
  result_int("stream_roundtrip", got == s);

  const int64_t big = 8192, mid = 4096, small = 2048;
  void *a, *b, *c;
  CHECK(cudaMalloc(&a, size_t{1} << 30));  // also the 16384^2 FP32 matrix of gemv
  CHECK(cudaMalloc(&b, big * big * 4));
  CHECK(cudaMalloc(&c, big * big * 4));
  const float one = 1, zero = 0;

  // bf16 GEMM, FP32 accumulation: the headline number.
  double us = time_us(s, 5, [&] {
    CHECK_BLAS(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, big, big, big, &one, a, CUDA_R_16BF, big,
                            b, CUDA_R_16BF, big, &zero, c, CUDA_R_16BF, big, CUBLAS_COMPUTE_32F,
                            CUBLAS_GEMM_DEFAULT));
  });
  result_gemm("gemmex_bf16_8192", us, gemm_flops(big, big, big));

  // The same GEMM with the operands transposed takes the same time.
  us = time_us(s, 2, [&] {
    CHECK_BLAS(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_T, big, big, big, &one, a, CUDA_R_16BF, big,
                            b, CUDA_R_16BF, big, &zero, c, CUDA_R_32F, big, CUBLAS_COMPUTE_32F,
                            CUBLAS_GEMM_DEFAULT));
  });
  result_gemm("gemmex_bf16_8192_tt", us, gemm_flops(big, big, big));

  // A single 4096^3 bf16 GEMM and four of them in one strided-batched call.
  us = time_us(s, 3, [&] {
    CHECK_BLAS(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, mid, mid, mid, &one, a, CUDA_R_16BF, mid,
                            b, CUDA_R_16BF, mid, &zero, c, CUDA_R_16BF, mid, CUBLAS_COMPUTE_32F,
                            CUBLAS_GEMM_DEFAULT));
  });
  result_gemm("gemmex_bf16_4096", us, gemm_flops(mid, mid, mid));
  const long long stride = mid * mid;
  us = time_us(s, 3, [&] {
    CHECK_BLAS(cublasGemmStridedBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, mid, mid, mid, &one, a,
                                          CUDA_R_16BF, mid, stride, b, CUDA_R_16BF, mid, stride,
                                          &zero, c, CUDA_R_16BF, mid, stride, 4, CUBLAS_COMPUTE_32F,
                                          CUBLAS_GEMM_DEFAULT));
  });
  result_gemm("strided_ex_bf16_4096x4", us, gemm_flops(mid, mid, mid, 4));

  // Pointer-array batched GEMM (the arrays live on the device; only the count matters here).
  void** ptrs;
  CHECK(cudaMalloc(&ptrs, 3 * 4 * sizeof(void*)));
  us = time_us(s, 3, [&] {
    CHECK_BLAS(cublasGemmBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, mid, mid, mid, &one, ptrs,
                                   CUDA_R_16BF, mid, ptrs + 4, CUDA_R_16BF, mid, &zero, ptrs + 8,
                                   CUDA_R_16BF, mid, 4, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  });
  result_gemm("batched_ex_bf16_4096x4", us, gemm_flops(mid, mid, mid, 4));

  // Typed FP16 GEMMs: one, and eight strided.
  const __half hone = __float2half(1.f), hzero = __float2half(0.f);
  const auto* ha = static_cast<const __half*>(a);
  const auto* hb = static_cast<const __half*>(b);
  auto* hc = static_cast<__half*>(c);
  us = time_us(s, 3, [&] {
    CHECK_BLAS(cublasHgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, small, small, small, &hone, ha, small, hb,
                           small, &hzero, hc, small));
  });
  result_gemm("hgemm_2048", us, gemm_flops(small, small, small));
  const long long hstride = small * small;
  us = time_us(s, 3, [&] {
    CHECK_BLAS(cublasHgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, small, small, small, &hone,
                                         ha, small, hstride, hb, small, hstride, &hzero, hc, small,
                                         hstride, 8));
  });
  result_gemm("hgemm_strided_2048x8", us, gemm_flops(small, small, small, 8));

  // FP32 GEMM, then with TF32 tensor cores allowed by the math mode.
  const auto* fa = static_cast<const float*>(a);
  const auto* fb = static_cast<const float*>(b);
  auto* fc = static_cast<float*>(c);
  us = time_us(s, 3, [&] {
    CHECK_BLAS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, mid, mid, mid, &one, fa, mid, fb, mid,
                           &zero, fc, mid));
  });
  result_gemm("sgemm_4096", us, gemm_flops(mid, mid, mid));
  CHECK_BLAS(cublasSetMathMode(h, CUBLAS_TF32_TENSOR_OP_MATH));
  cublasMath_t mode;
  CHECK_BLAS(cublasGetMathMode(h, &mode));
  result_int("math_mode", mode);
  us = time_us(s, 3, [&] {
    CHECK_BLAS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, mid, mid, mid, &one, fa, mid, fb, mid,
                           &zero, fc, mid));
  });
  result_gemm("sgemm_tf32_4096", us, gemm_flops(mid, mid, mid));
  CHECK_BLAS(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
  us = time_us(s, 2, [&] {
    CHECK_BLAS(cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, small, small, small, &one, fa,
                                         small, hstride, fb, small, hstride, &zero, fc, small,
                                         hstride, 4));
  });
  result_gemm("sgemm_strided_2048x4", us, gemm_flops(small, small, small, 4));

  // FP64 and complex GEMMs (complex: four real multiply-adds per product).
  const double done = 1, dzero = 0;
  us = time_us(s, 2, [&] {
    CHECK_BLAS(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, small, small, small, &done,
                           static_cast<const double*>(a), small, static_cast<const double*>(b),
                           small, &dzero, static_cast<double*>(c), small));
  });
  result_gemm("dgemm_2048", us, gemm_flops(small, small, small));
  const cuComplex cone = {1, 0}, czero = {0, 0};
  us = time_us(s, 2, [&] {
    CHECK_BLAS(cublasCgemm(
        h, CUBLAS_OP_N, CUBLAS_OP_C, small, small, small, &cone, static_cast<const cuComplex*>(a),
        small, static_cast<const cuComplex*>(b), small, &czero, static_cast<cuComplex*>(c), small));
  });
  result_gemm("cgemm_2048", us, gemm_flops(small, small, small));

  // Memory-bound routines: axpy over 2^26 floats, gemv of a 16384^2 matrix.
  const int n = 1 << 26;
  float* x = static_cast<float*>(a);
  float* y = static_cast<float*>(b);
  us = time_us(s, 3, [&] { CHECK_BLAS(cublasSaxpy(h, n, &one, x, 1, y, 1)); });
  result_num("saxpy_us", us);
  result_num("saxpy_gbs", 3.0 * n * 4 / (us * 1e-6) / 1e9);
  const int gm = 16384;
  us = time_us(s, 3, [&] {
    CHECK_BLAS(cublasSgemv(h, CUBLAS_OP_N, gm, gm, &one, x, gm, y, 1, &zero, fc, 1));
  });
  result_num("sgemv_us", us);
  result_num("sgemv_gbs", (double(gm) * gm + 3.0 * gm) * 4 / (us * 1e-6) / 1e9);
  us = time_us(s, 3, [&] { CHECK_BLAS(cublasDscal(h, n / 2, &done, static_cast<double*>(c), 1)); });
  result_num("dscal_us", us);

  // A dot product with its result on the host waits for the GPU; on the device it does not.
  CHECK(cudaStreamSynchronize(s));
  float result = -1;
  int64_t t0 = now_ns();
  CHECK_BLAS(cublasSdot(h, n, x, 1, y, 1, &result));
  result_int("sdot_host_ns", now_ns() - t0);
  result_num("sdot_result", result);
  CHECK_BLAS(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE));
  t0 = now_ns();
  CHECK_BLAS(cublasSdot(h, n, x, 1, y, 1, fc));
  result_int("sdot_device_ns", now_ns() - t0);
  CHECK_BLAS(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
  int index = -1;
  CHECK_BLAS(cublasIsamax(h, n, x, 1, &index));
  result_int("isamax_index", index);
  float norm = -1;
  CHECK_BLAS(cublasSnrm2(h, n, x, 1, &norm));
  result_num("snrm2_result", norm);

  CHECK(cudaStreamSynchronize(s));
  CHECK_BLAS(cublasDestroy(h));
  CHECK(cudaFree(ptrs));
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  CHECK(cudaFree(c));
  result_int("done", 1);
  return 0;
}

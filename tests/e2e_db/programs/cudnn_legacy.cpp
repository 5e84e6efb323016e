// The legacy cuDNN calls of `seer profile`'s end-to-end test (tests/e2e_db/
// cudnn_legacy_profile_test.cpp), each twice: batch norm (float, N=8 C=64 56x56, per-channel
// parameters 1x64x1x1) forward training, inference and backward; a 3x3 convolution (half, 64 ->
// 128 channels, padding 1, tensor-op math) forward, backward data and backward filter; the bias
// gradient of its output and cudnnAddTensor of a 1x128x1x1 bias onto it. Prints "done" at the end.
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                       \
  do {                                                                                    \
    const int status_ = static_cast<int>(call);                                           \
    if (status_ != 0) {                                                                   \
      std::fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, #call, status_); \
      std::exit(1);                                                                       \
    }                                                                                     \
  } while (0)

namespace {

constexpr int kN = 8, kC = 64, kK = 128, kH = 56, kW = 56;

cudnnTensorDescriptor_t tensor(cudnnDataType_t type, int n, int c, int h, int w) {
  cudnnTensorDescriptor_t d;
  CHECK(cudnnCreateTensorDescriptor(&d));
  CHECK(cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, type, n, c, h, w));
  return d;
}

void* device(size_t bytes) {
  void* p = nullptr;
  CHECK(cudaMalloc(&p, bytes));
  return p;
}

}  // namespace

int main() {
  cudnnHandle_t h;
  CHECK(cudnnCreate(&h));
  const float one = 1.0f, zero = 0.0f;

  // Batch norm, float.
  cudnnTensorDescriptor_t x = tensor(CUDNN_DATA_FLOAT, kN, kC, kH, kW);
  cudnnTensorDescriptor_t p = tensor(CUDNN_DATA_FLOAT, 1, kC, 1, 1);
  const size_t x_bytes = size_t{kN} * kC * kH * kW * 4;
  void *xd = device(x_bytes), *yd = device(x_bytes), *dyd = device(x_bytes), *dxd = device(x_bytes);
  void* params[6];
  for (void*& a : params) a = device(kC * 4);
  for (int i = 0; i < 2; ++i) {
    CHECK(cudnnBatchNormalizationForwardTraining(h, CUDNN_BATCHNORM_SPATIAL, &one, &zero, x, xd, x,
                                                 yd, p, params[0], params[1], 0.1, params[2],
                                                 params[3], 1e-5, params[4], params[5]));
    CHECK(cudnnBatchNormalizationForwardInference(h, CUDNN_BATCHNORM_SPATIAL, &one, &zero, x, xd, x,
                                                  yd, p, params[0], params[1], params[2], params[3],
                                                  1e-5));
    CHECK(cudnnBatchNormalizationBackward(h, CUDNN_BATCHNORM_SPATIAL, &one, &zero, &one, &zero, x,
                                          xd, x, dyd, x, dxd, p, params[0], params[1], params[2],
                                          1e-5, params[4], params[5]));
  }

  // Convolution, half.
  cudnnTensorDescriptor_t in = tensor(CUDNN_DATA_HALF, kN, kC, kH, kW);
  cudnnTensorDescriptor_t out = tensor(CUDNN_DATA_HALF, kN, kK, kH, kW);
  cudnnTensorDescriptor_t bias = tensor(CUDNN_DATA_HALF, 1, kK, 1, 1);
  cudnnFilterDescriptor_t w;
  CHECK(cudnnCreateFilterDescriptor(&w));
  CHECK(cudnnSetFilter4dDescriptor(w, CUDNN_DATA_HALF, CUDNN_TENSOR_NCHW, kK, kC, 3, 3));
  cudnnConvolutionDescriptor_t conv;
  CHECK(cudnnCreateConvolutionDescriptor(&conv));
  CHECK(cudnnSetConvolution2dDescriptor(conv, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                        CUDNN_DATA_FLOAT));
  CHECK(cudnnSetConvolutionMathType(conv, CUDNN_TENSOR_OP_MATH));
  void *ind = device(size_t{kN} * kC * kH * kW * 2), *outd = device(size_t{kN} * kK * kH * kW * 2);
  void *wd = device(size_t{kK} * kC * 9 * 2), *bd = device(kK * 2);
  void* workspace = device(size_t{64} << 20);
  const size_t ws = size_t{64} << 20;
  for (int i = 0; i < 2; ++i) {
    CHECK(cudnnConvolutionForward(h, &one, in, ind, w, wd, conv,
                                  CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, workspace, ws,
                                  &zero, out, outd));
    CHECK(cudnnConvolutionBackwardData(h, &one, w, wd, out, outd, conv,
                                       CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, workspace, ws, &zero, in,
                                       ind));
    CHECK(cudnnConvolutionBackwardFilter(h, &one, in, ind, out, outd, conv,
                                         CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, workspace, ws, &zero,
                                         w, wd));
    CHECK(cudnnConvolutionBackwardBias(h, &one, out, outd, &zero, bias, bd));
    CHECK(cudnnAddTensor(h, &one, bias, bd, &one, out, outd));
  }
  CHECK(cudaDeviceSynchronize());
  CHECK(cudnnDestroy(h));
  std::printf("done\n");
  return 0;
}

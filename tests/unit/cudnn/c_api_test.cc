// The C entry points of libcudnn.so.9 that need no session: versions, error texts, backend
// descriptor status codes, legacy descriptors. (Compute calls need `seer run`: see README.md.)

#include <cudnn.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace {

TEST(CudnnCApi, Versions) {
  EXPECT_EQ(cudnnGetVersion(), 92600u);
  int major = 0, minor = 0, patch = -1;
  ASSERT_EQ(cudnnGetProperty(MAJOR_VERSION, &major), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnGetProperty(MINOR_VERSION, &minor), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnGetProperty(PATCH_LEVEL, &patch), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(major * 10000 + minor * 100 + patch, 92600);
  EXPECT_EQ(cudnnGetProperty(MAJOR_VERSION, nullptr), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnGraphVersionCheck(), CUDNN_STATUS_SUCCESS);
  EXPECT_STREQ(cudnnGetErrorString(CUDNN_STATUS_NOT_SUPPORTED), "CUDNN_STATUS_NOT_SUPPORTED");
}

TEST(CudnnCApi, BackendStatusCodesAndLastError) {
  cudnnBackendDescriptor_t d = nullptr;
  EXPECT_EQ(cudnnBackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR, nullptr),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnBackendCreateDescriptor(static_cast<cudnnBackendDescriptorType_t>(999), &d),
            CUDNN_STATUS_NOT_SUPPORTED);
  char message[256] = {};
  cudnnGetLastErrorString(message, sizeof(message));
  EXPECT_NE(std::string(message).find("CUDNN_STATUS_NOT_SUPPORTED"), std::string::npos);
  int not_a_descriptor = 0;
  EXPECT_EQ(cudnnBackendFinalize(&not_a_descriptor), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnBackendDestroyDescriptor(&not_a_descriptor), CUDNN_STATUS_BAD_PARAM);
  ASSERT_EQ(cudnnBackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR, &d),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnBackendFinalize(d), CUDNN_STATUS_BAD_PARAM);  // nothing set
  EXPECT_EQ(cudnnBackendExecute(nullptr, d, d), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnBackendDestroyDescriptor(d), CUDNN_STATUS_SUCCESS);
}

TEST(CudnnCApi, LegacyTensorAndConvolutionDescriptors) {
  cudnnTensorDescriptor_t x = nullptr, bn = nullptr;
  ASSERT_EQ(cudnnCreateTensorDescriptor(&x), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnCreateTensorDescriptor(&bn), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NHWC, CUDNN_DATA_HALF, 2, 0, 4, 4),
            CUDNN_STATUS_BAD_PARAM);
  ASSERT_EQ(cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NHWC, CUDNN_DATA_HALF, 2, 8, 5, 5),
            CUDNN_STATUS_SUCCESS);
  cudnnDataType_t type;
  int n, c, h, w, ns, cs, hs, ws;
  ASSERT_EQ(cudnnGetTensor4dDescriptor(x, &type, &n, &c, &h, &w, &ns, &cs, &hs, &ws),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(type, CUDNN_DATA_HALF);
  EXPECT_EQ(cs, 1);  // channels innermost
  EXPECT_EQ(ws, 8);
  EXPECT_EQ(hs, 40);
  EXPECT_EQ(ns, 200);
  size_t bytes = 0;
  ASSERT_EQ(cudnnGetTensorSizeInBytes(x, &bytes), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(bytes, 2u * 8 * 5 * 5 * 2);
  ASSERT_EQ(cudnnDeriveBNTensorDescriptor(bn, x, CUDNN_BATCHNORM_SPATIAL), CUDNN_STATUS_SUCCESS);
  int dims[4];
  int nb = 0;
  ASSERT_EQ(cudnnGetTensorNdDescriptor(bn, 4, &type, &nb, dims, nullptr), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(type, CUDNN_DATA_FLOAT);
  EXPECT_EQ(dims[0], 1);
  EXPECT_EQ(dims[1], 8);
  EXPECT_EQ(dims[2], 1);

  cudnnFilterDescriptor_t f = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  ASSERT_EQ(cudnnCreateFilterDescriptor(&f), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnCreateConvolutionDescriptor(&conv), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnSetFilter4dDescriptor(f, CUDNN_DATA_HALF, CUDNN_TENSOR_NHWC, 16, 8, 3, 3),
            CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnSetConvolution2dDescriptor(conv, 1, 1, 2, 2, 1, 1, CUDNN_CROSS_CORRELATION,
                                            CUDNN_DATA_FLOAT),
            CUDNN_STATUS_SUCCESS);
  int out[4];
  ASSERT_EQ(cudnnGetConvolutionNdForwardOutputDim(conv, x, f, 4, out), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(out[0], 2);
  EXPECT_EQ(out[1], 16);
  EXPECT_EQ(out[2], 3);  // (5 + 2 - 3) / 2 + 1
  EXPECT_EQ(out[3], 3);
  // Compute calls validate their handle before anything else.
  float one = 1, zero = 0;
  EXPECT_EQ(cudnnConvolutionForward(nullptr, &one, x, nullptr, f, nullptr, conv,
                                    CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, nullptr, 0,
                                    &zero, x, nullptr),
            CUDNN_STATUS_BAD_PARAM);
  cudnnDestroyConvolutionDescriptor(conv);
  cudnnDestroyFilterDescriptor(f);
  cudnnDestroyTensorDescriptor(bn);
  cudnnDestroyTensorDescriptor(x);
}

TEST(CudnnCApi, UnimplementedFunctionsAreNotSupported) {
  size_t size = 0;
  EXPECT_EQ(cudnnDropoutGetStatesSize(nullptr, &size), CUDNN_STATUS_NOT_SUPPORTED);
}

}  // namespace

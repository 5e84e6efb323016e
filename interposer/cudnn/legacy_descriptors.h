#pragma once

// The legacy API's descriptors (tensor, filter, convolution, activation), opaque to programs.

#include <cudnn.h>

#include <cstdint>
#include <vector>

struct cudnnTensorStruct {
  cudnnDataType_t data_type = CUDNN_DATA_FLOAT;
  std::vector<int64_t> dims, strides;  // empty until set
};

struct cudnnFilterStruct {
  cudnnDataType_t data_type = CUDNN_DATA_FLOAT;
  cudnnTensorFormat_t format = CUDNN_TENSOR_NCHW;
  std::vector<int64_t> dims;  // [K, C/groups, filter...]
};

struct cudnnConvolutionStruct {
  std::vector<int> pads, strides, dilations;  // one per spatial dimension
  cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
  cudnnDataType_t compute_type = CUDNN_DATA_FLOAT;
  int groups = 1;
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
  cudnnReorderType_t reorder = CUDNN_DEFAULT_REORDER;
};

struct cudnnActivationStruct {
  cudnnActivationMode_t mode = CUDNN_ACTIVATION_RELU;
  cudnnNanPropagation_t nan = CUDNN_NOT_PROPAGATE_NAN;
  double coef = 0, swish_beta = 1;
};

namespace seer::cudnn {

// A tensor descriptor that has been set, else nullptr.
const cudnnTensorStruct* set_tensor(const cudnnTensorStruct* t);
int64_t tensor_bytes(const cudnnTensorStruct* t);  // the elements the dims span (0 when unset)

}  // namespace seer::cudnn

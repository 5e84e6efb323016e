#include "legacy_model.h"

namespace seer::cudnn {

const cudnnTensorStruct* set_tensor(const cudnnTensorStruct* t) {
  return t && !t->dims.empty() ? t : nullptr;
}

int64_t tensor_bytes(const cudnnTensorStruct* t) {
  if (!set_tensor(t)) return 0;
  int64_t n = 1;
  for (int64_t d : t->dims) n *= d;
  return n * element_bytes(t->data_type);
}

namespace legacy {
namespace {

// One memory-bound op named `api`, moving `passes` times the bytes of x plus `extra` bytes.
LibraryOp memory_op(const char* api, const cudnnTensorStruct* x, double passes, double extra) {
  LibraryOp op;
  op.api = api;
  op.gemm = false;
  op.dtype = op.compute = dtype_of(x->data_type);
  op.bytes = passes * static_cast<double>(tensor_bytes(x)) + extra;
  return op;
}

double param_bytes(const cudnnTensorStruct* p, int arrays) {
  return static_cast<double>(arrays) * static_cast<double>(tensor_bytes(p));
}

}  // namespace

std::optional<LibraryOp> batch_norm_forward_training(const cudnnTensorStruct* x,
                                                     const cudnnTensorStruct* z,
                                                     const cudnnTensorStruct* param) {
  if (!set_tensor(x) || !set_tensor(param)) return std::nullopt;
  const double z_pass = set_tensor(z) ? 1 : 0;
  // scale, bias, running mean and variance read and written, saved mean and inverse std written
  return memory_op("cudnnBatchNormalizationForwardTrainingEx", x, 3 + z_pass,
                   param_bytes(param, 8));
}

std::optional<LibraryOp> batch_norm_forward_inference(const cudnnTensorStruct* x,
                                                      const cudnnTensorStruct* param) {
  if (!set_tensor(x) || !set_tensor(param)) return std::nullopt;
  return memory_op("cudnnBatchNormalizationForwardInference", x, 2, param_bytes(param, 4));
}

std::optional<LibraryOp> batch_norm_backward(const cudnnTensorStruct* x,
                                             const cudnnTensorStruct* dz,
                                             const cudnnTensorStruct* param) {
  if (!set_tensor(x) || !set_tensor(param)) return std::nullopt;
  const double dz_pass = set_tensor(dz) ? 1 : 0;
  // scale read, saved mean and inverse std read, dscale and dbias written
  return memory_op("cudnnBatchNormalizationBackwardEx", x, 5 + dz_pass, param_bytes(param, 5));
}

std::optional<LibraryOp> convolution(ConvPass pass, const cudnnTensorStruct* x,
                                     const cudnnFilterStruct* w, const cudnnConvolutionStruct* c,
                                     const cudnnTensorStruct* y) {
  if (!set_tensor(x) || !set_tensor(y) || !w || w->dims.empty() || !c || c->pads.empty()) {
    return std::nullopt;
  }
  if (x->dims.size() != w->dims.size() || x->dims.size() != y->dims.size() ||
      c->pads.size() + 2 != x->dims.size()) {
    return std::nullopt;
  }
  const int dtype = dtype_of(pass == ConvPass::kBackwardData ? y->data_type : x->data_type);
  const int pipe = conv_math_pipe(dtype, c->math != CUDNN_FMA_MATH);
  return conv_op(pass, x->dims, w->dims, y->dims, pipe, pipe);
}

std::optional<LibraryOp> convolution_bias_activation(const cudnnTensorStruct* x,
                                                     const cudnnFilterStruct* w,
                                                     const cudnnConvolutionStruct* c,
                                                     const cudnnTensorStruct* y) {
  std::optional<LibraryOp> op = convolution(ConvPass::kForward, x, w, c, y);
  if (op) op->api = "cudnn conv fwd+bias+act";
  return op;
}

std::optional<LibraryOp> convolution_backward_bias(const cudnnTensorStruct* dy,
                                                   const cudnnTensorStruct* db) {
  if (!set_tensor(dy) || !set_tensor(db)) return std::nullopt;
  return memory_op("cudnnConvolutionBackwardBias", dy, 1, static_cast<double>(tensor_bytes(db)));
}

std::optional<LibraryOp> add_tensor(const cudnnTensorStruct* a, const cudnnTensorStruct* c) {
  if (!set_tensor(a) || !set_tensor(c)) return std::nullopt;
  return memory_op("cudnnAddTensor", c, 2, static_cast<double>(tensor_bytes(a)));
}

}  // namespace legacy
}  // namespace seer::cudnn

// cuDNN's legacy compute calls as library calls (batch norm forward training/inference and
// backward, plain and Ex; the pre-graph convolution API: forward, bias+activation forward,
// backward data, backward filter, backward bias; cudnnAddTensor): seer profile preloads the
// recorder, so these definitions come before cuDNN's own. Each reads the call's descriptors back
// through the real cuDNN's getters into the structs of Seer's cuDNN and names the call with the
// same code Seer's cuDNN times it by (interposer/cudnn/legacy_model.h, op_key.h), marks the
// kernels cuDNN launches for it with an external correlation id (recorder.h) and calls cuDNN.
// A call made from inside another (a plain batch norm entry point calling its Ex form) is part of
// the outer one.

#include <cudnn.h>

#include <cstdint>
#include <optional>

#include "legacy_model.h"
#include "op_key.h"
#include "real_cudnn.h"
#include "recorder.h"

#define SEER_PROFILER_API extern "C" __attribute__((visibility("default")))

namespace {

namespace legacy = seer::cudnn::legacy;
using seer::cudnn::ConvPass;
using seer::cudnn::LibraryOp;
using seer::profiler::real_cudnn;

thread_local int t_depth = 0;  // legacy calls the thread is inside

// Marks one outermost legacy call with the op `name()` gives (nothing when it gives none).
class Call {
 public:
  template <typename Name>
  explicit Call(Name name) {
    if (t_depth++ > 0) return;
    if (const std::optional<LibraryOp> op = name()) {
      id_ = seer::profiler::begin_library_call(seer::cudnn::op_label(*op),
                                               seer::cudnn::op_params(*op));
    }
  }
  ~Call() {
    --t_depth;
    seer::profiler::end_library_call(id_);
  }
  Call(const Call&) = delete;
  Call& operator=(const Call&) = delete;

 private:
  uint64_t id_ = 0;
};

// A real cuDNN descriptor's contents, as Seer's cuDNN stores them.
std::optional<cudnnTensorStruct> tensor(cudnnTensorDescriptor_t d) {
  static auto get = real_cudnn<decltype(&cudnnGetTensorNdDescriptor)>("cudnnGetTensorNdDescriptor");
  int dims[CUDNN_DIM_MAX] = {}, strides[CUDNN_DIM_MAX] = {}, n = 0;
  cudnnTensorStruct t;
  if (!d || !get || get(d, CUDNN_DIM_MAX, &t.data_type, &n, dims, strides) != 0 || n < 1 ||
      n > CUDNN_DIM_MAX) {
    return std::nullopt;
  }
  t.dims.assign(dims, dims + n);
  t.strides.assign(strides, strides + n);
  return t;
}

std::optional<cudnnFilterStruct> filter(cudnnFilterDescriptor_t d) {
  static auto get = real_cudnn<decltype(&cudnnGetFilterNdDescriptor)>("cudnnGetFilterNdDescriptor");
  int dims[CUDNN_DIM_MAX] = {}, n = 0;
  cudnnFilterStruct f;
  if (!d || !get || get(d, CUDNN_DIM_MAX, &f.data_type, &f.format, &n, dims) != 0 || n < 1 ||
      n > CUDNN_DIM_MAX) {
    return std::nullopt;
  }
  f.dims.assign(dims, dims + n);
  return f;
}

std::optional<cudnnConvolutionStruct> convolution(cudnnConvolutionDescriptor_t d) {
  static auto get =
      real_cudnn<decltype(&cudnnGetConvolutionNdDescriptor)>("cudnnGetConvolutionNdDescriptor");
  static auto math =
      real_cudnn<decltype(&cudnnGetConvolutionMathType)>("cudnnGetConvolutionMathType");
  static auto groups =
      real_cudnn<decltype(&cudnnGetConvolutionGroupCount)>("cudnnGetConvolutionGroupCount");
  constexpr int kMax = CUDNN_DIM_MAX - 2;
  int pads[kMax] = {}, strides[kMax] = {}, dilations[kMax] = {}, n = 0;
  cudnnConvolutionStruct c;
  if (!d || !get || get(d, kMax, &n, pads, strides, dilations, &c.mode, &c.compute_type) != 0 ||
      n < 1 || n > kMax) {
    return std::nullopt;
  }
  c.pads.assign(pads, pads + n);
  c.strides.assign(strides, strides + n);
  c.dilations.assign(dilations, dilations + n);
  if (math) math(d, &c.math);
  if (groups) groups(d, &c.groups);
  return c;
}

template <typename T>
const T* ptr(const std::optional<T>& v) {
  return v ? &*v : nullptr;
}

}  // namespace

SEER_PROFILER_API cudnnStatus_t cudnnBatchNormalizationForwardTrainingEx(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, cudnnBatchNormOps_t ops, const void* alpha,
    const void* beta, const cudnnTensorDescriptor_t x_desc, const void* x,
    const cudnnTensorDescriptor_t z_desc, const void* z, const cudnnTensorDescriptor_t y_desc,
    void* y, const cudnnTensorDescriptor_t param_desc, const void* scale, const void* bias,
    double factor, void* running_mean, void* running_var, double epsilon, void* save_mean,
    void* save_inv_var, cudnnActivationDescriptor_t activation, void* workspace,
    size_t workspace_bytes, void* reserve, size_t reserve_bytes) {
  static auto real = real_cudnn<decltype(&cudnnBatchNormalizationForwardTrainingEx)>(
      "cudnnBatchNormalizationForwardTrainingEx");
  if (!real) return CUDNN_STATUS_NOT_INITIALIZED;
  Call call([&] {
    return legacy::batch_norm_forward_training(
        ptr(tensor(x_desc)), z ? ptr(tensor(z_desc)) : nullptr, ptr(tensor(param_desc)));
  });
  return real(handle, mode, ops, alpha, beta, x_desc, x, z_desc, z, y_desc, y, param_desc, scale,
              bias, factor, running_mean, running_var, epsilon, save_mean, save_inv_var, activation,
              workspace, workspace_bytes, reserve, reserve_bytes);
}

SEER_PROFILER_API cudnnStatus_t cudnnBatchNormalizationForwardTraining(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, const void* alpha, const void* beta,
    const cudnnTensorDescriptor_t x_desc, const void* x, const cudnnTensorDescriptor_t y_desc,
    void* y, const cudnnTensorDescriptor_t param_desc, const void* scale, const void* bias,
    double factor, void* running_mean, void* running_var, double epsilon, void* save_mean,
    void* save_inv_var) {
  static auto real = real_cudnn<decltype(&cudnnBatchNormalizationForwardTraining)>(
      "cudnnBatchNormalizationForwardTraining");
  if (!real) return CUDNN_STATUS_NOT_INITIALIZED;
  Call call([&] {
    return legacy::batch_norm_forward_training(ptr(tensor(x_desc)), nullptr,
                                               ptr(tensor(param_desc)));
  });
  return real(handle, mode, alpha, beta, x_desc, x, y_desc, y, param_desc, scale, bias, factor,
              running_mean, running_var, epsilon, save_mean, save_inv_var);
}

SEER_PROFILER_API cudnnStatus_t cudnnBatchNormalizationForwardInference(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, const void* alpha, const void* beta,
    const cudnnTensorDescriptor_t x_desc, const void* x, const cudnnTensorDescriptor_t y_desc,
    void* y, const cudnnTensorDescriptor_t param_desc, const void* scale, const void* bias,
    const void* mean, const void* variance, double epsilon) {
  static auto real = real_cudnn<decltype(&cudnnBatchNormalizationForwardInference)>(
      "cudnnBatchNormalizationForwardInference");
  if (!real) return CUDNN_STATUS_NOT_INITIALIZED;
  Call call([&] {
    return legacy::batch_norm_forward_inference(ptr(tensor(x_desc)), ptr(tensor(param_desc)));
  });
  return real(handle, mode, alpha, beta, x_desc, x, y_desc, y, param_desc, scale, bias, mean,
              variance, epsilon);
}

SEER_PROFILER_API cudnnStatus_t cudnnBatchNormalizationBackwardEx(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, cudnnBatchNormOps_t ops,
    const void* alpha_data, const void* beta_data, const void* alpha_param, const void* beta_param,
    const cudnnTensorDescriptor_t x_desc, const void* x, const cudnnTensorDescriptor_t y_desc,
    const void* y, const cudnnTensorDescriptor_t dy_desc, const void* dy,
    const cudnnTensorDescriptor_t dz_desc, void* dz, const cudnnTensorDescriptor_t dx_desc,
    void* dx, const cudnnTensorDescriptor_t param_desc, const void* scale, const void* bias,
    void* dscale, void* dbias, double epsilon, const void* saved_mean, const void* saved_inv_var,
    cudnnActivationDescriptor_t activation, void* workspace, size_t workspace_bytes, void* reserve,
    size_t reserve_bytes) {
  static auto real =
      real_cudnn<decltype(&cudnnBatchNormalizationBackwardEx)>("cudnnBatchNormalizationBackwardEx");
  if (!real) return CUDNN_STATUS_NOT_INITIALIZED;
  Call call([&] {
    return legacy::batch_norm_backward(ptr(tensor(x_desc)), dz ? ptr(tensor(dz_desc)) : nullptr,
                                       ptr(tensor(param_desc)));
  });
  return real(handle, mode, ops, alpha_data, beta_data, alpha_param, beta_param, x_desc, x, y_desc,
              y, dy_desc, dy, dz_desc, dz, dx_desc, dx, param_desc, scale, bias, dscale, dbias,
              epsilon, saved_mean, saved_inv_var, activation, workspace, workspace_bytes, reserve,
              reserve_bytes);
}

SEER_PROFILER_API cudnnStatus_t cudnnBatchNormalizationBackward(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, const void* alpha_data, const void* beta_data,
    const void* alpha_param, const void* beta_param, const cudnnTensorDescriptor_t x_desc,
    const void* x, const cudnnTensorDescriptor_t dy_desc, const void* dy,
    const cudnnTensorDescriptor_t dx_desc, void* dx, const cudnnTensorDescriptor_t param_desc,
    const void* scale, void* dscale, void* dbias, double epsilon, const void* saved_mean,
    const void* saved_inv_var) {
  static auto real =
      real_cudnn<decltype(&cudnnBatchNormalizationBackward)>("cudnnBatchNormalizationBackward");
  if (!real) return CUDNN_STATUS_NOT_INITIALIZED;
  Call call([&] {
    return legacy::batch_norm_backward(ptr(tensor(x_desc)), nullptr, ptr(tensor(param_desc)));
  });
  return real(handle, mode, alpha_data, beta_data, alpha_param, beta_param, x_desc, x, dy_desc, dy,
              dx_desc, dx, param_desc, scale, dscale, dbias, epsilon, saved_mean, saved_inv_var);
}

SEER_PROFILER_API cudnnStatus_t cudnnConvolutionForward(
    cudnnHandle_t handle, const void* alpha, const cudnnTensorDescriptor_t x_desc, const void* x,
    const cudnnFilterDescriptor_t w_desc, const void* w, const cudnnConvolutionDescriptor_t conv,
    cudnnConvolutionFwdAlgo_t algo, void* workspace, size_t workspace_bytes, const void* beta,
    const cudnnTensorDescriptor_t y_desc, void* y) {
  static auto real = real_cudnn<decltype(&cudnnConvolutionForward)>("cudnnConvolutionForward");
  if (!real) return CUDNN_STATUS_NOT_INITIALIZED;
  Call call([&] {
    return legacy::convolution(ConvPass::kForward, ptr(tensor(x_desc)), ptr(filter(w_desc)),
                               ptr(convolution(conv)), ptr(tensor(y_desc)));
  });
  return real(handle, alpha, x_desc, x, w_desc, w, conv, algo, workspace, workspace_bytes, beta,
              y_desc, y);
}

SEER_PROFILER_API cudnnStatus_t cudnnConvolutionBiasActivationForward(
    cudnnHandle_t handle, const void* alpha1, const cudnnTensorDescriptor_t x_desc, const void* x,
    const cudnnFilterDescriptor_t w_desc, const void* w, const cudnnConvolutionDescriptor_t conv,
    cudnnConvolutionFwdAlgo_t algo, void* workspace, size_t workspace_bytes, const void* alpha2,
    const cudnnTensorDescriptor_t z_desc, const void* z, const cudnnTensorDescriptor_t bias_desc,
    const void* bias, const cudnnActivationDescriptor_t activation,
    const cudnnTensorDescriptor_t y_desc, void* y) {
  static auto real = real_cudnn<decltype(&cudnnConvolutionBiasActivationForward)>(
      "cudnnConvolutionBiasActivationForward");
  if (!real) return CUDNN_STATUS_NOT_INITIALIZED;
  Call call([&] {
    return legacy::convolution_bias_activation(ptr(tensor(x_desc)), ptr(filter(w_desc)),
                                               ptr(convolution(conv)), ptr(tensor(y_desc)));
  });
  return real(handle, alpha1, x_desc, x, w_desc, w, conv, algo, workspace, workspace_bytes, alpha2,
              z_desc, z, bias_desc, bias, activation, y_desc, y);
}

SEER_PROFILER_API cudnnStatus_t cudnnConvolutionBackwardData(
    cudnnHandle_t handle, const void* alpha, const cudnnFilterDescriptor_t w_desc, const void* w,
    const cudnnTensorDescriptor_t dy_desc, const void* dy, const cudnnConvolutionDescriptor_t conv,
    cudnnConvolutionBwdDataAlgo_t algo, void* workspace, size_t workspace_bytes, const void* beta,
    const cudnnTensorDescriptor_t dx_desc, void* dx) {
  static auto real =
      real_cudnn<decltype(&cudnnConvolutionBackwardData)>("cudnnConvolutionBackwardData");
  if (!real) return CUDNN_STATUS_NOT_INITIALIZED;
  Call call([&] {
    return legacy::convolution(ConvPass::kBackwardData, ptr(tensor(dx_desc)), ptr(filter(w_desc)),
                               ptr(convolution(conv)), ptr(tensor(dy_desc)));
  });
  return real(handle, alpha, w_desc, w, dy_desc, dy, conv, algo, workspace, workspace_bytes, beta,
              dx_desc, dx);
}

SEER_PROFILER_API cudnnStatus_t cudnnConvolutionBackwardFilter(
    cudnnHandle_t handle, const void* alpha, const cudnnTensorDescriptor_t x_desc, const void* x,
    const cudnnTensorDescriptor_t dy_desc, const void* dy, const cudnnConvolutionDescriptor_t conv,
    cudnnConvolutionBwdFilterAlgo_t algo, void* workspace, size_t workspace_bytes, const void* beta,
    const cudnnFilterDescriptor_t dw_desc, void* dw) {
  static auto real =
      real_cudnn<decltype(&cudnnConvolutionBackwardFilter)>("cudnnConvolutionBackwardFilter");
  if (!real) return CUDNN_STATUS_NOT_INITIALIZED;
  Call call([&] {
    return legacy::convolution(ConvPass::kBackwardFilter, ptr(tensor(x_desc)), ptr(filter(dw_desc)),
                               ptr(convolution(conv)), ptr(tensor(dy_desc)));
  });
  return real(handle, alpha, x_desc, x, dy_desc, dy, conv, algo, workspace, workspace_bytes, beta,
              dw_desc, dw);
}

SEER_PROFILER_API cudnnStatus_t cudnnConvolutionBackwardBias(
    cudnnHandle_t handle, const void* alpha, const cudnnTensorDescriptor_t dy_desc, const void* dy,
    const void* beta, const cudnnTensorDescriptor_t db_desc, void* db) {
  static auto real =
      real_cudnn<decltype(&cudnnConvolutionBackwardBias)>("cudnnConvolutionBackwardBias");
  if (!real) return CUDNN_STATUS_NOT_INITIALIZED;
  Call call([&] {
    return legacy::convolution_backward_bias(ptr(tensor(dy_desc)), ptr(tensor(db_desc)));
  });
  return real(handle, alpha, dy_desc, dy, beta, db_desc, db);
}

SEER_PROFILER_API cudnnStatus_t cudnnAddTensor(cudnnHandle_t handle, const void* alpha,
                                               const cudnnTensorDescriptor_t a_desc, const void* a,
                                               const void* beta,
                                               const cudnnTensorDescriptor_t c_desc, void* c) {
  static auto real = real_cudnn<decltype(&cudnnAddTensor)>("cudnnAddTensor");
  if (!real) return CUDNN_STATUS_NOT_INITIALIZED;
  Call call([&] { return legacy::add_tensor(ptr(tensor(a_desc)), ptr(tensor(c_desc))); });
  return real(handle, alpha, a_desc, a, beta, c_desc, c);
}

// The legacy API's compute calls PyTorch reaches: batch normalization (its only cuDNN batch
// norm path), and the convolution, bias and add calls of the pre-graph API. Each call becomes
// timed ops on the handle's stream; see README.md for the model.

#include <algorithm>
#include <optional>
#include <vector>

#include "graph_model.h"
#include "handle.h"
#include "legacy_descriptors.h"
#include "legacy_model.h"
#include "submit.h"
#include "types.h"

using namespace seer::cudnn;

namespace {

// Enqueues the op legacy_model.h names for the call.
cudnnStatus_t run(cudnnHandle_t handle, const std::optional<LibraryOp>& op) {
  cudnnContext* h = live(handle);
  if (!h) return fail(CUDNN_STATUS_BAD_PARAM, "not a live cuDNN handle");
  if (!op) return fail(CUDNN_STATUS_BAD_PARAM, "descriptors not set");
  return enqueue(h->stream, {*op});
}

template <typename Perf, typename Algo>
cudnnStatus_t one_algorithm(Algo algo, const cudnnConvolutionStruct* c, int requested,
                            int* returned, Perf* perf) {
  if (!c || requested < 1 || !returned || !perf) {
    return fail(CUDNN_STATUS_BAD_PARAM, "convolution algorithm query: bad argument");
  }
  *perf = Perf{};
  perf->algo = algo;
  perf->status = CUDNN_STATUS_SUCCESS;
  perf->time = 0.0f;
  perf->memory = 0;
  perf->determinism = CUDNN_DETERMINISTIC;
  perf->mathType = c->math;
  *returned = 1;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t no_workspace(cudnnHandle_t handle, size_t* size) {
  if (!live(handle) || !size) return fail(CUDNN_STATUS_BAD_PARAM, "workspace query: bad argument");
  *size = 0;
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace

// ---- batch normalization (the bytes each pass moves: legacy_model.h)

SEER_CUDNN_API cudnnStatus_t cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(
    cudnnHandle_t handle, cudnnBatchNormMode_t, cudnnBatchNormOps_t, const cudnnTensorDescriptor_t,
    const cudnnTensorDescriptor_t, const cudnnTensorDescriptor_t, const cudnnTensorDescriptor_t,
    const cudnnActivationDescriptor_t, size_t* size) {
  return no_workspace(handle, size);
}

SEER_CUDNN_API cudnnStatus_t cudnnGetBatchNormalizationBackwardExWorkspaceSize(
    cudnnHandle_t handle, cudnnBatchNormMode_t, cudnnBatchNormOps_t, const cudnnTensorDescriptor_t,
    const cudnnTensorDescriptor_t, const cudnnTensorDescriptor_t, const cudnnTensorDescriptor_t,
    const cudnnTensorDescriptor_t, const cudnnTensorDescriptor_t, const cudnnActivationDescriptor_t,
    size_t* size) {
  return no_workspace(handle, size);
}

SEER_CUDNN_API cudnnStatus_t cudnnGetBatchNormalizationTrainingExReserveSpaceSize(
    cudnnHandle_t handle, cudnnBatchNormMode_t, cudnnBatchNormOps_t,
    const cudnnActivationDescriptor_t, const cudnnTensorDescriptor_t, size_t* size) {
  return no_workspace(handle, size);
}

SEER_CUDNN_API cudnnStatus_t cudnnBatchNormalizationForwardTrainingEx(
    cudnnHandle_t handle, cudnnBatchNormMode_t, cudnnBatchNormOps_t, const void* alpha,
    const void* beta, const cudnnTensorDescriptor_t x_desc, const void*,
    const cudnnTensorDescriptor_t z_desc, const void* z, const cudnnTensorDescriptor_t y_desc,
    void*, const cudnnTensorDescriptor_t param_desc, const void*, const void*, double, void*, void*,
    double epsilon, void*, void*, cudnnActivationDescriptor_t, void*, size_t, void*, size_t) {
  if (!alpha || !beta || !set_tensor(x_desc) || !set_tensor(y_desc) || !set_tensor(param_desc) ||
      epsilon < CUDNN_BN_MIN_EPSILON) {
    return fail(CUDNN_STATUS_BAD_PARAM, "cudnnBatchNormalizationForwardTrainingEx: bad argument");
  }
  return run(handle, legacy::batch_norm_forward_training(x_desc, z ? z_desc : nullptr, param_desc));
}

SEER_CUDNN_API cudnnStatus_t cudnnBatchNormalizationForwardTraining(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, const void* alpha, const void* beta,
    const cudnnTensorDescriptor_t x_desc, const void* x, const cudnnTensorDescriptor_t y_desc,
    void* y, const cudnnTensorDescriptor_t param_desc, const void* scale, const void* bias,
    double factor, void* running_mean, void* running_var, double epsilon, void* save_mean,
    void* save_inv_var) {
  return cudnnBatchNormalizationForwardTrainingEx(
      handle, mode, CUDNN_BATCHNORM_OPS_BN, alpha, beta, x_desc, x, nullptr, nullptr, y_desc, y,
      param_desc, scale, bias, factor, running_mean, running_var, epsilon, save_mean, save_inv_var,
      nullptr, nullptr, 0, nullptr, 0);
}

SEER_CUDNN_API cudnnStatus_t cudnnBatchNormalizationForwardInference(
    cudnnHandle_t handle, cudnnBatchNormMode_t, const void* alpha, const void* beta,
    const cudnnTensorDescriptor_t x_desc, const void*, const cudnnTensorDescriptor_t y_desc, void*,
    const cudnnTensorDescriptor_t param_desc, const void*, const void*, const void*, const void*,
    double epsilon) {
  if (!alpha || !beta || !set_tensor(x_desc) || !set_tensor(y_desc) || !set_tensor(param_desc) ||
      epsilon < CUDNN_BN_MIN_EPSILON) {
    return fail(CUDNN_STATUS_BAD_PARAM, "cudnnBatchNormalizationForwardInference: bad argument");
  }
  return run(handle, legacy::batch_norm_forward_inference(x_desc, param_desc));
}

SEER_CUDNN_API cudnnStatus_t cudnnBatchNormalizationBackwardEx(
    cudnnHandle_t handle, cudnnBatchNormMode_t, cudnnBatchNormOps_t, const void* alpha_data,
    const void* beta_data, const void* alpha_param, const void* beta_param,
    const cudnnTensorDescriptor_t x_desc, const void*, const cudnnTensorDescriptor_t, const void*,
    const cudnnTensorDescriptor_t dy_desc, const void*, const cudnnTensorDescriptor_t dz_desc,
    void* dz, const cudnnTensorDescriptor_t dx_desc, void*,
    const cudnnTensorDescriptor_t param_desc, const void*, const void*, void*, void*,
    double epsilon, const void*, const void*, cudnnActivationDescriptor_t, void*, size_t, void*,
    size_t) {
  if (!alpha_data || !beta_data || !alpha_param || !beta_param || !set_tensor(x_desc) ||
      !set_tensor(dy_desc) || !set_tensor(dx_desc) || !set_tensor(param_desc) ||
      epsilon < CUDNN_BN_MIN_EPSILON) {
    return fail(CUDNN_STATUS_BAD_PARAM, "cudnnBatchNormalizationBackwardEx: bad argument");
  }
  return run(handle, legacy::batch_norm_backward(x_desc, dz ? dz_desc : nullptr, param_desc));
}

SEER_CUDNN_API cudnnStatus_t cudnnBatchNormalizationBackward(
    cudnnHandle_t handle, cudnnBatchNormMode_t mode, const void* alpha_data, const void* beta_data,
    const void* alpha_param, const void* beta_param, const cudnnTensorDescriptor_t x_desc,
    const void* x, const cudnnTensorDescriptor_t dy_desc, const void* dy,
    const cudnnTensorDescriptor_t dx_desc, void* dx, const cudnnTensorDescriptor_t param_desc,
    const void* scale, void* dscale, void* dbias, double epsilon, const void* saved_mean,
    const void* saved_inv_var) {
  return cudnnBatchNormalizationBackwardEx(
      handle, mode, CUDNN_BATCHNORM_OPS_BN, alpha_data, beta_data, alpha_param, beta_param, x_desc,
      x, nullptr, nullptr, dy_desc, dy, nullptr, nullptr, dx_desc, dx, param_desc, scale, nullptr,
      dscale, dbias, epsilon, saved_mean, saved_inv_var, nullptr, nullptr, 0, nullptr, 0);
}

// ---- convolutions (pre-graph API): one algorithm, implicit precomputed GEMM, no workspace

SEER_CUDNN_API cudnnStatus_t cudnnGetConvolutionForwardAlgorithm_v7(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t, const cudnnFilterDescriptor_t,
    const cudnnConvolutionDescriptor_t c, const cudnnTensorDescriptor_t, const int requested,
    int* returned, cudnnConvolutionFwdAlgoPerf_t* perf) {
  if (!live(handle)) return fail(CUDNN_STATUS_BAD_PARAM, "not a live cuDNN handle");
  return one_algorithm(CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, c, requested, returned,
                       perf);
}

SEER_CUDNN_API cudnnStatus_t cudnnGetConvolutionBackwardDataAlgorithm_v7(
    cudnnHandle_t handle, const cudnnFilterDescriptor_t, const cudnnTensorDescriptor_t,
    const cudnnConvolutionDescriptor_t c, const cudnnTensorDescriptor_t, const int requested,
    int* returned, cudnnConvolutionBwdDataAlgoPerf_t* perf) {
  if (!live(handle)) return fail(CUDNN_STATUS_BAD_PARAM, "not a live cuDNN handle");
  return one_algorithm(CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, c, requested, returned, perf);
}

SEER_CUDNN_API cudnnStatus_t cudnnGetConvolutionBackwardFilterAlgorithm_v7(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t, const cudnnTensorDescriptor_t,
    const cudnnConvolutionDescriptor_t c, const cudnnFilterDescriptor_t, const int requested,
    int* returned, cudnnConvolutionBwdFilterAlgoPerf_t* perf) {
  if (!live(handle)) return fail(CUDNN_STATUS_BAD_PARAM, "not a live cuDNN handle");
  return one_algorithm(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, c, requested, returned, perf);
}

// Find* would time every algorithm on the device; Seer reports its one algorithm untimed.
SEER_CUDNN_API cudnnStatus_t cudnnFindConvolutionForwardAlgorithmEx(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t x, const void*,
    const cudnnFilterDescriptor_t w, const void*, const cudnnConvolutionDescriptor_t c,
    const cudnnTensorDescriptor_t y, void*, const int requested, int* returned,
    cudnnConvolutionFwdAlgoPerf_t* perf, void*, size_t) {
  return cudnnGetConvolutionForwardAlgorithm_v7(handle, x, w, c, y, requested, returned, perf);
}

SEER_CUDNN_API cudnnStatus_t cudnnFindConvolutionBackwardDataAlgorithmEx(
    cudnnHandle_t handle, const cudnnFilterDescriptor_t w, const void*,
    const cudnnTensorDescriptor_t dy, const void*, const cudnnConvolutionDescriptor_t c,
    const cudnnTensorDescriptor_t dx, void*, const int requested, int* returned,
    cudnnConvolutionBwdDataAlgoPerf_t* perf, void*, size_t) {
  return cudnnGetConvolutionBackwardDataAlgorithm_v7(handle, w, dy, c, dx, requested, returned,
                                                     perf);
}

SEER_CUDNN_API cudnnStatus_t cudnnFindConvolutionBackwardFilterAlgorithmEx(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t x, const void*,
    const cudnnTensorDescriptor_t dy, const void*, const cudnnConvolutionDescriptor_t c,
    const cudnnFilterDescriptor_t dw, void*, const int requested, int* returned,
    cudnnConvolutionBwdFilterAlgoPerf_t* perf, void*, size_t) {
  return cudnnGetConvolutionBackwardFilterAlgorithm_v7(handle, x, dy, c, dw, requested, returned,
                                                       perf);
}

SEER_CUDNN_API cudnnStatus_t cudnnGetConvolutionForwardWorkspaceSize(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t, const cudnnFilterDescriptor_t,
    const cudnnConvolutionDescriptor_t, const cudnnTensorDescriptor_t, cudnnConvolutionFwdAlgo_t,
    size_t* size) {
  return no_workspace(handle, size);
}

SEER_CUDNN_API cudnnStatus_t cudnnGetConvolutionBackwardDataWorkspaceSize(
    cudnnHandle_t handle, const cudnnFilterDescriptor_t, const cudnnTensorDescriptor_t,
    const cudnnConvolutionDescriptor_t, const cudnnTensorDescriptor_t,
    cudnnConvolutionBwdDataAlgo_t, size_t* size) {
  return no_workspace(handle, size);
}

SEER_CUDNN_API cudnnStatus_t cudnnGetConvolutionBackwardFilterWorkspaceSize(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t, const cudnnTensorDescriptor_t,
    const cudnnConvolutionDescriptor_t, const cudnnFilterDescriptor_t,
    cudnnConvolutionBwdFilterAlgo_t, size_t* size) {
  return no_workspace(handle, size);
}

SEER_CUDNN_API cudnnStatus_t cudnnConvolutionForward(cudnnHandle_t handle, const void* alpha,
                                                     const cudnnTensorDescriptor_t x, const void*,
                                                     const cudnnFilterDescriptor_t w, const void*,
                                                     const cudnnConvolutionDescriptor_t c,
                                                     cudnnConvolutionFwdAlgo_t, void*, size_t,
                                                     const void* beta,
                                                     const cudnnTensorDescriptor_t y, void*) {
  std::optional<LibraryOp> op = legacy::convolution(ConvPass::kForward, x, w, c, y);
  if (!alpha || !beta || !op) {
    return fail(CUDNN_STATUS_BAD_PARAM, "cudnnConvolutionForward: bad argument");
  }
  return run(handle, op);
}

SEER_CUDNN_API cudnnStatus_t cudnnConvolutionBiasActivationForward(
    cudnnHandle_t handle, const void* alpha1, const cudnnTensorDescriptor_t x, const void*,
    const cudnnFilterDescriptor_t w, const void*, const cudnnConvolutionDescriptor_t c,
    cudnnConvolutionFwdAlgo_t, void*, size_t, const void* alpha2, const cudnnTensorDescriptor_t,
    const void*, const cudnnTensorDescriptor_t bias, const void*, const cudnnActivationDescriptor_t,
    const cudnnTensorDescriptor_t y, void*) {
  std::optional<LibraryOp> op = legacy::convolution_bias_activation(x, w, c, y);
  if (!alpha1 || !alpha2 || !set_tensor(bias) || !op) {
    return fail(CUDNN_STATUS_BAD_PARAM, "cudnnConvolutionBiasActivationForward: bad argument");
  }
  return run(handle, op);
}

SEER_CUDNN_API cudnnStatus_t cudnnConvolutionBackwardData(
    cudnnHandle_t handle, const void* alpha, const cudnnFilterDescriptor_t w, const void*,
    const cudnnTensorDescriptor_t dy, const void*, const cudnnConvolutionDescriptor_t c,
    cudnnConvolutionBwdDataAlgo_t, void*, size_t, const void* beta,
    const cudnnTensorDescriptor_t dx, void*) {
  std::optional<LibraryOp> op = legacy::convolution(ConvPass::kBackwardData, dx, w, c, dy);
  if (!alpha || !beta || !op) {
    return fail(CUDNN_STATUS_BAD_PARAM, "cudnnConvolutionBackwardData: bad argument");
  }
  return run(handle, op);
}

SEER_CUDNN_API cudnnStatus_t cudnnConvolutionBackwardFilter(
    cudnnHandle_t handle, const void* alpha, const cudnnTensorDescriptor_t x, const void*,
    const cudnnTensorDescriptor_t dy, const void*, const cudnnConvolutionDescriptor_t c,
    cudnnConvolutionBwdFilterAlgo_t, void*, size_t, const void* beta,
    const cudnnFilterDescriptor_t dw, void*) {
  std::optional<LibraryOp> op = legacy::convolution(ConvPass::kBackwardFilter, x, dw, c, dy);
  if (!alpha || !beta || !op) {
    return fail(CUDNN_STATUS_BAD_PARAM, "cudnnConvolutionBackwardFilter: bad argument");
  }
  return run(handle, op);
}

SEER_CUDNN_API cudnnStatus_t cudnnConvolutionBackwardBias(cudnnHandle_t handle, const void* alpha,
                                                          const cudnnTensorDescriptor_t dy,
                                                          const void*, const void* beta,
                                                          const cudnnTensorDescriptor_t db, void*) {
  if (!alpha || !beta || !set_tensor(dy) || !set_tensor(db)) {
    return fail(CUDNN_STATUS_BAD_PARAM, "cudnnConvolutionBackwardBias: bad argument");
  }
  return run(handle, legacy::convolution_backward_bias(dy, db));
}

SEER_CUDNN_API cudnnStatus_t cudnnAddTensor(cudnnHandle_t handle, const void* alpha,
                                            const cudnnTensorDescriptor_t a, const void*,
                                            const void* beta, const cudnnTensorDescriptor_t c,
                                            void*) {
  if (!alpha || !beta || !set_tensor(a) || !set_tensor(c)) {
    return fail(CUDNN_STATUS_BAD_PARAM, "cudnnAddTensor: bad argument");
  }
  return run(handle, legacy::add_tensor(a, c));
}

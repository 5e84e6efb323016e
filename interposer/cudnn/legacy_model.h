#pragma once

// The ops Seer's cuDNN times for the legacy API's compute calls (batch norm, the pre-graph
// convolution API, the bias gradient, cudnnAddTensor), from the descriptors' contents: pure
// functions shared by legacy_ops.cpp and by seer profile's recorder (interposer/profiler), which
// reads a real cuDNN's descriptors into the same structs and must name its calls exactly as the
// session names Seer's. Each op carries its label's API name; nothing when a descriptor it needs
// is unset or the shapes disagree.

#include <optional>

#include "graph_model.h"
#include "legacy_descriptors.h"
#include "types.h"

namespace seer::cudnn::legacy {

// Batch norm. Training forward: a statistics pass over x, then a pass reading x and writing y
// (3 x |x|); inference: one pass (2 x |x|); backward: x and dy read by the reduction pass and
// again by the dx pass, dx written (5 x |x|). An optional z (dz) adds one pass; the per-channel
// arrays (of `param`'s shape) are counted too. `z`/`dz`: nullptr when the call has none.
std::optional<LibraryOp> batch_norm_forward_training(const cudnnTensorStruct* x,
                                                     const cudnnTensorStruct* z,
                                                     const cudnnTensorStruct* param);
std::optional<LibraryOp> batch_norm_forward_inference(const cudnnTensorStruct* x,
                                                      const cudnnTensorStruct* param);
std::optional<LibraryOp> batch_norm_backward(const cudnnTensorStruct* x,
                                             const cudnnTensorStruct* dz,
                                             const cudnnTensorStruct* param);

// A convolution as an implicit GEMM (graph_model.h conv_op) in cuDNN's logical order: for the
// backward data pass `x` is dx and `y` is dy; for backward filter `w` is dw.
std::optional<LibraryOp> convolution(ConvPass pass, const cudnnTensorStruct* x,
                                     const cudnnFilterStruct* w, const cudnnConvolutionStruct* c,
                                     const cudnnTensorStruct* y);
// cudnnConvolutionBiasActivationForward: the forward convolution, named apart.
std::optional<LibraryOp> convolution_bias_activation(const cudnnTensorStruct* x,
                                                     const cudnnFilterStruct* w,
                                                     const cudnnConvolutionStruct* c,
                                                     const cudnnTensorStruct* y);
// db = sum of dy over everything but the channels: dy read, db written.
std::optional<LibraryOp> convolution_backward_bias(const cudnnTensorStruct* dy,
                                                   const cudnnTensorStruct* db);
// C = alpha A + beta C: A and C read, C written.
std::optional<LibraryOp> add_tensor(const cudnnTensorStruct* a, const cudnnTensorStruct* c);

}  // namespace seer::cudnn::legacy

#pragma once

// What an operation graph costs: the LibraryOps one execution of its plan enqueues, and the
// workspace the plan asks for. See README.md ("Timing model") for the model and its basis.

#include <cstdint>
#include <optional>
#include <vector>

#include "descriptor.h"
#include "types.h"

namespace seer::cudnn {

struct PlanModel {
  std::vector<LibraryOp> ops;
  int64_t workspace = 0;
};

// A finalized backend tensor descriptor, read back.
struct Tensor {
  std::vector<int64_t> dims, strides;
  cudnnDataType_t data_type = CUDNN_DATA_FLOAT;
  int64_t uid = 0;
  bool is_virtual = false;
  int64_t elements() const;
  int64_t bytes() const { return elements() * element_bytes(data_type); }
};
std::optional<Tensor> read_tensor(const backend::Descriptor& d);

// Convolutions as implicit GEMMs. Dimensions are cuDNN's logical order whatever the layout:
// x = [N, C, spatial...], w = [K, C/groups, filter...], y = [N, K, output spatial...].
//   forward:         M = N*P*Q,  N = K/g,      K = (C/g)*R*S,  batch = g
//   backward data:   M = N*H*W,  N = C/g,      K = (K/g)*R*S,  batch = g
//   backward filter: M = K/g,    N = (C/g)*R*S, K = N*P*Q,     batch = g
enum class ConvPass { kForward, kBackwardData, kBackwardFilter };
std::optional<LibraryOp> conv_op(ConvPass pass, const std::vector<int64_t>& x,
                                 const std::vector<int64_t>& w, const std::vector<int64_t>& y,
                                 int dtype, int compute);

// Scaled dot-product attention (fused flash-style kernels).
struct Attention {
  int64_t batch = 1, heads = 1, heads_kv = 1;
  int64_t seq_q = 0, seq_kv = 0, d_qk = 0, d_v = 0;
  bool causal = false;
  bool bottom_right = false;  // causal diagonal aligned to the last key (shift seq_kv - seq_q)
  cudnnDataType_t data_type = CUDNN_DATA_BFLOAT16;
};
// Share of the score matrix a causal mask keeps (1 without a mask).
double visible_fraction(const Attention& a);
// Forward: one GEMM-shaped op of Q*K^T and P*V (m = Sq, n = Skv kept by the mask, k = Dqk + Dv,
// batch = B*H) and one memory-bound op for Q, K, V, O and the softmax statistics.
// Backward: the five GEMMs (S recomputed, dV, dP, dQ, dK: k = 3*Dqk + 2*Dv) and one memory-bound
// op for Q, K, V, O, dO, dQ, dK, dV, the statistics and the FP32 dQ accumulator.
std::vector<LibraryOp> attention_ops(const Attention& a, bool backward);
int64_t attention_workspace(const Attention& a, bool backward);

// The whole graph.
PlanModel model_graph(const backend::Descriptor& graph);

}  // namespace seer::cudnn

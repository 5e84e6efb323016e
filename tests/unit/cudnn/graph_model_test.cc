// Graph -> timed ops: convolutions as implicit GEMMs, attention recognised (fused or written out
// as operations) and costed as its GEMMs, causal masks halving the work, memory-bound graphs.

#include "graph_model.h"

#include <gtest/gtest.h>

#include "graph_builder.h"

namespace seer::cudnn {
namespace {

using backend::Descriptor;
using test::Builder;

constexpr int kSdpaFwdSubgraph = 2811;  // CUDNN_ATTR_OPERATION_SDPA_FWD_SUBGRAPH (cuDNN 9.26)

TEST(CudnnConvModel, ImplicitGemmShapes) {
  // ResNet 3x3 conv, 64 -> 64 channels, 56x56, batch 32, padding 1.
  const std::vector<int64_t> x = {32, 64, 56, 56}, w = {64, 64, 3, 3}, y = {32, 64, 56, 56};
  const LibraryOp fwd = *conv_op(ConvPass::kForward, x, w, y, kBF16, kBF16);
  EXPECT_EQ(fwd.api, "cudnn conv fwd");
  EXPECT_EQ(fwd.m, 32 * 56 * 56);
  EXPECT_EQ(fwd.n, 64);
  EXPECT_EQ(fwd.k, 64 * 9);
  EXPECT_EQ(fwd.batch, 1);
  EXPECT_TRUE(fwd.gemm);
  const LibraryOp dgrad = *conv_op(ConvPass::kBackwardData, x, w, y, kBF16, kBF16);
  EXPECT_EQ(dgrad.m, 32 * 56 * 56);
  EXPECT_EQ(dgrad.n, 64);
  EXPECT_EQ(dgrad.k, 64 * 9);
  const LibraryOp wgrad = *conv_op(ConvPass::kBackwardFilter, x, w, y, kBF16, kBF16);
  EXPECT_EQ(wgrad.m, 64);
  EXPECT_EQ(wgrad.n, 64 * 9);
  EXPECT_EQ(wgrad.k, 32 * 56 * 56);
}

TEST(CudnnConvModel, GroupsAndStrides) {
  // Depthwise-ish: 32 groups of 4 channels, stride 2 (output 28x28).
  const std::vector<int64_t> x = {8, 128, 56, 56}, w = {128, 4, 3, 3}, y = {8, 128, 28, 28};
  const LibraryOp fwd = *conv_op(ConvPass::kForward, x, w, y, kF16, kF16);
  EXPECT_EQ(fwd.batch, 32);
  EXPECT_EQ(fwd.m, 8 * 28 * 28);
  EXPECT_EQ(fwd.n, 4);
  EXPECT_EQ(fwd.k, 4 * 9);
  const LibraryOp dgrad = *conv_op(ConvPass::kBackwardData, x, w, y, kF16, kF16);
  EXPECT_EQ(dgrad.m, 8 * 56 * 56);
  EXPECT_FALSE(conv_op(ConvPass::kForward, {1, 2}, {1, 2}, {1, 2}, kF16, kF16).has_value());
}

TEST(CudnnConvModel, Fp32RunsAsTf32UnlessForbidden) {
  EXPECT_EQ(conv_math_pipe(kF32, true), kTF32);
  EXPECT_EQ(conv_math_pipe(kF32, false), kF32);
  EXPECT_EQ(conv_math_pipe(kBF16, true), kBF16);
}

TEST(CudnnConvModel, BackendGraphPlan) {
  Builder b;
  Descriptor* x = b.tensor({32, 64, 56, 56});
  Descriptor* w = b.tensor({64, 64, 3, 3});
  Descriptor* y = b.tensor({32, 64, 56, 56});
  Descriptor* conv = b.make(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
  Builder::set_i32(conv, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT);
  Builder::set_i32(conv, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE,
                   CUDNN_CROSS_CORRELATION);
  Builder::set_i64(conv, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, {2});
  Builder::set_i64(conv, CUDNN_ATTR_CONVOLUTION_DILATIONS, {1, 1});
  Builder::set_i64(conv, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, {1, 1});
  Builder::set_i64(conv, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, {1, 1});
  Builder::set_i64(conv, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, {1, 1});
  Builder::finalize(conv);
  Descriptor* op = b.make(CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR);
  Builder::set_desc(op, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X, {x});
  Builder::set_desc(op, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW, {w});
  Builder::set_desc(op, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY, {y});
  EXPECT_EQ(backend::finalize(*op), CUDNN_STATUS_BAD_PARAM);  // no convolution descriptor
  Builder::set_desc(op, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC, {conv});
  Builder::finalize(op);
  Descriptor* plan = b.plan(b.graph({op}));
  ASSERT_EQ(plan->ops.size(), 1u);
  EXPECT_EQ(plan->ops[0].api, "cudnn conv bwd filter");
  EXPECT_EQ(plan->ops[0].dtype, kBF16);
  EXPECT_EQ(plan->ops[0].m, 64);
  EXPECT_EQ(plan->ops[0].k, 32 * 56 * 56);
}

TEST(CudnnAttentionModel, CausalFraction) {
  Attention a;
  a.seq_q = a.seq_kv = 4;
  EXPECT_DOUBLE_EQ(visible_fraction(a), 1.0);
  a.causal = true;
  EXPECT_DOUBLE_EQ(visible_fraction(a), 10.0 / 16.0);  // rows keep 1, 2, 3, 4 keys
  a.seq_q = 2;
  a.bottom_right = true;  // rows keep 3 and 4 of 4 keys
  EXPECT_DOUBLE_EQ(visible_fraction(a), 7.0 / 8.0);
  a.bottom_right = false;  // rows keep 1 and 2
  EXPECT_DOUBLE_EQ(visible_fraction(a), 3.0 / 8.0);
}

TEST(CudnnAttentionModel, ForwardAndBackwardWork) {
  Attention a;
  a.batch = 4;
  a.heads = a.heads_kv = 16;
  a.seq_q = a.seq_kv = 1024;
  a.d_qk = a.d_v = 128;
  const std::vector<LibraryOp> fwd = attention_ops(a, false);
  ASSERT_EQ(fwd.size(), 2u);
  EXPECT_EQ(fwd[0].api, "cudnn sdpa fwd");
  EXPECT_TRUE(fwd[0].gemm);
  EXPECT_EQ(fwd[0].batch, 64);
  EXPECT_EQ(fwd[0].m, 1024);
  EXPECT_EQ(fwd[0].n, 1024);
  EXPECT_EQ(fwd[0].k, 256);  // Q*K^T and P*V
  EXPECT_EQ(fwd[0].dtype, kBF16);
  EXPECT_EQ(fwd[1].api, "cudnn sdpa fwd memory");
  EXPECT_FALSE(fwd[1].gemm);
  // Q, K, V, O in bf16 and the FP32 statistics.
  EXPECT_DOUBLE_EQ(fwd[1].bytes, 4.0 * 64 * 1024 * 128 * 2 + 64 * 1024 * 4);
  const std::vector<LibraryOp> bwd = attention_ops(a, true);
  EXPECT_EQ(bwd[0].api, "cudnn sdpa bwd");
  EXPECT_EQ(bwd[0].k * 2, fwd[0].k * 5);  // five GEMMs: 2.5 x the forward work
  EXPECT_GT(attention_workspace(a, true), 0);
  EXPECT_EQ(attention_workspace(a, false), 0);

  a.causal = true;
  EXPECT_EQ(attention_ops(a, false)[0].n, 513);  // (S + 1) / 2 keys per row on average
}

// The fused SDPA node of cuDNN 9.x (what PyTorch 2.15 builds), with and without a causal mask.
TEST(CudnnAttentionModel, FusedSdpaNode) {
  Builder b;
  Descriptor* q = b.tensor({2, 8, 512, 64});
  Descriptor* k = b.tensor({2, 2, 512, 64});  // grouped-query attention: 2 KV heads
  Descriptor* v = b.tensor({2, 2, 512, 64});
  Descriptor* o = b.tensor({2, 8, 512, 64});
  Descriptor* sdpa = b.make(backend::kSdpaFwdDescriptor);
  Builder::set_desc(sdpa, CUDNN_ATTR_OPERATION_SDPA_FWD_QDESC, {q});
  Builder::set_desc(sdpa, CUDNN_ATTR_OPERATION_SDPA_FWD_KDESC, {k});
  Builder::set_desc(sdpa, CUDNN_ATTR_OPERATION_SDPA_FWD_VDESC, {v});
  Builder::set_desc(sdpa, CUDNN_ATTR_OPERATION_SDPA_FWD_ODESC, {o});
  Builder::finalize(sdpa);
  const PlanModel full = model_graph(*b.graph({sdpa}));
  ASSERT_EQ(full.ops.size(), 2u);
  EXPECT_EQ(full.ops[0].api, "cudnn sdpa fwd");
  EXPECT_EQ(full.ops[0].batch, 16);
  EXPECT_EQ(full.ops[0].n, 512);
  // cudnn-frontend puts the mask in the SDPA node's score-modifier subgraph.
  Descriptor* band = b.make(backend::kDiagonalBandMaskDescriptor);
  Builder::finalize(band);
  Descriptor* modifiers = b.make(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  Builder::set_desc(modifiers, CUDNN_ATTR_OPERATIONGRAPH_OPS, {band});
  Builder::finalize(modifiers);
  Descriptor* causal_sdpa = b.make(backend::kSdpaFwdDescriptor);
  Builder::set_desc(causal_sdpa, CUDNN_ATTR_OPERATION_SDPA_FWD_QDESC, {q});
  Builder::set_desc(causal_sdpa, CUDNN_ATTR_OPERATION_SDPA_FWD_KDESC, {k});
  Builder::set_desc(causal_sdpa, CUDNN_ATTR_OPERATION_SDPA_FWD_VDESC, {v});
  Builder::set_desc(causal_sdpa, CUDNN_ATTR_OPERATION_SDPA_FWD_ODESC, {o});
  Builder::set_desc(causal_sdpa, kSdpaFwdSubgraph, {modifiers});
  Builder::finalize(causal_sdpa);
  const PlanModel causal = model_graph(*b.graph({causal_sdpa}));
  EXPECT_EQ(causal.ops[0].n, 257);
  EXPECT_EQ(causal.ops[0].batch, 16);
  // K and V count with their own (fewer) heads.
  const double e = 2, bh = 16, bhk = 4;
  EXPECT_DOUBLE_EQ(full.ops[1].bytes, e * (2 * bh + 2 * bhk) * 512 * 64 + 4 * bh * 512);
}

// Attention as cudnn-frontend writes it out: matmul, scale, causal mask from two index
// generators, softmax (max reduction, exp, sum), matmul.
struct DecomposedAttention {
  Builder b;
  std::vector<Descriptor*> ops;
  explicit DecomposedAttention(bool causal, bool padding_mask = false) {
    Descriptor* q = b.tensor({1, 4, 256, 64});
    Descriptor* kt = b.tensor({1, 4, 64, 256});
    Descriptor* s = b.tensor({1, 4, 256, 256}, CUDNN_DATA_FLOAT, true);
    ops.push_back(b.matmul(q, kt, s));
    Descriptor* row = b.tensor({1, 4, 256, 256}, CUDNN_DATA_INT32, true);
    Descriptor* col = b.tensor({1, 4, 256, 256}, CUDNN_DATA_INT32, true);
    ops.push_back(b.pointwise(CUDNN_POINTWISE_GEN_INDEX, s, nullptr, row));
    Descriptor* other = col;
    if (padding_mask) {
      other = b.tensor({1, 1, 1, 1}, CUDNN_DATA_INT32);  // a sequence length
    } else {
      ops.push_back(b.pointwise(CUDNN_POINTWISE_GEN_INDEX, s, nullptr, col));
    }
    if (causal || padding_mask) {
      Descriptor* mask = b.tensor({1, 4, 256, 256}, CUDNN_DATA_BOOLEAN, true);
      ops.push_back(b.pointwise(CUDNN_POINTWISE_CMP_GE, row, other, mask));
    }
    Descriptor* max = b.tensor({1, 4, 256, 1}, CUDNN_DATA_FLOAT, true);
    ops.push_back(b.reduction(s, max));
    Descriptor* p = b.tensor({1, 4, 256, 256}, CUDNN_DATA_FLOAT, true);
    ops.push_back(b.pointwise(CUDNN_POINTWISE_EXP, s, nullptr, p));
    Descriptor* v = b.tensor({1, 4, 256, 32});
    Descriptor* o = b.tensor({1, 4, 256, 32});
    ops.push_back(b.matmul(p, v, o));
  }
};

TEST(CudnnAttentionModel, DecomposedAttentionIsRecognised) {
  DecomposedAttention full(false);
  const PlanModel m = model_graph(*full.b.graph(full.ops));
  ASSERT_EQ(m.ops.size(), 2u);
  EXPECT_EQ(m.ops[0].api, "cudnn sdpa fwd");
  EXPECT_EQ(m.ops[0].batch, 4);
  EXPECT_EQ(m.ops[0].m, 256);
  EXPECT_EQ(m.ops[0].n, 256);
  EXPECT_EQ(m.ops[0].k, 64 + 32);

  DecomposedAttention causal(true);
  EXPECT_EQ(model_graph(*causal.b.graph(causal.ops)).ops[0].n, 129);
  DecomposedAttention padded(false, true);  // index compared with a length: not causal
  EXPECT_EQ(model_graph(*padded.b.graph(padded.ops)).ops[0].n, 256);
}

TEST(CudnnGraphModel, MatmulWithoutSoftmaxIsAGemm) {
  Builder b;
  Descriptor* a = b.tensor({3, 128, 64});
  Descriptor* bm = b.tensor({3, 64, 32});
  Descriptor* c = b.tensor({3, 128, 32});
  const PlanModel m = model_graph(*b.graph({b.matmul(a, bm, c)}));
  ASSERT_EQ(m.ops.size(), 1u);
  EXPECT_EQ(m.ops[0].api, "cudnn matmul");
  EXPECT_EQ(m.ops[0].m, 128);
  EXPECT_EQ(m.ops[0].n, 32);
  EXPECT_EQ(m.ops[0].k, 64);
  EXPECT_EQ(m.ops[0].batch, 3);
}

TEST(CudnnGraphModel, PointwiseGraphIsMemoryBound) {
  Builder b;
  Descriptor* x = b.tensor({16, 1024}, CUDNN_DATA_HALF);
  Descriptor* t = b.tensor({16, 1024}, CUDNN_DATA_HALF, true);  // stays on chip
  Descriptor* y = b.tensor({16, 1024}, CUDNN_DATA_HALF);
  const PlanModel m = model_graph(*b.graph({b.pointwise(CUDNN_POINTWISE_RELU_FWD, x, nullptr, t),
                                            b.pointwise(CUDNN_POINTWISE_TANH_FWD, t, nullptr, y)}));
  ASSERT_EQ(m.ops.size(), 1u);
  EXPECT_EQ(m.ops[0].api, "cudnn pointwise");
  EXPECT_FALSE(m.ops[0].gemm);
  EXPECT_DOUBLE_EQ(m.ops[0].bytes, 2.0 * 16 * 1024 * 2);
  EXPECT_EQ(m.ops[0].dtype, kF16);
}

}  // namespace
}  // namespace seer::cudnn

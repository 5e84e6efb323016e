// seer profile's cuDNN calls (interposer/profiler/cudnn_shadow.h, interposer/cudnn/op_key.h,
// runtime profile_records.h split_call): a real cuDNN's backend calls mirrored onto shadows name
// the plan's ops as Seer's cuDNN does; those names are what the session looks up; a call of
// several ops is split so that its ops add up to the measured call.
#include <cudnn.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cudnn_shadow.h"
#include "graph_model.h"
#include "op_key.h"
#include "seer/runtime/kernel_db.h"
#include "seer/runtime/profile_records.h"
#include "seer/simcore/cost_models.h"
#include "seer/simcore/engine.h"

namespace {

namespace shadow = seer::profiler::cudnn_shadow;
using seer::cudnn::LibraryOp;

// What the program does with the real cuDNN, mirrored: each descriptor is a distinct address
// standing for a real handle.
class RealCalls {
 public:
  void* make(int type) {
    void* h = &slots_[next_++];
    shadow::created(h, type);
    return h;
  }
  static void i64(void* d, int name, std::vector<int64_t> v) {
    shadow::set(d, name, CUDNN_TYPE_INT64, static_cast<int64_t>(v.size()), v.data());
  }
  static void i32(void* d, int name, int type, int32_t v) { shadow::set(d, name, type, 1, &v); }
  static void desc(void* d, int name, std::vector<void*> v) {
    shadow::set(d, name, CUDNN_TYPE_BACKEND_DESCRIPTOR, static_cast<int64_t>(v.size()), v.data());
  }
  void* tensor(std::vector<int64_t> dims, cudnnDataType_t type) {
    void* t = make(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    std::vector<int64_t> strides(dims.size(), 1);
    for (size_t i = dims.size() - 1; i-- > 0;) strides[i] = strides[i + 1] * dims[i + 1];
    i32(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, type);
    i64(t, CUDNN_ATTR_TENSOR_DIMENSIONS, dims);
    i64(t, CUDNN_ATTR_TENSOR_STRIDES, strides);
    i64(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, {next_uid_++});
    i64(t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, {16});
    shadow::finalized(t);
    return t;
  }
  // A 3x3 forward convolution graph, as cudnn-frontend builds it.
  void* conv_graph(void* x, void* w, void* y) {
    void* conv = make(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
    i32(conv, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT);
    i32(conv, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE,
        CUDNN_CROSS_CORRELATION);
    i64(conv, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, {2});
    i64(conv, CUDNN_ATTR_CONVOLUTION_DILATIONS, {1, 1});
    i64(conv, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, {1, 1});
    i64(conv, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, {1, 1});
    i64(conv, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, {1, 1});
    shadow::finalized(conv);
    void* op = make(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
    desc(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, {x});
    desc(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, {w});
    desc(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, {y});
    desc(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, {conv});
    shadow::finalized(op);
    void* g = make(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    desc(g, CUDNN_ATTR_OPERATIONGRAPH_OPS, {op});
    shadow::finalized(g);
    return g;
  }
  void* plan_with(void* cfg) {
    void* plan = make(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
    desc(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, {cfg});
    shadow::finalized(plan);
    return plan;
  }

 private:
  int slots_[64] = {};
  int next_ = 0;
  int64_t next_uid_ = 1;
};

TEST(CudnnShadow, APlanFromHeuristicsIsNamedAsSeersCudnnNamesIt) {
  RealCalls real;
  void* x = real.tensor({8, 64, 56, 56}, CUDNN_DATA_HALF);
  void* w = real.tensor({128, 64, 3, 3}, CUDNN_DATA_HALF);
  void* y = real.tensor({8, 128, 56, 56}, CUDNN_DATA_HALF);
  void* graph = real.conv_graph(x, w, y);
  void* heur = real.make(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
  RealCalls::desc(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, {graph});
  RealCalls::i32(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, CUDNN_HEUR_MODE_A);
  shadow::finalized(heur);
  // The real heuristics fill three configurations (Seer's store has one): all run the graph.
  void* cfgs[3] = {real.make(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR),
                   real.make(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR),
                   real.make(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR)};
  shadow::got(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 3, cfgs);
  void* plan = real.plan_with(cfgs[2]);

  const std::vector<LibraryOp> ops = shadow::plan_ops(plan);
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(seer::cudnn::op_label(ops[0]), "cudnn conv fwd [f16]");
  EXPECT_EQ(seer::cudnn::op_params(ops[0]), "m=25088,n=128,k=576,batch=1");
  EXPECT_TRUE(shadow::plan_ops(graph).empty()) << "not a plan";

  // An engine built by index (another path of cudnn-frontend), even one Seer's store refuses.
  void* engine = real.make(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
  RealCalls::desc(engine, CUDNN_ATTR_ENGINE_OPERATION_GRAPH, {graph});
  RealCalls::i64(engine, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, {7});
  shadow::finalized(engine);
  void* cfg = real.make(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
  RealCalls::desc(cfg, CUDNN_ATTR_ENGINECFG_ENGINE, {engine});
  shadow::finalized(cfg);
  EXPECT_EQ(shadow::plan_ops(real.plan_with(cfg)).size(), 1u);

  // A descriptor the real library destroyed has no shadow; a plan from its text names nothing.
  const size_t live = shadow::size();
  shadow::destroyed(plan);
  EXPECT_EQ(shadow::size(), live - 1);
  EXPECT_TRUE(shadow::plan_ops(plan).empty());
  void* restored = real.make(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
  const char json[] = "{}";
  shadow::set(restored, CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION, CUDNN_TYPE_CHAR, 3, json);
  shadow::finalized(restored);
  EXPECT_TRUE(shadow::plan_ops(restored).empty());
  // A handle that was never created (made before the recorder was loaded) is ignored.
  int stranger = 0;
  shadow::set(&stranger, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &stranger);
  shadow::finalized(&stranger);
  EXPECT_TRUE(shadow::plan_ops(&stranger).empty());
}

// The label and parameters op_key gives are what the engine asks the database for when the
// session submits the op (session_server.cpp turns a wire::LibraryCall into an OpDesc so).
TEST(CudnnOpKey, IsWhatTheEngineLooksUp) {
  seer::cudnn::Attention a;
  a.batch = 2;
  a.heads = a.heads_kv = 8;
  a.seq_q = a.seq_kv = 1000;
  a.d_qk = a.d_v = 64;
  a.causal = true;
  std::vector<LibraryOp> ops = seer::cudnn::attention_ops(a, false);
  ops.push_back(*seer::cudnn::conv_op(seer::cudnn::ConvPass::kBackwardFilter, {4, 3, 32, 32},
                                      {16, 3, 5, 5}, {4, 16, 28, 28}, seer::cudnn::kTF32,
                                      seer::cudnn::kTF32));
  ops.back().batch = 0;  // the session counts at least 1
  ASSERT_EQ(ops.size(), 3u);
  EXPECT_EQ(seer::cudnn::op_label(ops[0]), "cudnn sdpa fwd [bf16]");
  EXPECT_EQ(seer::cudnn::op_label(ops[1]), "cudnn sdpa fwd memory [bf16]");
  EXPECT_EQ(seer::cudnn::op_params(ops[1]).rfind("bytes=", 0), 0u);

  struct : seer::sim::WaitListener {
    void on_wait_done(uint64_t, seer::sim::Time) override {}
  } listener;
  seer::sim::Engine engine(listener);
  const int gpu = engine.add_gpu(*seer::sim::find_gpu("H100-SXM-80GB"), 0, {});
  ASSERT_TRUE(engine.create_stream(0, 1, gpu, true, false));
  std::vector<std::pair<std::string, std::string>> asked;
  engine.set_kernel_lookup([&](const seer::sim::GpuSpec&, const std::string& kernel,
                               const seer::sim::LaunchGeometry&, const std::string& params,
                               std::span<const uint64_t>) -> std::optional<seer::sim::Time> {
    asked.emplace_back(kernel, params);
    return std::nullopt;
  });
  for (const LibraryOp& l : ops) {
    seer::sim::OpDesc op;  // as session_server.cpp builds it from the wire record
    op.kind = seer::sim::OpKind::kLibrary;
    op.gemm = l.gemm;
    op.m = l.m;
    op.n = l.n;
    op.k = l.k;
    op.batch = std::max<int64_t>(1, l.batch);
    op.dtype = l.dtype;
    op.compute = l.compute;
    op.bytes = static_cast<uint64_t>(std::max(0.0, l.bytes));
    op.kernel = engine.intern_kernel(seer::cudnn::op_label(l));
    ASSERT_TRUE(engine.submit(0, 1, 0, op));
  }
  while (engine.next_event_time()) engine.step();
  ASSERT_EQ(asked.size(), ops.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    EXPECT_EQ(asked[i].first, seer::cudnn::op_label(ops[i]));
    EXPECT_EQ(asked[i].second, seer::cudnn::op_params(ops[i]));
  }
}

TEST(ProfileRecordsCudnn, ACallOfSeveralOpsIsSplitInModelProportion) {
  const std::string gemm_params = "m=1000,n=501,k=128,batch=16";
  const std::string memory_params = "bytes=8320000";
  seer::rt::ProfileRecords r;
  r.add("library\t1\tcudnn sdpa fwd [bf16]\t" + gemm_params +
            "\n"
            "library\t1\tcudnn sdpa fwd memory [bf16]\t" +
            memory_params +
            "\n"
            "library\t2\tcublasGemmEx [bf16]\tm=8,n=8,k=8,batch=1\n"
            "external\t1\t10\nexternal\t2\t11\n"
            "kernel\t0\t64\t1\t1\t128\t1\t1\t0\t90001\t10\tcudnn_generated_fort_native_sdpa\n"
            "kernel\t0\t1\t1\t1\t128\t1\t1\t0\t500\t11\tgemm_kernel\n"
            "device\t0\tNVIDIA H100 80GB HBM3\nend\n",
        "p");
  EXPECT_EQ(r.library_calls(), 2u);
  EXPECT_EQ(r.library_calls("cudnn"), 1u);
  EXPECT_EQ(r.library_calls("cublas"), 1u);
  const seer::rt::KernelDb db = r.database("H100-SXM-80GB");
  ASSERT_EQ(db.size(), 3u);
  const seer::sim::GpuSpec h100 = *seer::sim::find_gpu("H100-SXM-80GB");
  const auto g = db.lookup(h100, "cudnn sdpa fwd [bf16]", {}, gemm_params);
  const auto m = db.lookup(h100, "cudnn sdpa fwd memory [bf16]", {}, memory_params);
  ASSERT_TRUE(g && m);
  EXPECT_EQ(*g + *m, 90001);

  seer::sim::OpDesc go;
  go.kind = seer::sim::OpKind::kLibrary;
  go.gemm = true;
  go.m = 1000;
  go.n = 501;
  go.k = 128;
  go.batch = 16;
  go.dtype = 4;
  seer::sim::OpDesc mo;
  mo.kind = seer::sim::OpKind::kLibrary;
  mo.dtype = 4;
  mo.bytes = 8320000;
  const double gt = static_cast<double>(seer::sim::library_ns(h100, go));
  const double mt = static_cast<double>(seer::sim::library_ns(h100, mo));
  EXPECT_NEAR(static_cast<double>(*g), 90001.0 * gt / (gt + mt), 1.0);
  EXPECT_EQ(db.lookup(h100, "cublasGemmEx [bf16]", {}, "m=8,n=8,k=8,batch=1"), 500);
}

TEST(ProfileRecordsCudnn, SplitSharesAddUpAndFallBackToEqualShares) {
  using seer::rt::split_call;
  EXPECT_EQ(split_call({{"x [bf16]", "bytes=1"}}, "H100-SXM-80GB", 77), std::vector<int64_t>{77});
  // Parameters not of the session's form, or an unknown GPU: equal shares, rounded cumulatively.
  EXPECT_EQ(split_call({{"a [bf16]", "bytes=1"}, {"b", "bytes=1"}, {"c [f16]", "q=1"}},
                       "H100-SXM-80GB", 100),
            (std::vector<int64_t>{33, 34, 33}));
  EXPECT_EQ(split_call({{"a [bf16]", "bytes=10"}, {"b [bf16]", "bytes=10"}}, "no-such-gpu", 7),
            (std::vector<int64_t>{4, 3}));
  const std::vector<int64_t> s =
      split_call({{"a [f32]", "bytes=1000"}, {"b [f32]", "bytes=1000000000"}}, "A100-SXM-80GB", 5);
  EXPECT_EQ(s[0] + s[1], 5);
  EXPECT_LT(s[0], s[1]);
}

}  // namespace

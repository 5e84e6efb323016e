// PyTorch's own measurements (CUDA events) under `seer run` against Seer's documented models,
// computed here from simcore: a bf16 matmul against the GEMM model, dist.all_reduce against
// NCCL's cost model with Seer's calibration.

#include "seer/simcore/gemm_model.h"
#include "seer/simcore/gpu_spec.h"
#include "seer/simcore/nccl/model.h"
#include "torch_util.h"

namespace seer::e2e::torch {
namespace {

using MatmulTest = TorchTest;
using AllReduceTest = TorchTest;

TEST_F(MatmulTest, Bf16TflopsAreTheGemmModels) {
  const Outcome o = seer_torch("dgx-h100", "", python_command(example("matmul_bench.py")));
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  const auto tflops = numbers(o.out, R"(([0-9.]+) TFLOP/s)");
  ASSERT_EQ(tflops.size(), 1u) << o.describe();

  sim::GemmShape s;
  s.m = s.n = s.k = 8192;
  s.a_type = s.c_type = s.compute_type = sim::DType::kBF16;
  const auto h100 = sim::find_gpu("H100-SXM-80GB");
  ASSERT_TRUE(h100.has_value());
  const double expected = sim::gemm_time(*h100, s).achieved_flops / 1e12;
  std::printf("[torch] matmul bf16 8192^3: %.1f TFLOP/s printed, GEMM model %.1f\n", tflops[0],
              expected);
  EXPECT_NEAR(tflops[0], expected, 0.02 * expected);
}

TEST_F(AllReduceTest, EightRanksTakeTheNcclModelsTime) {
  constexpr uint64_t kBytes = 256ull << 20;
  const Outcome o =
      seer_torch("dgx-h100", "",
                 torchrun(8, example("allreduce_bench.py"), {"--bytes", std::to_string(kBytes)}));
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  const auto us = numbers(o.out, R"(ranks: ([0-9.]+) us)");
  ASSERT_EQ(us.size(), 1u) << o.describe();

  namespace nccl = sim::nccl;
  const nccl::CommModel model(nccl::Topo::dgx_h100(1), nccl::default_version());
  ASSERT_TRUE(model.ok()) << model.error();
  const nccl::Choice c = model.choose(nccl::Func::kAllReduce, kBytes);
  ASSERT_TRUE(c.ok) << c.error;
  std::printf("[torch] all_reduce 256 MiB x 8: %.1f us printed, NCCL model %.1f us\n", us[0],
              c.time_us);
  EXPECT_NEAR(us[0], c.time_us, 0.05 * c.time_us);
}

}  // namespace
}  // namespace seer::e2e::torch

namespace seer::e2e::torch {
namespace {

using StepDetection = TorchTest;

// CUB marks each of PyTorch's device-wide sorts with an NVTX range in domain CCCL; with no step
// ranges of the program's own, those are not its steps (TorchTitan's report took them for steps).
TEST_F(StepDetection, LibraryNvtxRangesAreNotSteps) {
  TempDir out;
  const Outcome o =
      seer_torch("dgx-h100", out.path(), python_command(program("library_ranges.py")));
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  ASSERT_EQ(o.integer("sorts"), 4);
  const nlohmann::json s = read_json(out.file("summary.json"));
  bool cub_ranges = false;
  for (const auto& r : s["nvtx"]["by_name"]) {
    if (r.value("domain", "") == "CCCL" && r.value("count", 0) == 4) cub_ranges = true;
  }
  EXPECT_TRUE(cub_ranges) << s["nvtx"].dump(2);
  EXPECT_EQ(s["steps"].value("source", ""), "whole_run") << s["steps"].dump(2);
}

}  // namespace
}  // namespace seer::e2e::torch

namespace seer::e2e::torch {
namespace {

// Twelve distinct all-reduces per step and host work between steps that varies: the intervals at
// the step's edge differ from step to step, the collectives alone fix the step (TorchTitan's case).
TEST_F(StepDetection, StepsFromCollectivesDespiteVaryingHostWorkBetweenThem) {
  TempDir out;
  const Outcome o = seer_torch("dgx-h100", out.path(), torchrun(2, program("noisy_steps.py")));
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  ASSERT_EQ(o.integer("steps"), 8);
  const nlohmann::json st = read_json(out.file("summary.json"))["steps"];
  EXPECT_EQ(st.value("source", ""), "collectives") << st.dump(2);
  EXPECT_EQ(st.value("label", ""), "12 collectives per step") << st.dump(2);
  EXPECT_GE(st.value("count", 0), 5) << st.dump(2);
}

// FSDP's case: collectives on two streams whose submissions interleave differently from step to
// step, host work varying between them: the steps come from the busier stream's own sequence.
TEST_F(StepDetection, StepsFromOneStreamWhenStreamsInterleaveDifferently) {
  TempDir out;
  const Outcome o =
      seer_torch("dgx-h100", out.path(), torchrun(2, program("interleaved_steps.py")));
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  ASSERT_EQ(o.integer("steps"), 8);
  const nlohmann::json st = read_json(out.file("summary.json"))["steps"];
  EXPECT_EQ(st.value("source", ""), "collectives") << st.dump(2);
  // The busier stream's intervals vary too much from step to step (the other stream's
  // submissions land between different pairs); the other stream's two repeat.
  EXPECT_EQ(st.value("label", ""), "2 collectives per step on one stream") << st.dump(2);
  EXPECT_EQ(st.value("count", 0), 7) << st.dump(2);
  // One step per period: the program's own mean step (its virtual host clock, steps 2-8; the
  // report's steps start at a collective whose place in the step moves by one launch).
  EXPECT_NEAR(st.value("mean_ns", 0.0) / 1e6, o.number("step_ms"), 0.03 * o.number("step_ms"));
}

}  // namespace
}  // namespace seer::e2e::torch

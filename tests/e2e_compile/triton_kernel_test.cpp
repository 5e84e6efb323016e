// A user @triton.jit kernel (programs/triton_add.py: out = x + y over n float32 elements, 1024
// per program) under `seer run`: Triton compiles it on the CPU, loads it through Seer's driver
// and launches it with cuLaunchKernelEx; the program times it with CUDA events.

#include "compile_util.h"

namespace seer::e2e::torch {
namespace {

constexpr int64_t kN = int64_t{1} << 24;

class UserTritonKernel : public TorchTest {
 protected:
  static void SetUpTestSuite() {
    if (!missing_python().empty()) return;
    dir_ = new TempDir();
    run_ = new Timed(seer_compiled("triton_add.py", "dgx-h100", dir_->file("out"),
                                   python_command(program("triton_add.py"), {std::to_string(kN)}),
                                   fresh_caches(*dir_)));
  }
  static void TearDownTestSuite() {
    delete run_;
    delete dir_;
    run_ = nullptr;
    dir_ = nullptr;
  }
  const Outcome& o() { return run_->outcome; }
  nlohmann::json summary() { return read_json(dir_->file("out") + "/summary.json"); }

  static TempDir* dir_;
  static Timed* run_;
};

TempDir* UserTritonKernel::dir_ = nullptr;
Timed* UserTritonKernel::run_ = nullptr;

TEST_F(UserTritonKernel, CompilesLaunchesAndIsReportedByName) {
  ASSERT_EQ(o().exit_code, 0) << o().describe();
  EXPECT_EQ(o().integer("n"), kN);
  EXPECT_EQ(o().integer("grid"), kN / 1024);
  EXPECT_GT(o().number("kernel_ms"), 0.0);
  // Every launch, the compiling one included, is in the report under the kernel's own name.
  EXPECT_EQ(kernel_count(summary(), "add_kernel"), o().integer("launches"))
      << summary()["kernels"].dump(1);
  EXPECT_NE(o().err.find("add_kernel"), std::string::npos) << "the report (stderr)";
}

TEST_F(UserTritonKernel, EventTimeIsTheKernelsSimulatedDurations) {
  ASSERT_EQ(o().exit_code, 0) << o().describe();
  // The timed launches run back to back behind the queued ones: the event time is the sum of
  // their durations in the trace (the last `timed` add_kernel events).
  const nlohmann::json trace = read_json(dir_->file("out") + "/trace.json");
  const nlohmann::json& events = trace.is_object() ? trace["traceEvents"] : trace;
  std::vector<double> durations_us;
  for (const auto& e : events) {
    if (e.value("cat", "") == "kernel" && e.value("name", "") == "add_kernel") {
      durations_us.push_back(e.value("dur", 0.0));
    }
  }
  const auto timed = static_cast<size_t>(o().integer("timed"));
  ASSERT_GE(durations_us.size(), timed);
  double sum_us = 0;
  for (size_t i = durations_us.size() - timed; i < durations_us.size(); ++i) {
    sum_us += durations_us[i];
  }
  EXPECT_NEAR(o().number("timed_ms"), sum_us / 1e3, 2e-6 + 1e-7 * sum_us) << o().describe();
}

// Seer's Triton model (simcore/src/TRITON_MODEL.md): a kernel takes 2000 ns + the bytes its loads
// and stores move over the whole grid / (0.9 x HBM bandwidth). For the float32 add that is
// 3 x n x 4 bytes (two loads, one store) at 0.9 x 3.35 TB/s (H100-SXM-80GB,
// simcore/src/gpu_catalog.cpp). Up to 1 ns per kernel for the model's rounding.
TEST_F(UserTritonKernel, TimedFromItsAccesses) {
  ASSERT_EQ(o().exit_code, 0) << o().describe();
  const int64_t bytes = 3 * kN * 4;
  const int64_t kernel = 2000 + model::transfer_ns(bytes, model::kH100.hbm_bytes_per_s * 9, 10);
  const int64_t timed = o().integer("timed");
  EXPECT_NEAR(o().number("timed_ms"), static_cast<double>(timed * kernel) / 1e6,
              (2.0 + static_cast<double>(timed)) / 1e6)
      << "expected " << kernel << " ns per kernel";
  EXPECT_NEAR(o().number("kernel_ms"), static_cast<double>(kernel) / 1e6, 2e-6);
}

// @triton.autotune over BLOCK 65536, 1024 and 16384 for n = 1024 x 4096 + 1 (float32, x2):
// do_bench times each config with CUDA events, so it sees the model's times. A program moves its
// whole tile (masked lanes included) in and out: 8 bytes x BLOCK x ceil(n / BLOCK). BLOCK 1024
// wastes least and must win; each benchmark equals the model's time for its config.
TEST_F(TorchTest, TritonAutotunerPicksTheConfigTheModelMakesFastest) {
  TempDir dir;
  const Timed run =
      seer_compiled("triton_autotune.py", "dgx-h100", dir.file("out"),
                    python_command(program("triton_autotune.py"), {}), fresh_caches(dir));
  const Outcome& o = run.outcome;
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  EXPECT_EQ(o.integer("best_block"), 1024) << o.describe();
  constexpr int64_t n = 1024 * 4096 + 1;
  for (const int64_t block : {1024, 16384, 65536}) {
    const int64_t bytes = 8 * block * ((n + block - 1) / block);
    const int64_t ns = 2000 + model::transfer_ns(bytes, model::kH100.hbm_bytes_per_s * 9, 10);
    EXPECT_NEAR(o.number("bench_us_" + std::to_string(block)), static_cast<double>(ns) / 1e3, 0.002)
        << "BLOCK " << block;
  }
}

}  // namespace
}  // namespace seer::e2e::torch

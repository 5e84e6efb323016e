// `seer profile` of a PyTorch program, under `seer run` (Seer's CUPTI stands in for the GPU): the
// recorder reads the size argument of PyTorch's elementwise kernel at each launch as Seer's client
// does, so the database holds one entry per size, and a later run at a size between two measured
// ones gets the interpolation of their durations. Profiled on a simulated A100 and stored as H100
// measurements, so the H100 run can only have its times from the database.

#include <nlohmann/json.hpp>

#include "torch_util.h"

namespace seer::e2e::torch {
namespace {

using SeerProfileTorch = TorchTest;

constexpr const char* kAdd = "CUDAFunctor_add<float>";

// Average ns of the elementwise add kernel in a run's summary.
int64_t add_ns(const std::string& out_dir) {
  const nlohmann::json s = read_json(out_dir + "/summary.json");
  for (const auto& k : s["kernels"]) {
    if (k["name"].get<std::string>().find(kAdd) != std::string::npos) {
      return k["avg_ns"].get<int64_t>();
    }
  }
  ADD_FAILURE() << "no " << kAdd << " kernel in " << s["kernels"].dump(1);
  return 0;
}

TEST_F(SeerProfileTorch, ElementwiseSizesBetweenMeasuredOnesInterpolate) {
  TempDir dir;
  const std::string db = dir.file("db.kdb");
  for (const char* n : {"1048576", "4194304"}) {
    const Outcome p = seer_torch("dgx-a100", dir.file(std::string("a100-") + n),
                                 {seer_bin(), "profile", "--gpu-model", "H100-SXM-80GB", "--out",
                                  db, "--", python(), program("elementwise_sizes.py"), n});
    ASSERT_EQ(p.exit_code, 0) << p.describe();
  }
  const Outcome list = seer({"db", "export", db});
  ASSERT_EQ(list.exit_code, 0) << list.describe();
  EXPECT_NE(list.out.find(",1048576\n"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find(",4194304\n"), std::string::npos) << list.out;

  const Outcome run = seer_torch("dgx-h100", dir.file("h100"),
                                 {python(), program("elementwise_sizes.py"), "2097152"}, "modeled",
                                 {{"SEER_KERNEL_DB", db}});
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  const int64_t small = add_ns(dir.file("a100-1048576"));
  const int64_t big = add_ns(dir.file("a100-4194304"));
  ASSERT_LT(small, big);
  // 2M elements: a third of the way from 1M to 4M.
  const double expected = static_cast<double>(small) + static_cast<double>(big - small) / 3.0;
  EXPECT_EQ(add_ns(dir.file("h100")), std::llround(expected));
  const nlohmann::json s = read_json(dir.file("h100") + "/summary.json");
  EXPECT_DOUBLE_EQ(s["time_sources"]["kernel_shares"]["database"].get<double>(), 1.0);
}

}  // namespace
}  // namespace seer::e2e::torch

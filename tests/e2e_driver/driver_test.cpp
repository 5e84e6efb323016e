// A driver-API-only program under `seer run`: module loading with kernel names from the cubin,
// cuLaunchKernel and cuLaunchKernelEx as timed launches, events, VMM and capacity errors.

#include "e2e_util.h"

namespace seer::e2e {
namespace {

Outcome run_app(const std::string& out) {
  return seer_run("dgx-h100", out, {program("driver_app"), program("kernels.cubin")});
}

TEST(DriverApi, ModuleLaunchEventsAndVmm) {
  TempDir dir;
  const Outcome o = run_app(dir.file("out"));
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  EXPECT_GE(o.integer("driver_version"), 13020);
  EXPECT_EQ(o.integer("sms"), 132);
  EXPECT_EQ(o.integer("vmm_supported"), 1);
  EXPECT_EQ(o.integer("missing_kernel"), 500);  // CUDA_ERROR_NOT_FOUND
  EXPECT_GT(o.integer("add_one_regs"), 0);
  EXPECT_EQ(o.integer("reverse_max_threads"), 256);  // its __launch_bounds__
  EXPECT_EQ(o.integer("g_table_bytes"), 1024);
  // Three back-to-back launches of 1024 blocks x 256 threads: one wave each on an H100.
  const int64_t kernel = model::kernel_ns(model::kH100, 1024, 256);
  const double ms = o.number("three_launches_ms");
  EXPECT_GE(ms * 1e6, 3.0 * static_cast<double>(kernel) - 2) << o.describe();
  EXPECT_LE(ms * 1e6, 3.0 * static_cast<double>(kernel + model::kLaunch) + 2) << o.describe();
  EXPECT_EQ(o.integer("bad_cluster"), 912);  // CUDA_ERROR_INVALID_CLUSTER_SIZE
  EXPECT_GT(o.integer("max_clusters"), 0);
  EXPECT_EQ(o.integer("memset_value"), 0xabcd1234);
  EXPECT_EQ(o.integer("host_pointer_attribute"), 1);  // CUDA_ERROR_INVALID_VALUE
  EXPECT_EQ(o.integer("device_pointer_same"), 1);
  EXPECT_EQ(o.integer("granularity"), 2 << 20);
  EXPECT_EQ(o.integer("vmm_roundtrip"), 1);
  EXPECT_EQ(o.integer("retained_second_page"), 1);
  EXPECT_EQ(o.integer("create_beyond_capacity"), 2);  // CUDA_ERROR_OUT_OF_MEMORY
  EXPECT_NEAR(o.number("total_gib"), 80.0, 1.0);
  EXPECT_EQ(o.integer("done"), 1);
}

TEST(DriverApi, KernelNamesFromTheCubinInTheReport) {
  TempDir dir;
  const Outcome o = run_app(dir.file("out"));
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  const nlohmann::json s = read_json(dir.file("out/summary.json"));
  std::map<std::string, int64_t> counts;
  for (const auto& k : s["kernels"]) counts[k["name"]] = k["count"];
  EXPECT_EQ(counts["add_one"], 3) << s["kernels"].dump(2);
  // The report demangles: _Z14reverse_scaledPff.
  EXPECT_EQ(counts["reverse_scaled(float*, float)"], 1) << s["kernels"].dump(2);
  // Peak memory counts the two VMM pages (cuMemCreate), not the reserved range.
  const auto& gpu = s["gpus"][0];
  EXPECT_TRUE(gpu.contains("peak_memory_bytes")) << gpu.dump(2);
  if (gpu.contains("peak_memory_bytes")) {
    EXPECT_GE(gpu["peak_memory_bytes"].get<int64_t>(), 40ll << 20) << gpu.dump(2);
    EXPECT_LT(gpu["peak_memory_bytes"].get<int64_t>(), 80ll << 20) << gpu.dump(2);
  }
}

}  // namespace
}  // namespace seer::e2e

namespace seer::e2e {
namespace {

TEST(RuntimeExtras, WhatPyTorchNeedsFromTheRuntime) {
  TempDir dir;
  const Outcome o =
      seer_run("dgx-h100", dir.file("out"), {program("runtime_extras"), program("kernels.cubin")});
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  for (const char* name : {"entry_found", "entry_alloc", "entry_missing", "primary_ctx_active",
                           "capture_none", "symbol_roundtrip", "symbol_too_far", "copy_2d",
                           "memset_2d", "ipc_same_pointer", "pool_threshold", "done"}) {
    EXPECT_EQ(o.integer(name), 1) << name << "\n" << o.describe();
  }
  EXPECT_EQ(o.integer("host_fn_ran"), 42);
  // A cudaKernel_t from cudaLibraryGetKernel launches under its own name.
  const nlohmann::json s = read_json(dir.file("out/summary.json"));
  bool named = false;
  for (const auto& k : s["kernels"]) named = named || k["name"] == "add_one";
  EXPECT_TRUE(named) << s["kernels"].dump(2);
}

}  // namespace
}  // namespace seer::e2e

// Seer's libnvidia-ml.so.1 under `seer run`: what it reports against the GPU catalog (simcore),
// and against the CUDA runtime for the same devices (a program sees one set of GPUs).

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "e2e_util.h"
#include "seer/simcore/gpu_spec.h"

namespace seer::e2e {
namespace {

constexpr int kNvmlSuccess = 0;
constexpr int kNvmlInvalidArgument = 2;
constexpr int kNvmlNotSupported = 3;
constexpr int kNvmlNotFound = 6;
constexpr int kNvmlInsufficientSize = 7;
constexpr int kNvmlDriverNotLoaded = 9;
constexpr int kNvmlVersionMismatch = 25;
constexpr int kNvmlUninitialized = 1;

std::string probe() { return std::string(NVML_PROBE); }

sim::GpuSpec spec(const std::string& name) {
  const auto g = sim::find_gpu(name);
  EXPECT_TRUE(g.has_value()) << name;
  return g.value_or(sim::GpuSpec{});
}

TEST(Nvml, AnswersForEveryGpuOfTheClusterLikeTheRuntime) {
  const Outcome o = seer_run("dgx-h100:2", "", {probe()});
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  EXPECT_EQ(o.integer("init"), kNvmlSuccess);
  EXPECT_EQ(o.integer("count_rc"), kNvmlSuccess);
  // Two nodes of eight: the runtime reports every GPU of the cluster, so does NVML.
  EXPECT_EQ(o.integer("count"), 16);
  EXPECT_EQ(o.integer("cuda_count"), 16);
  EXPECT_EQ(o.integer("uuid_matches"), 16);
  EXPECT_EQ(o.integer("pci_matches"), 16);
  EXPECT_EQ(o.integer("by_pci"), 16);
  EXPECT_EQ(o.integer("by_uuid"), 16);
  EXPECT_EQ(o.integer("index_matches"), 16);
  EXPECT_NE(o.text("first_uuid"), o.text("last_uuid"));
  EXPECT_EQ(o.text("first_uuid").rfind("GPU-", 0), 0u);
  EXPECT_EQ(o.text("first_uuid").size(), 40u);
  // Domain = node, bus 0x18 + 0x10 per local GPU (the layout of a DGX's first GPU).
  EXPECT_EQ(o.text("first_pci"), "00000000:18:00.0");
  EXPECT_EQ(o.text("first_pci_legacy"), "0000:18:00.0");
  EXPECT_EQ(o.text("last_pci"), "00000001:88:00.0");
  EXPECT_EQ(o.text("first_pci_device_id"), "233010de");
  EXPECT_EQ(o.integer("first_minor"), 0);
  EXPECT_EQ(o.integer("last_minor"), 7);
  EXPECT_EQ(o.integer("bad_index_rc"), kNvmlInvalidArgument);
  EXPECT_EQ(o.integer("bogus_handle_rc"), kNvmlInvalidArgument);
  EXPECT_EQ(o.integer("not_found_rc"), kNvmlNotFound);
}

TEST(Nvml, DescribesTheTargetGpu) {
  const Outcome o = seer_run("dgx-h100", "", {probe()});
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  const sim::GpuSpec h100 = spec("H100-SXM-80GB");
  EXPECT_EQ(o.text("name"), h100.marketing_name);
  EXPECT_EQ(o.text("cuda_name"), h100.marketing_name);
  EXPECT_EQ(o.text("cc"), "9.0");
  EXPECT_EQ(o.text("cuda_cc"), "9.0");
  const long long total = h100.memory_bytes;
  const long long reserve = h100.context_reserve_bytes;
  EXPECT_EQ(o.integer("mem_total"), total);
  EXPECT_EQ(o.integer("mem_free"), total - reserve);
  EXPECT_EQ(o.integer("mem_used"), reserve);
  EXPECT_EQ(o.integer("cuda_total_mem"), total);
  EXPECT_EQ(o.integer("mem2_rc"), kNvmlSuccess);
  EXPECT_EQ(o.integer("mem2_total"), total);
  EXPECT_EQ(o.integer("mem2_free"), total - reserve);
  EXPECT_EQ(o.integer("mem2_reserved"), reserve);
  EXPECT_EQ(o.integer("mem2_bad_version_rc"), kNvmlVersionMismatch);
  EXPECT_EQ(o.integer("bar1_total"), 128ll << 30);
  EXPECT_EQ(o.integer("procs_rc"), kNvmlSuccess);
  EXPECT_EQ(o.integer("procs"), 0);
  EXPECT_EQ(o.integer("sm_clock_mhz"), h100.clock_khz / 1000);
  EXPECT_EQ(o.integer("cuda_clock_khz"), h100.clock_khz);
  EXPECT_GT(o.integer("temperature"), 20);
  EXPECT_GT(o.integer("power_mw"), 10000);
}

TEST(Nvml, ReportsTheRuntimesDriverVersion) {
  const Outcome o = seer_run("dgx-h100", "", {probe()});
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  const long long cuda = o.integer("cuda_driver_version");
  EXPECT_GE(cuda, 13000);
  EXPECT_EQ(o.integer("nvml_cuda_driver_version"), cuda);
  const std::string driver = o.text("driver_version");
  EXPECT_GE(std::stoi(driver), 580) << driver;  // the R580 driver brought CUDA 13
  EXPECT_EQ(o.text("nvml_version"), std::to_string(cuda / 1000) + "." + driver);
  EXPECT_EQ(o.integer("small_buffer_rc"), kNvmlInsufficientSize);
}

TEST(Nvml, NvSwitchNodeTopology) {
  const Outcome o = seer_run("dgx-h100:2", "", {probe()});
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  EXPECT_EQ(o.integer("p2p_same_node"), 0);   // NVML_P2P_STATUS_OK
  EXPECT_EQ(o.integer("p2p_first_last"), 5);  // NOT_SUPPORTED: another node
  EXPECT_EQ(o.integer("cuda_peer_first_last"), 0);
  EXPECT_EQ(o.integer("nvlinks"), 18);            // H100 SXM: 18 NVLink 4 links
  EXPECT_EQ(o.integer("nvlink_remote_type"), 2);  // NVML_NVLINK_DEVICE_TYPE_SWITCH
  EXPECT_EQ(o.integer("nvlink_remote_pci_rc"), kNvmlSuccess);
  // DGX H100: no multi-node NVLink fabric; success with the probe state "not supported".
  EXPECT_EQ(o.integer("fabric_rc"), kNvmlSuccess);
  EXPECT_EQ(o.integer("fabric_state"), 0);
}

TEST(Nvml, A100Node) {
  const Outcome o = seer_run("dgx-a100", "", {probe()});
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  EXPECT_EQ(o.text("name"), spec("A100-SXM-80GB").marketing_name);
  EXPECT_EQ(o.text("cc"), "8.0");
  EXPECT_EQ(o.integer("count"), 8);
  EXPECT_EQ(o.integer("nvlinks"), 12);
  EXPECT_EQ(o.text("first_pci_device_id"), "20b210de");
}

TEST(Nvml, UnimplementedFunctionsSayNotSupported) {
  const Outcome o = seer_run("dgx-h100", "", {probe()});
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  EXPECT_EQ(o.integer("serial_rc"), kNvmlNotSupported);
  EXPECT_NE(o.err.find("nvmlDeviceGetSerial is not implemented by Seer's nvml replacement"),
            std::string::npos)
      << o.err;
}

TEST(Nvml, InitIsReferenceCounted) {
  const Outcome o = seer_run("dgx-h100", "", {probe()});
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  // Two inits: two shutdowns succeed, the third finds it uninitialised, and so do queries.
  EXPECT_EQ(o.integer("shutdown1"), kNvmlSuccess);
  EXPECT_EQ(o.integer("shutdown2"), kNvmlSuccess);
  EXPECT_EQ(o.integer("shutdown3"), kNvmlUninitialized);
  EXPECT_EQ(o.integer("after_shutdown"), kNvmlUninitialized);
}

TEST(Nvml, OutsideSeerRunTheDriverIsNotLoaded) {
  const Outcome o = run_command({probe()}, {{"LD_LIBRARY_PATH", seer_lib_dir()}});
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  EXPECT_EQ(o.integer("init"), kNvmlDriverNotLoaded);
  EXPECT_EQ(o.text("init_text"), "Driver Not Loaded");
}

}  // namespace
}  // namespace seer::e2e

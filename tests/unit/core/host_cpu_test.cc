// Host CPU catalog, this machine's calibration and its cache, the session's host-time plan, and
// the cluster file's node.host_cpu (simcore/src/HOST_CPU.md).

#include "seer/simcore/host_cpu.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "seer/runtime/cluster.h"
#include "seer/runtime/host_calibration.h"
#include "steps.h"

namespace seer {
namespace {

TEST(HostCpuCatalog, SingleThreadIndexFromTheVendorsIpcChain) {
  // Zen 3 = Zen 2 x 1.19, Zen 4 = Zen 3 x 1.13, Zen 5 = Zen 4 x 1.16; Golden Cove = Sunny Cove x
  // 1.19 with Sunny Cove = Zen 3.
  EXPECT_DOUBLE_EQ(sim::microarchitecture_ipc_index("zen4"), 1.0);
  EXPECT_NEAR(sim::microarchitecture_ipc_index("zen3"), 1 / 1.13, 1e-12);
  EXPECT_NEAR(sim::microarchitecture_ipc_index("zen2"), 1 / 1.13 / 1.19, 1e-12);
  EXPECT_NEAR(sim::microarchitecture_ipc_index("golden-cove"), 1.19 / 1.13, 1e-12);
  EXPECT_EQ(sim::microarchitecture_ipc_index("pentium-4"), 0);
  const auto spr = sim::find_host_cpu("Xeon-Platinum-8480C");
  ASSERT_TRUE(spr);
  EXPECT_NEAR(spr->single_thread_index(), 3.8 * 1.19 / 1.13, 1e-9);  // 4.0018
  const auto rome = sim::find_host_cpu("EPYC-7742");
  ASSERT_TRUE(rome);
  EXPECT_NEAR(rome->single_thread_index(), 3.4 / 1.13 / 1.19, 1e-9);  // 2.528
  EXPECT_FALSE(sim::find_host_cpu("Xeon-Platinum-9999"));
  for (const sim::HostCpuSpec& c : sim::host_cpu_catalog()) {
    EXPECT_GT(c.ipc_index, 0) << c.name << " names an unknown microarchitecture";
    EXPECT_GT(c.max_turbo_ghz, 2) << c.name;
  }
}

TEST(HostCpuCatalog, FrameworkCostAndBenchmarkRateScaleWithSingleThreadSpeed) {
  const sim::ReferenceHost& ref = sim::reference_host();
  EXPECT_NEAR(ref.single_thread_index, 1.16 * 4.47, 1e-9);
  const sim::HostCpuSpec spr = *sim::find_host_cpu("Xeon-Platinum-8480C");
  // 8.1 us on the reference host (index 5.185) is 10.49 us on a 4.002 one.
  EXPECT_EQ(sim::framework_op_ns(spr), 10495);
  EXPECT_NEAR(sim::target_benchmark_ops_per_s(spr), 102.0e6 * 4.0017699 / 5.1852, 1e3);
  // A slower host costs more per operation and runs fewer benchmark operations per second.
  const sim::HostCpuSpec rome = *sim::find_host_cpu("EPYC-7742");
  EXPECT_GT(sim::framework_op_ns(rome), sim::framework_op_ns(spr));
  EXPECT_LT(sim::target_benchmark_ops_per_s(rome), sim::target_benchmark_ops_per_s(spr));
}

class CacheDir : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("seer-host-cache-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    const char* old = std::getenv("SEER_CACHE_DIR");
    if (old) saved_ = old;
    had_ = old != nullptr;
    ::setenv("SEER_CACHE_DIR", dir_.c_str(), 1);
  }
  void TearDown() override {
    if (had_) {
      ::setenv("SEER_CACHE_DIR", saved_.c_str(), 1);
    } else {
      ::unsetenv("SEER_CACHE_DIR");
    }
    std::filesystem::remove_all(dir_);
  }
  std::filesystem::path file() const { return dir_ / "host_calibration.json"; }
  std::filesystem::path dir_;
  std::string saved_;
  bool had_ = false;
};

TEST_F(CacheDir, CalibratesOnceThenReadsTheCache) {
  const rt::HostSpeed first = rt::host_speed();
  EXPECT_FALSE(first.from_cache);
  EXPECT_GT(first.benchmark_ops_per_s, 1e6);  // any machine that can run Seer
  EXPECT_EQ(first.cache_path, file().string());
  ASSERT_TRUE(std::filesystem::exists(file()));
  const rt::HostSpeed second = rt::host_speed();
  EXPECT_TRUE(second.from_cache);
  EXPECT_DOUBLE_EQ(second.benchmark_ops_per_s, first.benchmark_ops_per_s);
  EXPECT_FALSE(rt::host_speed(/*refresh=*/true).from_cache);
}

TEST_F(CacheDir, ACachedFigureIsUsedOnlyForThisCpuAndBenchmarkVersion) {
  rt::host_speed();
  nlohmann::json j = nlohmann::json::parse(std::ifstream(file()));
  j["benchmark_ops_per_s"] = 1234.0;
  std::ofstream(file()) << j.dump();
  EXPECT_DOUBLE_EQ(rt::host_speed().benchmark_ops_per_s, 1234.0);  // the cache is trusted
  j["cpu_model"] = "another CPU";
  std::ofstream(file()) << j.dump();
  EXPECT_FALSE(rt::host_speed().from_cache);
  j = nlohmann::json::parse(std::ifstream(file()));
  j["version"] = 0;
  std::ofstream(file()) << j.dump();
  EXPECT_FALSE(rt::host_speed().from_cache);
}

TEST_F(CacheDir, ACorruptOrUnwritableCacheOnlyMeansCalibratingAgain) {
  std::filesystem::create_directories(dir_);
  std::ofstream(file()) << "{ not json";
  const rt::HostSpeed s = rt::host_speed();
  EXPECT_FALSE(s.from_cache);
  EXPECT_GT(s.benchmark_ops_per_s, 0);
  std::filesystem::remove_all(dir_);
  std::ofstream(dir_) << "a file where the cache directory should be";
  const rt::HostSpeed t = rt::host_speed();
  EXPECT_GT(t.benchmark_ops_per_s, 0);
  EXPECT_EQ(t.cache_path, "");
  std::filesystem::remove(dir_);
}

TEST_F(CacheDir, PlanForTheClusterHostCpu) {
  // Modeled: no calibration, the target's framework cost.
  const rt::HostCpuPlan modeled = rt::plan_host_cpu("Xeon-Platinum-8480C", false);
  EXPECT_FALSE(modeled.here);
  EXPECT_DOUBLE_EQ(modeled.cpu_scale, 1.0);
  EXPECT_EQ(modeled.framework_op_ns, 10495);
  EXPECT_FALSE(std::filesystem::exists(file()));
  // Measured: this machine against the target.
  const rt::HostCpuPlan measured = rt::plan_host_cpu("Xeon-Platinum-8480C", true);
  ASSERT_TRUE(measured.here);
  EXPECT_NEAR(measured.cpu_scale,
              measured.here->benchmark_ops_per_s /
                  sim::target_benchmark_ops_per_s(*sim::find_host_cpu("Xeon-Platinum-8480C")),
              1e-12);
  // No host CPU named: this machine stands in, the reference host's framework cost.
  const rt::HostCpuPlan none = rt::plan_host_cpu("", true);
  EXPECT_FALSE(none.target);
  EXPECT_DOUBLE_EQ(none.cpu_scale, 1.0);
  EXPECT_EQ(none.framework_op_ns, sim::reference_host().framework_op_ns);
  sim::HostCosts costs;
  rt::apply(measured, costs);
  EXPECT_DOUBLE_EQ(costs.cpu_scale, measured.cpu_scale);
  EXPECT_EQ(costs.framework_op, 10495);
}

TEST(HostCpuCluster, PresetsNameTheirHostsCpu) {
  EXPECT_EQ(rt::load_cluster("dgx-h100").host_cpu, "Xeon-Platinum-8480C");
  EXPECT_EQ(rt::load_cluster("dgx-a100").host_cpu, "EPYC-7742");
  EXPECT_EQ(rt::load_cluster("test-fabric").host_cpu, "");
}

TEST(HostCpuCluster, AnUnknownHostCpuIsRefusedWithTheCatalog) {
  std::string yaml = rt::preset_yaml("dgx-h100");
  yaml.replace(yaml.find("Xeon-Platinum-8480C"), 19, "Xeon-Platinum-8480X");
  try {
    rt::parse_cluster_yaml(yaml, "mine.yaml");
    FAIL() << "accepted an unknown host CPU";
  } catch (const rt::ClusterError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("node.host_cpu: 'Xeon-Platinum-8480X' is not in the host CPU catalog"),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("EPYC-7742"), std::string::npos) << m;
  }
}

TEST(Boundedness, FromTheGpuBusyShareOfStepTime) {
  rt::Steps s;
  EXPECT_EQ(rt::boundedness(s), "");
  s.gpu_busy_share = 0.97;
  EXPECT_EQ(rt::boundedness(s), "gpu");
  s.gpu_busy_share = 0.8;
  EXPECT_EQ(rt::boundedness(s), "gpu");
  s.gpu_busy_share = 0.6;
  EXPECT_EQ(rt::boundedness(s), "mixed");
  s.gpu_busy_share = 0.2;
  EXPECT_EQ(rt::boundedness(s), "host");
}

}  // namespace
}  // namespace seer

// `seer profile` end to end without a GPU: under `seer run`, Seer's driver loads the recorder
// through CUDA_INJECTION64_PATH as NVIDIA's does and Seer's CUPTI gives activity records at
// simulated times, so the whole path (recorder, records, database, merge, `seer run
// --kernel-db`, `seer db fit`) runs as it would on a real GPU. The pipeline demo is profiled on
// a simulated A100 and stored as H100 measurements, so a later H100 run that reproduces the A100
// times can only have taken them from the database.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "cli.h"

namespace {

using namespace e2e_db;

// Kernel name -> (launches, average ns) from a summary.json.
std::map<std::string, std::pair<int64_t, int64_t>> kernels_of(const std::string& out_dir) {
  const nlohmann::json s = nlohmann::json::parse(read(out_dir + "/summary.json"));
  std::map<std::string, std::pair<int64_t, int64_t>> k;
  for (const auto& e : s["kernels"]) {
    k[e["name"].get<std::string>()] = {e["count"].get<int64_t>(), e["avg_ns"].get<int64_t>()};
  }
  return k;
}

// The pipeline demo with 2 chunks of `mib` MiB: kernels of mib * 256 blocks of 256 threads.
Result profile_on_a100(const Dir& d, const std::string& run_out, const std::string& mib = "8") {
  return seer({"run", "--quiet", "--host-time", "modeled", "--cluster", "dgx-a100", "--out",
               d.file(run_out), "--", SEER_BIN, "profile", "--gpu-model", "H100-SXM-80GB", "--out",
               d.file("db.kdb"), "--", PIPELINE_DEMO, "2", mib});
}

TEST(SeerProfile, RecordedKernelsAreWhatALaterRunUses) {
  Dir d;
  const Result p = profile_on_a100(d, "a100");
  ASSERT_EQ(p.code, 0) << p.out;
  EXPECT_NE(p.out.find("seer profile: 1 process(es), 4 kernel launches"), std::string::npos)
      << p.out;
  EXPECT_NE(p.out.find("device: NVIDIA A100-SXM4-80GB"), std::string::npos) << p.out;
  EXPECT_NE(p.out.find("memcpy HtoD         2 copies, 16.00 MiB"), std::string::npos) << p.out;
  EXPECT_NE(p.out.find("2 database entries recorded; " + d.file("db.kdb") + " now holds 2 (0"),
            std::string::npos)
      << p.out;
  const auto a100 = kernels_of(d.file("a100"));
  ASSERT_EQ(a100.size(), 2u);

  const Result db =
      seer({"run", "--quiet", "--host-time", "modeled", "--cluster", "dgx-h100", "--kernel-db",
            d.file("db.kdb"), "--out", d.file("h100db"), "--", PIPELINE_DEMO, "2", "8"});
  ASSERT_EQ(db.code, 0) << db.out;
  const Result model = seer({"run", "--quiet", "--host-time", "modeled", "--cluster", "dgx-h100",
                             "--out", d.file("h100"), "--", PIPELINE_DEMO, "2", "8"});
  ASSERT_EQ(model.code, 0) << model.out;
  const auto from_db = kernels_of(d.file("h100db"));
  const auto modeled = kernels_of(d.file("h100"));
  for (const auto& [name, measured] : a100) {
    EXPECT_EQ(from_db.at(name), measured) << name;
    EXPECT_NE(modeled.at(name).second, measured.second) << name << ": the test proves nothing";
  }
  const nlohmann::json s = nlohmann::json::parse(read(d.file("h100db") + "/summary.json"));
  EXPECT_DOUBLE_EQ(s["time_sources"]["kernel_shares"]["database"].get<double>(), 1.0);
  for (const auto& k : s["kernels"]) EXPECT_EQ(k["source"], "database") << k.dump();

  // Per family, the generic model against the A100 measurements taken as H100's.
  const Result fit = seer({"db", "fit", d.file("db.kdb")});
  ASSERT_EQ(fit.code, 0) << fit.out;
  EXPECT_NE(fit.out.find("other kernels (generic model)                      2         4"),
            std::string::npos)
      << fit.out;
}

// dp_train's GEMMs go through cublasGemmEx: the recorder's wrapper names each call as Seer's
// cuBLAS does, so the database holds library entries (label and shape) that the H100 run looks
// up, rather than the kernels cuBLAS chose.
TEST(SeerProfile, CublasCallsBecomeLibraryEntriesThatALaterRunUses) {
  Dir d;
  const Result p =
      seer({"run", "--quiet", "--host-time", "modeled", "--cluster", "dgx-a100", "--out",
            d.file("a100"), "--", SEER_BIN, "profile", "--gpu-model", "H100-SXM-80GB", "--out",
            d.file("db.kdb"), "--", DP_TRAIN, "--steps", "2"});
  ASSERT_EQ(p.code, 0) << p.out;
  EXPECT_NE(p.out.find("kernel launches, 192 cuBLAS calls"), std::string::npos) << p.out;
  const Result list = seer({"db", "list", d.file("db.kdb"), "--kernel", "cublasGemmEx"});
  EXPECT_NE(list.out.find("cublasGemmEx [tf32] [m=1024,n=4096,k=512,batch=1] (seer profile)"),
            std::string::npos)
      << list.out;

  const Result run =
      seer({"run", "--quiet", "--host-time", "modeled", "--cluster", "dgx-h100", "--kernel-db",
            d.file("db.kdb"), "--out", d.file("h100db"), "--", DP_TRAIN, "--steps", "2"});
  ASSERT_EQ(run.code, 0) << run.out;
  const Result model = seer({"run", "--quiet", "--host-time", "modeled", "--cluster", "dgx-h100",
                             "--out", d.file("h100"), "--", DP_TRAIN, "--steps", "2"});
  ASSERT_EQ(model.code, 0) << model.out;
  const auto a100 = kernels_of(d.file("a100"));
  const auto from_db = kernels_of(d.file("h100db"));
  const auto modeled = kernels_of(d.file("h100"));
  const std::string gemm = "cublasGemmEx [tf32]";
  ASSERT_TRUE(a100.count(gemm)) << read(d.file("a100") + "/summary.json");
  EXPECT_EQ(from_db.at(gemm), a100.at(gemm));
  EXPECT_NE(modeled.at(gemm).second, a100.at(gemm).second);
  const nlohmann::json s = nlohmann::json::parse(read(d.file("h100db") + "/summary.json"));
  EXPECT_DOUBLE_EQ(s["time_sources"]["kernel_shares"]["database"].get<double>(), 1.0);

  // The library model against those (A100) measurements, per GEMM family.
  const Result fit = seer({"db", "fit", d.file("db.kdb")});
  EXPECT_NE(fit.out.find("cublasGemmEx [tf32]                                9       192"),
            std::string::npos)
      << fit.out;
}

#ifdef CUBLASLT_MATMUL
// The cuBLASLt program's matmuls (with and without a bias epilogue, batched, FP8) become library
// entries named as Seer's cuBLASLt names them, and nothing of the H100 run is left to a model.
TEST(SeerProfile, CublasLtMatmulsBecomeLibraryEntries) {
  Dir d;
  const Result p = seer({"run", "--quiet", "--host-time", "modeled", "--cluster", "dgx-a100", "--",
                         SEER_BIN, "profile", "--gpu-model", "H100-SXM-80GB", "--out",
                         d.file("db.kdb"), "--", CUBLASLT_MATMUL});
  ASSERT_EQ(p.code, 0) << p.out;
  EXPECT_NE(p.out.find("20 kernel launches, 20 cuBLAS calls"), std::string::npos) << p.out;
  const Result list = seer({"db", "list", d.file("db.kdb")});
  for (const char* row : {"cublasLtMatmul+bias [bf16] [m=4096,n=4096,k=4096,batch=4]",
                          "cublasLtMatmul [f8] [m=4096,n=4096,k=4096,batch=1]"}) {
    EXPECT_NE(list.out.find(row), std::string::npos) << row << "\n" << list.out;
  }
  const Result run =
      seer({"run", "--quiet", "--host-time", "modeled", "--cluster", "dgx-h100", "--kernel-db",
            d.file("db.kdb"), "--out", d.file("h100"), "--", CUBLASLT_MATMUL});
  ASSERT_EQ(run.code, 0) << run.out;
  const nlohmann::json s = nlohmann::json::parse(read(d.file("h100") + "/summary.json"));
  EXPECT_DOUBLE_EQ(s["time_sources"]["kernel_shares"]["database"].get<double>(), 1.0);
}
#endif

TEST(SeerProfile, ProfilingAgainMergesAndSizesBetweenInterpolate) {
  Dir d;
  ASSERT_EQ(profile_on_a100(d, "first").code, 0);
  // The same measurements again change nothing (kernel_db.h: equal durations are not counted
  // twice).
  const std::string before = read(d.file("db.kdb"));
  Result again = profile_on_a100(d, "again");
  ASSERT_EQ(again.code, 0) << again.out;
  EXPECT_NE(again.out.find("now holds 2 (2 before)"), std::string::npos) << again.out;
  EXPECT_EQ(read(d.file("db.kdb")), before);
  // Another size adds entries: 16 MiB chunks are 16384 blocks.
  again = profile_on_a100(d, "big", "16");
  ASSERT_EQ(again.code, 0) << again.out;
  EXPECT_NE(again.out.find("now holds 4 (2 before)"), std::string::npos) << again.out;

  // 12 MiB chunks (12288 blocks) on H100 take 12 waves of 1056 blocks, half-way between the
  // 8-wave (8 MiB) and 16-wave (16 MiB) entries: each kernel gets the mean of the two.
  const Result run =
      seer({"run", "--quiet", "--host-time", "modeled", "--cluster", "dgx-h100", "--kernel-db",
            d.file("db.kdb"), "--out", d.file("mid"), "--", PIPELINE_DEMO, "2", "12"});
  ASSERT_EQ(run.code, 0) << run.out;
  const auto small = kernels_of(d.file("first"));
  const auto big = kernels_of(d.file("big"));
  const auto mid = kernels_of(d.file("mid"));
  for (const auto& [name, measured] : small) {
    EXPECT_LT(measured.second, big.at(name).second) << name;
    EXPECT_EQ(mid.at(name).second, (measured.second + big.at(name).second + 1) / 2) << name;
  }
}

TEST(SeerProfile, ProcessesOfOneCommandAreAllRecorded) {
  Dir d;
  const std::string demo = std::string(PIPELINE_DEMO) + " 2 8 >/dev/null";
  const Result p =
      seer({"run", "--quiet", "--host-time", "modeled", "--cluster", "dgx-h100", "--", SEER_BIN,
            "profile", "--out", d.file("db.kdb"), "--", "sh", "-c", demo + " && " + demo});
  ASSERT_EQ(p.code, 0) << p.out;
  EXPECT_NE(p.out.find("seer profile: 2 process(es), 8 kernel launches"), std::string::npos)
      << p.out;
  const Result list = seer({"db", "list", d.file("db.kdb")});
  EXPECT_NE(list.out.find("H100-SXM-80GB"), std::string::npos) << list.out;  // the device's name
  EXPECT_NE(list.out.find("        4  scale(float*, unsigned long, float)"), std::string::npos)
      << list.out;
}

TEST(SeerProfile, WithoutAGpuOrWithBadInputItSaysWhy) {
  Dir d;
  Result r = seer({"profile", "--out", d.file("db.kdb"), "--", "true"});
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("nothing was recorded"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(d.file("db.kdb")));

  r = seer({"profile", "--out", d.file("db.kdb"), "--", "/nonexistent/program"});
  EXPECT_EQ(r.code, 127) << r.out;
  EXPECT_NE(r.out.find("cannot run '/nonexistent/program'"), std::string::npos) << r.out;

  r = seer({"profile", "--gpu-model", "no-such-gpu", "--", "true"});
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("unknown GPU model 'no-such-gpu'"), std::string::npos) << r.out;

  r = seer({"profile"});
  EXPECT_EQ(r.code, 2) << r.out;

  write(d.file("corrupt.kdb"), "not a database");
  r = seer({"profile", "--out", d.file("corrupt.kdb"), "--", "true"});
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_EQ(read(d.file("corrupt.kdb")), "not a database");
}

}  // namespace

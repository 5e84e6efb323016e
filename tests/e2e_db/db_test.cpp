// `seer db` and `seer run --kernel-db` end to end: the pipeline demo with a measured duration for
// `scale` (65536 x 256 on H100-SXM-80GB: 50000 ns) and none for `add_bias` (generic model:
// 2000 + 1500 * 63 waves = 96500 ns).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "cli.h"

namespace {

using namespace e2e_db;

constexpr const char* kHeader =
    "gpu,kernel,grid_x,grid_y,grid_z,block_x,block_y,block_z,shmem,duration_ns,samples,source\n";
constexpr const char* kScaleRow =
    "H100-SXM-80GB,\"scale(float*, unsigned long, float)\",65536,1,1,256,1,1,0,50000,5,"
    "cupti H100 2026-11-20\n";

TEST(SeerDb, ImportListExportMerge) {
  Dir d;
  write(d.file("a.csv"), std::string(kHeader) + kScaleRow +
                             "A100-SXM-80GB,\"other(int, int)\",10,1,1,128,1,1,0,1234,1,\n");
  Result r = seer({"db", "import", d.file("a.csv"), d.file("a.kdb")});
  ASSERT_EQ(r.code, 0) << r.out;
  r = seer({"db", "list", d.file("a.kdb")});
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("scale(float*, unsigned long, float)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("65536,1,1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2 of 2 entries"), std::string::npos) << r.out;
  r = seer({"db", "list", d.file("a.kdb"), "--gpu", "A100-SXM-80GB"});
  EXPECT_NE(r.out.find("1 of 2 entries"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("scale("), std::string::npos) << r.out;
  r = seer({"db", "list", d.file("a.kdb"), "--kernel", "scale"});
  EXPECT_NE(r.out.find("1 of 2 entries"), std::string::npos) << r.out;
  // Export round-trips with import.
  r = seer({"db", "export", d.file("a.kdb")});
  ASSERT_EQ(r.code, 0) << r.out;
  write(d.file("b.csv"), r.out);
  ASSERT_EQ(seer({"db", "import", d.file("b.csv"), d.file("b.kdb")}).code, 0);
  EXPECT_EQ(read(d.file("a.kdb")), read(d.file("b.kdb")));
  // Merge: different durations averaged by samples: (50000 * 5 + 80000 * 1) / 6 = 55000.
  write(d.file("c.csv"), std::string(kHeader) +
                             "H100-SXM-80GB,\"scale(float*, unsigned long, float)\",65536,1,1,256,"
                             "1,1,0,80000,1,later\n");
  ASSERT_EQ(seer({"db", "import", d.file("c.csv"), d.file("c.kdb")}).code, 0);
  r = seer({"db", "merge", d.file("m.kdb"), d.file("a.kdb"), d.file("c.kdb")});
  ASSERT_EQ(r.code, 0) << r.out;
  r = seer({"db", "export", d.file("m.kdb")});
  EXPECT_NE(r.out.find("65536,1,1,256,1,1,0,55000,6,later,"), std::string::npos) << r.out;
}

TEST(SeerDb, BadInputsExitTwo) {
  Dir d;
  write(d.file("bad.csv"), std::string(kHeader) + "H100-SXM-80GB,k,1,1,1,1,1,1,0,fast,1,\n");
  Result r = seer({"db", "import", d.file("bad.csv"), d.file("x.kdb")});
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("bad.csv:2: column 10 (duration_ns): 'fast' is not an integer"),
            std::string::npos)
      << r.out;
  write(d.file("corrupt.kdb"), "\xff\xff\xff not a database");
  r = seer({"db", "list", d.file("corrupt.kdb")});
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("not a kernel database"), std::string::npos) << r.out;
  r = seer({"run", "--kernel-db", d.file("corrupt.kdb"), "--", "true"});
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("seer: kernel database: "), std::string::npos) << r.out;
}

void check_pipeline(const std::string& out_dir, const Result& r) {
  ASSERT_EQ(r.code, 0) << r.out;
  // stop - start = 2000 + 8 * H2D + scale + add_bias + D2H (tests/e2e timing_test.cpp's reasoning;
  // the kernels of a chunk still take far less than a copy): 11194458 - 96500 + 50000.
  EXPECT_NE(r.out.find("cuda events: 11.148 ms\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("time sources "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Top kernels without a database entry"), std::string::npos) << r.out;
  const nlohmann::json s = nlohmann::json::parse(read(out_dir + "/summary.json"));
  bool saw_scale = false, saw_bias = false;
  for (const auto& k : s["kernels"]) {
    if (k["name"] == "scale(float*, unsigned long, float)") {
      saw_scale = true;
      EXPECT_EQ(k["count"], 8);
      EXPECT_EQ(k["avg_ns"], 50000);
      EXPECT_EQ(k["source"], "database");
    }
    if (k["name"] == "add_bias(float*, unsigned long, float)") {
      saw_bias = true;
      EXPECT_EQ(k["avg_ns"], 96500);
      EXPECT_EQ(k["source"], "generic");
    }
  }
  EXPECT_TRUE(saw_scale && saw_bias) << s["kernels"].dump(2);
  const auto& t = s["time_sources"];
  EXPECT_EQ(t["kernel_ns"], 8 * 50000 + 8 * 96500) << t.dump(2);
  EXPECT_EQ(t["database_kernel_ns"], 8 * 50000);
  EXPECT_EQ(t["generic_kernel_ns"], 8 * 96500);
  EXPECT_EQ(t["library_kernel_ns"], 0);
  EXPECT_DOUBLE_EQ(t["kernel_shares"]["database"].get<double>(), 400000.0 / 1172000.0);
  EXPECT_DOUBLE_EQ(t["kernel_shares"]["generic"].get<double>(), 772000.0 / 1172000.0);
  ASSERT_EQ(t["top_kernels_without_db_entry"].size(), 1u) << t.dump(2);
  EXPECT_EQ(t["top_kernels_without_db_entry"][0]["name"], "add_bias(float*, unsigned long, float)");
  EXPECT_EQ(t["top_kernels_without_db_entry"][0]["count"], 8);
  int64_t gpu_kernel_ns = 0;
  for (const auto& g : s["gpus"]) gpu_kernel_ns += g["kernels"]["time_ns"].get<int64_t>();
  EXPECT_EQ(gpu_kernel_ns, 8 * 50000 + 8 * 96500);
}

TEST(SeerDb, RunUsesTheDatabaseBeforeTheGenericModel) {
  Dir d;
  write(d.file("db.csv"), std::string(kHeader) + kScaleRow);
  ASSERT_EQ(seer({"db", "import", d.file("db.csv"), d.file("db.kdb")}).code, 0);
  const Result r =
      seer({"run", "--kernel-db", d.file("db.kdb"), "--host-time", "modeled", "--cluster",
            "dgx-h100", "--out", d.file("out"), "--", PIPELINE_DEMO, "8", "64"});
  check_pipeline(d.file("out"), r);
  // The same through SEER_KERNEL_DB.
  const Result e = seer({"run", "--host-time", "modeled", "--cluster", "dgx-h100", "--out",
                         d.file("out2"), "--", PIPELINE_DEMO, "8", "64"},
                        "SEER_KERNEL_DB=" + quote(d.file("db.kdb")));
  check_pipeline(d.file("out2"), e);
}

}  // namespace

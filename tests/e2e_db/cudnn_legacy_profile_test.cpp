// `seer profile` of cuDNN's legacy calls without a GPU: under `seer run` Seer's cuDNN stands in
// for NVIDIA's, so the recorder's legacy wrappers (interposer/profiler/cudnn_legacy_calls.cpp)
// read the program's descriptors back through cuDNN's getters and record each batch norm,
// convolution, bias gradient and tensor add as the library call Seer's cuDNN times. The expected
// labels and sizes are worked out here from the program's shapes (programs/cudnn_legacy.cpp).
// Profiled on a simulated A100 and stored as H100 measurements, a later H100 run can only
// reproduce the A100 times by taking them from the database.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "cli.h"

namespace {

using namespace e2e_db;

struct Op {
  int64_t count = 0, avg_ns = 0;
  std::string source;
};

std::map<std::string, Op> ops_of(const std::string& out_dir) {
  const nlohmann::json s = nlohmann::json::parse(read(out_dir + "/summary.json"));
  std::map<std::string, Op> ops;
  for (const auto& e : s["kernels"]) {
    ops[e["name"].get<std::string>()] = {e["count"].get<int64_t>(), e["avg_ns"].get<int64_t>(),
                                         e.value("source", std::string())};
  }
  return ops;
}

Result run_on(const Dir& d, const std::string& cluster, const std::string& out,
              const std::string& db = "") {
  std::vector<std::string> args{"run", "--quiet", "--host-time", "modeled", "--cluster", cluster};
  if (!db.empty()) args.insert(args.end(), {"--kernel-db", db});
  args.insert(args.end(), {"--out", d.file(out), "--", CUDNN_LEGACY});
  return seer(args);
}

TEST(SeerProfileCudnnLegacy, LegacyCallsAreLibraryEntriesThatALaterRunUses) {
  Dir d;
  const Result p = seer({"run", "--quiet", "--host-time", "modeled", "--cluster", "dgx-a100",
                         "--out", d.file("a100"), "--", SEER_BIN, "profile", "--gpu-model",
                         "H100-SXM-80GB", "--out", d.file("db.kdb"), "--", CUDNN_LEGACY});
  ASSERT_EQ(p.code, 0) << p.out;
  EXPECT_NE(p.out.find("done"), std::string::npos) << p.out;
  // 8 calls, twice each; the plain batch norm entry points are one call each, not two.
  EXPECT_NE(p.out.find("0 cuBLAS calls, 16 cuDNN calls"), std::string::npos) << p.out;

  // Batch norm moves x (8x64x56x56 float) 3, 2 or 5 times plus 8, 4 or 5 per-channel arrays of
  // 64 floats; the convolution (half, 3x3, padding 1: 8x64x56x56 -> 8x128x56x56) is an implicit
  // GEMM; the bias gradient reads dy and writes 128 halves; the add reads the bias and reads and
  // writes the output.
  const int64_t x = 8LL * 64 * 56 * 56 * 4, param = 64 * 4;
  const int64_t y = 8LL * 128 * 56 * 56 * 2, bias = 128 * 2;
  const std::map<std::string, std::string> expected = {
      {"cudnnBatchNormalizationForwardTrainingEx [f32]",
       "bytes=" + std::to_string(3 * x + 8 * param)},
      {"cudnnBatchNormalizationForwardInference [f32]",
       "bytes=" + std::to_string(2 * x + 4 * param)},
      {"cudnnBatchNormalizationBackwardEx [f32]", "bytes=" + std::to_string(5 * x + 5 * param)},
      {"cudnn conv fwd [f16]", "m=25088,n=128,k=576,batch=1"},
      {"cudnn conv bwd data [f16]", "m=25088,n=64,k=1152,batch=1"},
      {"cudnn conv bwd filter [f16]", "m=128,n=576,k=25088,batch=1"},
      {"cudnnConvolutionBackwardBias [f16]", "bytes=" + std::to_string(y + bias)},
      {"cudnnAddTensor [f16]", "bytes=" + std::to_string(2 * y + bias)},
  };
  const Result list = seer({"db", "list", d.file("db.kdb")});
  for (const auto& [label, params] : expected) {
    const std::string row = label + " [" + params + "] (seer profile)";
    EXPECT_NE(list.out.find(row), std::string::npos) << row << "\n" << list.out;
  }

  const Result db = run_on(d, "dgx-h100", "h100db", d.file("db.kdb"));
  ASSERT_EQ(db.code, 0) << db.out;
  const Result model = run_on(d, "dgx-h100", "h100");
  ASSERT_EQ(model.code, 0) << model.out;
  const auto a100 = ops_of(d.file("a100"));
  const auto from_db = ops_of(d.file("h100db"));
  const auto modeled = ops_of(d.file("h100"));
  for (const auto& [label, params] : expected) {
    ASSERT_TRUE(a100.count(label) && from_db.count(label) && modeled.count(label))
        << label << "\n"
        << read(d.file("h100db") + "/summary.json");
    EXPECT_EQ(from_db.at(label).count, 2) << label;
    EXPECT_EQ(from_db.at(label).source, "database") << label;
    EXPECT_EQ(from_db.at(label).avg_ns, a100.at(label).avg_ns) << label;
    EXPECT_NE(modeled.at(label).avg_ns, a100.at(label).avg_ns) << label << ": proves nothing";
  }
  const nlohmann::json s = nlohmann::json::parse(read(d.file("h100db") + "/summary.json"));
  EXPECT_DOUBLE_EQ(s["time_sources"]["kernel_shares"]["database"].get<double>(), 1.0)
      << s["time_sources"].dump();
}

}  // namespace

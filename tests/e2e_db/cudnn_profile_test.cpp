// `seer profile` of cuDNN calls end to end without a GPU: under `seer run` Seer's cuDNN and
// CUPTI stand in for NVIDIA's, so the recorder's cuDNN wrappers (interposer/profiler/
// cudnn_calls.cpp) see a PyTorch program's cudnnBackendExecute calls, name them as Seer's cuDNN
// names its ops and record them as library calls. Profiled on a simulated A100 and stored as H100
// measurements, a later H100 run can only reproduce the A100 times by taking them from the
// database.
#include <gtest/gtest.h>
#include <unistd.h>

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

// Report label -> what the summary says of it.
std::map<std::string, Op> ops_of(const std::string& out_dir) {
  const nlohmann::json s = nlohmann::json::parse(read(out_dir + "/summary.json"));
  std::map<std::string, Op> ops;
  for (const auto& e : s["kernels"]) {
    ops[e["name"].get<std::string>()] = {e["count"].get<int64_t>(), e["avg_ns"].get<int64_t>(),
                                         e.value("source", std::string())};
  }
  return ops;
}

Result run_program(const Dir& d, const std::string& cluster, const std::string& out,
                   const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args{"run", "--quiet", "--host-time", "modeled", "--cluster", cluster};
  args.insert(args.end(), extra.begin(), extra.end());
  for (const std::string& a : {std::string("--out"), d.file(out), std::string("--"),
                               std::string(SEER_PYTHON), std::string(CUDNN_OPS_PY)}) {
    args.push_back(a);
  }
  return seer(args);
}

TEST(SeerProfileCudnn, AttentionAndConvolutionCallsAreWhatALaterRunUses) {
  if (::access(SEER_PYTHON, X_OK) != 0) GTEST_SKIP() << "no Python environment at " SEER_PYTHON;
  Dir d;
  const Result p =
      seer({"run", "--quiet", "--host-time", "modeled", "--cluster", "dgx-a100", "--out",
            d.file("a100"), "--", SEER_BIN, "profile", "--gpu-model", "H100-SXM-80GB", "--out",
            d.file("db.kdb"), "--", SEER_PYTHON, CUDNN_OPS_PY});
  ASSERT_EQ(p.code, 0) << p.out;
  EXPECT_NE(p.out.find("0 cuBLAS calls, 6 cuDNN calls"), std::string::npos) << p.out;
  // Each label and shape as Seer's cuDNN names the op: the attention's GEMM work (m = Sq,
  // n = the keys a causal mask keeps, k = Dqk + Dv, batch = B * H) and its memory traffic, the
  // convolution's implicit GEMM (m = N * P * Q, n = K, k = C * R * S).
  const Result list = seer({"db", "list", d.file("db.kdb"), "--kernel", "cudnn"});
  for (const char* row : {"cudnn sdpa fwd [bf16] [m=512,n=257,k=128,batch=16] (seer profile)",
                          "cudnn sdpa fwd memory [bf16] [bytes=",
                          "cudnn conv fwd [bf16] "
                          "[m=25088,n=128,k=576,batch=1]"}) {
    EXPECT_NE(list.out.find(row), std::string::npos) << row << "\n" << list.out;
  }

  const Result db = run_program(d, "dgx-h100", "h100db", {"--kernel-db", d.file("db.kdb")});
  ASSERT_EQ(db.code, 0) << db.out;
  const Result model = run_program(d, "dgx-h100", "h100");
  ASSERT_EQ(model.code, 0) << model.out;
  const auto a100 = ops_of(d.file("a100"));
  const auto from_db = ops_of(d.file("h100db"));
  const auto modeled = ops_of(d.file("h100"));
  const std::string sdpa = "cudnn sdpa fwd [bf16]", memory = "cudnn sdpa fwd memory [bf16]",
                    conv = "cudnn conv fwd [bf16]";
  for (const std::string& op : {sdpa, memory, conv}) {
    ASSERT_TRUE(a100.count(op) && from_db.count(op) && modeled.count(op))
        << op << "\n"
        << read(d.file("h100db") + "/summary.json");
    EXPECT_EQ(from_db.at(op).count, 3) << op;
    EXPECT_EQ(from_db.at(op).source, "database") << op;
    EXPECT_NE(modeled.at(op).source, "database") << op;
  }
  // The convolution is one op: its measured time. The attention was one measured call, split
  // between its two ops in the H100 model's proportion: together they take what it took.
  EXPECT_EQ(from_db.at(conv).avg_ns, a100.at(conv).avg_ns);
  EXPECT_NE(modeled.at(conv).avg_ns, a100.at(conv).avg_ns) << "the test proves nothing";
  const int64_t measured = a100.at(sdpa).avg_ns + a100.at(memory).avg_ns;
  EXPECT_EQ(from_db.at(sdpa).avg_ns + from_db.at(memory).avg_ns, measured);
  EXPECT_NE(modeled.at(sdpa).avg_ns + modeled.at(memory).avg_ns, measured)
      << "the test proves nothing";
  EXPECT_NE(from_db.at(sdpa).avg_ns, a100.at(sdpa).avg_ns) << "split as H100 would, not as A100";

  const nlohmann::json s = nlohmann::json::parse(read(d.file("h100db") + "/summary.json"));
  EXPECT_DOUBLE_EQ(s["time_sources"]["kernel_shares"]["database"].get<double>(), 1.0)
      << s["time_sources"].dump();
}

}  // namespace

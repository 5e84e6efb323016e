// `seer profile` of a user Triton kernel, under `seer run` (Seer's CUPTI stands in for the GPU):
// Triton launches through cuLaunchKernelEx found with dlsym, which only CUPTI's callback API sees;
// the recorder reads the kernel's size argument (xnumel, found through its IR in Triton's cache as
// Seer's client does) at each launch, so the database holds one entry per size. A later run at a
// size between the two measured ones gets the interpolation of their durations in the size.
// Profiled on a simulated A100 and stored as H100 measurements, so the H100 run can only have its
// times from the database.

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "compile_util.h"

namespace seer::e2e::torch {
namespace {

constexpr const char* kKernel = "scale_kernel";
constexpr int64_t kBlock = 1024;  // XBLOCK in programs/triton_sizes.py
// Multiples of 16 (Triton specializes divisibility): one compilation for all three.
constexpr int64_t kSmall = 256 * 1024;
constexpr int64_t kBig = 1024 * 1024;
constexpr int64_t kBetween = 400 * 1024 + 16;  // 401 programs, not in proportion to its size

struct Row {
  int64_t grid_x = 0;
  int64_t duration_ns = 0;
  std::string sizes;
};

// The rows of `kernel` in `seer db export`'s CSV (gpu,kernel,grid x y z,block x y z,shmem,
// duration_ns,samples,source,library_params,sizes).
std::vector<Row> rows_of(const std::string& csv, const std::string& kernel) {
  std::vector<Row> rows;
  std::istringstream in(csv);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::string field;
    std::istringstream fields(line);
    while (std::getline(fields, field, ',')) f.push_back(field);
    if (!line.empty() && line.back() == ',') f.emplace_back();
    if (f.size() != 14 || f[1] != kernel) continue;
    rows.push_back({std::stoll(f[2]), std::stoll(f[9]), f[13]});
  }
  return rows;
}

int64_t kernel_ns(const nlohmann::json& summary, const std::string& name) {
  for (const auto& k : summary["kernels"]) {
    if (k.value("name", "") == name) return k.value("avg_ns", int64_t{0});
  }
  ADD_FAILURE() << "no " << name << " in " << summary["kernels"].dump(1);
  return 0;
}

TEST_F(TorchTest, SeerProfileRecordsTritonKernelsSizesThatALaterRunLooksUp) {
  TempDir dir;
  const std::string db = dir.file("db.kdb");
  const Env env = fresh_caches(dir);
  const Timed p = seer_compiled(
      "seer profile triton_sizes.py", "dgx-a100", dir.file("a100"),
      {seer_bin(), "profile", "--gpu-model", "H100-SXM-80GB", "--out", db, "--", python(),
       program("triton_sizes.py"), std::to_string(kSmall), std::to_string(kBig)},
      env);
  ASSERT_EQ(p.outcome.exit_code, 0) << p.outcome.describe();
  EXPECT_EQ(p.outcome.integer("launches"), 4);
  EXPECT_EQ(p.outcome.err.find("recorded without their size arguments"), std::string::npos)
      << p.outcome.err;

  const Outcome csv = run_command({seer_bin(), "db", "export", db});
  ASSERT_EQ(csv.exit_code, 0) << csv.describe();
  const std::vector<Row> rows = rows_of(csv.out, kKernel);
  // One entry per size, each with the grid of that size and xnumel as its size argument.
  std::set<std::pair<int64_t, std::string>> got;
  for (const Row& r : rows) got.insert({r.grid_x, r.sizes});
  const std::set<std::pair<int64_t, std::string>> expected{
      {(kSmall + kBlock - 1) / kBlock, std::to_string(kSmall)},
      {(kBig + kBlock - 1) / kBlock, std::to_string(kBig)}};
  ASSERT_EQ(got, expected) << csv.out;
  ASSERT_EQ(rows.size(), 2u) << csv.out;
  const Row& small = rows[0].sizes == std::to_string(kSmall) ? rows[0] : rows[1];
  const Row& big = rows[0].sizes == std::to_string(kBig) ? rows[0] : rows[1];
  ASSERT_LT(small.duration_ns, big.duration_ns) << csv.out;

  const Timed run =
      seer_compiled("seer run --kernel-db triton_sizes.py", "dgx-h100", dir.file("h100"),
                    python_command(program("triton_sizes.py"), {std::to_string(kBetween)}), [&] {
                      Env e = env;
                      e.emplace_back("SEER_KERNEL_DB", db);
                      return e;
                    }());
  ASSERT_EQ(run.outcome.exit_code, 0) << run.outcome.describe();
  const nlohmann::json s = read_json(dir.file("h100") + "/summary.json");
  EXPECT_DOUBLE_EQ(s["time_sources"]["kernel_shares"]["database"].get<double>(), 1.0) << s.dump(1);
  // Linear in xnumel between the two measured sizes.
  const double d0 = static_cast<double>(small.duration_ns);
  const double d1 = static_cast<double>(big.duration_ns);
  const double by_size =
      d0 + (d1 - d0) * static_cast<double>(kBetween - kSmall) / static_cast<double>(kBig - kSmall);
  EXPECT_EQ(kernel_ns(s, kKernel), std::llround(by_size));
  // Without sizes, the database could only interpolate in programs: a different time.
  const double by_grid =
      d0 + (d1 - d0) * static_cast<double>((kBetween + kBlock - 1) / kBlock - small.grid_x) /
               static_cast<double>(big.grid_x - small.grid_x);
  EXPECT_NE(std::llround(by_size), std::llround(by_grid)) << "the test proves nothing";
}

}  // namespace
}  // namespace seer::e2e::torch

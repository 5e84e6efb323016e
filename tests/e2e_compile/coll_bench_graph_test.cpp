// examples/cuda/coll_bench -G N (nccl-tests' --cudagraph): the timed iterations' AllReduce
// calls captured into one CUDA graph per GPU, the graphs launched N times. One process drives
// the 8 GPUs of a DGX H100; the same run without -G is the reference.

#include <sstream>

#include "e2e_util.h"

namespace seer::e2e {
namespace {

constexpr int kGpus = 8;
constexpr int kIters = 20;
constexpr int kGraphLaunches = 10;

struct Row {
  double bytes = 0;
  double time_us = 0;
  double busbw = 0;
  double host_us = 0;
};

// Data rows: "size count type redop root time algbw busbw host".
std::vector<Row> rows(const std::string& out) {
  std::vector<Row> found;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream f(line);
    Row r;
    std::string count, type, redop, root, algbw;
    if (f >> r.bytes >> count >> type >> redop >> root >> r.time_us >> algbw >> r.busbw >>
        r.host_us) {
      found.push_back(r);
    }
  }
  return found;
}

Outcome bench(const std::string& out, const std::vector<std::string>& extra) {
  std::vector<std::string> cmd{example("coll_bench"),
                               "-g",
                               std::to_string(kGpus),
                               "-b",
                               "8",
                               "-e",
                               "64M",
                               "-f",
                               "8",
                               "-n",
                               std::to_string(kIters),
                               "-w",
                               "5",
                               "-o",
                               "allreduce"};
  cmd.insert(cmd.end(), extra.begin(), extra.end());
  return seer_run("dgx-h100", out, cmd);
}

TEST(CollBenchGraphs, AllReduceReplaysSaveTheLaunchSkew) {
  TempDir dir;
  const Outcome plain = bench(dir.file("plain"), {});
  ASSERT_EQ(plain.exit_code, 0) << plain.describe();
  const Outcome graphs = bench(dir.file("graphs"), {"-G", std::to_string(kGraphLaunches)});
  ASSERT_EQ(graphs.exit_code, 0) << graphs.describe();
  EXPECT_NE(graphs.out.find("# CUDA graphs: 10 launches of a graph of 20 iterations"),
            std::string::npos)
      << graphs.out;

  const auto without = rows(plain.out);
  const auto with = rows(graphs.out);
  ASSERT_EQ(without.size(), 8u) << plain.out;  // 8 B to 16 MiB by factors of 8
  ASSERT_EQ(with.size(), without.size()) << graphs.out;

  // The collectives cost the same either way; what differs is when the first one can start.
  // Rank 0's start event is recorded before the group's launches: without graphs the last GPU's
  // first AllReduce is launched after the other 7 GPUs' (at least 7 launch costs of 2 us, at most
  // 2.5 us per GPU with the group and device calls; tests/e2e_nccl), a skew spread over the n
  // iterations. With graphs the skew is 8 graph launches (2 us each, plus the device switches),
  // spread over N x n iterations. So per iteration the graphs save between
  //   7 x 2 / n - 8 x 2.5 / (N n)  and  8 x 2.5 / n
  // microseconds, +-0.01 for the two printouts' rounding.
  const double n = kIters, nn = double(kIters) * kGraphLaunches;
  const double least = 7 * 2.0 / n - kGpus * 2.5 / nn - 0.01;
  const double most = kGpus * 2.5 / n + 0.01;
  for (size_t i = 0; i < with.size(); ++i) {
    const Row& a = without[i];
    const Row& b = with[i];
    ASSERT_EQ(a.bytes, b.bytes);
    const double saved = a.time_us - b.time_us;
    std::printf(
        "[compile] AllReduce %10.0f B: %8.2f us without graphs, %8.2f us with -G %d "
        "(saved %.2f us)\n",
        a.bytes, a.time_us, b.time_us, kGraphLaunches, saved);
    EXPECT_LE(b.time_us, a.time_us) << a.bytes << " B";
    EXPECT_GE(saved, least) << a.bytes << " B";
    EXPECT_LE(saved, most) << a.bytes << " B";
    EXPECT_GE(b.busbw, a.busbw) << a.bytes << " B";
    EXPECT_LT(b.host_us, a.host_us) << a.bytes << " B";
  }
  // The replayed collectives are the simulation's: the report counts every one of them, the
  // warm-up and the N x n replayed iterations, for each of the 8 sizes.
  const nlohmann::json summary = read_json(dir.file("graphs") + "/summary.json");
  int64_t calls = 0;
  for (const auto& c : summary["collectives"]) {
    if (c.value("op", "") == "AllReduce") calls += c.value("count", int64_t{0});
  }
  EXPECT_EQ(calls, 8 * (5 + kGraphLaunches * kIters)) << summary["collectives"].dump(1);
}

}  // namespace
}  // namespace seer::e2e

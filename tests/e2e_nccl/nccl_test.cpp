// End-to-end tests of Seer's NCCL: real multi-rank programs under `seer run`, checking the times
// they print against the collective model of simcore/README.md, computed here independently.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <map>
#include <sstream>

#include "e2e_util.h"

namespace seer::e2e {
namespace {

// These tests check the simple collective model (simcore/README.md "Collective model"), which
// SEER_NCCL_MODEL=simple selects; the NCCL model is validated in tests/validation.
const Env kSimpleModel{{"SEER_NCCL_MODEL", "simple"}};

// The collective model (simcore/README.md "Collective model").
struct Fabric {
  double bw;  // bytes/s
  double lat_ns;
};
// dgx-h100 preset: scale_up 450GB/s 1us; scale_out 400Gbps (50 GB/s) 3us.
constexpr Fabric kNvlink{450e9, 1000};
constexpr Fabric kRail{50e9, 3000};

double expected_us(const std::string& op, double bytes, int n, const Fabric& f) {
  const double frac = (n - 1.0) / n;
  double ns = 0;
  if (op == "AllReduce") ns = 2 * (n - 1) * f.lat_ns + 2 * frac * bytes * 1e9 / f.bw;
  if (op == "AllGather" || op == "ReduceScatter")
    ns = (n - 1) * f.lat_ns + frac * bytes * 1e9 / f.bw;
  if (op == "Broadcast" || op == "Reduce") ns = (n - 1) * f.lat_ns + bytes * 1e9 / f.bw;
  return ns / 1e3;
}

struct Row {
  std::string op;
  double bytes;
  double time_us;
  double busbw;
};

// Data rows of coll_bench's table: "size count type redop root time algbw busbw host".
std::vector<Row> parse_table(const std::string& out) {
  std::vector<Row> rows;
  std::istringstream in(out);
  std::string line, op;
  while (std::getline(in, line)) {
    if (line.rfind("# op: ", 0) == 0) {
      op = line.substr(6, line.find(' ', 6) - 6);
      continue;
    }
    if (line.empty() || line[0] == '#') continue;
    std::istringstream f(line);
    Row r;
    std::string count, type, redop, root, algbw, host;
    if (f >> r.bytes >> count >> type >> redop >> root >> r.time_us >> algbw >> r.busbw) {
      r.op = op;
      rows.push_back(r);
    }
  }
  return rows;
}

struct Scale {
  int ranks;
  std::string cluster;
  bool one_process;  // -g ranks instead of mpirun -np ranks
};

class CollBench : public ::testing::TestWithParam<Scale> {};

// The benchmark's own event-timed numbers equal the model plus the ranks' start skew: rank 0's
// start event is recorded before the other ranks' first calls are issued, so the first call
// starts up to one launch cost (2 us) per rank issued after it later — (ranks - 1) x 2 us for
// one process driving every GPU, one launch for separate processes — spread over 4 iterations.
TEST_P(CollBench, TimesMatchTheCollectiveModel) {
  const Scale s = GetParam();
  TempDir dir;
  std::vector<std::string> bench{example("coll_bench"),
                                 "-b",
                                 "16M",
                                 "-e",
                                 "128M",
                                 "-f",
                                 "8",
                                 "-n",
                                 "4",
                                 "-w",
                                 "1",
                                 "-o",
                                 "allreduce,allgather,reducescatter,broadcast,reduce"};
  std::vector<std::string> command = bench;
  if (s.one_process) {
    command.push_back("-g");
    command.push_back(std::to_string(s.ranks));
  } else {
    command = mpirun(s.ranks, bench);
  }
  const Outcome o = seer_run(s.cluster, dir.path(), command, kSimpleModel);
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  const std::vector<Row> rows = parse_table(o.out);
  ASSERT_EQ(rows.size(), 10u) << o.out;
  const int gpus_per_node = 8;
  const Fabric& f = s.ranks > gpus_per_node ? kRail : kNvlink;
  const double skew_us = (s.one_process ? s.ranks * 2.5 : 2.5) / 4;  // + ncclGroupEnd, events
  for (const Row& r : rows) {
    const double want = expected_us(r.op, r.bytes, s.ranks, f);
    EXPECT_GE(r.time_us, want * 0.999) << r.op << " " << r.bytes << " bytes";
    EXPECT_LE(r.time_us, want * 1.001 + skew_us + 0.5) << r.op << " " << r.bytes << " bytes";
  }
  const nlohmann::json run = read_json(dir.file("run.json"));
  EXPECT_EQ(run["processes"].size(), s.one_process ? 1u : static_cast<size_t>(s.ranks))
      << "only the ranks join the simulation, not the launcher";
}

INSTANTIATE_TEST_SUITE_P(Scales, CollBench,
                         ::testing::Values(Scale{2, "dgx-h100", false}, Scale{8, "dgx-h100", false},
                                           Scale{16, "dgx-h100:2", false},
                                           Scale{8, "dgx-h100", true},
                                           Scale{32, "dgx-h100:4", true},
                                           Scale{64, "dgx-h100:8", false}),
                         [](const auto& info) {
                           return std::to_string(info.param.ranks) +
                                  (info.param.one_process ? "_gpus_one_process" : "_mpi_ranks");
                         });

// A ring shift: each rank sends to the next and receives from the previous in one group.
TEST(SendRecv, RingShiftCostsOneTransfer) {
  TempDir dir;
  // One process drives the 16 GPUs: no rank waits for another outside CUDA.
  const Outcome o = seer_run("dgx-h100:2", dir.path(),
                             {example("coll_bench"), "-g", "16", "-b", "16M", "-e", "16M", "-n",
                              "4", "-w", "1", "-o", "sendrecv"},
                             kSimpleModel);
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  const auto rows = parse_table(o.out);
  ASSERT_EQ(rows.size(), 1u) << o.out;
  // Ranks 7 -> 8 and 15 -> 0 cross nodes: the slowest transfer is 3 us + 16 MiB / 50 GB/s.
  const double want = (3000 + 16.0 * 1048576 * 1e9 / 50e9) / 1e3;
  EXPECT_GE(rows[0].time_us, want * 0.999);
  // + start skew (see CollBench): two launches (send, recv) per GPU issued before the last pair.
  EXPECT_LE(rows[0].time_us, want * 1.001 + 16 * 5.0 / 4 + 0.5);
}

std::string mean_step(const std::string& out) {
  const auto pos = out.find("mean step time");
  if (pos == std::string::npos) return "";
  return out.substr(pos, out.find('\n', pos) - pos);
}

// The same multi-rank run gives byte-identical summaries, with and without random real-time
// delays in every rank (modeled host time): 8 ranks driven by one process, and 4 MPI processes
// compared on the step times they print (MPI's own waiting reads clocks a real-time-dependent
// number of times, which can shift host-side times by a few clock-read quanta).
TEST(Determinism, DataParallelTrainingIsIdenticalUnderJitter) {
  TempDir a, b;
  const std::vector<std::string> cmd{example("dp_train"), "-g", "8", "--steps", "3",
                                     "--layers",          "4"};
  const Outcome first = seer_run("dgx-h100", a.path(), cmd);
  ASSERT_EQ(first.exit_code, 0) << first.describe();
  const Outcome second = seer_run("dgx-h100", b.path(), cmd, {{"SEER_TEST_JITTER_US", "2000"}});
  ASSERT_EQ(second.exit_code, 0) << second.describe();
  EXPECT_EQ(read_file(a.file("summary.json")), read_file(b.file("summary.json")));
  EXPECT_EQ(mean_step(first.out), mean_step(second.out));
  EXPECT_FALSE(mean_step(first.out).empty()) << first.out;

  TempDir c, d;
  const auto mpi = mpirun(4, {example("dp_train"), "--steps", "3", "--layers", "4"});
  const Outcome third = seer_run("dgx-h100", c.path(), mpi);
  ASSERT_EQ(third.exit_code, 0) << third.describe();
  const Outcome fourth = seer_run("dgx-h100", d.path(), mpi, {{"SEER_TEST_JITTER_US", "2000"}});
  ASSERT_EQ(fourth.exit_code, 0) << fourth.describe();
  EXPECT_EQ(mean_step(third.out), mean_step(fourth.out));
  EXPECT_FALSE(mean_step(third.out).empty()) << third.out;
}

// Both launch modes of the examples complete, and a step is at least its gradient all-reduces.
TEST(Examples, TrainingAndPipelineRunInBothModes) {
  for (const bool one_process : {false, true}) {
    for (const std::string prog : {"dp_train", "pipeline_1f1b"}) {
      TempDir dir;
      std::vector<std::string> cmd{example(prog), "--steps", "3"};
      if (one_process) {
        cmd.push_back("-g");
        cmd.push_back("4");
      } else {
        cmd = mpirun(4, cmd);
      }
      const Outcome o = seer_run("dgx-h100", dir.path(), cmd);
      ASSERT_EQ(o.exit_code, 0) << prog << o.describe();
      EXPECT_FALSE(mean_step(o.out).empty()) << o.out;
      const nlohmann::json summary = read_json(dir.file("summary.json"));
      EXPECT_FALSE(summary["collectives"].empty());
    }
  }
}

Outcome run_fault(const std::string& mode) {
  TempDir dir;
  return seer_run("dgx-h100", dir.path(), mpirun(3, {program("faults"), mode}));
}

TEST(Faults, MismatchedCollectivesAreReportedByName) {
  const Outcome o = run_fault("mismatch");
  EXPECT_NE(o.exit_code, 0);
  EXPECT_NE(o.err.find("mismatched collective"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("rank 1 called AllGather(count 16"), std::string::npos) << o.err;
}

TEST(Faults, ACollectiveOneRankNeverCallsIsADeadlock) {
  const Outcome o = run_fault("skip");
  EXPECT_NE(o.exit_code, 0);
  EXPECT_NE(o.err.find("deadlock"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("AllReduce: ranks 0,2 are in it, ranks 1 never joined"), std::string::npos)
      << o.err;
}

TEST(Faults, ARecvWithoutSendIsADeadlock) {
  const Outcome o = run_fault("recv");
  EXPECT_NE(o.exit_code, 0);
  EXPECT_NE(
      o.err.find("rank 0 receives from rank 1 (recv #0), which never posts the matching send"),
      std::string::npos)
      << o.err;
}

TEST(Faults, AKilledRankStopsTheRun) {
  const Outcome o = run_fault("kill");
  EXPECT_NE(o.exit_code, 0);
  EXPECT_NE(o.err.find("(rank 1) died"), std::string::npos) << o.err;
}

// A rank that computes after a wait outside the process (a poll, as in MPI's or a TCPStore's
// loops) is at work, not waiting: while another rank waits for it in an AllReduce, the session
// may not park it, or it would resume at the session's time and its GPU time would depend on how
// long it computed in real time (interposer/client/THREADS.md, "Parking"). Rank 1 computes for
// 0.6 s of CPU time with parking after 50 ms of a stuck session; its times equal a run without it.
TEST(Parking, ARankComputingAfterAnOutsideWaitIsNotParked) {
  const Env env{{"SEER_PARK_AFTER_MS", "50"}};
  std::map<std::string, double> times[2];
  const char* spins[2] = {"0", "600"};
  for (int run = 0; run < 2; ++run) {
    SCOPED_TRACE(std::string("spin ms ") + spins[run]);
    TempDir dir;
    const Outcome o =
        seer_run("dgx-h100", dir.path(), mpirun(2, {program("slow_rank"), spins[run]}), env);
    ASSERT_EQ(o.exit_code, 0) << o.describe();
    for (const char* name : {"rank0_before_allreduce_ms", "rank1_before_allreduce_ms"}) {
      times[run][name] = o.number(name);
    }
  }
  // Rank 0 clears 1 GiB (hundreds of us); rank 1 launches one small kernel.
  EXPECT_GT(times[0]["rank0_before_allreduce_ms"], 0.1);
  EXPECT_LT(times[0]["rank1_before_allreduce_ms"], 0.05);
  EXPECT_EQ(times[1], times[0]);
}

}  // namespace
}  // namespace seer::e2e

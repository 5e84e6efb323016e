// `seer profile --nccl-standin` without a GPU: under `seer run`, one process stands in for rank 0
// of an 8-rank job (programs/standin_rank.cu, told "0 8" by its arguments: under `seer run` the
// session itself reads RANK and WORLD_SIZE and would wait for 8 processes). Seer's own NCCL would
// wait for the 7 missing peers; the stand-in (interposer/nccl_standin), preloaded first, accepts
// the 8-rank communicator and completes every collective without them. The program's 6 kernels are
// recorded; its collectives are not kernels at all (Seer's CUPTI would give each of Seer's NCCL
// operations an ncclDevKernel record), and the all-gather copied this rank's data into its slot.
#include <gtest/gtest.h>

#include <string>

#include "cli.h"

namespace {

using namespace e2e_db;

Result profile_rank0(const Dir& d, const std::vector<std::string>& flags) {
  std::vector<std::string> args{"run",       "--quiet",  "--host-time", "modeled",
                                "--cluster", "dgx-h100", "--out",       d.file("run"),
                                "--",        SEER_BIN,   "profile"};
  args.insert(args.end(), flags.begin(), flags.end());
  args.insert(args.end(), {"--out", d.file("db.kdb"), "--", STANDIN_RANK, "0", "8"});
  return seer(args);
}

TEST(SeerProfileNcclStandin, OneProcessProfilesRankZeroOfEight) {
  Dir d;
  const Result p = profile_rank0(d, {"--nccl-standin"});
  ASSERT_EQ(p.code, 0) << p.out;
  EXPECT_NE(p.out.find("communicator: 8 ranks, rank 0"), std::string::npos) << p.out;
  EXPECT_NE(p.out.find("all-gather slot 0: 7, other slots: 0"), std::string::npos) << p.out;
  EXPECT_NE(p.out.find("split: ok"), std::string::npos) << p.out;
  // 3 steps of fill + scale; 3 x 4 collectives (and the group's send/recv) launch nothing.
  EXPECT_NE(p.out.find("seer profile: 1 process(es), 6 kernel launches"), std::string::npos)
      << p.out;

  const Result list = seer({"db", "list", d.file("db.kdb")});
  ASSERT_EQ(list.code, 0) << list.out;
  EXPECT_NE(list.out.find("fill(float*, unsigned long, float)"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("scale(float*, unsigned long, float)"), std::string::npos) << list.out;
  EXPECT_EQ(list.out.find("nccl"), std::string::npos) << list.out;
}

TEST(SeerProfileNcclStandin, TheStandinIsFoundBesideTheRecorder) {
  Dir d;
  // Outside `seer run` the flag is checked before anything runs: with no GPU the command records
  // nothing, but the stand-in was found (it is built beside the recorder).
  const Result r = seer({"profile", "--nccl-standin", "--out", d.file("db.kdb"), "--", "true"});
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("nothing was recorded"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("stand-in"), std::string::npos) << r.out;
}

}  // namespace

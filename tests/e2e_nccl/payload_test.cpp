// End-to-end tests of the program's bytes (interposer/client/PAYLOAD.md): 4 MPI ranks read back
// what copies, memsets and small collectives produced; a large buffer stays payload-free.

#include <gtest/gtest.h>

#include "e2e_util.h"

namespace seer::e2e {
namespace {

void expect_correct(const Outcome& o) {
  for (int r = 0; r < 4; ++r) {
    const std::string rank = std::to_string(r);
    EXPECT_EQ(o.integer("errors_rank" + rank), 0) << o.describe();
    // 128 MiB of device memory set, reduced and read back: no resident host memory for it.
    EXPECT_LT(o.integer("rss_growth_kib_rank" + rank), 8 * 1024) << o.describe();
  }
}

TEST(Payload, SmallCollectivesComputeTheProgramsBytes) {
  TempDir dir;
  const Outcome o = seer_run("dgx-h100", dir.path(), mpirun(4, {program("payload")}));
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  expect_correct(o);
}

// Rank 0 first waits for its own GPU work while the others already wait for its data: simulated
// time has to move past them, and the virtual results must not depend on real-time order.
TEST(Payload, RanksWaitingForDataLetALateRankCatchUpDeterministically) {
  TempDir a, b;
  const auto cmd = mpirun(4, {program("payload"), "late"});
  const Outcome first = seer_run("dgx-h100", a.path(), cmd);
  ASSERT_EQ(first.exit_code, 0) << first.describe();
  expect_correct(first);
  const Outcome second = seer_run("dgx-h100", b.path(), cmd, {{"SEER_TEST_JITTER_US", "2000"}});
  ASSERT_EQ(second.exit_code, 0) << second.describe();
  expect_correct(second);
  EXPECT_EQ(read_file(a.file("summary.json")), read_file(b.file("summary.json")));
}

// With the payload turned off, collectives leave their outputs untouched.
TEST(Payload, ZeroLimitTurnsPayloadOff) {
  TempDir dir;
  const Outcome o = seer_run("dgx-h100", dir.path(), mpirun(4, {program("payload")}),
                             {{"SEER_PAYLOAD_MAX_BYTES", "0"}});
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  EXPECT_GT(o.integer("errors_rank0"), 0) << o.describe();
}

}  // namespace
}  // namespace seer::e2e

// Synchronization calls as the client core remembers them for CUPTI's SYNCHRONIZATION records
// (interposer/client/activity.*): nothing while tracing is off; while on, the calling thread's
// virtual clock when the call entered and returned, its stream/event, a fresh correlation id
// and the thread's external ids.

#include <gtest/gtest.h>

#include "activity.h"

namespace seer::client::activity {
namespace {

TEST(SyncNote, NothingWhileTracingIsOff) {
  set_sync_enabled(false);
  collect_syncs();
  ThreadState ts;
  { SyncNote note(ts, SyncKind::kContext, 0); }
  EXPECT_TRUE(collect_syncs().empty());
}

TEST(SyncNote, RemembersTheCallWithItsVirtualTimes) {
  set_sync_enabled(true);
  collect_syncs();
  ThreadState ts;
  ts.clock = 1000;
  push_external(2, 77);
  const uint32_t before = next_correlation();
  {
    SyncNote note(ts, SyncKind::kStream, 3, 12);
    ts.clock = 5000;  // the call blocked until the stream's work completed
  }
  {
    SyncNote note(ts, SyncKind::kStreamWaitEvent, 3, 12, 40);
    ts.clock = 5100;
  }
  pop_external(2, nullptr);
  set_sync_enabled(false);
  const std::vector<Sync> syncs = collect_syncs();
  ASSERT_EQ(syncs.size(), 2u);
  EXPECT_EQ(syncs[0].kind, SyncKind::kStream);
  EXPECT_EQ(syncs[0].device, 3);
  EXPECT_EQ(syncs[0].stream, 12u);
  EXPECT_EQ(syncs[0].event, Sync::kNone);
  EXPECT_EQ(syncs[0].start, 1000);
  EXPECT_EQ(syncs[0].end, 5000);
  EXPECT_EQ(syncs[0].correlation, before + 1);
  ASSERT_EQ(syncs[0].external.size(), 1u);
  EXPECT_EQ(syncs[0].external[0], std::make_pair(uint32_t{2}, uint64_t{77}));
  EXPECT_EQ(syncs[1].kind, SyncKind::kStreamWaitEvent);
  EXPECT_EQ(syncs[1].event, 40u);
  EXPECT_EQ(syncs[1].start, 5000);
  EXPECT_EQ(syncs[1].end, 5100);
  EXPECT_EQ(syncs[1].correlation, before + 2);
  EXPECT_TRUE(collect_syncs().empty());
}

}  // namespace
}  // namespace seer::client::activity

// The session's side of the CUPTI replacement (runtime/src/activity_tracker.*): ops are named by
// (client stream, position among the records carrying that stream); only ops submitted while a
// process tracks are reported, with the engine's simulated start and end.

#include "activity_tracker.h"

#include <gtest/gtest.h>

#include "seer/simcore/engine.h"

namespace seer::rt {
namespace {

struct Listener : sim::WaitListener {
  void on_wait_done(uint64_t, sim::Time) override {}
};

class ActivityTrackerTest : public ::testing::Test {
 protected:
  ActivityTrackerTest() : engine(listener) {
    engine.add_gpu(*sim::find_gpu("H100-SXM-80GB"), 0, sim::NodeLinks{});
    EXPECT_TRUE(engine.create_stream(0, kStream, 0, false, false));
    EXPECT_TRUE(engine.create_stream(1, kStream, 0, false, false));
  }
  // A kernel launch of `process` on its stream, as the session applies it.
  void Launch(int process, sim::Time t, uint32_t blocks) {
    sim::OpDesc op;
    op.kind = sim::OpKind::kKernel;
    op.geometry.gx = blocks;
    op.geometry.bx = 256;
    const bool ok = engine.submit(process, kStream, t, op);
    wire::Record r;
    r.set_t(t);
    r.mutable_launch()->set_stream(kStream);
    tracker.on_record(process, r, ok);
  }
  void EventRecord(int process, sim::Time t) {
    wire::Record r;
    r.set_t(t);
    r.mutable_event_record()->set_stream(kStream);
    r.mutable_event_record()->set_event(1);
    tracker.on_record(process, r, engine.record_event(process, 1, kStream, t));
  }
  void RunAll() {
    while (engine.next_event_time()) engine.step();
  }

  static constexpr uint64_t kStream = 7;
  Listener listener;
  sim::Engine engine;
  ActivityTracker tracker;
};

TEST_F(ActivityTrackerTest, ReportsOpsSubmittedWhileTracking) {
  Launch(0, 0, 1);     // ordinal 1: before tracking, still in flight when tracking starts
  EventRecord(0, 10);  // ordinal 2: carries the stream, no op
  EXPECT_TRUE(tracker.query(0, true, engine).empty());
  Launch(0, 20, 1);     // ordinal 3
  Launch(1, 20, 1);     // another process, not tracking
  Launch(0, 30, 2113);  // ordinal 4
  RunAll();
  const std::vector<wire::OpTime> times = tracker.query(0, false, engine);
  ASSERT_EQ(times.size(), 2u);
  EXPECT_EQ(times[0].stream(), kStream);
  EXPECT_EQ(times[0].ordinal(), 3u);
  EXPECT_EQ(times[1].ordinal(), 4u);
  // The engine's own records of process 0: the first is the op submitted before tracking.
  std::vector<sim::OpRecord> mine;
  for (const sim::OpRecord& r : engine.records()) {
    if (r.process == 0) mine.push_back(r);
  }
  ASSERT_EQ(mine.size(), 3u);
  EXPECT_EQ(times[0].start(), mine[1].start);
  EXPECT_EQ(times[0].end(), mine[1].end);
  EXPECT_EQ(times[1].start(), mine[2].start);
  EXPECT_EQ(times[1].end(), mine[2].end);
  EXPECT_GT(times[1].end(), times[1].start());
}

TEST_F(ActivityTrackerTest, StopsAfterTrackingEnds) {
  EXPECT_TRUE(tracker.query(0, true, engine).empty());
  Launch(0, 0, 1);
  RunAll();
  EXPECT_EQ(tracker.query(0, false, engine).size(), 1u);
  Launch(0, 100000, 1);
  RunAll();
  EXPECT_TRUE(tracker.query(0, false, engine).empty());
  // Tracking again: only the new op, named by its position on the stream.
  EXPECT_TRUE(tracker.query(0, true, engine).empty());
  Launch(0, 200000, 1);
  RunAll();
  const auto times = tracker.query(0, true, engine);
  ASSERT_EQ(times.size(), 1u);
  EXPECT_EQ(times[0].ordinal(), 3u);
}

}  // namespace
}  // namespace seer::rt

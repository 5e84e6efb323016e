// The session's side of the CUPTI replacement (runtime/src/activity_tracker.*): ops are named by
// (client stream, position among the records carrying that stream); only ops submitted while a
// process tracks are reported, with the engine's simulated start and end.

#include "activity_tracker.h"

#include <gtest/gtest.h>

#include "seer/simcore/engine.h"
#include "seer/simcore/nccl/env.h"

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

// An all-reduce of two processes on a 2-GPU NVSwitch node, timed by the NCCL model with Tree
// forced: the tracking process's collective comes back with the algorithm and protocol in
// NCCL's kernel-name spelling and the channel count, at the engine's times.
TEST(ActivityTrackerCollective, ReportsTheNcclModelsChoice) {
  Listener listener;
  sim::Engine engine(listener);
  const sim::GpuSpec gpu = *sim::find_gpu("H100-SXM-80GB");
  sim::NetworkConfig net;
  net.shape.nodes = 1;
  net.shape.gpus_per_node = 2;
  net.shape.nvswitch = true;
  net.shape.nvlink_bw_per_gpu = 450e9;
  net.shape.nvswitch_latency = 700;
  net.shape.pcie_bw = 64e9;
  net.shape.pcie_latency = 500;
  net.shape.nics_per_node = 2;
  net.shape.nic_bw = 50e9;
  net.shape.nic_latency = 1000;
  net.shape.switch_hop_latency = 200;
  net.gpu = gpu;
  ASSERT_TRUE(sim::nccl::parse_algo_list("tree", net.env));
  for (int g = 0; g < 2; ++g) engine.add_gpu(gpu, 0, sim::NodeLinks{});
  engine.set_network(net);
  engine.add_comm(5, {0, 1});
  constexpr uint64_t kStream = 3;
  ActivityTracker tracker;
  EXPECT_TRUE(tracker.query(0, true, engine).empty());
  for (int p = 0; p < 2; ++p) {
    ASSERT_TRUE(engine.create_stream(p, kStream, p, false, false));
    sim::CollPart part;
    part.kind = sim::CollKind::kAllReduce;
    part.count = 1 << 20;
    part.type_bytes = 4;
    part.datatype = 7;
    const bool ok = engine.submit_collective(p, kStream, 100, 5, p, {part});
    wire::Record r;
    r.set_t(100);
    r.mutable_collective()->set_stream(kStream);
    tracker.on_record(p, r, ok);
  }
  while (engine.next_event_time()) engine.step();
  const std::vector<wire::OpTime> times = tracker.query(0, false, engine);
  ASSERT_EQ(times.size(), 1u);
  EXPECT_EQ(times[0].ordinal(), 1u);
  EXPECT_EQ(times[0].algo(), "TREE");
  EXPECT_TRUE(times[0].proto() == "LL" || times[0].proto() == "LL128" ||
              times[0].proto() == "SIMPLE")
      << times[0].proto();
  EXPECT_GT(times[0].channels(), 0);
  const sim::OpRecord* mine = nullptr;
  for (const sim::OpRecord& r : engine.records()) {
    if (r.process == 0) mine = &r;
  }
  ASSERT_NE(mine, nullptr);
  EXPECT_EQ(mine->desc.kind, sim::OpKind::kCollective);
  EXPECT_EQ(times[0].start(), mine->start);
  EXPECT_EQ(times[0].end(), mine->end);
  EXPECT_EQ(times[0].channels(), mine->desc.nchannels);
}

// Event records come back as zero-length items at the time the engine completes them: after the
// stream's earlier op; a record on another stream that waits for it completes after both.
TEST_F(ActivityTrackerTest, ReportsEventRecordCompletions) {
  constexpr uint64_t kOther = 8;
  EXPECT_TRUE(engine.create_stream(0, kOther, 0, false, false));
  wire::Record create;
  create.mutable_stream_create()->set_stream(kOther);
  tracker.on_record(0, create, true);
  EXPECT_TRUE(tracker.query(0, true, engine).empty());
  Launch(0, 100, 4000);  // ordinal 1 on kStream
  EventRecord(0, 150);   // ordinal 2: completes when the kernel ends
  wire::Record wait;
  wait.set_t(160);
  wait.mutable_stream_wait_event()->set_stream(kOther);
  wait.mutable_stream_wait_event()->set_event(1);
  tracker.on_record(0, wait, engine.stream_wait_event(0, kOther, 1, 160));
  wire::Record rec;
  rec.set_t(170);
  rec.mutable_event_record()->set_stream(kOther);
  rec.mutable_event_record()->set_event(2);
  tracker.on_record(0, rec, engine.record_event(0, 2, kOther, 170));
  RunAll();
  const std::vector<wire::OpTime> times = tracker.query(0, false, engine);
  ASSERT_EQ(times.size(), 3u);
  const wire::OpTime* kernel = nullptr;
  const wire::OpTime* first = nullptr;
  const wire::OpTime* second = nullptr;
  for (const wire::OpTime& t : times) {
    if (t.stream() == kStream && t.ordinal() == 1) kernel = &t;
    if (t.stream() == kStream && t.ordinal() == 2) first = &t;
    if (t.stream() == kOther && t.ordinal() == 2) second = &t;
  }
  ASSERT_TRUE(kernel && first && second);
  EXPECT_GT(kernel->end(), 170);
  EXPECT_EQ(first->start(), first->end());
  EXPECT_EQ(first->end(), kernel->end());
  EXPECT_EQ(second->end(), kernel->end());
}

// An event recorded on an idle stream completes when it was submitted.
TEST_F(ActivityTrackerTest, EventOnIdleStreamCompletesAtSubmission) {
  EXPECT_TRUE(tracker.query(0, true, engine).empty());
  EventRecord(0, 12345);
  RunAll();
  const std::vector<wire::OpTime> times = tracker.query(0, false, engine);
  ASSERT_EQ(times.size(), 1u);
  EXPECT_EQ(times[0].ordinal(), 1u);
  EXPECT_EQ(times[0].end(), 12345);
}

}  // namespace
}  // namespace seer::rt

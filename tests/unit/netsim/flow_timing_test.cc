// Completion times of flows that arrive, wait out their latency, share and leave.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "seer/netsim/flow_model.h"

namespace seer::net {
namespace {

constexpr double GB = 1e9;

struct OneLink {
  Topology topology;
  LinkId link;
  Path path;

  OneLink(double bandwidth, Time latency) {
    const NodeId a = topology.add_node(NodeKind::LeafSwitch, "a");
    const NodeId b = topology.add_node(NodeKind::LeafSwitch, "b");
    link = topology.add_link(a, b, bandwidth, latency);
    path = Path{{link}, latency};
  }
};

TEST(FlowTiming, LateArrivalSlowsTheFirstFlow) {
  // 10 GB/s. Flow 1: 10 GB from t = 0. Flow 2: 2 GB from t = 0.5 s.
  // 0 - 0.5 s: flow 1 alone at 10 GB/s sends 5 GB, 5 GB left.
  // From 0.5 s both run at 5 GB/s: flow 2 needs 2 / 5 = 0.4 s -> done at 0.9 s;
  // flow 1 sent 2 GB more, 3 GB left, alone again at 10 GB/s -> 0.3 s -> done at 1.2 s.
  OneLink net(10 * GB, 0);
  FlowModel model(net.topology);
  const FlowId first = model.start_flow(0, net.path, 10 * GB);
  model.advance_to(0);
  EXPECT_EQ(model.next_event_time(), 1'000'000'000);  // alone it would finish at 1 s
  EXPECT_TRUE(model.advance_to(500'000'000).empty());
  EXPECT_DOUBLE_EQ(model.bytes_remaining(first), 5 * GB);
  const FlowId second = model.start_flow(500'000'000, net.path, 2 * GB);
  EXPECT_TRUE(model.advance_to(500'000'000).empty());
  EXPECT_DOUBLE_EQ(model.flow_rate(first), 5 * GB);
  EXPECT_DOUBLE_EQ(model.flow_rate(second), 5 * GB);
  EXPECT_EQ(model.next_event_time(), 900'000'000);
  EXPECT_EQ(model.advance_to_with_times(2'000'000'000),
            (std::vector<CompletedFlow>{{second, 900'000'000}, {first, 1'200'000'000}}));
  EXPECT_EQ(model.now(), 2'000'000'000);
}

TEST(FlowTiming, LatencyIsPaidBeforeSharingAndUsesNoBandwidth) {
  // 10 GB/s, 2 us latency. Flow 1 (1 MB) starts at 0, shares from 2,000 ns and needs
  // 1e6 / 1e10 s = 100,000 ns: done at 102,000 ns.
  // Flow 2 (1 MB) starts at 100,000 ns and is still in flight until 102,000 ns, so flow 1 keeps the
  // whole link; flow 2 then runs alone: done at 202,000 ns.
  OneLink net(10 * GB, 2000);
  FlowModel model(net.topology);
  const FlowId first = model.start_flow(0, net.path, 1e6);
  EXPECT_EQ(model.next_event_time(), 2000);
  EXPECT_TRUE(model.advance_to(100'000).empty());
  const FlowId second = model.start_flow(100'000, net.path, 1e6);
  EXPECT_EQ(model.waiting_flow_count(), 1);
  EXPECT_EQ(model.flow_rate(second), 0);
  EXPECT_DOUBLE_EQ(model.flow_rate(first), 10 * GB);
  EXPECT_EQ(model.advance_to_with_times(1'000'000),
            (std::vector<CompletedFlow>{{first, 102'000}, {second, 202'000}}));
}

TEST(FlowTiming, FlowsStartedTogetherShareFromTheSameInstant) {
  // 10 GB/s, 3 flows of 1 GB: 10/3 GB/s each -> 0.3 s.
  OneLink net(10 * GB, 0);
  FlowModel model(net.topology);
  for (int i = 0; i < 3; ++i) model.start_flow(0, net.path, GB);
  model.advance_to(0);
  EXPECT_EQ(model.next_event_time(), 300'000'000);
}

TEST(FlowTiming, CompletionIsRoundedUpToWholeNanoseconds) {
  // 1,000 bytes at 3 GB/s = 333.33 ns -> 334 ns. 1 byte at 10 GB/s = 0.1 ns -> 1 ns.
  OneLink slow(3 * GB, 0);
  FlowModel model(slow.topology);
  model.start_flow(0, slow.path, 1000);
  model.advance_to(0);
  EXPECT_EQ(model.next_event_time(), 334);

  OneLink fast(10 * GB, 0);
  FlowModel tiny(fast.topology);
  tiny.start_flow(0, fast.path, 1);
  tiny.advance_to(0);
  EXPECT_EQ(tiny.next_event_time(), 1);
}

TEST(FlowTiming, EmptyFlowsFinishWhenTheirLatencyEnds) {
  OneLink net(10 * GB, 500);
  FlowModel model(net.topology);
  const FlowId empty = model.start_flow(0, net.path, 0);
  EXPECT_EQ(model.advance_to_with_times(10'000), (std::vector<CompletedFlow>{{empty, 500}}));
  // A flow with no links and a cap is only limited by the cap: 1 GB at 4 GB/s = 0.25 s.
  const FlowId local = model.start_flow(10'000, Path{}, GB, 4 * GB);
  EXPECT_EQ(model.advance_to_with_times(1'000'000'000),
            (std::vector<CompletedFlow>{{local, 250'010'000}}));
}

TEST(FlowTiming, RateCapStretchesCompletion) {
  // 1 GB capped at 2 GB/s on a 10 GB/s link: 0.5 s, plus 1,000 ns latency.
  OneLink net(10 * GB, 1000);
  FlowModel model(net.topology);
  const FlowId capped = model.start_flow(0, net.path, GB, 2 * GB);
  EXPECT_EQ(model.advance_to_with_times(1'000'000'000),
            (std::vector<CompletedFlow>{{capped, 500'001'000}}));
}

TEST(FlowTiming, CancelledFlowFreesItsShare) {
  // 10 GB/s, two flows of 3 GB. At 0.2 s each sent 1 GB; flow 2 is cancelled. Flow 1 has 2 GB
  // left at 10 GB/s: done at 0.4 s.
  OneLink net(10 * GB, 0);
  FlowModel model(net.topology);
  const FlowId first = model.start_flow(0, net.path, 3 * GB);
  const FlowId second = model.start_flow(0, net.path, 3 * GB);
  model.advance_to(200'000'000);
  EXPECT_DOUBLE_EQ(model.bytes_remaining(second), 2 * GB);
  EXPECT_TRUE(model.cancel_flow(200'000'000, second));
  EXPECT_FALSE(model.cancel_flow(200'000'000, second));
  EXPECT_DOUBLE_EQ(model.flow_rate(first), 10 * GB);
  EXPECT_EQ(model.advance_to_with_times(1'000'000'000),
            (std::vector<CompletedFlow>{{first, 400'000'000}}));
}

TEST(FlowTiming, CancellingAWaitingFlowRemovesItsActivation) {
  OneLink net(10 * GB, 5000);
  FlowModel model(net.topology);
  const FlowId id = model.start_flow(0, net.path, GB);
  EXPECT_TRUE(model.cancel_flow(10, id));
  EXPECT_EQ(model.next_event_time(), std::nullopt);
  EXPECT_EQ(model.waiting_flow_count(), 0);
}

TEST(FlowTiming, EqualCompletionTimesComeOutInFlowIdOrder) {
  OneLink net(10 * GB, 0);
  FlowModel model(net.topology);
  const FlowId big = model.start_flow(0, net.path, 2 * GB);
  const FlowId a = model.start_flow(0, net.path, GB);
  const FlowId b = model.start_flow(0, net.path, GB);
  // 10/3 GB/s each: a and b finish together at 0.3 s; big has 1 GB left at 10 GB/s: +0.1 s.
  EXPECT_EQ(model.advance_to(1'000'000'000), (std::vector<FlowId>{a, b, big}));
}

TEST(FlowTiming, TimeOnlyMovesForward) {
  OneLink net(10 * GB, 0);
  FlowModel model(net.topology);
  model.start_flow(100, net.path, GB);
  EXPECT_THROW(model.start_flow(50, net.path, GB), std::invalid_argument);
  // The activation at 100 ns has not been processed: starting at 200 ns would skip it.
  EXPECT_THROW(model.start_flow(200, net.path, GB), std::logic_error);
  model.advance_to(200);
  EXPECT_THROW(model.advance_to(199), std::invalid_argument);
  EXPECT_NO_THROW(model.start_flow(200, net.path, GB));
}

TEST(FlowTiming, RejectsBadFlows) {
  OneLink net(10 * GB, 0);
  FlowModel model(net.topology);
  EXPECT_THROW(model.start_flow(0, Path{{7}, 0}, GB), std::out_of_range);
  EXPECT_THROW(model.start_flow(0, net.path, -1), std::invalid_argument);
  EXPECT_THROW(model.start_flow(0, net.path, GB, 0), std::invalid_argument);
  EXPECT_EQ(model.waiting_flow_count(), 0);
}

TEST(FlowTiming, SameInputsGiveTheSameResults) {
  auto run = [] {
    OneLink net(7 * GB, 300);
    FlowModel model(net.topology);
    std::vector<CompletedFlow> all;
    for (int i = 0; i < 50; ++i) {
      const Time now = i * 1'000'000;
      for (const auto& done : model.advance_to_with_times(now)) all.push_back(done);
      model.start_flow(now, net.path, 1e6 * (1 + i % 7), i % 3 == 0 ? 2 * GB : kUnlimitedRate);
    }
    for (const auto& done : model.advance_to_with_times(10'000'000'000)) all.push_back(done);
    return all;
  };
  const auto first = run();
  EXPECT_EQ(first.size(), 50u);
  EXPECT_EQ(first, run());
}

}  // namespace
}  // namespace seer::net

// Shadowed links (flow_model.cpp): a link whose every flow also crosses a link of no larger
// capacity is kept off the solver. Rates must be exactly those of a model that solves every link,
// link utilization must still count the shadowed link's flows, and a flow that breaks the
// shadow (it does not cross the dominator) must make the link bind again.
#include <gtest/gtest.h>

#include <vector>

#include "seer/netsim/flow_model.h"

namespace seer::net {
namespace {

constexpr double GB = 1e9;

struct Links {
  Topology topology;
  std::vector<LinkId> ids;

  explicit Links(std::vector<double> bandwidths) {
    for (double bandwidth : bandwidths) {
      const NodeId a = topology.add_node(NodeKind::LeafSwitch, "a");
      const NodeId b = topology.add_node(NodeKind::LeafSwitch, "b");
      ids.push_back(topology.add_link(a, b, bandwidth, 0));
    }
  }
  Path path(std::vector<int> which) const {
    Path path;
    for (int i : which) path.links.push_back(ids[i]);
    return path;
  }
};

// Link 0 is a GPU's 64 GB/s PCIe link into its NIC, link 1 the NIC's 50 GB/s port: every flow
// crosses both, so link 0 never binds but is as loaded as the port.
TEST(ShadowedLinks, WiderLinkBeforeTheBottleneckStillReportsItsLoad) {
  Links net({64 * GB, 50 * GB});
  FlowModel model(net.topology);
  const FlowId a = model.start_flow(0, net.path({0, 1}), GB);
  const FlowId b = model.start_flow(0, net.path({0, 1}), GB);
  model.advance_to(0);
  EXPECT_DOUBLE_EQ(model.flow_rate(a), 25 * GB);
  EXPECT_DOUBLE_EQ(model.flow_rate(b), 25 * GB);
  EXPECT_DOUBLE_EQ(model.link_utilization(net.ids[0]), 50.0 / 64);
  EXPECT_DOUBLE_EQ(model.link_utilization(net.ids[1]), 1.0);
  EXPECT_EQ(model.next_event_time(), 40'000'000);  // 1 GB at 25 GB/s
  model.advance_to(40'000'000);
  EXPECT_DOUBLE_EQ(model.link_utilization(net.ids[0]), 0.0);
}

// The same after the bottleneck: a NIC port into a wider PCIe link.
TEST(ShadowedLinks, WiderLinkAfterTheBottleneckStillReportsItsLoad) {
  Links net({50 * GB, 64 * GB});
  FlowModel model(net.topology);
  const FlowId a = model.start_flow(0, net.path({0, 1}), GB);
  model.advance_to(0);
  EXPECT_DOUBLE_EQ(model.flow_rate(a), 50 * GB);
  EXPECT_DOUBLE_EQ(model.link_utilization(net.ids[1]), 50.0 / 64);
}

// Link 0 (10 GB/s) is first crossed by a flow that continues over link 1 (8 GB/s), then by one
// that does not: link 0 must bind both. Max-min: link 0 gives 5 and 5 (link 1 would allow 8).
// Were link 0 still ignored, the second flow would run at link 2's 100 GB/s.
TEST(ShadowedLinks, FlowNotCrossingTheDominatorMakesTheLinkBindAgain) {
  Links net({10 * GB, 8 * GB, 100 * GB});
  FlowModel model(net.topology);
  const FlowId a = model.start_flow(0, net.path({0, 1}), 100 * GB);
  model.advance_to(0);
  EXPECT_DOUBLE_EQ(model.flow_rate(a), 8 * GB);
  const FlowId b = model.start_flow(0, net.path({0, 2}), 100 * GB);
  model.advance_to(0);
  EXPECT_DOUBLE_EQ(model.flow_rate(a), 5 * GB);
  EXPECT_DOUBLE_EQ(model.flow_rate(b), 5 * GB);
  EXPECT_DOUBLE_EQ(model.link_utilization(net.ids[0]), 1.0);
  // The link stays solved: after b leaves and comes back, it binds again.
  model.cancel_flow(0, b);
  EXPECT_DOUBLE_EQ(model.flow_rate(a), 8 * GB);
  const FlowId c = model.start_flow(0, net.path({0, 2}), 100 * GB);
  model.advance_to(0);
  EXPECT_DOUBLE_EQ(model.flow_rate(a), 5 * GB);
  EXPECT_DOUBLE_EQ(model.flow_rate(c), 5 * GB);
}

// A narrower neighbour is no dominator: link 0 (10 GB/s) before link 1 (20 GB/s) binds.
TEST(ShadowedLinks, NarrowerLinkIsNeverShadowedByAWiderOne) {
  Links net({10 * GB, 20 * GB, 100 * GB});
  FlowModel model(net.topology);
  const FlowId a = model.start_flow(0, net.path({0, 1}), GB);
  const FlowId b = model.start_flow(0, net.path({2, 1}), GB);
  model.advance_to(0);
  EXPECT_DOUBLE_EQ(model.flow_rate(a), 10 * GB);
  EXPECT_DOUBLE_EQ(model.flow_rate(b), 10 * GB);
}

// Two links of equal capacity crossed by the same flows: one shadows, the other binds, never both.
TEST(ShadowedLinks, EqualLinksNeverShadowEachOther) {
  Links net({10 * GB, 10 * GB});
  FlowModel model(net.topology);
  const FlowId a = model.start_flow(0, net.path({0, 1}), GB);
  const FlowId b = model.start_flow(0, net.path({1, 0}), GB);
  model.advance_to(0);
  EXPECT_DOUBLE_EQ(model.flow_rate(a), 5 * GB);
  EXPECT_DOUBLE_EQ(model.flow_rate(b), 5 * GB);
  EXPECT_DOUBLE_EQ(model.link_utilization(net.ids[0]), 1.0);
  EXPECT_DOUBLE_EQ(model.link_utilization(net.ids[1]), 1.0);
}

// A flow crossing a link twice loads it twice, so its links are all solved: link 0 (10 GB/s)
// carries it twice and binds at 5 although link 1 (8 GB/s) is narrower.
TEST(ShadowedLinks, FlowCrossingALinkTwiceIsNeverShadowed) {
  Links net({10 * GB, 8 * GB});
  FlowModel model(net.topology);
  const FlowId a = model.start_flow(0, net.path({0, 1, 0}), GB);
  model.advance_to(0);
  EXPECT_DOUBLE_EQ(model.flow_rate(a), 5 * GB);
  // A shadowed link joined by such a flow binds again too.
  Links other({10 * GB, 8 * GB});
  FlowModel second(other.topology);
  const FlowId b = second.start_flow(0, other.path({0, 1}), 100 * GB);
  second.advance_to(0);
  EXPECT_DOUBLE_EQ(second.flow_rate(b), 8 * GB);
  const FlowId c = second.start_flow(0, other.path({0, 1, 0}), 100 * GB);
  second.advance_to(0);
  // Link 0: b + 2c <= 10; link 1: b + c <= 8. Max-min: c = 10/3, b = 10/3.
  EXPECT_NEAR(second.flow_rate(b), 10 * GB / 3, 1);
  EXPECT_NEAR(second.flow_rate(c), 10 * GB / 3, 1);
}

// Once its flows are gone a shadowed link is free to be judged anew by its next flow.
TEST(ShadowedLinks, EmptiedShadowedLinkIsJudgedAgainByItsNextFlow) {
  Links net({10 * GB, 8 * GB, 20 * GB});
  FlowModel model(net.topology);
  const FlowId a = model.start_flow(0, net.path({0, 1}), GB);
  model.advance_to(0);
  EXPECT_DOUBLE_EQ(model.flow_rate(a), 8 * GB);
  model.cancel_flow(0, a);
  const FlowId b = model.start_flow(0, net.path({0, 2}), GB);  // no narrower neighbour now
  const FlowId c = model.start_flow(0, net.path({0}), GB);
  model.advance_to(0);
  EXPECT_DOUBLE_EQ(model.flow_rate(b), 5 * GB);
  EXPECT_DOUBLE_EQ(model.flow_rate(c), 5 * GB);
}

}  // namespace
}  // namespace seer::net

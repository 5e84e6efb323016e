// Max-min fair rates, checked against hand-solved cases.
#include "seer/netsim/flow_model.h"

#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "seer/netsim/cluster_fabric.h"
#include "seer/netsim/router.h"

namespace seer::net {
namespace {

constexpr double GB = 1e9;

// Independent links between pairs of switches; a Path may list any of them.
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

TEST(FlowModelRates, OneBottleneckSharedByFourFlows) {
  Links net({10 * GB});
  FlowModel model(net.topology);
  std::vector<FlowId> flows;
  for (int i = 0; i < 4; ++i) flows.push_back(model.start_flow(0, net.path({0}), 1 * GB));
  EXPECT_EQ(model.waiting_flow_count(), 4);
  EXPECT_TRUE(model.advance_to(0).empty());
  EXPECT_EQ(model.active_flow_count(), 4);
  for (FlowId id : flows) EXPECT_DOUBLE_EQ(model.flow_rate(id), 2.5 * GB);  // 10 / 4
  EXPECT_DOUBLE_EQ(model.link_utilization(net.ids[0]), 1.0);
  // 1 GB at 2.5 GB/s = 0.4 s, all four at once.
  EXPECT_EQ(model.next_event_time(), 400'000'000);
  EXPECT_EQ(model.advance_to(1'000'000'000), flows);
  EXPECT_EQ(model.active_flow_count(), 0);
  EXPECT_EQ(model.next_event_time(), std::nullopt);
}

TEST(FlowModelRates, FlowLimitedElsewhereLeavesItsShareToTheOthers) {
  // Link 0: 10 GB/s with flows A and B. Link 1: 4 GB/s with flows B and C.
  // Filling: link 1 saturates first at 4/2 = 2 GB/s, fixing B = C = 2.
  // Link 0 then has 10 - 2 = 8 GB/s left for A alone.
  Links net({10 * GB, 4 * GB});
  FlowModel model(net.topology);
  const FlowId a = model.start_flow(0, net.path({0}), GB);
  const FlowId b = model.start_flow(0, net.path({0, 1}), GB);
  const FlowId c = model.start_flow(0, net.path({1}), GB);
  model.advance_to(0);
  EXPECT_DOUBLE_EQ(model.flow_rate(a), 8 * GB);
  EXPECT_DOUBLE_EQ(model.flow_rate(b), 2 * GB);
  EXPECT_DOUBLE_EQ(model.flow_rate(c), 2 * GB);
  EXPECT_DOUBLE_EQ(model.link_utilization(net.ids[0]), 1.0);
  EXPECT_DOUBLE_EQ(model.link_utilization(net.ids[1]), 1.0);
}

TEST(FlowModelRates, ThreeLevelsOfBottlenecks) {
  // Link 0 (3 GB/s): A, B, C.  Link 1 (9 GB/s): C, D, E.  Link 2 (20 GB/s): E, F.
  // Level 1: link 0 has 3/3 = 1, link 1 9/3 = 3, link 2 20/2 = 10 -> A = B = C = 1.
  // Level 2: link 1 has (9 - 1) / 2 = 4 for D, E; link 2 still 10 -> D = E = 4.
  // Level 3: link 2 has 20 - 4 = 16 for F alone -> F = 16. Link 2 ends full, link 1 too.
  Links net({3 * GB, 9 * GB, 20 * GB});
  FlowModel model(net.topology);
  std::map<char, FlowId> f;
  f['A'] = model.start_flow(0, net.path({0}), GB);
  f['B'] = model.start_flow(0, net.path({0}), GB);
  f['C'] = model.start_flow(0, net.path({0, 1}), GB);
  f['D'] = model.start_flow(0, net.path({1}), GB);
  f['E'] = model.start_flow(0, net.path({1, 2}), GB);
  f['F'] = model.start_flow(0, net.path({2}), GB);
  model.advance_to(0);
  EXPECT_DOUBLE_EQ(model.flow_rate(f['A']), 1 * GB);
  EXPECT_DOUBLE_EQ(model.flow_rate(f['B']), 1 * GB);
  EXPECT_DOUBLE_EQ(model.flow_rate(f['C']), 1 * GB);
  EXPECT_DOUBLE_EQ(model.flow_rate(f['D']), 4 * GB);
  EXPECT_DOUBLE_EQ(model.flow_rate(f['E']), 4 * GB);
  EXPECT_DOUBLE_EQ(model.flow_rate(f['F']), 16 * GB);
}

TEST(FlowModelRates, RateCapsBindBeforeLinks) {
  // 10 GB/s link; A capped at 2 GB/s, B and C uncapped: A = 2, B = C = (10 - 2) / 2 = 4.
  // D capped at 7 GB/s on an idle 10 GB/s link gets its cap.
  Links net({10 * GB, 10 * GB});
  FlowModel model(net.topology);
  const FlowId a = model.start_flow(0, net.path({0}), GB, 2 * GB);
  const FlowId b = model.start_flow(0, net.path({0}), GB);
  const FlowId c = model.start_flow(0, net.path({0}), GB);
  const FlowId d = model.start_flow(0, net.path({1}), GB, 7 * GB);
  model.advance_to(0);
  EXPECT_DOUBLE_EQ(model.flow_rate(a), 2 * GB);
  EXPECT_DOUBLE_EQ(model.flow_rate(b), 4 * GB);
  EXPECT_DOUBLE_EQ(model.flow_rate(c), 4 * GB);
  EXPECT_DOUBLE_EQ(model.flow_rate(d), 7 * GB);
  EXPECT_DOUBLE_EQ(model.link_utilization(net.ids[1]), 0.7);
}

TEST(FlowModelRates, CapAboveTheFairShareDoesNothing) {
  Links net({10 * GB});
  FlowModel model(net.topology);
  const FlowId a = model.start_flow(0, net.path({0}), GB, 6 * GB);
  const FlowId b = model.start_flow(0, net.path({0}), GB);
  model.advance_to(0);
  EXPECT_DOUBLE_EQ(model.flow_rate(a), 5 * GB);
  EXPECT_DOUBLE_EQ(model.flow_rate(b), 5 * GB);
}

TEST(FlowModelRates, WeightedFlowGetsItsNumberOfShares) {
  // 8 GB/s link: A has weight 3, B weight 1 -> A = 6, B = 2. Link 1 (10 GB/s): C weight 2 capped
  // at 4 GB/s (level 2), D weight 1: C = 4, D = 6.
  Links net({8 * GB, 10 * GB});
  FlowModel model(net.topology);
  const FlowId a = model.start_flow(0, net.path({0}), GB, kUnlimitedRate, 3);
  const FlowId b = model.start_flow(0, net.path({0}), GB);
  const FlowId c = model.start_flow(0, net.path({1}), GB, 4 * GB, 2);
  const FlowId d = model.start_flow(0, net.path({1}), GB);
  model.advance_to(0);
  EXPECT_DOUBLE_EQ(model.flow_rate(a), 6 * GB);
  EXPECT_DOUBLE_EQ(model.flow_rate(b), 2 * GB);
  EXPECT_DOUBLE_EQ(model.flow_rate(c), 4 * GB);
  EXPECT_DOUBLE_EQ(model.flow_rate(d), 6 * GB);
  EXPECT_THROW(model.start_flow(0, net.path({0}), GB, kUnlimitedRate, 0), std::invalid_argument);
}

TEST(FlowModelRates, WeightedFlowTimesLikeItsParallelFlows) {
  // Four 1 GB flows against one 2 GB flow on 10 GB/s, versus one 4 GB flow of weight 4: every
  // completion lands at the same time (0.5 s for the four, then the big one at 0.6 s).
  Links net({10 * GB});
  FlowModel separate(net.topology), merged(net.topology);
  for (int i = 0; i < 4; ++i) separate.start_flow(0, net.path({0}), GB);
  separate.start_flow(0, net.path({0}), 2 * GB);
  merged.start_flow(0, net.path({0}), 4 * GB, kUnlimitedRate, 4);
  merged.start_flow(0, net.path({0}), 2 * GB);
  std::vector<Time> a, b;
  for (const CompletedFlow& f : separate.advance_to_with_times(1'000'000'000)) a.push_back(f.time);
  for (const CompletedFlow& f : merged.advance_to_with_times(1'000'000'000)) b.push_back(f.time);
  EXPECT_EQ(a,
            (std::vector<Time>{500'000'000, 500'000'000, 500'000'000, 500'000'000, 600'000'000}));
  EXPECT_EQ(b, (std::vector<Time>{500'000'000, 600'000'000}));
}

TEST(FlowModelRates, OnlyTheChangedComponentIsSolvedAgain) {
  // Links 0 and 1 share no flow, so they are separate components.
  Links net({10 * GB, 10 * GB});
  FlowModel model(net.topology);
  for (int i = 0; i < 3; ++i) model.start_flow(0, net.path({0}), GB);
  for (int i = 0; i < 2; ++i) model.start_flow(0, net.path({1}), GB);
  model.advance_to(0);
  const auto before = model.counters();
  model.start_flow(1000, net.path({1}), GB);
  model.advance_to(1000);
  const auto after = model.counters();
  EXPECT_EQ(after.solves - before.solves, 1u);
  EXPECT_EQ(after.flows_solved - before.flows_solved, 3u);  // the 2 on link 1 plus the newcomer
}

TEST(FlowModelRates, FlowsBelowTheNewcomersRateAreNotSolvedAgain) {
  // Link 0 (10 GB/s): A, B. Link 1 (2 GB/s): A, D. Link 1 fixes A = D = 1, so B = 10 - 1 = 9.
  // C arrives on link 0. Filling link 0 with A kept at 1: C and B share 10 - 1 = 9, 4.5 each, and
  // 4.5 > 1 confirms A keeps its rate. Only B and C are solved again; A and D are not, although
  // all four are connected.
  Links net({10 * GB, 2 * GB});
  FlowModel model(net.topology);
  const FlowId a = model.start_flow(0, net.path({0, 1}), GB);
  const FlowId b = model.start_flow(0, net.path({0}), GB);
  const FlowId d = model.start_flow(0, net.path({1}), GB);
  model.advance_to(0);
  EXPECT_DOUBLE_EQ(model.flow_rate(b), 9 * GB);
  const auto before = model.counters();
  const FlowId c = model.start_flow(1000, net.path({0}), GB);
  model.advance_to(1000);
  EXPECT_EQ(model.counters().flows_solved - before.flows_solved, 2u);
  EXPECT_DOUBLE_EQ(model.flow_rate(a), 1 * GB);
  EXPECT_DOUBLE_EQ(model.flow_rate(b), 4.5 * GB);
  EXPECT_DOUBLE_EQ(model.flow_rate(c), 4.5 * GB);
  EXPECT_DOUBLE_EQ(model.flow_rate(d), 1 * GB);
}

TEST(FlowModelRates, TheSolveFollowsOnlyFlowsWhoseRateChanges) {
  // Link 0 (10): A. Link 1 (100): A, F. Link 2 (50): F, G. Link 3 (1000): G, H. Link 4 (30): H.
  // A = 10 on link 0; F = G = 25 on link 2; H = 30 on link 4; links 1 and 3 have room. E arrives
  // on link 0: A and E get 5. F shares link 1 with A, but link 2 still binds it at 25, so its rate
  // does not change and the solve stops there: G and H, connected through F, are not looked at.
  Links net({10 * GB, 100 * GB, 50 * GB, 1000 * GB, 30 * GB});
  FlowModel model(net.topology);
  const FlowId a = model.start_flow(0, net.path({0, 1}), GB);
  const FlowId f = model.start_flow(0, net.path({1, 2}), GB);
  const FlowId g = model.start_flow(0, net.path({2, 3}), GB);
  const FlowId h = model.start_flow(0, net.path({3, 4}), GB);
  model.advance_to(0);
  EXPECT_DOUBLE_EQ(model.flow_rate(a), 10 * GB);
  EXPECT_DOUBLE_EQ(model.flow_rate(f), 25 * GB);
  const auto before = model.counters();
  const FlowId e = model.start_flow(1000, net.path({0}), GB);
  model.advance_to(1000);
  EXPECT_EQ(model.counters().flows_solved - before.flows_solved, 3u);  // E, A and F
  EXPECT_EQ(model.counters().rate_changes - before.rate_changes, 2u);  // E and A
  EXPECT_DOUBLE_EQ(model.flow_rate(a), 5 * GB);
  EXPECT_DOUBLE_EQ(model.flow_rate(e), 5 * GB);
  EXPECT_DOUBLE_EQ(model.flow_rate(f), 25 * GB);
  EXPECT_DOUBLE_EQ(model.flow_rate(g), 25 * GB);
  EXPECT_DOUBLE_EQ(model.flow_rate(h), 30 * GB);
}

TEST(FlowModelRates, AFlowWhoseBottleneckFreesUpRises) {
  // Link 0 (10): A, B. Link 1 (30): B, C. A = B = 5 on link 0, C = 25. A leaves: B rises, and so
  // link 1 has less for C: B = 10 (link 0 alone), C = 20.
  Links net({10 * GB, 30 * GB});
  FlowModel model(net.topology);
  const FlowId a = model.start_flow(0, net.path({0}), GB);
  const FlowId b = model.start_flow(0, net.path({0, 1}), 100 * GB);
  const FlowId c = model.start_flow(0, net.path({1}), 100 * GB);
  model.advance_to(0);
  EXPECT_DOUBLE_EQ(model.flow_rate(b), 5 * GB);
  EXPECT_DOUBLE_EQ(model.flow_rate(c), 25 * GB);
  EXPECT_EQ(model.advance_to(200'000'000), std::vector<FlowId>{a});  // 1 GB at 5 GB/s
  EXPECT_DOUBLE_EQ(model.flow_rate(b), 10 * GB);
  EXPECT_DOUBLE_EQ(model.flow_rate(c), 20 * GB);
}

ClusterShape two_leaf_cluster(double oversubscription, double link_bw) {
  ClusterShape shape;
  shape.nodes = 8;
  shape.gpus_per_node = 1;
  shape.nvlink_bw_per_gpu = 450 * GB;
  shape.pcie_bw = 64 * GB;
  shape.nics_per_node = 1;
  shape.nic_bw = 100 * GB;
  shape.hosts_per_leaf = 4;
  shape.oversubscription = oversubscription;
  shape.link_bw = link_bw;
  return shape;
}

TEST(FlowModelRates, OversubscribedLeafUplinkIsTheBottleneck) {
  // 4 NICs of 100 GB/s under each leaf, oversubscription 2: the leaf uplink carries
  // 4 * 100 / 2 = 200 GB/s, one 200 GB/s link to a single spine.
  const ClusterFabric fabric(two_leaf_cluster(2, 200 * GB));
  ASSERT_EQ(fabric.spines().size(), 1u);
  Router router(fabric.topology());
  FlowModel model(fabric.topology());
  // Node i (leaf 0) sends to node i + 4 (leaf 1): 4 flows share the 200 GB/s uplink, 50 each,
  // below their 100 GB/s NICs.
  std::vector<FlowId> flows;
  for (int i = 0; i < 4; ++i) {
    const Path& path = router.route(fabric.nic(i, 0), fabric.nic(i + 4, 0), i);
    flows.push_back(model.start_flow(0, path, GB));
  }
  model.advance_to(0);
  for (FlowId id : flows) EXPECT_DOUBLE_EQ(model.flow_rate(id), 50 * GB);
  const LinkId uplink = fabric.topology().find_link(fabric.leaves()[0], fabric.spines()[0]);
  EXPECT_DOUBLE_EQ(model.link_utilization(uplink), 1.0);
  // Two senders only: 200 / 2 = 100 each, now equal to the NIC rate.
  model.cancel_flow(0, flows[0]);
  model.cancel_flow(0, flows[1]);
  EXPECT_DOUBLE_EQ(model.flow_rate(flows[2]), 100 * GB);
  EXPECT_DOUBLE_EQ(model.flow_rate(flows[3]), 100 * GB);
}

TEST(FlowModelRates, SinglePathRoutingStacksFlowsOnOneSpine) {
  // Oversubscription 1 with 100 GB/s switch links: 4 spines, one per NIC under the leaf.
  const ClusterFabric fabric(two_leaf_cluster(1, 0));
  ASSERT_EQ(fabric.spines().size(), 4u);
  Router router(fabric.topology(), RoutingMode::SinglePath);
  FlowModel model(fabric.topology());
  const FlowId a = model.start_flow(0, router.route(fabric.nic(0, 0), fabric.nic(4, 0)), GB);
  const FlowId b = model.start_flow(0, router.route(fabric.nic(1, 0), fabric.nic(5, 0)), GB);
  model.advance_to(0);
  // Single-path routing sends both over spine 0: 100 GB/s uplink shared, 50 each.
  EXPECT_DOUBLE_EQ(model.flow_rate(a), 50 * GB);
  EXPECT_DOUBLE_EQ(model.flow_rate(b), 50 * GB);
}

TEST(FlowModelRates, EcmpSpreadsFlowsOverSpinesEvenly) {
  const ClusterFabric fabric(two_leaf_cluster(1, 0));
  Router router(fabric.topology());
  const NodeId src = fabric.nic(0, 0);
  const NodeId dst = fabric.nic(5, 0);
  EXPECT_EQ(router.path_count(src, dst), 4u);
  std::map<NodeId, int> per_spine;
  constexpr int kFlows = 4000;
  for (std::uint64_t hash = 0; hash < kFlows; ++hash) {
    const Path& path = router.route(src, dst, hash);
    ASSERT_EQ(path.links.size(), 4u);
    ++per_spine[fabric.topology().link(path.links[1]).to];
  }
  ASSERT_EQ(per_spine.size(), 4u);
  // Binomial(4000, 1/4): mean 1000, standard deviation 27; allow about 4 of them.
  for (const auto& [spine, count] : per_spine) {
    EXPECT_GT(count, 890) << fabric.topology().node(spine).name;
    EXPECT_LT(count, 1110) << fabric.topology().node(spine).name;
  }
}

}  // namespace
}  // namespace seer::net

#include "seer/netsim/router.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

namespace seer::net {
namespace {

std::vector<NodeId> nodes_on(const Topology& topology, const Path& path) {
  std::vector<NodeId> nodes;
  if (path.links.empty()) return nodes;
  nodes.push_back(topology.link(path.links.front()).from);
  for (LinkId id : path.links) nodes.push_back(topology.link(id).to);
  return nodes;
}

// s -> a -> d and s -> b -> d: two equal-cost paths, plus a longer one s -> c -> e -> d.
struct Diamond {
  Topology topology;
  NodeId s = topology.add_node(NodeKind::LeafSwitch, "s");
  NodeId a = topology.add_node(NodeKind::SpineSwitch, "a");
  NodeId b = topology.add_node(NodeKind::SpineSwitch, "b");
  NodeId c = topology.add_node(NodeKind::SpineSwitch, "c");
  NodeId e = topology.add_node(NodeKind::SpineSwitch, "e");
  NodeId d = topology.add_node(NodeKind::LeafSwitch, "d");
  LinkId sa = topology.add_link(s, a, 1e9, 10);
  LinkId sb = topology.add_link(s, b, 1e9, 20);
  LinkId sc = topology.add_link(s, c, 1e9, 1);
  LinkId ad = topology.add_link(a, d, 1e9, 100);
  LinkId bd = topology.add_link(b, d, 1e9, 200);
  LinkId ce = topology.add_link(c, e, 1e9, 1);
  LinkId ed = topology.add_link(e, d, 1e9, 1);
};

TEST(Router, FindsBothEqualCostPathsAndSumsLatency) {
  Diamond net;
  Router router(net.topology);
  EXPECT_EQ(router.hop_count(net.s, net.d), 2);
  EXPECT_EQ(router.path_count(net.s, net.d), 2u);
  bool saw_a = false;
  bool saw_b = false;
  for (std::uint64_t hash = 0; hash < 64; ++hash) {
    const Path& path = router.route(net.s, net.d, hash);
    if (path.links == std::vector<LinkId>{net.sa, net.ad}) {
      saw_a = true;
      EXPECT_EQ(path.latency, 110);  // 10 + 100
    } else {
      ASSERT_EQ(path.links, (std::vector<LinkId>{net.sb, net.bd}));
      saw_b = true;
      EXPECT_EQ(path.latency, 220);  // 20 + 200
    }
  }
  EXPECT_TRUE(saw_a);
  EXPECT_TRUE(saw_b);
}

TEST(Router, SameHashGivesTheSamePathObject) {
  Diamond net;
  Router router(net.topology);
  const Path& first = router.route(net.s, net.d, 12345);
  const Path& again = router.route(net.s, net.d, 12345);
  EXPECT_EQ(&first, &again);
}

TEST(Router, SinglePathModeTakesTheLowestLinkAtEveryHop) {
  Diamond net;
  Router router(net.topology, RoutingMode::SinglePath);
  for (std::uint64_t hash : {0ull, 1ull, 99ull, 0xdeadbeefull}) {
    EXPECT_EQ(router.route(net.s, net.d, hash).links, (std::vector<LinkId>{net.sa, net.ad}));
  }
}

TEST(Router, RouteToItselfIsEmpty) {
  Diamond net;
  Router router(net.topology);
  const Path& path = router.route(net.a, net.a, 7);
  EXPECT_TRUE(path.links.empty());
  EXPECT_EQ(path.latency, 0);
}

TEST(Router, UnreachableDestinationThrows) {
  Diamond net;
  Router router(net.topology);
  EXPECT_EQ(router.hop_count(net.d, net.s), -1);
  EXPECT_EQ(router.path_count(net.d, net.s), 0u);
  EXPECT_THROW(router.route(net.d, net.s, 0), std::invalid_argument);
}

TEST(Router, SeesLinksAddedAfterEarlierQueries) {
  Diamond net;
  Router router(net.topology);
  EXPECT_EQ(router.hop_count(net.s, net.d), 2);
  const LinkId direct = net.topology.add_link(net.s, net.d, 1e9, 5);
  EXPECT_EQ(router.hop_count(net.s, net.d), 1);
  EXPECT_EQ(router.route(net.s, net.d, 0).links, std::vector<LinkId>{direct});
}

TEST(Router, NeverUsesAGpuAsAnIntermediateHop) {
  // gpu0 <-> gpu1 <-> nic: the only way from gpu0 to the NIC would cross gpu1.
  Topology topology;
  const NodeId gpu0 = topology.add_node(NodeKind::Gpu, "gpu0");
  const NodeId gpu1 = topology.add_node(NodeKind::Gpu, "gpu1");
  const NodeId nic = topology.add_node(NodeKind::Nic, "nic");
  topology.add_duplex(gpu0, gpu1, 1e9, 0);
  topology.add_duplex(gpu1, nic, 1e9, 0);
  Router router(topology);
  EXPECT_EQ(router.hop_count(gpu1, nic), 1);
  EXPECT_EQ(router.hop_count(gpu0, nic), -1);
  EXPECT_THROW(router.route(gpu0, nic), std::invalid_argument);
}

TEST(Router, NicDoesNotTurnTrafficBackToTheHost) {
  // Two GPUs share one NIC and an NVSwitch: both gpu0 -> nic -> gpu1 and gpu0 -> nvswitch -> gpu1
  // have two hops, but a NIC only forwards between the host and the network.
  Topology topology;
  const NodeId gpu0 = topology.add_node(NodeKind::Gpu, "gpu0");
  const NodeId gpu1 = topology.add_node(NodeKind::Gpu, "gpu1");
  const NodeId nic = topology.add_node(NodeKind::Nic, "nic");
  const NodeId nvswitch = topology.add_node(NodeKind::NvSwitch, "nvswitch");
  const NodeId leaf = topology.add_node(NodeKind::LeafSwitch, "leaf");
  topology.add_duplex(gpu0, nic, 1e9, 0);
  topology.add_duplex(gpu1, nic, 1e9, 0);
  const LinkId to_switch = topology.add_link(gpu0, nvswitch, 1e9, 0);
  const LinkId from_switch = topology.add_link(nvswitch, gpu1, 1e9, 0);
  topology.add_duplex(nic, leaf, 1e9, 0);
  Router router(topology);
  EXPECT_EQ(router.path_count(gpu0, gpu1), 1u);
  EXPECT_EQ(router.route(gpu0, gpu1, 3).links, (std::vector<LinkId>{to_switch, from_switch}));
  // Host to network through the NIC is fine, and a NIC may be an endpoint.
  EXPECT_EQ(nodes_on(topology, router.route(gpu1, leaf)), (std::vector<NodeId>{gpu1, nic, leaf}));
  EXPECT_EQ(router.hop_count(leaf, nic), 1);
}

}  // namespace
}  // namespace seer::net

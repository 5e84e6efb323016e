#include "seer/netsim/topology.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

namespace seer::net {
namespace {

TEST(Topology, AssignsDenseIdsInInsertionOrder) {
  Topology topology;
  const NodeId gpu = topology.add_node(NodeKind::Gpu, "gpu0");
  const NodeId nic = topology.add_node(NodeKind::Nic, "nic0");
  EXPECT_EQ(gpu, 0);
  EXPECT_EQ(nic, 1);
  const auto [up, down] = topology.add_duplex(gpu, nic, 64e9, 500);
  EXPECT_EQ(up, 0);
  EXPECT_EQ(down, 1);
  EXPECT_EQ(topology.node_count(), 2);
  EXPECT_EQ(topology.link_count(), 2);
  EXPECT_EQ(topology.link(up).from, gpu);
  EXPECT_EQ(topology.link(up).to, nic);
  EXPECT_EQ(topology.link(down).from, nic);
  EXPECT_EQ(topology.link(down).bandwidth, 64e9);
  EXPECT_EQ(topology.link(down).latency, 500);
  EXPECT_EQ(topology.node(nic).name, "nic0");
  EXPECT_EQ(topology.node(nic).kind, NodeKind::Nic);
}

TEST(Topology, ListsLinksPerNode) {
  Topology topology;
  const NodeId a = topology.add_node(NodeKind::LeafSwitch, "a");
  const NodeId b = topology.add_node(NodeKind::LeafSwitch, "b");
  const NodeId c = topology.add_node(NodeKind::LeafSwitch, "c");
  const LinkId ab = topology.add_link(a, b, 1, 0);
  const LinkId ac = topology.add_link(a, c, 1, 0);
  const LinkId cb = topology.add_link(c, b, 1, 0);
  EXPECT_EQ(std::vector<LinkId>(topology.out_links(a).begin(), topology.out_links(a).end()),
            (std::vector<LinkId>{ab, ac}));
  EXPECT_EQ(std::vector<LinkId>(topology.in_links(b).begin(), topology.in_links(b).end()),
            (std::vector<LinkId>{ab, cb}));
  EXPECT_EQ(topology.find_link(c, b), cb);
  EXPECT_EQ(topology.find_link(b, c), -1);
}

TEST(Topology, RejectsBadLinks) {
  Topology topology;
  const NodeId a = topology.add_node(NodeKind::Gpu, "a");
  const NodeId b = topology.add_node(NodeKind::Gpu, "b");
  EXPECT_THROW(topology.add_link(a, a, 1, 0), std::invalid_argument);
  EXPECT_THROW(topology.add_link(a, b, 0, 0), std::invalid_argument);
  EXPECT_THROW(topology.add_link(a, b, -5, 0), std::invalid_argument);
  EXPECT_THROW(topology.add_link(a, b, 1, -1), std::invalid_argument);
  EXPECT_THROW(topology.add_link(a, 7, 1, 0), std::out_of_range);
  EXPECT_THROW(topology.link(0), std::out_of_range);
  EXPECT_EQ(topology.link_count(), 0);
}

}  // namespace
}  // namespace seer::net

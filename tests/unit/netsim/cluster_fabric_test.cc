#include "seer/netsim/cluster_fabric.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "seer/netsim/router.h"

namespace seer::net {
namespace {

// 4 nodes x 8 GPUs, 8 rail NICs each, rail-optimized leaves of 2 nodes, 2-tier.
ClusterShape small_rail_cluster() {
  ClusterShape shape;
  shape.nodes = 4;
  shape.gpus_per_node = 8;
  shape.nvlink_bw_per_gpu = 450e9;
  shape.nvswitch_latency = 700;
  shape.pcie_bw = 64e9;
  shape.pcie_latency = 100;
  shape.nics_per_node = 8;
  shape.nic_bw = 50e9;
  shape.nic_latency = 1000;
  shape.hosts_per_leaf = 2;
  shape.switch_hop_latency = 200;
  return shape;
}

std::vector<NodeKind> kinds_on(const Topology& topology, const Path& path) {
  std::vector<NodeKind> kinds = {topology.node(topology.link(path.links.front()).from).kind};
  for (LinkId id : path.links) kinds.push_back(topology.node(topology.link(id).to).kind);
  return kinds;
}

int count_kind(const Topology& topology, NodeKind kind) {
  int count = 0;
  for (NodeId id = 0; id < topology.node_count(); ++id) count += topology.node(id).kind == kind;
  return count;
}

TEST(ClusterFabric, BuildsEveryPartOfARailOptimizedTwoTierCluster) {
  const ClusterFabric fabric(small_rail_cluster());
  const Topology& topology = fabric.topology();
  EXPECT_EQ(fabric.gpu_count(), 32);
  EXPECT_EQ(fabric.nic_count(), 32);
  EXPECT_EQ(count_kind(topology, NodeKind::Gpu), 32);
  EXPECT_EQ(count_kind(topology, NodeKind::NvSwitch), 4);
  EXPECT_EQ(count_kind(topology, NodeKind::Nic), 32);
  // 2 groups of 2 nodes x 8 rails = 16 leaves. Leaf uplink = 2 ports x 50 GB/s / 1 = 100 GB/s
  // = 2 spine links of 50 GB/s, so 2 spines.
  EXPECT_EQ(fabric.leaves().size(), 16u);
  EXPECT_EQ(fabric.spines().size(), 2u);
  EXPECT_TRUE(fabric.cores().empty());
  EXPECT_EQ(topology.node_count(), 32 + 4 + 32 + 16 + 2);
  // Directed links: GPU<->NVSwitch 64, GPU<->NIC 64, NIC<->leaf 64, leaf<->spine 16*2*2 = 64.
  EXPECT_EQ(topology.link_count(), 256);
  const Link& uplink = topology.link(topology.find_link(fabric.leaves()[0], fabric.spines()[1]));
  EXPECT_EQ(uplink.bandwidth, 50e9);
  EXPECT_EQ(uplink.latency, 200);
}

TEST(ClusterFabric, IntraNodePathCrossesTheNvSwitch) {
  const ClusterFabric fabric(small_rail_cluster());
  Router router(fabric.topology());
  const Path& path = router.route(fabric.gpu(1, 2), fabric.gpu(1, 5), 42);
  ASSERT_EQ(path.links.size(), 2u);
  EXPECT_EQ(fabric.topology().link(path.links[0]).to, fabric.nvswitch(1));
  EXPECT_EQ(fabric.topology().link(path.links[0]).bandwidth, 450e9);
  EXPECT_EQ(path.latency, 700);  // the NVSwitch hop, on the link leaving the switch
}

TEST(ClusterFabric, SameRailPathStaysUnderOneLeaf) {
  const ClusterFabric fabric(small_rail_cluster());
  Router router(fabric.topology());
  // Nodes 0 and 1 share the group-0 leaves.
  const Path& path = router.route(fabric.gpu(0, 3), fabric.gpu(1, 3), 9);
  EXPECT_EQ(kinds_on(fabric.topology(), path),
            (std::vector<NodeKind>{NodeKind::Gpu, NodeKind::Nic, NodeKind::LeafSwitch,
                                   NodeKind::Nic, NodeKind::Gpu}));
  EXPECT_EQ(fabric.topology().link(path.links[1]).to, fabric.leaf_of_nic(0, 3));
  // pcie 100 + nic 1000 + (leaf hop 200 + nic 1000) + pcie 100
  EXPECT_EQ(path.latency, 2400);
}

TEST(ClusterFabric, CrossGroupPathGoesThroughASpine) {
  const ClusterFabric fabric(small_rail_cluster());
  Router router(fabric.topology());
  const Path& path = router.route(fabric.gpu(0, 0), fabric.gpu(3, 6), 5);
  EXPECT_EQ(kinds_on(fabric.topology(), path),
            (std::vector<NodeKind>{NodeKind::Gpu, NodeKind::Nic, NodeKind::LeafSwitch,
                                   NodeKind::SpineSwitch, NodeKind::LeafSwitch, NodeKind::Nic,
                                   NodeKind::Gpu}));
  EXPECT_EQ(fabric.topology().link(path.links[0]).to, fabric.nic_of_gpu(0, 0));
  EXPECT_EQ(fabric.topology().link(path.links[0]).bandwidth, 64e9);
  EXPECT_EQ(fabric.topology().link(path.links[5]).from, fabric.nic_of_gpu(3, 6));
  // pcie 100 + nic 1000 + leaf 200 + spine 200 + (leaf 200 + nic 1000) + pcie 100
  EXPECT_EQ(path.latency, 2800);
  EXPECT_EQ(router.path_count(fabric.gpu(0, 0), fabric.gpu(3, 6)), 2u);  // one per spine
}

TEST(ClusterFabric, RailOptimizedNicsOfOneRailShareALeaf) {
  const ClusterFabric fabric(small_rail_cluster());
  EXPECT_EQ(fabric.leaf_of_nic(0, 3), fabric.leaf_of_nic(1, 3));
  EXPECT_NE(fabric.leaf_of_nic(0, 3), fabric.leaf_of_nic(0, 4));
  EXPECT_NE(fabric.leaf_of_nic(0, 3), fabric.leaf_of_nic(2, 3));  // next group of nodes
  EXPECT_EQ(fabric.leaf_of_nic(2, 3), fabric.leaf_of_nic(3, 3));
  EXPECT_EQ(fabric.topology().node(fabric.leaf_of_nic(2, 3)).name, "leaf1/rail3");
}

TEST(ClusterFabric, WithoutRailsNeighbouringNicsShareALeaf) {
  ClusterShape shape = small_rail_cluster();
  shape.rail_optimized = false;
  shape.hosts_per_leaf = 16;
  const ClusterFabric fabric(shape);
  EXPECT_EQ(fabric.leaves().size(), 2u);  // 32 NICs / 16 ports
  EXPECT_EQ(fabric.leaf_of_nic(0, 0), fabric.leaf_of_nic(1, 7));
  EXPECT_NE(fabric.leaf_of_nic(1, 7), fabric.leaf_of_nic(2, 0));
}

TEST(ClusterFabric, GpusSharingANicStillTalkOverNvLink) {
  ClusterShape shape = small_rail_cluster();
  shape.nics_per_node = 4;  // default rail map: GPUs 2k and 2k+1 use NIC k
  const ClusterFabric fabric(shape);
  EXPECT_EQ(fabric.rail_of_gpu(5), 2);
  EXPECT_EQ(fabric.nic_of_gpu(0, 4), fabric.nic_of_gpu(0, 5));
  Router router(fabric.topology());
  const Path& path = router.route(fabric.gpu(0, 4), fabric.gpu(0, 5), 1);
  EXPECT_EQ(kinds_on(fabric.topology(), path),
            (std::vector<NodeKind>{NodeKind::Gpu, NodeKind::NvSwitch, NodeKind::Gpu}));
}

TEST(ClusterFabric, CustomRailMapIsHonoured) {
  ClusterShape shape = small_rail_cluster();
  shape.nics_per_node = 2;
  shape.gpu_to_nic = {1, 1, 1, 1, 0, 0, 0, 0};
  const ClusterFabric fabric(shape);
  EXPECT_EQ(fabric.nic_of_gpu(2, 0), fabric.nic(2, 1));
  EXPECT_EQ(fabric.nic_of_gpu(2, 7), fabric.nic(2, 0));
  EXPECT_NE(fabric.topology().find_link(fabric.gpu(2, 0), fabric.nic(2, 1)), -1);
  EXPECT_EQ(fabric.topology().find_link(fabric.gpu(2, 0), fabric.nic(2, 0)), -1);
}

TEST(ClusterFabric, NvLinkMeshSplitsEachGpusBandwidth) {
  ClusterShape shape = small_rail_cluster();
  shape.nodes = 1;
  shape.gpus_per_node = 4;
  shape.nics_per_node = 0;
  shape.nvswitch = false;
  shape.nvlink_bw_per_gpu = 300e9;
  const ClusterFabric fabric(shape);
  EXPECT_EQ(fabric.nvswitch(0), -1);
  EXPECT_EQ(fabric.topology().link_count(), 12);  // 4 * 3 directed GPU pairs
  const LinkId link = fabric.topology().find_link(fabric.gpu(0, 1), fabric.gpu(0, 3));
  ASSERT_NE(link, -1);
  EXPECT_EQ(fabric.topology().link(link).bandwidth, 100e9);  // 300 GB/s over 3 peers
  Router router(fabric.topology());
  EXPECT_EQ(router.route(fabric.gpu(0, 1), fabric.gpu(0, 3)).links, std::vector<LinkId>{link});
}

TEST(ClusterFabric, OversubscriptionCutsLeafUplinks) {
  ClusterShape shape = small_rail_cluster();
  shape.nodes = 8;
  shape.gpus_per_node = 1;
  shape.nics_per_node = 1;
  shape.hosts_per_leaf = 4;
  shape.oversubscription = 3;
  const ClusterFabric fabric(shape);
  // Uplink = 4 x 50 / 3 = 66.7 GB/s: ceil(66.7 / 50) = 2 spines of 33.3 GB/s each.
  ASSERT_EQ(fabric.spines().size(), 2u);
  const LinkId up = fabric.topology().find_link(fabric.leaves()[0], fabric.spines()[0]);
  EXPECT_DOUBLE_EQ(fabric.topology().link(up).bandwidth, 200e9 / 3 / 2);
}

TEST(ClusterFabric, SingleSwitchTier) {
  ClusterShape shape = small_rail_cluster();
  shape.tiers = 1;
  const ClusterFabric fabric(shape);
  EXPECT_EQ(fabric.leaves().size(), 1u);
  EXPECT_TRUE(fabric.spines().empty());
  Router router(fabric.topology());
  EXPECT_EQ(router.hop_count(fabric.gpu(0, 0), fabric.gpu(3, 7)), 4);
}

TEST(ClusterFabric, ThreeTiersGoThroughTheCore) {
  ClusterShape shape = small_rail_cluster();
  shape.nodes = 8;
  shape.gpus_per_node = 1;
  shape.nics_per_node = 1;
  shape.rail_optimized = false;
  shape.tiers = 3;
  shape.hosts_per_leaf = 2;
  shape.leaves_per_pod = 2;
  const ClusterFabric fabric(shape);
  // 4 leaves in 2 pods; leaf uplink 100 GB/s = 2 spines per pod; spine downlink 2 x 50 GB/s
  // = 2 cores per group, 2 groups.
  EXPECT_EQ(fabric.leaves().size(), 4u);
  EXPECT_EQ(fabric.spines().size(), 4u);
  EXPECT_EQ(fabric.cores().size(), 4u);
  Router router(fabric.topology());
  const Path& path = router.route(fabric.nic(0, 0), fabric.nic(7, 0), 3);
  EXPECT_EQ(kinds_on(fabric.topology(), path),
            (std::vector<NodeKind>{NodeKind::Nic, NodeKind::LeafSwitch, NodeKind::SpineSwitch,
                                   NodeKind::CoreSwitch, NodeKind::SpineSwitch,
                                   NodeKind::LeafSwitch, NodeKind::Nic}));
  // 2 spines to leave pod 0, then 2 cores in that spine's group; the far spine is then fixed.
  EXPECT_EQ(router.path_count(fabric.nic(0, 0), fabric.nic(7, 0)), 4u);
  // Within a pod the core is never needed.
  EXPECT_EQ(router.hop_count(fabric.nic(0, 0), fabric.nic(3, 0)), 4);
}

TEST(ClusterFabric, BadShapesNameTheField) {
  ClusterShape shape = small_rail_cluster();
  shape.gpu_to_nic = {0, 9, 0, 0, 0, 0, 0, 0};
  try {
    ClusterFabric fabric(shape);
    FAIL() << "accepted a NIC index out of range";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("gpu_to_nic[1] = 9"), std::string::npos)
        << error.what();
  }
  shape = small_rail_cluster();
  shape.nic_bw = 0;
  EXPECT_THROW(ClusterFabric{shape}, std::invalid_argument);
  shape = small_rail_cluster();
  shape.tiers = 4;
  EXPECT_THROW(ClusterFabric{shape}, std::invalid_argument);
  shape = small_rail_cluster();
  shape.nics_per_node = 0;
  EXPECT_THROW(ClusterFabric{shape}, std::invalid_argument);  // several nodes need NICs
}

TEST(ClusterFabric, AccessorsRejectOutOfRangeIndices) {
  const ClusterFabric fabric(small_rail_cluster());
  EXPECT_THROW(fabric.gpu(4, 0), std::out_of_range);
  EXPECT_THROW(fabric.gpu(0, 8), std::out_of_range);
  EXPECT_THROW(fabric.nic(0, -1), std::out_of_range);
  EXPECT_EQ(fabric.gpu(13), fabric.gpu(1, 5));
}

}  // namespace
}  // namespace seer::net

// Version tables and the channel graphs NCCL's search finds (README.md "Graphs" derives each
// expected value by hand from NVIDIA/nccl src/graph/search.cc and connect.cc).

#include <gtest/gtest.h>

#include "seer/simcore/nccl/topo.h"
#include "seer/simcore/nccl/version.h"

namespace seer::sim::nccl {
namespace {

TEST(NcclVersion, LookupByMinorReleaseNearestOlder) {
  EXPECT_EQ(version(22809).code, 22809);
  EXPECT_STREQ(version(22809).name, "2.28.9");
  EXPECT_EQ(version(22803).code, 22809);  // same minor release
  EXPECT_EQ(version(22905).code, 22809);  // newer than every table: the newest
  EXPECT_EQ(version(22700).code, 21805);  // between 2.18 and 2.28: the older
  EXPECT_EQ(version(21805).code, 21805);
  EXPECT_EQ(version(21000).code, 21805);  // older than every table: the oldest
  EXPECT_EQ(default_version().code, kDefaultVersionCode);
  EXPECT_EQ(known_version_codes().size(), 2u);
}

TEST(NcclVersion, TablesReallyDiffer) {
  const Version& v18 = version(21805);
  const Version& v28 = version(22809);
  // NVLS latency: 23 us base in 2.18; 25 us per NVLink hop (no base) in 2.28.
  EXPECT_EQ(v18.base_lat[idx(Algo::kNvls)][idx(Proto::kSimple)], 23.0);
  EXPECT_EQ(v18.hw_lat[idx(Hw::kNvlink)][idx(Algo::kNvls)][idx(Proto::kSimple)], 0.0);
  EXPECT_EQ(v28.base_lat[idx(Algo::kNvls)][idx(Proto::kSimple)], 0.0);
  EXPECT_EQ(v28.hw_lat[idx(Hw::kNvlink)][idx(Algo::kNvls)][idx(Proto::kSimple)], 25.0);
  // PAT exists only in 2.28.
  EXPECT_FALSE(v18.has_pat());
  EXPECT_TRUE(v28.has_pat());
  // Hopper LL ceiling and NVLink per-link bandwidth.
  EXPECT_EQ(v18.ll_max_bw[idx(Arch::kHopper)][0], 87.7);
  EXPECT_EQ(v28.ll_max_bw[idx(Arch::kHopper)][0], 141.0);
  EXPECT_EQ(v18.nvlink_link_bw(90), 20.0);
  EXPECT_EQ(v28.nvlink_link_bw(90), 20.6);
  EXPECT_EQ(v28.nvlink_link_bw(80), 20.0);
  EXPECT_EQ(v28.nvlink_link_bw(100), 40.1);
  // Tree/Simple base latency, channel limits, NVLS efficiency.
  EXPECT_EQ(v18.base_lat[idx(Algo::kTree)][idx(Proto::kSimple)], 0.0);
  EXPECT_EQ(v28.base_lat[idx(Algo::kTree)][idx(Proto::kSimple)], 8.4);
  EXPECT_EQ(v18.max_channels, 32);
  EXPECT_EQ(v28.max_channels, 64);
  EXPECT_EQ(v28.nvls_efficiency[idx(Arch::kHopper)], 0.85);
  // The SM90 intra-node ladder gained 50 and 11 GB/s.
  EXPECT_EQ(v18.speed_intra_sm90.size(), 9u);
  EXPECT_EQ(v28.speed_intra_sm90.size(), 11u);
  // Same in both: Ring per-hop latencies and the tree correction table.
  EXPECT_EQ(v18.hw_lat[idx(Hw::kNvlink)][idx(Algo::kRing)][idx(Proto::kLL)], 0.6);
  EXPECT_EQ(v28.hw_lat[idx(Hw::kNvlink)][idx(Algo::kRing)][idx(Proto::kLL)], 0.6);
  EXPECT_EQ(v18.tree_correction, v28.tree_correction);
}

TEST(NcclGraphs, DgxH100OneNode) {
  // NVLink4: 18 links x 20.6 GB/s = 370.8 GB/s per GPU. Ring search (SM90 intra ladder): 6
  // channels at 60 GB/s (360 <= 370.8), duplicated to 12 x 30; Postset doubles: 24 channels.
  // NVLS: 8 heads need 9 x bw per GPU link -> 40 GB/s; pass 2 raises bwInter to 60.
  const CommGraphs g = compute_graphs(Topo::dgx_h100(1), version(22809), Env());
  EXPECT_EQ(g.ring.nchannels, 12);
  EXPECT_DOUBLE_EQ(g.ring.bw_intra, 30.0);
  EXPECT_EQ(g.tree.nchannels, 12);
  EXPECT_EQ(g.nchannels, 24);
  EXPECT_TRUE(g.nvls_support);
  EXPECT_EQ(g.nvls.nchannels, 8);
  EXPECT_DOUBLE_EQ(g.nvls.bw_intra, 40.0);
  EXPECT_DOUBLE_EQ(g.nvls.bw_inter, 60.0);
  EXPECT_EQ(g.nvls_channels, 16);
  EXPECT_EQ(g.ring.type_intra, PathType::kNvl);
  EXPECT_FALSE(g.pat_support);
  EXPECT_FALSE(g.collnet_support);

  // 2.18.5: 20 GB/s per link = 360; same 12 x 30 ring; NVLS 8 x 40/40 (no pass-2 raise).
  const CommGraphs o = compute_graphs(Topo::dgx_h100(1), version(21805), Env());
  EXPECT_EQ(o.ring.nchannels, 12);
  EXPECT_DOUBLE_EQ(o.ring.bw_intra, 30.0);
  EXPECT_EQ(o.nchannels, 24);
  EXPECT_EQ(o.nvls.nchannels, 8);
  EXPECT_DOUBLE_EQ(o.nvls.bw_intra, 40.0);
  EXPECT_DOUBLE_EQ(o.nvls.bw_inter, 40.0);
}

TEST(NcclGraphs, DgxA100OneNode) {
  // 12 links x 20 GB/s = 240: 6 x 40 is perfect, duplicated (SM80 is not > 80) to 12 x 20.
  const CommGraphs g = compute_graphs(Topo::dgx_a100(1), version(22809), Env());
  EXPECT_EQ(g.ring.nchannels, 12);
  EXPECT_DOUBLE_EQ(g.ring.bw_intra, 20.0);
  EXPECT_EQ(g.nchannels, 24);
  EXPECT_FALSE(g.nvls_support);
  EXPECT_EQ(g.nvls_channels, 0);
}

TEST(NcclGraphs, DgxH100SeveralNodes) {
  // GPU->NIC path = min(50 GB/s NDR, 48 GB/s PCIe Gen5 x16) = 48. Ring at 48: 8 NIC slots; the
  // intra-node part needs 7 of 8 GPUs to send at 48 (7 x 48 = 336 <= 370.8): 8 x 48 = 384 >=
  // 370.8 is "perfect". No duplication (48 < 50 with > 4 channels on SM90). Postset: 16.
  for (int nodes : {2, 4}) {
    const CommGraphs g = compute_graphs(Topo::dgx_h100(nodes), version(22809), Env());
    EXPECT_EQ(g.ring.nchannels, 8) << nodes;
    EXPECT_DOUBLE_EQ(g.ring.bw_inter, 48.0) << nodes;
    EXPECT_EQ(g.nchannels, 16) << nodes;
    // NVLS: one head per NIC; 8 heads fit at 40 GB/s intra; pass 2 raises bwInter to 48.
    EXPECT_EQ(g.nvls.nchannels, 8) << nodes;
    EXPECT_DOUBLE_EQ(g.nvls.bw_intra, 40.0) << nodes;
    EXPECT_DOUBLE_EQ(g.nvls.bw_inter, 48.0) << nodes;
    EXPECT_EQ(g.p2p_channels_per_peer, 2) << nodes;
  }
  // 2.18 doubles Hopper multi-node rings faster than 45 GB/s once more: 32 channels.
  EXPECT_EQ(compute_graphs(Topo::dgx_h100(2), version(21805), Env()).nchannels, 32);
}

TEST(NcclGraphs, OneNicPerNodeLimitsChannels) {
  Topo t = Topo::dgx_h100(2);
  t.nics_per_node = 1;
  const CommGraphs g = compute_graphs(t, version(22809), Env());
  EXPECT_EQ(g.ring.nchannels * g.ring.bw_inter, 48.0);
}

TEST(NcclGraphs, ChannelEnvLimits) {
  Env env;
  env.max_nchannels = 4;
  EXPECT_EQ(compute_graphs(Topo::dgx_h100(1), version(22809), env).nchannels, 4);
  env.max_nchannels = -1;
  env.min_nchannels = 32;
  EXPECT_EQ(compute_graphs(Topo::dgx_h100(1), version(22809), env).nchannels, 32);
  env.min_nchannels = 1000;  // capped at MAXCHANNELS
  EXPECT_EQ(compute_graphs(Topo::dgx_h100(1), version(22809), env).nchannels, 64);
  EXPECT_EQ(compute_graphs(Topo::dgx_h100(1), version(21805), env).nchannels, 32);
}

TEST(NcclGraphs, PcieOnlyNode) {
  Topo t;
  t.nranks = 8;
  t.intra = IntraKind::kPcie;
  t.nvlink_links = 0;
  t.pcie_gbps = 24;
  t.sm = 89;
  const CommGraphs g = compute_graphs(t, version(22809), Env());
  EXPECT_EQ(g.ring.type_intra, PathType::kPhb);
  EXPECT_EQ(g.ring.nchannels * g.ring.bw_intra, 24.0);
  EXPECT_FALSE(g.nvls_support);
}

TEST(NcclGraphs, TopologyValidation) {
  Topo t = Topo::dgx_h100(2);
  EXPECT_EQ(t.validate(), "");
  t.nranks = 15;
  EXPECT_NE(t.validate(), "");
  t = Topo::dgx_h100(2);
  t.nics_per_node = 0;
  EXPECT_NE(t.validate(), "");
}

}  // namespace
}  // namespace seer::sim::nccl

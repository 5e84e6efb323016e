// CollectiveNetwork: each NCCL algorithm's data moved as flows on the cluster topology. Checks
// which links carry how many bytes per algorithm, that an idle network reproduces the model's
// time exactly, that concurrent collectives sharing links slow each other as max-min fairness
// predicts, and the optional link-utilisation series.

#include "seer/simcore/collective_network.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "seer/simcore/gpu_spec.h"

namespace seer::sim {
namespace {

constexpr uint64_t kMiB = 1024 * 1024;
constexpr uint64_t kGiB = 1024 * kMiB;

// DGX H100-like nodes: NVSwitch (450 GB/s per GPU), one 400 Gb/s NIC per GPU on PCIe Gen5.
NetworkConfig h100(int nodes, int gpus_per_node = 8, const char* algo = nullptr) {
  NetworkConfig c;
  c.shape.nodes = nodes;
  c.shape.gpus_per_node = gpus_per_node;
  c.shape.nvswitch = true;
  c.shape.nvlink_bw_per_gpu = 450e9;
  c.shape.nvswitch_latency = 700;
  c.shape.pcie_bw = 64e9;
  c.shape.pcie_latency = 500;
  c.shape.nics_per_node = gpus_per_node;
  c.shape.nic_bw = 50e9;
  c.shape.nic_latency = 1000;
  c.shape.switch_hop_latency = 200;
  c.gpu = *find_gpu("H100-SXM-80GB");
  if (algo) {
    EXPECT_TRUE(nccl::parse_algo_list(algo, c.env));
  }
  return c;
}

std::vector<int> gpus(int first, int count) {
  std::vector<int> g;
  for (int i = 0; i < count; ++i) g.push_back(first + i);
  return g;
}

CollPart part(CollKind kind, uint64_t bytes_per_rank, int root = 0) {
  CollPart p;
  p.kind = kind;
  p.count = bytes_per_rank;
  p.type_bytes = 1;
  p.root = root;
  return p;
}

// Runs the network until every token finished; their end times.
std::map<uint64_t, Time> run(CollectiveNetwork& net) {
  std::map<uint64_t, Time> end;
  while (auto t = net.next_event_time()) {
    for (uint64_t tok : net.advance_to(*t)) end[tok] = *t;
  }
  return end;
}

double gpu_up(const CollectiveNetwork& net, int g) {
  const auto& f = net.fabric();
  return net.link_bytes(net.link(f.gpu(g), f.nvswitch(g / f.gpus_per_node())));
}
double gpu_down(const CollectiveNetwork& net, int g) {
  const auto& f = net.fabric();
  return net.link_bytes(net.link(f.nvswitch(g / f.gpus_per_node()), f.gpu(g)));
}
double nic_out(const CollectiveNetwork& net, int node) {
  const auto& f = net.fabric();
  double sum = 0;
  for (int k = 0; k < f.nics_per_node(); ++k) {
    sum += net.link_bytes(net.link(f.nic(node, k), f.leaf_of_nic(node, k)));
  }
  return sum;
}

TEST(CollectiveNetwork, RingAllReduceEdgesAndIdleTime) {
  CollectiveNetwork net(h100(1, 8, "ring"));
  net.add_comm(1, gpus(0, 8));
  const double s = 1.0 * kGiB;
  const CollectivePlan p = net.start_collective(0, 1, part(CollKind::kAllReduce, kGiB), 7);
  EXPECT_EQ(p.algo, nccl::Algo::kRing);
  // Every channel's ring has the same 8 edges through the NVSwitch; each edge's channels are
  // one flow of weight nchannels.
  EXPECT_EQ(p.flows, 8);
  EXPECT_EQ(p.nchannels, 24);
  for (int g = 0; g < 8; ++g) {
    EXPECT_NEAR(gpu_up(net, g), 2.0 * 7 / 8 * s, 1) << g;  // 2(n-1)/n S out of every GPU
    EXPECT_NEAR(gpu_down(net, g), 2.0 * 7 / 8 * s, 1) << g;
  }
  EXPECT_NEAR(static_cast<double>(run(net).at(7)), static_cast<double>(p.latency + p.data_ns), 1);
}

TEST(CollectiveNetwork, BroadcastIsAChainWithoutTheWrapEdge) {
  CollectiveNetwork net(h100(1));
  net.add_comm(1, gpus(0, 8));
  const double s = 256.0 * kMiB;
  const CollectivePlan p = net.start_collective(0, 1, part(CollKind::kBroadcast, 256 * kMiB, 3), 1);
  EXPECT_EQ(p.algo, nccl::Algo::kRing);
  double up = 0, down = 0;
  int silent = 0;
  for (int g = 0; g < 8; ++g) {
    up += gpu_up(net, g);
    down += gpu_down(net, g);
    if (gpu_up(net, g) == 0) ++silent;
  }
  EXPECT_NEAR(up, 7 * s, 8);  // n - 1 edges of S
  EXPECT_NEAR(down, 7 * s, 8);
  EXPECT_EQ(gpu_down(net, 3), 0);  // the root receives nothing
  EXPECT_NEAR(gpu_up(net, 3), s, 1);
  // One node: every channel's ring is the same cycle, so every chain ends at GPU 2.
  EXPECT_EQ(silent, 1);
  EXPECT_EQ(gpu_up(net, 2), 0);
  EXPECT_NEAR(static_cast<double>(run(net).at(1)), static_cast<double>(p.latency + p.data_ns), 1);
}

TEST(CollectiveNetwork, TreeIsChainsInsideNodesAndATreeOfLeadersAcross) {
  CollectiveNetwork net(h100(2, 8, "tree"));
  net.add_comm(1, gpus(0, 16));
  const double s = 1.0 * kGiB;
  const CollectivePlan p = net.start_collective(0, 1, part(CollKind::kAllReduce, kGiB), 1);
  EXPECT_EQ(p.algo, nccl::Algo::kTree);
  // Per channel S / channels up and down each of the 7 chain edges of each node ...
  for (int node = 0; node < 2; ++node) {
    double up = 0;
    for (int g = 0; g < 8; ++g) up += gpu_up(net, node * 8 + g);
    EXPECT_NEAR(up, 2 * 7 * s, 64) << node;
    // ... and across the two nodes, through the channel leaders' NICs, S each way in total.
    EXPECT_NEAR(nic_out(net, node), s, 64) << node;
  }
  EXPECT_NEAR(static_cast<double>(run(net).at(1)), static_cast<double>(p.latency + p.data_ns), 1);
}

TEST(CollectiveNetwork, NvlsSendsToTheSwitchAndReceivesTheMulticast) {
  CollectiveNetwork net(h100(1));
  net.add_comm(1, gpus(0, 8));
  const double s = 1.0 * kGiB;
  const CollectivePlan p = net.start_collective(0, 1, part(CollKind::kAllReduce, kGiB), 1);
  EXPECT_EQ(p.algo, nccl::Algo::kNvls);
  EXPECT_EQ(p.flows, 16);
  for (int g = 0; g < 8; ++g) {
    EXPECT_NEAR(gpu_up(net, g), s * 9 / 8, 1) << g;  // every shard read, own result stored
    EXPECT_NEAR(gpu_down(net, g), s * 9 / 8, 1) << g;
  }
  EXPECT_NEAR(static_cast<double>(run(net).at(1)), static_cast<double>(p.latency + p.data_ns), 1);
}

TEST(CollectiveNetwork, NvlsTreeAddsATreeOfHeadsOverTheNics) {
  CollectiveNetwork net(h100(2));
  net.add_comm(1, gpus(0, 16));
  const double s = 8.0 * kGiB;
  const CollectivePlan p = net.start_collective(0, 1, part(CollKind::kAllReduce, 8 * kGiB), 1);
  EXPECT_EQ(p.algo, nccl::Algo::kNvlsTree);
  for (int node = 0; node < 2; ++node) {
    EXPECT_NEAR(nic_out(net, node), s, 1e3) << node;  // S through the 8 heads' NICs
    EXPECT_NEAR(gpu_up(net, node * 8), s * 9 / 8, 1) << node;
  }
  EXPECT_NEAR(static_cast<double>(run(net).at(1)), static_cast<double>(p.latency + p.data_ns), 1);
}

TEST(CollectiveNetwork, PatDoublesTheDistanceEachStep) {
  // One GPU per node, where NCCL 2.28 offers PAT (its default for small calls).
  CollectiveNetwork net(h100(4, 1, "pat"));
  net.add_comm(1, gpus(0, 4));
  const CollectivePlan p = net.start_collective(0, 1, part(CollKind::kAllGather, 64 * kMiB), 1);
  ASSERT_EQ(p.algo, nccl::Algo::kPat);
  EXPECT_EQ(p.flows, 8);  // distances 1 and 2, every rank
  const double s = 4.0 * 64 * kMiB;
  for (int node = 0; node < 4; ++node) EXPECT_NEAR(nic_out(net, node), s * 3 / 4, 1) << node;
  EXPECT_NEAR(static_cast<double>(run(net).at(1)), static_cast<double>(p.latency + p.data_ns), 1);
}

// Two ring AllReduces on two communicators over the same 8 GPUs at once: each alone loads every
// GPU's NVSwitch port with 2(n-1)/n S / data_ns; together they ask more than the port's 450 GB/s,
// so max-min gives each half the port and both take 2 x bytes-on-port / capacity.
TEST(CollectiveNetwork, ConcurrentCollectivesShareLinksMaxMinFairly) {
  CollectiveNetwork net(h100(1, 8, "ring"));
  net.add_comm(1, gpus(0, 8));
  net.add_comm(2, gpus(0, 8));
  const CollectivePlan a = net.start_collective(0, 1, part(CollKind::kAllReduce, kGiB), 1);
  const CollectivePlan b = net.start_collective(0, 2, part(CollKind::kAllReduce, kGiB), 2);
  const double per_port = 2.0 * 7 / 8 * kGiB;  // bytes of one collective on one GPU port
  const double alone_load = per_port * 1e9 / static_cast<double>(a.data_ns);
  ASSERT_GT(2 * alone_load, 450e9);  // they do contend
  const auto end = run(net);
  const double shared_ns = 2 * per_port / 450e9 * 1e9;
  EXPECT_NEAR(static_cast<double>(end.at(1) - a.latency), shared_ns, 2);
  EXPECT_NEAR(static_cast<double>(end.at(2) - b.latency), shared_ns, 2);
  EXPECT_GT(end.at(1), a.latency + a.data_ns);
}

// A ring's 24 channels are 24 parallel flows on each NVLink port, so a lone transfer through the
// same port gets one share in 25: the ring keeps the rate it has alone (its channels are capped
// there) and the transfer gets what is left of the port.
TEST(CollectiveNetwork, ChannelsCountAsParallelFlowsAgainstOtherTraffic) {
  CollectiveNetwork net(h100(1, 8, "ring"));
  net.add_comm(1, gpus(0, 8));
  const CollectivePlan a = net.start_collective(0, 1, part(CollKind::kAllReduce, kGiB), 1);
  ASSERT_EQ(a.nchannels, 24);
  const double ring_load = 2.0 * 7 / 8 * kGiB * 1e9 / static_cast<double>(a.data_ns);
  ASSERT_LT(ring_load, 450e9 * 24 / 25);  // its 24 shares of 25 cover its rate
  ASSERT_GT(ring_load, 450e9 / 2);        // one flow against one would slow it to half the port
  net.advance_to(a.latency);
  const CollectivePlan t = net.start_transfer(a.latency, 1, 0, 1, 64 * kMiB, 2);
  const auto end = run(net);
  const double left = 450e9 - ring_load;
  EXPECT_NEAR(static_cast<double>(end.at(2) - a.latency - t.latency), 64.0 * kMiB / left * 1e9, 2);
  EXPECT_NEAR(static_cast<double>(end.at(1)), static_cast<double>(a.latency + a.data_ns), 1);
}

TEST(CollectiveNetwork, LinkUtilisationSeries) {
  NetworkConfig cfg = h100(1, 8, "ring");
  {
    CollectiveNetwork off(cfg);
    off.add_comm(1, gpus(0, 8));
    off.start_collective(0, 1, part(CollKind::kAllReduce, kGiB), 1);
    run(off);
    EXPECT_TRUE(off.link_utilisation().empty());  // off by default
  }
  cfg.record_link_utilisation = true;
  CollectiveNetwork net(cfg);
  net.add_comm(1, gpus(0, 8));
  const CollectivePlan p = net.start_collective(0, 1, part(CollKind::kAllReduce, kGiB), 1);
  const Time end = run(net).at(1);
  const auto series = net.link_utilisation();
  ASSERT_EQ(series.size(), 16u);  // 8 GPU->switch and 8 switch->GPU links, nothing else
  const LinkSeries& s = series.front();
  EXPECT_EQ(s.name, "node0/gpu0->nvswitch");
  EXPECT_EQ(s.capacity_Bps, 450e9);
  ASSERT_EQ(s.points.size(), 2u);
  EXPECT_EQ(s.points[0].first, p.latency);  // flows join after NCCL's latency
  EXPECT_NEAR(s.points[0].second, 2.0 * 7 / 8 * kGiB * 1e9 / static_cast<double>(p.data_ns), 1e3);
  EXPECT_EQ(s.points[1], std::make_pair(end, 0.0));
  EXPECT_EQ(series[1].name, "node0/nvswitch->gpu0");

  // A second collective starting halfway adds a step: load rises, then both share the port.
  CollectiveNetwork two(cfg);
  two.add_comm(1, gpus(0, 8));
  two.add_comm(2, gpus(0, 8));
  two.start_collective(0, 1, part(CollKind::kAllReduce, kGiB), 1);
  while (auto t = two.next_event_time()) {
    if (*t > p.latency + p.data_ns / 2) break;
    two.advance_to(*t);
  }
  const Time mid = p.latency + p.data_ns / 2;
  two.advance_to(mid);
  two.start_collective(mid, 2, part(CollKind::kAllReduce, kGiB), 2);
  run(two);
  const LinkSeries up = two.link_utilisation().front();
  ASSERT_GE(up.points.size(), 3u);
  EXPECT_NEAR(up.points[1].second, 450e9, 1e3);  // saturated while both run
  EXPECT_EQ(up.points.back().second, 0.0);
  for (size_t i = 1; i < up.points.size(); ++i) {
    EXPECT_GE(up.points[i].first - up.points[i - 1].first, cfg.utilisation_merge_ns);
  }
}

// On an idle network every algorithm's flows end exactly when the model says (their rates never
// add up to more than a link carries), for NCCL's choices and forced Ring / Tree.
TEST(CollectiveNetwork, IdleNetworkReproducesTheModel) {
  for (int nodes : {1, 2, 4}) {
    for (const char* algo : {static_cast<const char*>(nullptr), "ring", "tree"}) {
      for (CollKind kind : {CollKind::kAllReduce, CollKind::kAllGather, CollKind::kReduceScatter,
                            CollKind::kBroadcast, CollKind::kReduce}) {
        for (uint64_t bytes : {1 * kMiB, 256 * kMiB}) {
          CollectiveNetwork net(h100(nodes, 8, algo));
          net.add_comm(1, gpus(0, 8 * nodes));
          const CollectivePlan p = net.start_collective(0, 1, part(kind, bytes / 8), 1);
          if (!p.error.empty()) continue;  // e.g. Tree does not serve AllGather
          const auto end = run(net);
          const double model = static_cast<double>(p.latency + p.data_ns);
          // Across nodes NCCL's graph gives a NIC path 48 GB/s; the fabric's NICs carry 0.95 x
          // 50 = 47.5 GB/s of payload, so NIC-bound calls may take up to 1 % longer.
          EXPECT_GE(static_cast<double>(end.at(1)), model - 1);
          EXPECT_LE(static_cast<double>(end.at(1)), nodes == 1 ? model + 1 : model * 1.0106)
              << nodes << " nodes " << (algo ? algo : "default") << " " << coll_kind_name(kind)
              << " " << bytes << " " << nccl::algo_name(p.algo);
        }
      }
    }
  }
}

// 64 nodes on a rail-optimised leaf/spine fabric (32 hosts per leaf): NVLSTree's tree of head
// GPUs crosses between leaves through the spines. With a per-flow hash (ECMP) some of those
// flows collide on a spine link and run at half speed; adaptive routing puts each flow on the
// least loaded path, and the call takes what the model says on an idle network.
TEST(CollectiveNetwork, AdaptiveRoutingAvoidsEcmpCollisions) {
  std::map<bool, Time> end_of;
  for (bool adaptive : {false, true}) {
    NetworkConfig c = h100(64, 8, "nvlstree");
    c.adaptive_routing = adaptive;
    CollectiveNetwork net(c);
    net.add_comm(1, gpus(0, 8 * 64));
    const CollectivePlan p = net.start_collective(0, 1, part(CollKind::kAllReduce, kGiB), 1);
    ASSERT_TRUE(p.error.empty()) << p.error;
    end_of[adaptive] = run(net).at(1);
    if (adaptive) {
      EXPECT_LE(static_cast<double>(end_of[adaptive]),
                static_cast<double>(p.latency + p.data_ns) * 1.0106);
    }
  }
  EXPECT_LT(end_of[true], end_of[false]);
}

}  // namespace
}  // namespace seer::sim

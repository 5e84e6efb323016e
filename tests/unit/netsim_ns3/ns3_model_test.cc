// Hand-solved cases for the ns-3 backend. Expected times: latency plus payload and headers at the
// line rate (ns3_test_util.h), plus what TCP adds to a new connection: the handshake (one round
// trip before data) and, in its first round trip, a window of 65,535 bytes (a SYN's window is
// never scaled, RFC 7323), which leaves the link idle for a round trip less that window's time.

#include "seer/netsim/ns3_model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "ns3_test_util.h"
#include "seer/netsim/cluster_fabric.h"
#include "seer/netsim/router.h"

namespace seer::net {
namespace {

using test::drain;
using test::wire_ns;

constexpr double kRate = 50e9;  // 400 Gb/s
constexpr Time kLatency = 1000;
constexpr double kMiB = 1024.0 * 1024;

// a <-> b, one duplex link.
struct OneLink {
  OneLink() {
    a = topology.add_node(NodeKind::Gpu, "a");
    b = topology.add_node(NodeKind::Gpu, "b");
    topology.add_duplex(a, b, kRate, kLatency);
  }
  Path path() const { return Path{{0}, kLatency}; }
  Topology topology;
  NodeId a, b;
};

// a -> s -> b and c -> s -> b: the two sources reach the switch at twice the rate of s -> b.
struct Star {
  Star() {
    a = topology.add_node(NodeKind::Gpu, "a");
    c = topology.add_node(NodeKind::Gpu, "c");
    b = topology.add_node(NodeKind::Gpu, "b");
    s = topology.add_node(NodeKind::LeafSwitch, "s");
    as = topology.add_duplex(a, s, 2 * kRate, kLatency).first;
    cs = topology.add_duplex(c, s, 2 * kRate, kLatency).first;
    sb = topology.add_duplex(s, b, kRate, kLatency).first;
  }
  Path from_a() const { return Path{{as, sb}, 2 * kLatency}; }
  Path from_c() const { return Path{{cs, sb}, 2 * kLatency}; }
  Topology topology;
  NodeId a, b, c, s;
  LinkId as, cs, sb;
};

TEST(Ns3Model, Available) { EXPECT_TRUE(ns3_available()); }

// 64 MiB over one link: the handshake (2 latencies), the latency, 7,500 segments at line rate.
TEST(Ns3Model, OneFlowOneLink) {
  OneLink net;
  Ns3Model model(net.topology, Ns3Options{});
  const double bytes = 64 * kMiB;
  const FlowId id = model.start_flow(0, net.path(), bytes, kUnlimitedRate, 1);
  EXPECT_EQ(model.waiting_flow_count(), 1);
  const auto done = drain(model);
  ASSERT_EQ(done.count(id), 1u);
  const double data = wire_ns(bytes, kRate);
  const double expected = 3 * kLatency + data + test::first_window_gap_ns(1, kLatency, kRate);
  const auto t = static_cast<double>(done.at(id));
  std::printf(
      "one flow, 64 MiB, 50 GB/s: %.0f ns, expected %.0f ns (3 latencies, %.0f ns of "
      "payload and headers, first window gap): %+.3f %%\n",
      t, expected, data, 100 * (t / expected - 1));
  EXPECT_NEAR(t, expected, 0.0003 * expected);
  EXPECT_EQ(model.completion_time(id), done.at(id));
  EXPECT_EQ(model.active_flow_count(), 0);
  EXPECT_EQ(model.waiting_flow_count(), 0);
  const auto stats = model.stats();
  EXPECT_EQ(stats.connections, 1u);
  EXPECT_EQ(stats.drops, 0u);

  // The same path again: the connection is reused, no handshake.
  const Time start = model.now();
  const FlowId again = model.start_flow(start, net.path(), bytes, kUnlimitedRate, 1);
  const auto second = drain(model);
  const double t2 = static_cast<double>(second.at(again) - start);
  std::printf("the same flow on the open connection: %.0f ns, expected %.0f ns: %+.3f %%\n", t2,
              kLatency + data, 100 * (t2 / (kLatency + data) - 1));
  EXPECT_GE(t2, kLatency + data);
  EXPECT_NEAR(t2, kLatency + data, 0.003 * (kLatency + data));
  EXPECT_EQ(model.stats().connections, 1u);
}

// Data waits for the path latency the caller gives beyond the links' own (NCCL's latency in
// Seer); the handshake fits inside it.
TEST(Ns3Model, PathLatencyBeyondTheLinksDelaysTheData) {
  OneLink net;
  Ns3Model model(net.topology, Ns3Options{});
  const double bytes = 8 * kMiB;
  const Time latency = 20'000;
  const FlowId id = model.start_flow(0, Path{{0}, latency}, bytes, kUnlimitedRate, 1);
  const auto done = drain(model);
  const double expected = static_cast<double>(latency) + wire_ns(bytes, kRate);
  EXPECT_GE(static_cast<double>(done.at(id)), expected);
  EXPECT_NEAR(static_cast<double>(done.at(id)), expected, 0.005 * expected);
}

// Two flows into one bottleneck finish together, after twice one flow's data time.
TEST(Ns3Model, TwoFlowsShareABottleneck) {
  Star net;
  Ns3Model model(net.topology, Ns3Options{});
  const double bytes = 32 * kMiB;
  const FlowId x = model.start_flow(0, net.from_a(), bytes, kUnlimitedRate, 1);
  const FlowId y = model.start_flow(0, net.from_c(), bytes, kUnlimitedRate, 1);
  const auto done = drain(model);
  const double one = wire_ns(bytes, kRate);
  const auto tx = static_cast<double>(done.at(x));
  const auto ty = static_cast<double>(done.at(y));
  std::printf(
      "two flows on one bottleneck: %.0f and %.0f ns; one flow's data time %.0f ns, "
      "ratio %.3f\n",
      tx, ty, one, std::max(tx, ty) / one);
  EXPECT_NEAR(tx, ty, 0.05 * std::max(tx, ty));
  EXPECT_NEAR(std::max(tx, ty), 2 * one, 0.02 * 2 * one);
  EXPECT_GE(std::max(tx, ty), 2 * one);
}

// Two hops: both latencies, and the last packet is stored and forwarded once more.
TEST(Ns3Model, TwoHopPath) {
  Topology topology;
  const NodeId a = topology.add_node(NodeKind::Gpu, "a");
  const NodeId s = topology.add_node(NodeKind::LeafSwitch, "s");
  const NodeId b = topology.add_node(NodeKind::Gpu, "b");
  const LinkId as = topology.add_duplex(a, s, kRate, kLatency).first;
  const LinkId sb = topology.add_duplex(s, b, kRate, kLatency).first;
  Ns3Model model(topology, Ns3Options{});
  const double bytes = 16 * kMiB;
  const Path path{{as, sb}, 2 * kLatency};
  const FlowId id = model.start_flow(0, path, bytes, kUnlimitedRate, 1);
  const auto done = drain(model);
  // Handshake 2 x 2 latencies, then 2 latencies, the data, one more full segment (the second hop
  // stores and forwards it) and the first window's gap.
  const double store_and_forward = test::kWire / kRate * 1e9;
  const double expected = 6 * kLatency + wire_ns(bytes, kRate) + store_and_forward +
                          test::first_window_gap_ns(2, kLatency, kRate);
  const auto t = static_cast<double>(done.at(id));
  std::printf("two hops, 16 MiB: %.0f ns, expected %.0f ns: %+.3f %%\n", t, expected,
              100 * (t / expected - 1));
  EXPECT_NEAR(t, expected, 0.001 * expected);
  // Again on the open connection: no handshake, no window gap.
  const Time start = model.now();
  const FlowId again = model.start_flow(start, path, bytes, kUnlimitedRate, 1);
  const double warm = 2 * kLatency + wire_ns(bytes, kRate) + store_and_forward;
  EXPECT_NEAR(static_cast<double>(drain(model).at(again) - start), warm, 0.0002 * warm);
}

// Weight 2 is two connections: against a weight-1 flow on the same bottleneck max-min gives it 2/3,
// finishing at 1.5 data times, and the other one at 2. TCP's shares over a few hundred round
// trips are only roughly fair, and the flow waits for its slower connection.
TEST(Ns3Model, WeightTwoIsTwoConnections) {
  Star net;
  Ns3Model model(net.topology, Ns3Options{});
  const double bytes = 32 * kMiB;
  const FlowId heavy = model.start_flow(0, net.from_a(), bytes, kUnlimitedRate, 2);
  const FlowId light = model.start_flow(0, net.from_c(), bytes, kUnlimitedRate, 1);
  const auto done = drain(model);
  EXPECT_EQ(model.stats().connections, 3u);
  const double one = wire_ns(bytes, kRate);
  const auto th = static_cast<double>(done.at(heavy));
  const auto tl = static_cast<double>(done.at(light));
  std::printf("weight 2 vs 1: %.3f and %.3f data times (max-min: 1.5 and 2)\n", th / one, tl / one);
  EXPECT_LT(th, tl);
  EXPECT_NEAR(th / one, 1.5, 0.25);
  EXPECT_NEAR(tl / one, 2.0, 0.04);
}

// A flow capped at a quarter of the link's rate takes its bytes / cap after the latency.
TEST(Ns3Model, RateCap) {
  OneLink net;
  Ns3Model model(net.topology, Ns3Options{});
  const double bytes = 16 * kMiB;
  const double cap = kRate / 4;
  // Path latency 10 us hides the handshake; data then starts at 9 us and is paced at the cap.
  const FlowId id = model.start_flow(0, Path{{0}, 10'000}, bytes, cap, 1);
  int steps = 0;
  const auto done = drain(model, &steps);
  // The application writes at most cap x time since the data start (9 us), so its last byte at
  // 9 us + bytes / cap; it then crosses the link in a segment of at most 8,664 bytes (16 MiB mod
  // 8948: less if TCP cut the stream elsewhere), so within one segment time.
  const double last = std::fmod(bytes, test::kPayload);
  const double expected =
      9'000 + bytes / cap * 1e9 + kLatency + (last + test::kWire - test::kPayload) / kRate * 1e9;
  const auto t = static_cast<double>(done.at(id));
  std::printf("capped at 12.5 GB/s: %.0f ns, expected %.0f ns: %+.4f %%, %d steps\n", t, expected,
              100 * (t / expected - 1), steps);
  EXPECT_NEAR(t, expected, test::kWire / kRate * 1e9);
  // The bound knows when the bucket lets the last byte out: a handful of steps, not thousands.
  EXPECT_LT(steps, 50);
}

// A parking lot: A crosses both bottlenecks, B the first, C the second. Max-min gives each half
// of its bottleneck (all finish at 2 data times); TCP gives A less while B and C run (it is
// marked at two queues), so B and C finish earlier. The links stay busy, so A still ends at
// about 2 data times.
TEST(Ns3Model, ParkingLotIsNotMaxMin) {
  Topology topology;
  const NodeId s1 = topology.add_node(NodeKind::LeafSwitch, "s1");
  const NodeId s2 = topology.add_node(NodeKind::LeafSwitch, "s2");
  const NodeId s3 = topology.add_node(NodeKind::LeafSwitch, "s3");
  const auto host = [&](const char* name, NodeId sw) {
    const NodeId h = topology.add_node(NodeKind::Gpu, name);
    return topology.add_duplex(h, sw, 2 * kRate, kLatency);
  };
  const LinkId first = topology.add_duplex(s1, s2, kRate, kLatency).first;
  const LinkId second = topology.add_duplex(s2, s3, kRate, kLatency).first;
  const auto a_in = host("a", s1).first, a_out = host("a'", s3).second;
  const auto b_in = host("b", s1).first, b_out = host("b'", s2).second;
  const auto c_in = host("c", s2).first, c_out = host("c'", s3).second;
  Ns3Model model(topology, Ns3Options{});
  const double bytes = 16 * kMiB;
  const FlowId a =
      model.start_flow(0, Path{{a_in, first, second, a_out}, 0}, bytes, kUnlimitedRate, 1);
  const FlowId b = model.start_flow(0, Path{{b_in, first, b_out}, 0}, bytes, kUnlimitedRate, 1);
  const FlowId c = model.start_flow(0, Path{{c_in, second, c_out}, 0}, bytes, kUnlimitedRate, 1);
  const auto done = drain(model);
  const double two = 2 * wire_ns(bytes, kRate);
  std::printf("parking lot: A %.3f, B %.3f, C %.3f of max-min's time\n", done.at(a) / two,
              done.at(b) / two, done.at(c) / two);
  EXPECT_GT(done.at(a), done.at(b));
  EXPECT_GT(done.at(a), done.at(c));
  EXPECT_LT(done.at(b) / two, 0.97);
  EXPECT_LT(done.at(c) / two, 0.97);
  EXPECT_NEAR(done.at(a) / two, 1.0, 0.05);
}

// Eight senders into one receiver at once (an all-to-one step): the receiver's link is the
// bottleneck and stays busy; the queue absorbs the first windows without loss.
TEST(Ns3Model, Incast) {
  Topology topology;
  const NodeId s = topology.add_node(NodeKind::LeafSwitch, "s");
  const NodeId sink = topology.add_node(NodeKind::Gpu, "sink");
  const LinkId down = topology.add_duplex(s, sink, kRate, kLatency).first;
  std::vector<LinkId> up;
  for (int i = 0; i < 8; ++i) {
    const NodeId h = topology.add_node(NodeKind::Gpu, std::to_string(i));
    up.push_back(topology.add_duplex(h, s, kRate, kLatency).first);
  }
  Ns3Model model(topology, Ns3Options{});
  const double bytes = 4 * kMiB;
  for (const LinkId l : up)
    model.start_flow(0, Path{{l, down}, 2 * kLatency}, bytes, kUnlimitedRate, 1);
  const auto done = drain(model);
  ASSERT_EQ(done.size(), 8u);
  Time last = 0;
  for (const auto& [id, t] : done) last = std::max(last, t);
  const double ideal = 8 * wire_ns(bytes, kRate);
  std::printf("incast of 8 x 4 MiB: last at %.3f of the receiver link's busy time, %llu drops\n",
              static_cast<double>(last) / ideal,
              static_cast<unsigned long long>(model.stats().drops));
  EXPECT_EQ(model.stats().drops, 0u);
  EXPECT_NEAR(static_cast<double>(last), ideal, 0.03 * ideal);
}

// Flows of random sizes, caps and weights between random GPUs of a fat-tree, started at random
// times while others run: every one completes exactly at a step (drain checks the lower bound),
// no sooner than its bytes take at the path's slowest link, and connections are reused.
TEST(Ns3Model, RandomTrafficOnAFatTree) {
  ClusterShape shape;
  shape.nodes = 4;
  shape.gpus_per_node = 2;
  shape.nvlink_bw_per_gpu = 450e9;
  shape.nvswitch_latency = 1000;
  shape.pcie_bw = 55e9;
  shape.pcie_latency = 2000;
  shape.nics_per_node = 2;
  shape.nic_bw = 50e9;
  shape.nic_latency = 750;
  shape.hosts_per_leaf = 2;
  shape.switch_hop_latency = 250;
  ClusterFabric fabric(shape);
  Router router(fabric.topology());
  Ns3Model model(fabric.topology(), Ns3Options{});
  std::mt19937_64 rng(7);
  struct Started {
    Time at;
    double floor_ns;
  };
  std::map<FlowId, Started> started;
  std::map<FlowId, Time> done;
  Time now = 0;
  for (int i = 0; i < 200; ++i) {
    now += static_cast<Time>(rng() % 20'000);
    while (const auto t = model.next_event_time()) {
      if (*t > now) break;
      for (const CompletedFlow& f : model.advance_to_with_times(*t)) {
        EXPECT_EQ(f.time, *t);
        done[f.id] = f.time;
      }
    }
    model.advance_to(now);
    const int a = static_cast<int>(rng() % 8);
    const int b = (a + 1 + static_cast<int>(rng() % 7)) % 8;
    const Path& path = router.route(fabric.gpu(a), fabric.gpu(b), rng() % 4);
    const double bytes = static_cast<double>(1 + rng() % (2 << 20));
    const double cap = rng() % 2 ? kUnlimitedRate : 10e9 + static_cast<double>(rng() % 40) * 1e9;
    const double weight = 1 + static_cast<double>(rng() % 3);
    double slowest = cap;
    for (const LinkId l : path.links)
      slowest = std::min(slowest, fabric.topology().link(l).bandwidth);
    const FlowId id = model.start_flow(now, path, bytes, cap, weight);
    started[id] = {now, static_cast<double>(path.latency) + bytes / slowest * 1e9};
  }
  for (const auto& [id, t] : drain(model)) done[id] = t;
  ASSERT_EQ(done.size(), started.size());
  for (const auto& [id, s] : started) {
    EXPECT_GE(static_cast<double>(done.at(id) - s.at), s.floor_ns) << "flow " << id;
    EXPECT_EQ(model.completion_time(id), done.at(id));
  }
  EXPECT_LT(model.stats().connections, 200u);
  EXPECT_EQ(model.stats().drops, 0u);
  EXPECT_EQ(model.active_flow_count() + model.waiting_flow_count(), 0);
}

TEST(Ns3Model, LinkUtilization) {
  OneLink net;
  Ns3Model model(net.topology, Ns3Options{});
  const double bytes = 16 * kMiB;
  model.start_flow(0, net.path(), bytes, kUnlimitedRate, 1);
  model.advance_to(20'000);
  model.link_utilization(0);
  model.link_utilization(1);
  model.advance_to(200'000);  // well inside the transfer
  EXPECT_GT(model.link_utilization(0), 0.98);
  EXPECT_LT(model.link_utilization(1), 0.02);  // ACKs only
  drain(model);
  EXPECT_LT(model.link_utilization(0), 1.0);
}

TEST(Ns3Model, FlowsWithoutDataEndAfterTheirLatency) {
  OneLink net;
  Ns3Model model(net.topology, Ns3Options{});
  const FlowId empty = model.start_flow(100, Path{{0}, 5000}, 0, kUnlimitedRate, 1);
  const FlowId local = model.start_flow(100, Path{{}, 300}, 1000, 1e9, 1);  // 1 us at its cap
  EXPECT_EQ(model.waiting_flow_count(), 2);
  EXPECT_EQ(model.next_event_time(), 1400);
  const auto done = drain(model);
  EXPECT_EQ(done.at(empty), 5100);
  EXPECT_EQ(done.at(local), 1400);
  EXPECT_EQ(model.waiting_flow_count(), 0);
}

TEST(Ns3Model, RejectsBadCalls) {
  Star net;
  Ns3Model model(net.topology, Ns3Options{});
  EXPECT_THROW(model.start_flow(0, Path{{net.as, net.as}, 0}, 1, kUnlimitedRate, 1),
               std::invalid_argument);  // not contiguous
  EXPECT_THROW(model.start_flow(0, Path{{99}, 0}, 1, kUnlimitedRate, 1), std::out_of_range);
  EXPECT_THROW(model.start_flow(0, net.from_a(), -1, kUnlimitedRate, 1), std::invalid_argument);
  EXPECT_THROW(model.start_flow(0, net.from_a(), 1, 0, 1), std::invalid_argument);
  EXPECT_THROW(model.start_flow(0, net.from_a(), 1, kUnlimitedRate, 0), std::invalid_argument);
  model.advance_to(1000);
  EXPECT_THROW(model.start_flow(10, net.from_a(), 1, kUnlimitedRate, 1), std::invalid_argument);
  EXPECT_THROW(model.advance_to(10), std::invalid_argument);
  // a -> s -> a -> s... visits a node twice.
  const LinkId sa = net.topology.find_link(net.s, net.a);
  EXPECT_THROW(model.start_flow(1000, Path{{net.as, sa, net.as}, 0}, 1, kUnlimitedRate, 1),
               std::invalid_argument);
}

TEST(Ns3Model, OneModelAtATime) {
  OneLink net;
  {
    Ns3Model first(net.topology, Ns3Options{});
    EXPECT_THROW(Ns3Model(net.topology, Ns3Options{}), std::logic_error);
    first.start_flow(0, net.path(), kMiB, kUnlimitedRate, 1);
    drain(first);
  }
  // After the first is gone, a new one starts from a fresh simulator and gives the same result.
  Ns3Model second(net.topology, Ns3Options{});
  EXPECT_EQ(second.now(), 0);
  const FlowId id = second.start_flow(0, net.path(), kMiB, kUnlimitedRate, 1);
  const auto done = drain(second);
  EXPECT_EQ(id, 0u);
  EXPECT_EQ(done.size(), 1u);
}

TEST(Ns3Model, Deterministic) {
  Star net;
  std::map<FlowId, Time> runs[2];
  for (auto& run : runs) {
    Ns3Model model(net.topology, Ns3Options{});
    model.start_flow(0, net.from_a(), 4 * kMiB, kUnlimitedRate, 3);
    model.start_flow(500, net.from_c(), 6 * kMiB, 20e9, 1);
    run = drain(model);
  }
  EXPECT_EQ(runs[0], runs[1]);
}

TEST(Ns3Model, RejectsBadOptions) {
  OneLink net;
  Ns3Options options;
  options.mtu = 100;
  EXPECT_THROW(Ns3Model(net.topology, options), std::invalid_argument);
  // The failed construction leaves no model behind.
  EXPECT_NO_THROW(Ns3Model(net.topology, Ns3Options{}));
}

TEST(Ns3Model, FactoryMakesAWorkingModel) {
  OneLink net;
  std::unique_ptr<NetworkModel> model = make_ns3_model(net.topology);
  const FlowId id = model->start_flow(0, net.path(), kMiB, kUnlimitedRate, 1);
  std::vector<FlowId> done;
  while (const auto t = model->next_event_time()) {
    for (const FlowId f : model->advance_to(*t)) done.push_back(f);
  }
  EXPECT_EQ(done, std::vector<FlowId>{id});
}

}  // namespace
}  // namespace seer::net

// Speed of the ns-3 backend: simulated bytes, ns-3 events and link transmissions per wall second.
// Usage: seer_ns3_speed [MiB per flow, default 256] [MTU, default 9000]

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "ns3_packet_model.h"
#include "seer/netsim/cluster_fabric.h"
#include "seer/netsim/router.h"

namespace {

using namespace seer::net;

void report(const char* name, Ns3Model& model, double bytes, double wall) {
  const Ns3Model::Stats s = model.stats();
  const double gib = bytes / (1024.0 * 1024 * 1024);
  std::printf(
      "%-34s %7.3f GiB simulated %9.3f ms in %6.2f s wall: %6.2f s/GiB, %5.2f M events/s, %5.2f M "
      "transmissions/s, %llu events, %llu transmissions, %llu runs\n",
      name, gib, static_cast<double>(model.now()) / 1e6, wall, wall / gib,
      static_cast<double>(s.events) / wall / 1e6, static_cast<double>(s.transmissions) / wall / 1e6,
      static_cast<unsigned long long>(s.events), static_cast<unsigned long long>(s.transmissions),
      static_cast<unsigned long long>(s.runs));
}

double drain(Ns3Model& model) {
  const auto start = std::chrono::steady_clock::now();
  while (auto t = model.next_event_time()) model.advance_to(*t);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  const double mib = argc > 1 ? std::atof(argv[1]) : 256;
  const double bytes = mib * 1024 * 1024;
  Ns3Options options;
  if (argc > 2) options.mtu = std::atoi(argv[2]);
  std::printf("MTU %d, %.0f MiB per flow\n", options.mtu, mib);
  {
    Topology topology;
    const NodeId a = topology.add_node(NodeKind::Gpu, "a");
    const NodeId b = topology.add_node(NodeKind::Gpu, "b");
    topology.add_duplex(a, b, 50e9, 1000);
    Ns3Model model(topology, options);
    model.start_flow(0, Path{{0}, 1000}, bytes, kUnlimitedRate, 1);
    const double wall = drain(model);
    report("one flow, one 50 GB/s link", model, bytes, wall);
  }
  {
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
    shape.tiers = 2;
    shape.hosts_per_leaf = 2;
    shape.switch_hop_latency = 250;
    ClusterFabric fabric(shape);
    Router router(fabric.topology());
    Ns3Model model(fabric.topology(), options);
    const int n = fabric.gpu_count();
    for (int g = 0; g < n; ++g) {
      const Path& path = router.route(fabric.gpu(g), fabric.gpu((g + 1) % n), g);
      model.start_flow(0, path, bytes, kUnlimitedRate, 1);
    }
    const double wall = drain(model);
    report("ring of 8 GPUs, 4 nodes, fat-tree", model, bytes * n, wall);
  }
  return 0;
}

#pragma once

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "seer/netsim/cluster_fabric.h"
#include "seer/netsim/flow_model.h"
#include "seer/netsim/network_model.h"
#include "seer/netsim/router.h"
#include "seer/simcore/gpu_spec.h"
#include "seer/simcore/nccl/env.h"
#include "seer/simcore/nccl/model.h"
#include "seer/simcore/op.h"
#include "seer/simcore/rank_pair_index.h"
#include "seer/simcore/time.h"

namespace seer::sim {

// How collectives are timed when the cluster's network is known: NCCL's own model chooses the
// algorithm, protocol and channel count and gives the latency; the data moves as flows on the
// topology (netsim, max-min fair), so concurrent collectives, communicators and jobs contend
// for NVLink ports, PCIe, NIC rails and fabric links.
struct NetworkConfig {
  net::ClusterShape shape;
  bool ecmp = true;
  // Adaptive routing (InfiniBand AR, Spectrum-X): a flow takes the least-loaded of its
  // equal-cost paths when it starts, instead of the one its hash picks.
  bool adaptive_routing = false;
  double payload_efficiency = 0.95;  // NIC links carry this share of their line rate
  // "flow": netsim's flow-level max-min model; "ns3": packet-level TCP over ns-3
  // (netsim/ns3/README.md; throws std::runtime_error when this build has no ns-3).
  std::string model = "flow";
  int nccl_version = 22809;
  nccl::Env env;
  GpuSpec gpu;
  // Keep, per link that carried traffic, its load over time (link_utilisation()). Off by default.
  bool record_link_utilisation = false;
  // Load changes closer together than this are merged into one point (the later value wins).
  Time utilisation_merge_ns = 1000;
};

// The load of one directed link over time, piecewise constant: from each point's time until the
// next point's, the link carried `second` bytes per second.
struct LinkSeries {
  std::string name;  // "node0/gpu3->nic3", "node0/nic3->leaf0/rail3", "node1/nvswitch->gpu2"
  double capacity_Bps = 0;
  std::vector<std::pair<Time, double>> points;
};

// What one collective call (all ranks) was given.
struct CollectivePlan {
  nccl::Algo algo = nccl::Algo::kRing;
  nccl::Proto proto = nccl::Proto::kSimple;
  int nchannels = 0;
  Time latency = 0;   // before data moves
  Time data_ns = 0;   // data phase alone on an idle network
  std::string error;  // the model could not time it
  int flows = 0;      // flows started (0: the call ends after latency + data_ns)
};

class CollectiveNetwork {
 public:
  explicit CollectiveNetwork(NetworkConfig config);
  ~CollectiveNetwork();

  void add_comm(uint64_t comm, const std::vector<int>& gpus);

  // Starts the data of one collective at `now` as flows tagged `token`; advance_to() returns
  // the token once they all finished. plan.flows == 0: nothing to move (ends after latency).
  CollectivePlan start_collective(Time now, uint64_t comm, const CollPart& part, uint64_t token);
  // One send/recv transfer between two GPUs of a communicator (also how AlltoAll, Gather and
  // Scatter move data: NCCL runs them as grouped send/recv).
  CollectivePlan start_transfer(Time now, uint64_t comm, int src_gpu, int dst_gpu, uint64_t bytes,
                                uint64_t token);
  int comm_size(uint64_t comm) const { return static_cast<int>(comms_.at(comm).gpus.size()); }
  int comm_gpu(uint64_t comm, int rank) const { return comms_.at(comm).gpus.at(rank); }

  std::optional<Time> next_event_time() const { return flows_->next_event_time(); }
  // Tokens whose flows all finished by `t`, in deterministic order.
  std::vector<uint64_t> advance_to(Time t);

  const net::ClusterFabric& fabric() const { return fabric_; }

  // Bytes of all flows started so far on a link (whole flows, counted when they start).
  double link_bytes(net::LinkId link) const {
    return link >= 0 && static_cast<size_t>(link) < link_bytes_.size() ? link_bytes_[link] : 0.0;
  }
  // The link from `from` to `to` (-1 if none), e.g. link(fabric().gpu(3), fabric().nvswitch(0)).
  net::LinkId link(net::NodeId from, net::NodeId to) const {
    return fabric_.topology().find_link(from, to);
  }
  // "node0/gpu3->nic3": the link's ends by name, the second without the first's node prefix.
  std::string link_name(net::LinkId link) const;

  // Recorded utilisation (NetworkConfig::record_link_utilisation), one series per link that
  // carried traffic, in LinkId order; empty when recording is off.
  std::vector<LinkSeries> link_utilisation() const;

 private:
  struct Comm {
    std::vector<int> gpus;
    int nodes = 1;
    std::unique_ptr<nccl::CommModel> model;
  };
  struct Edge {
    net::NodeId src;
    net::NodeId dst;
    double bytes;
    double weight = 1;  // parallel flows (channels) it stands for
    size_t index = 0;   // position in edges_of's list, for the flow hash
  };
  bool add_flow(Time now, Time latency, net::NodeId src, net::NodeId dst, double bytes, double rate,
                double weight, uint64_t token, uint64_t hash);
  std::vector<Edge> merge_parallel(std::vector<Edge> edges);
  std::vector<int> ring_order(const Comm& c, int channel) const;
  std::vector<std::vector<int>> local_orders(const Comm& c, int channel) const;
  std::vector<Edge> edges_of(const Comm& c, const CollPart& part, const nccl::Choice& choice,
                             double bytes) const;
  void record_utilisation(Time t);
  Time last_recorded_ = -(Time{1} << 62);

  NetworkConfig config_;
  net::ClusterFabric fabric_;
  net::Router router_;
  std::unique_ptr<net::NetworkModel> flows_;
  std::map<uint64_t, Comm> comms_;
  // Flows not completed yet, by FlowId - first_flow_ (network models number flows 0, 1, 2, ...:
  // a deque that drops completed flows from its front beats a hash map per flow).
  struct RunningFlow {
    uint64_t token = 0;
    const net::Path* path = nullptr;  // kept for adaptive routing and utilisation recording
    double weight = 0;
    bool running = false;
  };
  std::deque<RunningFlow> running_;
  net::FlowId first_flow_ = 0;
  RunningFlow* running_flow(net::FlowId id);
  std::unordered_map<uint64_t, int> pending_;  // token -> flows still running
  net::Path flow_path_;                        // add_flow's buffer for the path it starts
  std::vector<double> link_bytes_;             // by LinkId: bytes of every flow started on it
  // Flows (waiting or sharing) on each link, by weight.
  std::vector<double> link_flows_;  // by LinkId: flows on it, by weight
  // Links recorded while they have (or just had) flows, in no particular order (each link's
  // series is its own), with a flag per LinkId.
  std::vector<net::LinkId> touched_;
  std::vector<char> is_touched_;
  void touch(net::LinkId l);
  bool track_links() const { return config_.record_link_utilisation || config_.adaptive_routing; }
  const net::Path& choose_path(net::NodeId src, net::NodeId dst, uint64_t hash);
  // Up to 16 distinct equal-cost paths between two nodes, computed once per pair: adaptive
  // routing's candidates, and (one path) the test merge_parallel uses.
  struct Candidates {
    std::vector<const net::Path*> paths;
    std::vector<net::LinkId> common;            // links every candidate crosses
    std::vector<std::vector<net::LinkId>> own;  // each path's other links
  };
  const Candidates& candidates(net::NodeId src, net::NodeId dst);
  RankPairIndex candidate_index_;  // (src, dst) node pair into candidates_
  std::deque<Candidates> candidates_;
  std::map<net::LinkId, LinkSeries> series_;
  std::vector<LinkSeries*> series_of_;  // by LinkId, into series_ (nodes do not move)
};

}  // namespace seer::sim

#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "seer/netsim/cluster_fabric.h"
#include "seer/netsim/flow_model.h"
#include "seer/netsim/router.h"
#include "seer/simcore/gpu_spec.h"
#include "seer/simcore/nccl/env.h"
#include "seer/simcore/nccl/model.h"
#include "seer/simcore/op.h"
#include "seer/simcore/time.h"

namespace seer::sim {

// How collectives are timed when the cluster's network is known: NCCL's own model chooses the
// algorithm, protocol and channel count and gives the latency; the data moves as flows on the
// topology (netsim, max-min fair), so concurrent collectives, communicators and jobs contend
// for NVLink ports, PCIe, NIC rails and fabric links.
struct NetworkConfig {
  net::ClusterShape shape;
  bool ecmp = true;
  double payload_efficiency = 0.95;  // NIC links carry this share of their line rate
  int nccl_version = 22809;
  nccl::Env env;
  GpuSpec gpu;
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

  std::optional<Time> next_event_time() const { return flows_.next_event_time(); }
  // Tokens whose flows all finished by `t`, in deterministic order.
  std::vector<uint64_t> advance_to(Time t);

  const net::ClusterFabric& fabric() const { return fabric_; }

 private:
  struct Comm {
    std::vector<int> gpus;
    int nodes = 1;
    std::unique_ptr<nccl::CommModel> model;
  };
  bool add_flow(Time now, Time latency, int src_gpu, int dst_gpu, double bytes, double rate,
                uint64_t token, uint64_t hash);
  std::vector<int> ring_order(const Comm& c, int channel) const;

  NetworkConfig config_;
  net::ClusterFabric fabric_;
  net::Router router_;
  net::FlowModel flows_;
  std::map<uint64_t, Comm> comms_;
  std::map<net::FlowId, uint64_t> flow_token_;
  std::map<uint64_t, int> pending_;  // token -> flows still running
};

}  // namespace seer::sim

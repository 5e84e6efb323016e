#pragma once

// One communicator's topology, and the channel graphs NCCL's search would build for it
// (a simplified, documented re-derivation of src/graph/search.cc; see README.md).

#include <string>

#include "seer/simcore/nccl/env.h"
#include "seer/simcore/nccl/types.h"
#include "seer/simcore/nccl/version.h"

namespace seer::sim::nccl {

enum class IntraKind : uint8_t {
  kNvSwitch,    // every GPU's NVLinks go to NVSwitches (DGX/HGX A100, H100, B200)
  kNvLinkMesh,  // direct GPU-GPU NVLinks, assumed spread evenly over all local peers
  kPcie,        // no NVLink: GPU-GPU traffic crosses PCIe switches / the CPU
};

enum class CpuVendor : uint8_t { kIntel, kAmd, kOther };

struct Topo {
  int nranks = 8;
  int nnodes = 1;
  int sm = 90;  // compute capability x 10 (80 A100, 90 H100/H200, 100 B200)
  IntraKind intra = IntraKind::kNvSwitch;
  int nvlink_links = 18;     // NVLinks per GPU (NCCL counts them; bandwidth per link is NCCL's
                             // per-SM constant, not the marketing figure)
  double nvlink_gbps = 450;  // per GPU per direction, line rate (informational for NCCL's model)
  double pcie_gbps = 48;     // GPU PCIe link as NCCL rates it: Gen3 x16 12, Gen4 24, Gen5 48
  PathType pcie_path = PathType::kPhb;  // GPU-GPU path class when intra == kPcie
  int nics_per_node = 0;
  double nic_gbps = 0;  // per NIC, GB/s (NCCL: port speed in Mb/s / 8000; 400 Gb/s -> 50)
  PathType nic_path = PathType::kPix;  // GPU-NIC path class (PIX: NIC on the GPU's PCIe switch)
  double net_latency_us = 0;           // the net plugin's reported latency (IB reports 0)
  bool nvls = false;                   // NVLink SHARP (NVSwitch multicast) available
  bool collnet = false;                // CollNet / InfiniBand SHARP available
  CpuVendor cpu = CpuVendor::kIntel;

  int ppn() const { return nnodes > 0 ? nranks / nnodes : nranks; }
  // Empty when the description is usable; otherwise what is wrong with it.
  std::string validate() const;

  // Presets (one communicator over all GPUs of `nodes` nodes).
  static Topo dgx_h100(int nodes = 1);  // 8 x H100, NVSwitch, NVLS, 8 x 400 Gb/s NDR
  static Topo dgx_a100(int nodes = 1);  // 8 x A100, NVSwitch, 8 x 200 Gb/s HDR
  static Topo hgx_h200(int nodes = 1);  // as DGX H100 (NCCL sees the same)
  static Topo dgx_b200(int nodes = 1);  // 8 x B200, NVLink5 18 links, 8 x 400 Gb/s
};

struct Graph {
  int nchannels = 0;    // search channels (before NCCL duplicates them for the kernels)
  double bw_intra = 0;  // GB/s per channel inside a node
  double bw_inter = 0;  // GB/s per channel across nodes
  PathType type_intra = PathType::kLoc;
  PathType type_inter = PathType::kPix;
  bool same_channels = true;
  double latency_inter = 0;  // us
};

// What NCCL knows about a communicator after init: its graphs and channel counts.
struct CommGraphs {
  Graph ring, tree, nvls, collnet_chain, collnet_direct;
  int nchannels = 0;          // comm->nChannels: collective channels after duplication and env
  int nchannels_default = 0;  // the same without NCCL_MIN/MAX_NCHANNELS
  int nvls_channels = 0;      // comm->nvlsChannels (0: no NVLS)
  int nvls_heads = 0;         // NVLS heads (NVLS graph channels)
  bool nvls_support = false;
  bool collnet_support = false;
  bool pat_support = false;
  int p2p_channels_per_peer = 0;
  int max_threads[kNumAlgos][kNumProtos] = {};
  long thread_threshold[kNumAlgos][kNumProtos] = {};
  const Graph& of(Algo a) const;  // graphs[] as NCCL maps them (PAT uses the tree graph...)
};

CommGraphs compute_graphs(const Topo& topo, const Version& ver, const Env& env);

}  // namespace seer::sim::nccl

// Channel graphs as NCCL's topology search would find them.
//
// NCCL (src/graph/search.cc) searches ring/tree/NVLS graphs by trying per-channel speeds from a
// ladder, highest first, and recursively placing channels on the topology's links, each channel
// consuming its speed on every link it crosses. Seer does not rebuild the recursive search: for
// the regular topologies it models (NVSwitch, an evenly spread NVLink mesh, PCIe, one or more
// NICs per node) the number of channels that fit at a speed has a closed form (the *capacity*
// functions below). The ladder walk around it follows NCCL: pass 1 (start at the first speed
// the links can carry, step down while the next speed is > 0.49 of the best found, stop on a
// perfect graph), channel duplication (speed >= 25 GB/s), pass 2 (2.28: raise Ring speed and
// NVLS inter-node speed while the channels still fit). See README.md for what is simplified.

#include "seer/simcore/nccl/topo.h"

#include <algorithm>
#include <climits>
#include <cmath>

namespace seer::sim::nccl {

namespace {

struct Res {
  int ppn = 1;
  int nnodes = 1;
  bool multi = false;
  int sm = 90;
  IntraKind intra = IntraKind::kNvSwitch;
  double nv_total = 0;  // NVLink bandwidth per GPU per direction (NCCL units)
  double nv_peer = 0;   // NVLink mesh: bandwidth to one peer
  double pcie = 12;
  double nic_path = 0;  // GPU -> NIC path bandwidth: min(NIC, GPU PCIe)
  int nics = 0;
  double max_bw = 0;    // system->maxBw: best single path (to a GPU, or to a NIC when multi-node)
  double total_bw = 0;  // system->totalBw: a GPU's total NVLink (or PCIe) bandwidth
};

int floor_div(double cap, double s) {
  if (s <= 0) return INT_MAX / 4;
  // NCCL subtracts with 1e-3 rounding (SUB_ROUND): allow the same slack.
  return static_cast<int>(std::floor(cap / s + 1e-6));
}

// Sends one GPU can make per channel set at speed s over its intra-node fabric.
int intra_sends(const Res& r, double s) {
  switch (r.intra) {
    case IntraKind::kNvSwitch:
      return floor_div(r.nv_total, s);
    case IntraKind::kNvLinkMesh:
      return std::min(floor_div(r.nv_total, s), (r.ppn - 1) * floor_div(r.nv_peer, s));
    case IntraKind::kPcie:
      return floor_div(r.pcie, s);
  }
  return 0;
}

// Ring (and, in this model, tree) channels that fit with per-channel speeds si (intra), sn (inter).
int ring_capacity(const Res& r, double si, double sn) {
  int cap = INT_MAX / 4;
  if (r.ppn > 1) {
    const int sends = intra_sends(r, si);
    // One node: every GPU sends once per channel. Several nodes: each channel enters a node at
    // one GPU and leaves at another, so ppn-1 of the ppn GPUs send on the intra-node fabric.
    cap = r.multi ? (r.ppn * sends) / (r.ppn - 1) : sends;
  }
  if (r.multi) cap = std::min(cap, r.nics * floor_div(r.nic_path, sn));
  return cap;
}

// NVLS heads that fit: every head channel moves data between every GPU and the NVSwitch, the
// head GPU twice (search.cc ncclTopoSearchTryNvls). Several nodes: one head per NIC.
int nvls_capacity(const Res& r, double si, double sn, int max_ch) {
  int best = 0;
  for (int k = 1; k <= max_ch; ++k) {
    const int heads_per_gpu = (k + r.ppn - 1) / r.ppn;
    if ((k + heads_per_gpu) * si > r.nv_total * (1 + 1e-6)) break;
    if (r.multi) {
      if (k > std::min(r.nics, r.ppn)) break;
      if (floor_div(r.nic_path, sn) < 1) break;
    }
    best = k;
  }
  return best;
}

struct Found {
  int nch = 0;
  double si = 0, sn = 0;
};

enum class Pattern { kRing, kNvls };

// Pass 1 + duplication + pass 2 of ncclTopoCompute for one pattern.
Found search(Pattern pat, const Res& r, const Version& v, int min_ch, int max_ch) {
  const bool r228 = v.rules == Rules::k2_28;
  const std::vector<double>& ladder = r.multi ? v.inter_ladder(r.sm) : v.intra_ladder(r.sm);
  const int n = static_cast<int>(ladder.size());
  auto capacity = [&](double si, double sn) {
    return std::min(max_ch, pat == Pattern::kRing ? ring_capacity(r, si, sn)
                                                  : nvls_capacity(r, si, sn, max_ch));
  };
  double total_bw = r.total_bw;
  if (pat != Pattern::kRing && r.ppn > 1) total_bw *= r.ppn / (r.ppn - 1.0);

  int i = 0;
  while ((ladder[i] > r.max_bw || ladder[i] * min_ch > total_bw) && i < n - 1) ++i;
  Found best;
  for (;;) {
    const double s = ladder[i];
    const int k = capacity(s, s);
    if (k >= min_ch && k > 0) {
      bool better;
      if (pat == Pattern::kNvls) {
        better = k > best.nch || (r228 && k * s > best.nch * best.sn);
      } else {
        better = k * s > best.nch * best.si;
      }
      if (better) best = {k, s, s};
    }
    if (best.nch > 0 && (best.nch == max_ch || best.nch * best.sn >= r.total_bw)) break;
    if (i < n - 1 && (best.nch == 0 || ladder[i + 1] / best.sn > .49)) {
      ++i;
      continue;
    }
    break;
  }
  if (best.nch == 0) return best;

  auto dup = [&](Found& f) {
    if (pat == Pattern::kNvls) return;
    if (f.si < 25.0) return;
    if (r.sm > 80 && f.si < 50.0 && f.nch > 4) return;
    const int d = std::min(f.nch * 2, max_ch);
    const int div = (d + f.nch - 1) / f.nch;
    f.si /= div;
    f.sn /= div;
    f.nch = d;
  };

  if (r228) {
    dup(best);
    // Pass 2: the ladder index of the speed just found, then try the speeds above it.
    i = 0;
    while (ladder[i] > best.sn && i < n - 1) ++i;
    if (pat == Pattern::kRing) {
      while (i > 0) {
        const double s = ladder[i - 1];
        const int k = capacity(s, s);
        if (k < best.nch) break;
        best = {k, s, s};
        --i;
      }
    } else {
      double tmp_inter = ladder[i];
      while (i > 0 && tmp_inter == best.sn && tmp_inter < best.si * 2) {
        tmp_inter = ladder[--i];
        if (capacity(best.si, tmp_inter) >= best.nch) best.sn = tmp_inter;
      }
    }
  } else {
    // 2.18 pass 2 only raises bwIntra of non-ring graphs, and its NVLS comparison accepts only
    // more channels: with the channel count fixed, nothing changes. Then duplication.
    dup(best);
  }
  return best;
}

int pow2_up(int x) {
  int p = 1;
  while (p < x) p <<= 1;
  return p;
}

}  // namespace

std::string Topo::validate() const {
  if (nranks < 1) return "nranks must be >= 1";
  if (nnodes < 1) return "nnodes must be >= 1";
  if (nnodes > nranks) return "nnodes must be <= nranks";
  if (nranks % nnodes != 0) return "nranks must be a multiple of nnodes (same GPUs per node)";
  if (sm < 60) return "sm must be >= 60";
  if (intra != IntraKind::kPcie && ppn() > 1 && nvlink_links < 1)
    return "NVLink topology needs nvlink_links >= 1";
  if (pcie_gbps <= 0) return "pcie_gbps must be > 0";
  if (nnodes > 1 && (nics_per_node < 1 || nic_gbps <= 0))
    return "several nodes need nics_per_node >= 1 and nic_gbps > 0";
  return "";
}

Topo Topo::dgx_h100(int nodes) {
  Topo t;
  t.nnodes = nodes;
  t.nranks = 8 * nodes;
  t.sm = 90;
  t.intra = IntraKind::kNvSwitch;
  t.nvlink_links = 18;
  t.nvlink_gbps = 450;
  t.pcie_gbps = 48;  // PCIe Gen5 x16: 16 lanes x 240 / 80 in NCCL's units
  t.nics_per_node = 8;
  t.nic_gbps = 50;  // 400 Gb/s NDR
  t.nvls = true;
  t.cpu = CpuVendor::kIntel;
  return t;
}

Topo Topo::hgx_h200(int nodes) { return dgx_h100(nodes); }

Topo Topo::dgx_a100(int nodes) {
  Topo t;
  t.nnodes = nodes;
  t.nranks = 8 * nodes;
  t.sm = 80;
  t.intra = IntraKind::kNvSwitch;
  t.nvlink_links = 12;
  t.nvlink_gbps = 300;
  t.pcie_gbps = 24;  // PCIe Gen4 x16
  t.nics_per_node = 8;
  t.nic_gbps = 25;  // 200 Gb/s HDR
  t.nvls = false;
  t.cpu = CpuVendor::kAmd;  // DGX A100: AMD EPYC
  return t;
}

Topo Topo::dgx_b200(int nodes) {
  Topo t = dgx_h100(nodes);
  t.sm = 100;
  t.nvlink_links = 18;
  t.nvlink_gbps = 900;
  return t;
}

const Graph& CommGraphs::of(Algo a) const {
  switch (a) {
    case Algo::kTree:
      return tree;
    case Algo::kRing:
      return ring;
    case Algo::kCollNetDirect:
      return collnet_direct;
    case Algo::kCollNetChain:
      return collnet_chain;
    case Algo::kNvls:
    case Algo::kNvlsTree:
      return nvls;
    case Algo::kPat:
      return tree;
  }
  return ring;
}

CommGraphs compute_graphs(const Topo& topo, const Version& v, const Env& env) {
  CommGraphs g;
  Res r;
  r.ppn = std::max(1, topo.ppn());
  r.nnodes = topo.nnodes;
  r.multi = topo.nnodes > 1;
  r.sm = topo.sm;
  r.intra = topo.intra;
  r.pcie = topo.pcie_gbps;
  r.nics = topo.nics_per_node;
  const double link = v.nvlink_link_bw(topo.sm);
  if (topo.intra != IntraKind::kPcie) {
    r.nv_total = topo.nvlink_links * link;
    r.nv_peer = topo.intra == IntraKind::kNvLinkMesh && r.ppn > 1
                    ? std::max(1, topo.nvlink_links / (r.ppn - 1)) * link
                    : r.nv_total;
  }
  r.nic_path = std::min(topo.nic_gbps, topo.pcie_gbps);
  r.total_bw = std::max(r.pcie, r.nv_total);
  if (r.multi) {
    r.max_bw = r.nic_path;
  } else if (r.ppn == 1) {
    r.max_bw = r.total_bw = v.loc_bw;
  } else {
    r.max_bw = topo.intra == IntraKind::kPcie ? r.pcie : r.nv_peer;
  }

  const PathType type_intra = r.ppn == 1                       ? PathType::kLoc
                              : topo.intra == IntraKind::kPcie ? topo.pcie_path
                                                               : PathType::kNvl;
  const PathType type_inter = r.multi ? topo.nic_path : PathType::kPix;

  // Ring (MAXCHANNELS/2 search channels at most).
  const int ring_max = v.max_channels / 2;
  Found ring = search(Pattern::kRing, r, v, 1, ring_max);
  if (ring.nch == 0) ring = {1, 0.1, 0.1};  // NCCL: "falling back to simple order"
  g.ring = {ring.nch, ring.si, ring.sn, type_intra, type_inter, true, topo.net_latency_us};
  // Tree: NCCL searches it with the ring's channel count; on the regular topologies modelled here
  // it finds the ring's speed too (balanced tree pattern).
  g.tree = g.ring;

  // NVLS: Hopper+ with NVSwitch and multicast.
  const bool nvls_possible = topo.nvls && topo.sm >= 90 && topo.intra == IntraKind::kNvSwitch &&
                             r.ppn > 1 && env.nvls_enable != 0;
  if (nvls_possible) {
    const int max_ch = std::min(v.max_nvls_arity, r.ppn);
    const int min_ch = r.multi ? 1 : max_ch;
    const Found nv = search(Pattern::kNvls, r, v, min_ch, max_ch);
    if (nv.nch > 0) {
      g.nvls = {nv.nch, nv.si, nv.sn, PathType::kNvl, type_inter, false, topo.net_latency_us};
      g.nvls_heads = nv.nch;
      g.nvls_support = true;
      if (topo.sm >= 100 && v.rules == Rules::k2_28) {
        g.nvls_channels = r.multi ? v.nvls_channels_sm100 : v.nvls_channels_sm100_nvl;
      } else {
        g.nvls_channels = v.nvls_channels_sm90;
      }
    }
  }

  // CollNet (SHARP) graphs: enabled by the topology or NCCL_COLLNET_ENABLE, several nodes only
  // (NCCL_COLLNET_NODE_THRESHOLD = 2). Approximated with the ring's speeds.
  const bool collnet = (env.collnet_enable == 1 || (env.collnet_enable != 0 && topo.collnet)) &&
                       r.multi && topo.nics_per_node > 0;
  if (collnet) {
    g.collnet_chain = g.ring;
    g.collnet_direct = g.ring;
    g.collnet_direct.nchannels = std::min({r.ppn, topo.nics_per_node, v.max_direct_arity + 1});
    g.collnet_support = true;
  }

  // PAT (2.28): SM >= 60, one GPU per node, host network (NCCL_PAT_ENABLE=2 default).
  if (v.has_pat()) {
    if (env.pat_enable == 1) {
      g.pat_support = true;
    } else if (env.pat_enable != 0) {
      g.pat_support = topo.sm >= 60 && topo.nnodes == topo.nranks;
    }
  }

  // comm->nChannels (connect.cc ncclTopoPostset): the ring/tree channels duplicated once...
  int nch = std::min(g.ring.nchannels, g.tree.nchannels);
  nch = std::min(v.max_channels, nch * 2);
  // ... plus half again for CollNet when the intra-node bandwidth exceeds the network's ...
  if (collnet && g.collnet_chain.bw_intra > g.collnet_chain.bw_inter && topo.nranks > topo.nnodes)
    nch = std::min(v.max_channels, nch + nch / 2);
  // ... and doubled on Hopper+ several-node rings faster than 45 GB/s per channel.
  if (r.multi && g.ring.bw_intra > 45.0) {
    if (v.rules == Rules::k2_28 && topo.sm >= 90 && nch < 16) nch *= 2;
    if (v.rules == Rules::k2_18 && topo.sm == 90 && 2 * nch <= v.max_channels) nch *= 2;
  }
  g.nchannels_default = nch;
  // NCCL_MAX_NCHANNELS, then NCCL_MIN_NCHANNELS (copying channels up to the minimum).
  if (env.max_nchannels > 0) nch = std::min(nch, std::min(env.max_nchannels, v.max_channels));
  if (env.min_nchannels > 0) nch = std::max(nch, std::min(env.min_nchannels, v.max_channels));
  g.nchannels = nch;

  // Point-to-point channels (paths.cc ncclTopoComputeP2pChannels).
  {
    const int p2p_n = pow2_up(nch);
    int per_peer = p2p_n;
    if (r.ppn > 1) {
      const int nvl =
          topo.intra == IntraKind::kPcie ? 2 : 2 * std::max(1, static_cast<int>(r.nv_peer / link));
      per_peer = std::min(per_peer, nvl);
    }
    if (r.multi) per_peer = std::min(per_peer, 2);
    g.p2p_channels_per_peer = std::min(pow2_up(per_peer), p2p_n);
  }

  // Threads (tuning.cc) and per-thread work thresholds.
  for (int a = 0; a < kNumAlgos; ++a) {
    g.max_threads[a][idx(Proto::kLL)] = v.ll_max_threads;
    g.max_threads[a][idx(Proto::kLL128)] = v.ll128_max_threads;
    g.max_threads[a][idx(Proto::kSimple)] = v.max_threads;
    g.thread_threshold[a][idx(Proto::kLL)] = v.ll_thread_threshold;
    g.thread_threshold[a][idx(Proto::kLL128)] = v.ll128_thread_threshold;
    g.thread_threshold[a][idx(Proto::kSimple)] = v.simple_thread_threshold;
  }
  g.max_threads[idx(Algo::kRing)][idx(Proto::kSimple)] =
      g.ring.bw_intra * g.ring.nchannels <= v.pci_bw ? 256 : v.simple_max_threads;
  g.max_threads[idx(Algo::kTree)][idx(Proto::kSimple)] = v.simple_max_threads;
  g.thread_threshold[idx(Algo::kRing)][idx(Proto::kLL)] *= topo.nranks;
  g.thread_threshold[idx(Algo::kCollNetDirect)][idx(Proto::kSimple)] = v.collnet_thread_threshold;
  g.thread_threshold[idx(Algo::kCollNetChain)][idx(Proto::kSimple)] = v.collnet_thread_threshold;
  return g;
}

}  // namespace seer::sim::nccl

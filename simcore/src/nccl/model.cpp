// NCCL's tuning model (Seer's own implementation of the formulas of src/graph/tuning.cc and the
// per-call logic of src/enqueue.cc; see README.md for every rule and its source).

#include "seer/simcore/nccl/model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace seer::sim::nccl {

namespace {

int log2i(uint64_t n) {  // floor(log2(n)), -1 for 0 (NCCL's log2i)
  int l = -1;
  while (n != 0) {
    n >>= 1;
    ++l;
  }
  return l;
}

bool is_nvls(Algo a) { return a == Algo::kNvls || a == Algo::kNvlsTree; }
bool is_collnet(Algo a) { return a == Algo::kCollNetDirect || a == Algo::kCollNetChain; }
bool is_ag_rs(Func f) { return f == Func::kAllGather || f == Func::kReduceScatter; }

const char* p2p_kind_label(CollKind kind) {
  switch (kind) {
    case CollKind::kAllToAll:
      return "AlltoAll";
    case CollKind::kGather:
      return "Gather";
    case CollKind::kScatter:
      return "Scatter";
    case CollKind::kSend:
      return "Send";
    case CollKind::kRecv:
      return "Recv";
    default:
      return "this collective";
  }
}

// Path type used for LL128 gating of an algorithm's graph.
bool ll128_auto(const Version& v, const Graph& g, int sm) {
  bool on;
  if (v.rules == Rules::k2_28) {
    // NCCL_LL128_C2C=1 default: on Hopper+ LL128 is allowed up to PXN (and P2C).
    on = sm >= 90 ? g.type_inter <= PathType::kPxn : g.type_inter <= PathType::kPxb;
    on = on && g.type_intra <= PathType::kNvb;
    on = on && sm >= 70;
  } else {
    on = g.type_inter <= PathType::kPxb || (sm >= 90 && g.type_inter <= PathType::kPxn);
    on = on && g.type_intra <= PathType::kNvb;
    on = on && (sm == 70 || sm == 80 || sm == 90);
  }
  return on;
}

}  // namespace

CommModel::CommModel(const Topo& topo, const Version& ver, const Env& env, const Calibration& cal)
    : topo_(topo), ver_(&ver), env_(env), cal_(cal) {
  error_ = topo_.validate();
  if (!error_.empty()) return;
  graphs_ = compute_graphs(topo_, *ver_, env_);
  tune();
}

bool CommModel::algo_supported(Func f, Algo a) const {
  const bool r228 = ver_->rules == Rules::k2_28;
  if (f == Func::kBroadcast || f == Func::kReduce) return a == Algo::kRing;
  if (is_ag_rs(f)) {
    if (!r228) return a == Algo::kRing;
    return a == Algo::kRing || a == Algo::kPat || a == Algo::kNvls || a == Algo::kCollNetDirect;
  }
  return a != Algo::kPat;  // AllReduce
}

void CommModel::tune() {
  const Version& v = *ver_;
  const bool r228 = v.rules == Rules::k2_28;
  const int n = topo_.nranks;
  const int nn = topo_.nnodes;
  if (n <= 1) return;
  const double ppn = static_cast<double>(n) / nn;
  const int ci = idx(arch_of(topo_.sm));
  const int i2 = nn <= 2 ? nn - 1 : 2;
  const int i1 = nn == 1 ? ci : (topo_.cpu == CpuVendor::kAmd ? 1 : 0);
  const double ll_max_bw = v.ll_max_bw[i1][i2];
  const double ch_tree = v.per_ch_max_tree_bw[ci][i2];
  const double ch_ring_ll128 = v.per_ch_max_ring_ll128_bw[ci][i2];
  const double ch_tree_ll128 = v.per_ch_max_tree_ll128_bw[ci][i2];
  const double ch_nvls_tree = v.per_ch_max_nvls_tree_bw[ci][i2];
  const double inf = std::numeric_limits<double>::max();

  double net_overhead = 0;
  if (nn > 1) {
    net_overhead = env_.net_overhead_us >= 0      ? env_.net_overhead_us
                   : topo_.cpu == CpuVendor::kAmd ? 2.0
                                                  : 1.0;
  }

  Hw intra_hw[kNumAlgos];
  Hw hw[kNumAlgos];
  for (int a = 0; a < kNumAlgos; ++a) {
    intra_hw[a] =
        graphs_.of(static_cast<Algo>(a)).type_intra == PathType::kNvl ? Hw::kNvlink : Hw::kPci;
    hw[a] = nn == 1 ? intra_hw[a] : Hw::kNet;
  }

  for (int fi = 0; fi < kNumFuncs; ++fi) {
    const Func f = static_cast<Func>(fi);
    const bool ar = f == Func::kAllReduce;
    const int nsteps = ar ? 2 * (n - 1) : is_ag_rs(f) ? n - 1 : n;
    for (int ai = 0; ai < kNumAlgos; ++ai) {
      const Algo a = static_cast<Algo>(ai);
      if (!algo_supported(f, a)) continue;
      const Graph& g = graphs_.of(a);
      for (int pi = 0; pi < kNumProtos; ++pi) {
        const Proto p = static_cast<Proto>(pi);
        const bool simple = p == Proto::kSimple;
        if (is_nvls(a) && !simple) continue;
        if (a == Algo::kPat && (!simple || !graphs_.pat_support)) continue;

        // ---- bandwidth: busBw per channel x channels, then per-algorithm refinements ----
        double bw = (nn <= 2 || is_collnet(a)) ? g.bw_intra : g.bw_inter;
        if (is_nvls(a) && r228) {
          if (g.nchannels < 2) continue;  // NVLS needs at least 2 channels
          double intra = g.bw_intra * v.nvls_efficiency[ci] * (g.nchannels - 1) / g.nchannels;
          intra *= ar ? 2.0 : (ppn - 1) / ppn;  // AllReduce pipelines two operations
          const double inter = g.bw_inter * ((nn <= 2 && a == Algo::kNvlsTree) ? 2 : 1);
          bw = std::min({intra, inter, a == Algo::kNvlsTree ? ch_nvls_tree : inf});
        }
        double bus = g.nchannels * bw;

        if (a == Algo::kRing && p == Proto::kLL) {
          const double f_ll =
              r228 ? 0.5 : ((nn > 1 || ar || f == Func::kReduce) ? 1.0 / 4.0 : 1.0 / 3.0);
          bus = std::min(ll_max_bw, bus * f_ll);
        }
        if (a == Algo::kRing && p == Proto::kLL128) {
          const double f_ll128 = (!r228 && ppn < 2) ? 0.7 : 0.92;
          bus = std::min(bus * f_ll128, g.nchannels * ch_ring_ll128);
        }
        if (a == Algo::kTree && (ar || !r228)) bus = std::min(bus * .92, g.nchannels * ch_tree);
        if (a == Algo::kTree && p == Proto::kLL) bus = std::min(bus / 3.8, ll_max_bw);
        if (a == Algo::kTree && p == Proto::kLL128) {
          bus = std::min(bus * (nn == 1 ? 7.0 / 9.0 : 120.0 / 128.0), g.nchannels * ch_tree_ll128);
        }
        // The balanced-tree pattern is what the search finds on the topologies modelled here, so
        // the unbalanced-tree penalty (x 0.85) never applies.
        if (a == Algo::kPat) bus *= .75;
        if (is_collnet(a) && !simple) bus = 0;
        if (a == Algo::kCollNetDirect && simple) {
          if (r228 && is_ag_rs(f)) {
            bus = ppn * std::min(g.bw_intra, g.bw_inter * 0.9);
          } else {
            double factor = ppn / g.nchannels;  // GPU/NIC ratio
            factor -= (factor - 1) / 2;
            bus /= factor;
            if (topo_.sm >= 90) bus *= .85;
          }
        }
        // NVLS / CollNetDirect AllGather and ReduceScatter across nodes need SHARP's
        // allgather/reducescatter and one head per local GPU.
        if (r228 && (a == Algo::kNvls || a == Algo::kCollNetDirect) && simple && is_ag_rs(f) &&
            nn > 1) {
          const int heads = a == Algo::kNvls ? graphs_.nvls_heads : g.nchannels;
          if (!graphs_.collnet_support || heads < ppn) bus = 0;
        }

        // busBw -> algBw.
        if (r228) {
          if (!(a != Algo::kRing && is_ag_rs(f))) {
            bus *= (a == Algo::kRing || is_nvls(a)) ? static_cast<double>(n) / nsteps : 0.5;
          }
        } else {
          if (a == Algo::kRing) {
            bus *= static_cast<double>(n) / nsteps;
          } else if (a == Algo::kNvls) {
            bus *= 5.0 / 6.0;
          } else if (a == Algo::kNvlsTree) {
            bus = nn > 1 ? bus * .70 * nn / (2.0 * (nn - 1)) : 0;
          } else {
            bus *= .5;
          }
        }
        bw_[fi][ai][pi] = bus;

        // ---- latency ----
        double lat = v.base_lat[ai][pi];
        double intra_lat = v.hw_lat[idx(intra_hw[ai])][ai][pi];
        double inter_lat;
        if (r228) {
          // With one GPU per node latencies are fully exposed: NCCL uses Tree's network latency.
          inter_lat = ppn == 1 ? v.hw_lat[idx(Hw::kNet)][idx(Algo::kTree)][pi]
                               : v.hw_lat[idx(Hw::kNet)][ai][pi];
        } else {
          inter_lat = v.hw_lat[idx(Hw::kNet)][ai][pi];
        }
        inter_lat += g.latency_inter;
        if (simple) inter_lat += g.latency_inter;  // flush

        const int log_nodes = log2i(static_cast<uint64_t>(nn));
        const int local = n / nn;
        switch (a) {
          case Algo::kRing: {
            double hop = v.hw_lat[idx(hw[ai])][ai][pi];
            if (f == Func::kReduce || f == Func::kBroadcast) {
              if (g.same_channels) {
                lat += hop;
              } else {
                if (simple) hop = v.hw_lat[idx(hw[ai])][idx(Algo::kTree)][pi];
                lat += nsteps * hop;
              }
            } else {
              double overhead = net_overhead * (simple ? 3 : 1);
              intra_lat = std::max(intra_lat, overhead);
              int inter_steps;
              if (r228) {
                inter_steps = nn == 1 ? 0 : ar ? 2 * (nn - 1) : nn - 1;
              } else {
                inter_steps = ar ? (nn > 1 ? 2 * nn : 0) : nn - 1;
              }
              lat += (nsteps - inter_steps) * intra_lat + inter_steps * inter_lat;
            }
            break;
          }
          case Algo::kTree:
            if (ar || !r228) lat += 2 * ((local - 1) * intra_lat + log_nodes * inter_lat);
            break;
          case Algo::kCollNetDirect:
            lat += 2 * (std::min(1, local - 1) * intra_lat + (local - 1) * v.collnet_arity_lat) +
                   inter_lat;
            break;
          case Algo::kCollNetChain:
            lat += 2 * (local - 1) * intra_lat + inter_lat;
            break;
          case Algo::kNvls:
            if (r228) {
              lat = intra_lat + (nn > 1 ? inter_lat : 0);
            } else if (nn > 1) {
              lat += v.hw_lat[idx(Hw::kNet)][ai][pi];
            }
            break;
          case Algo::kNvlsTree:
            if (r228) {
              lat += intra_lat + 2 * log_nodes * inter_lat;
            } else {
              lat += 2 * (nn - 1) * v.hw_lat[idx(Hw::kNet)][ai][pi];
            }
            break;
          case Algo::kPat:
            if (is_ag_rs(f)) lat += log_nodes * (inter_lat / 3.5) + n * 2.8;
            break;
        }
        lat_[fi][ai][pi] = lat;
      }
    }
  }

  // ---- enable/disable: defaults, user overrides, platform gating ----
  for (int fi = 0; fi < kNumFuncs; ++fi) {
    const Func f = static_cast<Func>(fi);
    int algo_on[kNumAlgos];
    for (int a = 0; a < kNumAlgos; ++a) algo_on[a] = env_.algo_enable[fi][a];
    if (nn == 1) algo_on[idx(Algo::kNvlsTree)] = 0;
    if (!graphs_.collnet_support) {
      algo_on[idx(Algo::kCollNetDirect)] = algo_on[idx(Algo::kCollNetChain)] = 0;
      if (nn > 1) algo_on[idx(Algo::kNvls)] = 0;
      // 2.18: a user asking for CollNet only falls back to Ring and Tree.
      if (!r228 && !algo_on[idx(Algo::kRing)] && !algo_on[idx(Algo::kTree)] &&
          !algo_on[idx(Algo::kNvls)] && !algo_on[idx(Algo::kNvlsTree)]) {
        algo_on[idx(Algo::kRing)] = algo_on[idx(Algo::kTree)] = 1;
      }
    }
    if (topo_.intra != IntraKind::kNvSwitch) algo_on[idx(Algo::kCollNetDirect)] = 0;

    for (int ai = 0; ai < kNumAlgos; ++ai) {
      const Algo a = static_cast<Algo>(ai);
      // Per-call support (enqueue.cc updateCollCostTable): CollNet up to 8 local GPUs, NVLS on
      // supported platforms only, NVLS across nodes only with CollNet.
      bool support = true;
      if (is_collnet(a) && topo_.ppn() > v.max_direct_arity + 1) support = false;
      if (is_nvls(a) &&
          (!graphs_.nvls_support || (f != Func::kAllReduce && topo_.ppn() > v.max_nvls_arity)))
        support = false;
      if (a == Algo::kNvls && nn > 1 && !graphs_.collnet_support) support = false;
      for (int pi = 0; pi < kNumProtos; ++pi) {
        int p_on = env_.proto_enable[fi][pi];
        if (p_on == 2 && static_cast<Proto>(pi) == Proto::kLL128) {
          p_on = ll128_auto(v, graphs_.of(a), topo_.sm) ? 1 : 0;
        }
        if (!support || p_on == 0) bw_[fi][ai][pi] = 0;
        // 2.18 never disables Ring for collectives other than AllReduce.
        if (!r228 && a == Algo::kRing && f != Func::kAllReduce) continue;
        if (algo_on[ai] == 0) bw_[fi][ai][pi] = 0;
      }
    }
  }
}

Choice CommModel::evaluate(Func f, Algo a, Proto p, uint64_t nbytes, int num_pipe_ops) const {
  Choice c;
  c.func = f;
  c.algo = a;
  c.proto = p;
  if (!ok()) {
    c.error = error_;
    return c;
  }
  const Version& v = *ver_;
  const bool r228 = v.rules == Rules::k2_28;
  const int n = topo_.nranks;
  if (n <= 1) {
    // One rank: NCCL runs Ring/Simple (a local copy) and reports time 0.
    if (a != Algo::kRing || p != Proto::kSimple) {
      c.error = "one rank: only Ring/Simple";
      return c;
    }
    c.ok = true;
    c.nchannels = 1;
    c.nthreads = v.simple_max_threads;
    c.time_us = cal_.launch_us;
    return c;
  }
  double bw = bw_[idx(f)][idx(a)][idx(p)];
  double lat = lat_[idx(f)][idx(a)][idx(p)];
  if (bw <= 0) {
    c.error =
        std::string(algo_name(a)) + "/" + proto_name(p) + " is not enabled for " + func_name(f);
    return c;
  }
  const int log_size = log2i(nbytes >> 6);
  if (a == Algo::kTree && (f == Func::kAllReduce || !r228) && log_size >= 0 && log_size < 23) {
    bw *= v.tree_correction[idx(p)][log_size];
  }
  if (a == Algo::kRing && p == Proto::kSimple && topo_.nnodes > 1 && f == Func::kAllReduce &&
      nbytes / (static_cast<uint64_t>(graphs_.nchannels) * n) >= 64) {
    lat *= topo_.sm < 80 ? v.ring_simple_plateau_old : v.ring_simple_plateau_sm80;
  }
  const int ops = std::max(1, num_pipe_ops);
  const int lat_count =
      a == Algo::kRing ? ops : (ops + v.max_dev_work_batch_colls - 1) / v.max_dev_work_batch_colls;
  c.ok = true;
  c.lat_us = lat * lat_count;
  c.bw_GBps = bw;
  c.nccl_us = c.lat_us + static_cast<double>(nbytes) / (1000.0 * bw);

  // ---- channels and threads for this call (enqueue.cc topoGetAlgoInfo) ----
  int nc = graphs_.nchannels;
  int nt = graphs_.max_threads[idx(a)][idx(p)];
  long thr = graphs_.thread_threshold[idx(a)][idx(p)];
  const auto need = [&](int ch, int th, long t) {
    return nbytes <
           static_cast<uint64_t>(ch) * static_cast<uint64_t>(th) * static_cast<uint64_t>(t);
  };
  if (a == Algo::kCollNetDirect) {
    const int heads = std::max(1, graphs_.collnet_direct.nchannels);
    int sw = 16;
    bool flag = true;
    while (sw >= 1 && flag) {
      while ((flag = need(nc, nt * heads, thr)) && nc > sw) {
        if (nc == sw + sw / 2) thr /= 2;
        --nc;
      }
      sw /= 2;
    }
  } else if (is_nvls(a)) {
    nc = (r228 && topo_.nnodes > 1 && a == Algo::kNvls)
             ? std::min(graphs_.nvls_channels, graphs_.nchannels)
             : graphs_.nvls_channels;
  } else if (r228) {
    while (need(nc, nt, thr) && nc >= 2) --nc;
  } else {
    while (need(nc, nt, thr)) {
      if (nc >= 2) {
        --nc;
      } else if (nt % 128 == 0) {
        nt /= 2;
      } else {
        break;
      }
    }
  }
  if (r228 && !is_nvls(a) && a != Algo::kCollNetDirect) {
    while (need(nc, nt, thr) && nt % 128 == 0) nt /= 2;
  }
  if (p == Proto::kSimple) {
    if (a == Algo::kRing) nt += 32;      // extra warp for sync
    if (a == Algo::kTree) nt += 4 * 32;  // split thread model
  }
  nt = nt / 32 < 3 ? 3 * 32 : nt;
  if (r228 && (a == Algo::kTree || a == Algo::kPat)) nt = v.max_threads;
  c.nchannels = nc;
  c.nthreads = nt;
  c.data_bw_GBps = seer_data_bw(c);
  c.time_us = seer_time_us(c, nbytes);
  return c;
}

double CommModel::seer_data_bw(const Choice& c) const {
  double bw = c.bw_GBps;
  if (cal_.channel_scaling && !is_nvls(c.algo) && graphs_.nchannels < graphs_.nchannels_default) {
    bw *= static_cast<double>(graphs_.nchannels) / graphs_.nchannels_default;
  }
  if (c.proto == Proto::kLL128 && topo_.sm == 80) bw *= cal_.ll128_efficiency_sm80;
  return bw;
}

double CommModel::seer_time_us(const Choice& c, uint64_t nbytes) const {
  const double bw = c.data_bw_GBps;
  double bw_us = static_cast<double>(nbytes) / (1000.0 * bw);

  if (cal_.nvls_pipeline && is_nvls(c.algo) && nbytes > 0 && graphs_.nvls_heads > 0) {
    const Version& v = *ver_;
    const bool r228 = v.rules == Rules::k2_28;
    const int nn = topo_.nnodes;
    const uint64_t heads = static_cast<uint64_t>(graphs_.nvls_heads);
    const uint64_t ops = static_cast<uint64_t>(std::max(1, c.nchannels)) * heads;
    // Chunk size as enqueue.cc calcCollChunking picks it (unregistered buffers); `cmax` is the
    // largest chunk this communicator uses: there NCCL's steady-state bandwidth is reached.
    const uint64_t k256 = 256 * 1024, k128 = 128 * 1024, k64 = 64 * 1024, k32 = 32 * 1024;
    uint64_t cmax;
    uint64_t chunk;
    if (c.algo == Algo::kNvls) {
      cmax = static_cast<uint64_t>(v.nvls_chunk_size);
      if (r228 && nn > 1 && bw_[idx(Func::kAllReduce)][idx(Algo::kNvls)][idx(Proto::kSimple)] < 150)
        cmax = k32;
      chunk = cmax;
      if (nbytes < 64 * ops * chunk && chunk > k64) chunk = k64;
      if (nbytes < 8 * ops * chunk && chunk > k32) chunk = k32;
      if (nbytes < 2 * ops * chunk && chunk > 16 * 1024) chunk = 16 * 1024;
    } else {
      chunk = r228 ? static_cast<uint64_t>(v.nvls_chunk_size)
                   : static_cast<uint64_t>(v.buff_simple / v.steps);
      if (r228 && nn >= 4) chunk = std::min(chunk, k64);
      cmax = chunk;
      if (nbytes < 32 * ops * chunk && chunk > k256) chunk = k256;
      if (nbytes < 16 * ops * chunk && chunk > k128) chunk = k128;
      if (nbytes < 4 * ops * chunk && chunk > k64) chunk = k64;
      if (nbytes < 1 * ops * chunk && chunk > k32) chunk = k32;
    }
    const double per_ch_rate = 1000.0 * bw / std::max(1, c.nchannels);  // bytes/us per channel
    const double t_cmax = static_cast<double>(cmax) / per_ch_rate;      // us per largest chunk
    const double o = std::min(cal_.nvls_chunk_overhead_us, 0.5 * t_cmax);
    const double rate = static_cast<double>(cmax) / (t_cmax - o);  // data rate between overheads
    const uint64_t loops = std::max<uint64_t>(1, (nbytes + ops * chunk - 1) / (ops * chunk));
    const double c_eff = static_cast<double>(nbytes) / static_cast<double>(loops * ops);
    const double loop_us = static_cast<double>(heads) * (c_eff / rate + o);
    bw_us = (static_cast<double>(loops) + cal_.nvls_fill_loops) * loop_us;
  }
  if (cal_.ring_pipeline && c.algo == Algo::kRing && c.proto == Proto::kSimple && nbytes > 0 &&
      topo_.nranks > 1) {
    bw_us = ring_simple_data_us(c, nbytes, bw);
  }
  return cal_.launch_us + c.lat_us + bw_us;
}

// Ring / Simple data phase with NCCL's chunking (device code: one loop moves nChannels x nRanks
// chunks; each chunk step is chunkSteps / sliceSteps slices, each slice followed by a fence and
// a flag). See Calibration::ring_pipeline and ::sm80_reduce_slice_us.
double CommModel::ring_simple_data_us(const Choice& c, uint64_t nbytes, double bw) const {
  const Version& v = *ver_;
  const int n = topo_.nranks;
  const bool chain = c.func == Func::kBroadcast || c.func == Func::kReduce;
  // collectives.h: ALLREDUCE/ALLGATHER/REDUCESCATTER chunkSteps NCCL_STEPS/2, sliceSteps
  // NCCL_STEPS/4; BROADCAST/REDUCE 1 and 1.
  const int chunk_steps = chain ? 1 : v.steps / 2;
  const int slice_steps = chain ? 1 : v.steps / 4;
  const double step_bytes = static_cast<double>(v.buff_simple) / v.steps;
  const double cmax = step_bytes * chunk_steps;
  const int slices = chunk_steps / slice_steps;
  const double nch = std::max(1, c.nchannels);
  // Chunks per loop: every rank's share on every channel (a chain: one per channel).
  const double per_loop = chain ? nch : nch * n;
  const double loops = std::max(1.0, std::ceil(static_cast<double>(nbytes) / (per_loop * cmax)));
  const double chunk = static_cast<double>(nbytes) / (loops * per_loop);
  // Chunk steps each channel takes per loop, and the steady-state rate (bytes/us per channel)
  // that reproduces NCCL's estimate nbytes / bw with full chunks.
  const double steps = c.func == Func::kAllReduce ? 2.0 * (n - 1) : chain ? 1.0 : n - 1.0;
  const double total_steps = loops * steps + (chain ? n - 2.0 : 0.0);
  const double data_us = static_cast<double>(nbytes) / (1000.0 * bw);
  const double t_full = data_us / (loops * steps) * (cmax / chunk);  // one full chunk step
  const bool nvlink = graphs_.ring.type_intra == PathType::kNvl;
  double o =
      cal_.ring_slice_overhead_us >= 0
          ? cal_.ring_slice_overhead_us
          : v.hw_lat[idx(nvlink ? Hw::kNvlink : Hw::kPci)][idx(Algo::kRing)][idx(Proto::kSimple)];
  o = std::min(o * slices, 0.5 * t_full);     // per chunk step
  const double t_byte = (t_full - o) / cmax;  // us per byte between the synchronisations
  const bool reduces =
      c.func == Func::kAllReduce || c.func == Func::kReduceScatter || c.func == Func::kReduce;
  if (reduces && nvlink && topo_.sm == 80 && topo_.nnodes == 1) {
    o += cal_.sm80_reduce_slice_us * slices;
  }
  return total_steps * (chunk * t_byte + o);
}

Choice CommModel::choose(Func f, uint64_t nbytes, int num_pipe_ops) const {
  Choice best;
  if (!ok()) {
    best.error = error_;
    return best;
  }
  if (topo_.nranks <= 1) return evaluate(f, Algo::kRing, Proto::kSimple, nbytes, num_pipe_ops);
  double min_time = 3600000000.0;
  for (int a = 0; a < kNumAlgos; ++a) {
    for (int p = 0; p < kNumProtos; ++p) {
      if (bw_[idx(f)][a][p] <= 0) continue;
      Choice c = evaluate(f, static_cast<Algo>(a), static_cast<Proto>(p), nbytes, num_pipe_ops);
      if (c.ok && c.nccl_us < min_time) {  // first minimum wins, as in NCCL
        min_time = c.nccl_us;
        best = c;
      }
    }
  }
  if (!best.ok) {
    best.error = std::string("no algorithm/protocol available for ") + func_name(f);
    if (env_.algo_set) best.error += "; NCCL_ALGO was set to " + env_.algo_str;
    if (env_.proto_set) best.error += "; NCCL_PROTO was set to " + env_.proto_str;
  }
  return best;
}

std::vector<Choice> CommModel::candidates(Func f, uint64_t nbytes, int num_pipe_ops) const {
  std::vector<Choice> out;
  if (!ok()) return out;
  if (topo_.nranks <= 1) {
    out.push_back(evaluate(f, Algo::kRing, Proto::kSimple, nbytes, num_pipe_ops));
    return out;
  }
  for (int a = 0; a < kNumAlgos; ++a) {
    for (int p = 0; p < kNumProtos; ++p) {
      if (bw_[idx(f)][a][p] <= 0) continue;
      out.push_back(evaluate(f, static_cast<Algo>(a), static_cast<Proto>(p), nbytes, num_pipe_ops));
    }
  }
  return out;
}

std::string CommModel::describe() const {
  if (!ok()) return "invalid topology: " + error_;
  std::string s;
  char line[512];
  auto graph = [&](const char* name, const Graph& g) {
    std::snprintf(line, sizeof(line), "  %-14s nChannels %2d bw %.1f/%.1f type %s/%s\n", name,
                  g.nchannels, g.bw_intra, g.bw_inter, path_name(g.type_intra),
                  path_name(g.type_inter));
    s += line;
  };
  std::snprintf(line, sizeof(line),
                "NCCL %s model: %d ranks, %d nodes, sm %d; %d coll channels, %d nvls channels, %d "
                "p2p channels per peer\n",
                ver_->name, topo_.nranks, topo_.nnodes, topo_.sm, graphs_.nchannels,
                graphs_.nvls_channels, graphs_.p2p_channels_per_peer);
  s += line;
  graph("Ring", graphs_.ring);
  graph("Tree", graphs_.tree);
  graph("NVLS", graphs_.nvls);
  graph("CollNetChain", graphs_.collnet_chain);
  graph("CollNetDirect", graphs_.collnet_direct);
  for (int f = 0; f < kNumFuncs; ++f) {
    std::snprintf(line, sizeof(line), "  %-13s |", func_name(static_cast<Func>(f)));
    s += line;
    for (int a = 0; a < kNumAlgos; ++a) {
      for (int p = 0; p < kNumProtos; ++p) {
        if (bw_[f][a][p] <= 0) continue;
        std::snprintf(line, sizeof(line), " %s/%s %.1f/%.1f", algo_name(static_cast<Algo>(a)),
                      proto_name(static_cast<Proto>(p)), lat_[f][a][p], bw_[f][a][p]);
        s += line;
      }
    }
    s += "\n";
  }
  return s;
}

Choice choose(CollKind kind, uint64_t nbytes, const Topo& topo, const Version& ver, const Env& env,
              const Calibration& cal) {
  const auto f = func_of(kind);
  if (!f) {
    Choice c;
    c.error = std::string(p2p_kind_label(kind)) +
              " is a grouped send/recv in NCCL: no collective cost model (use p2p_estimate)";
    return c;
  }
  return CommModel(topo, ver, env, cal).choose(*f, nbytes);
}

std::vector<Choice> all_candidates(CollKind kind, uint64_t nbytes, const Topo& topo,
                                   const Version& ver, const Env& env, const Calibration& cal) {
  const auto f = func_of(kind);
  if (!f) return {};
  return CommModel(topo, ver, env, cal).candidates(*f, nbytes);
}

P2pEstimate CommModel::p2p(uint64_t bytes, bool same_node) const {
  P2pEstimate e;
  if (!ok()) return e;
  const Version& ver = *ver_;
  const double link = ver.nvlink_link_bw(topo_.sm);
  Hw hw;
  double bw;
  int nch;
  if (same_node) {
    nch = std::max(1, graphs_.p2p_channels_per_peer);
    if (topo_.intra == IntraKind::kPcie) {
      hw = Hw::kPci;
      bw = topo_.pcie_gbps;
    } else {
      hw = Hw::kNvlink;
      const int links = topo_.intra == IntraKind::kNvLinkMesh && topo_.ppn() > 1
                            ? std::max(1, topo_.nvlink_links / (topo_.ppn() - 1))
                            : topo_.nvlink_links;
      bw = links * link;
    }
  } else {
    hw = Hw::kNet;
    nch = 2;  // NCCL: 2 channels per remote peer (one NIC)
    bw = std::min(topo_.nic_gbps, topo_.pcie_gbps);
  }
  if (bw <= 0) bw = ver.pci_bw;
  const uint64_t ll_threshold = static_cast<uint64_t>(nch) * 16384;  // NCCL_P2P_LL_THRESHOLD
  e.proto = bytes <= ll_threshold ? Proto::kLL : Proto::kSimple;
  e.nchannels = nch;
  e.lat_us = ver.base_lat[idx(Algo::kRing)][idx(e.proto)] +
             ver.hw_lat[idx(hw)][idx(Algo::kRing)][idx(e.proto)] +
             (hw == Hw::kNet ? topo_.net_latency_us : 0);
  e.bw_GBps = e.proto == Proto::kLL ? bw * 0.5 : bw;
  e.time_us = cal_.launch_us + e.lat_us + static_cast<double>(bytes) / (1000.0 * e.bw_GBps);
  return e;
}

P2pEstimate p2p_estimate(uint64_t bytes, bool same_node, const Topo& topo, const Version& ver,
                         const Env& env, const Calibration& cal) {
  return CommModel(topo, ver, env, cal).p2p(bytes, same_node);
}

double bus_factor(CollKind kind, int nranks) {
  const double n = nranks;
  if (nranks <= 1) return 1.0;
  switch (kind) {
    case CollKind::kAllReduce:
      return 2.0 * (n - 1) / n;
    case CollKind::kAllGather:
    case CollKind::kReduceScatter:
    case CollKind::kAllToAll:
      return (n - 1) / n;
    default:
      return 1.0;
  }
}

double alg_bw_GBps(uint64_t nbytes, double time_us) {
  return time_us > 0 ? static_cast<double>(nbytes) / (time_us * 1e3) : 0.0;
}

double bus_bw_GBps(CollKind kind, int nranks, uint64_t nbytes, double time_us) {
  return alg_bw_GBps(nbytes, time_us) * bus_factor(kind, nranks);
}

}  // namespace seer::sim::nccl

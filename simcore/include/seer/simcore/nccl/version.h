#pragma once

// Constants of NCCL's performance model for one NCCL release. Values are transcribed (as data,
// with Seer's own layout) from NVIDIA/nccl src/graph/tuning.cc, search.cc, topo.h, device.h and
// transport/nvls.cc at the tags named in version.cpp.

#include <array>
#include <vector>

#include "seer/simcore/nccl/types.h"

namespace seer::sim::nccl {

// Which generation of NCCL's tuning rules (formulas, not only constants) a table belongs to.
enum class Rules : uint8_t {
  k2_18,  // NCCL 2.18: Ring-only AllGather/ReduceScatter, NVLS latency 23 us flat, no PAT...
  k2_28,  // NCCL 2.28: NVLS efficiency model, PAT, per-collective NCCL_ALGO/NCCL_PROTO...
};

using LatTable = std::array<std::array<double, kNumProtos>, kNumAlgos>;  // [algo][proto], us
using ArchNodeTable = std::array<std::array<double, 3>, kNumArchs>;      // [arch][1|2|>=3 nodes]

struct Version {
  int code = 0;             // NCCL_VERSION_CODE of the release the constants come from
  const char* name = "";    // "2.28.9"
  const char* source = "";  // the git tag they were read from
  Rules rules = Rules::k2_28;

  // --- tuning.cc ---
  LatTable base_lat{};                    // baseLatencies
  std::array<LatTable, kNumHw> hw_lat{};  // hwLatencies [NVLink|PCI|NET][algo][proto]
  // llMaxBws: rows 0..3 are indexed by the GPU architecture on one node, and on several nodes by
  // the CPU vendor (row 0 Intel/other, row 1 AMD); columns 1 node / 2 nodes / >= 3 nodes.
  ArchNodeTable ll_max_bw{};
  ArchNodeTable per_ch_max_ring_ll128_bw{};
  ArchNodeTable per_ch_max_tree_ll128_bw{};
  ArchNodeTable per_ch_max_tree_bw{};
  ArchNodeTable per_ch_max_nvls_tree_bw{};          // 2.28 only (2.18 has no NVLSTree cap)
  std::array<double, kNumArchs> nvls_efficiency{};  // 2.28 only
  // treeCorrectionFactor [proto][log2(nBytes/64)], 64 B .. 256 MiB
  std::array<std::array<double, 23>, kNumProtos> tree_correction{};
  double ring_simple_plateau_sm80 = 1.4;  // Ring/Simple multi-node AllReduce latency multiplier
  double ring_simple_plateau_old = 1.9;   // the same below SM80
  double collnet_arity_lat = 0.4;         // CollNetDirect per-local-rank serialization (us)

  // --- device.h / comm.h ---
  int max_channels = 64;     // MAXCHANNELS
  int max_nvls_arity = 32;   // NCCL_MAX_NVLS_ARITY
  int max_direct_arity = 7;  // NCCL_MAX_DIRECT_ARITY (CollNetDirect: up to arity+1 local GPUs)
  int simple_max_threads = 512, ll_max_threads = 512, ll128_max_threads = 640, max_threads = 640;
  int ll_thread_threshold = 8, ll128_thread_threshold = 8, simple_thread_threshold = 64;
  int collnet_thread_threshold = 512;
  int max_dev_work_batch_colls = 9;  // latCount divisor for non-ring algorithms (aggregation)

  // --- topo.h: per-link NVLink bandwidth by SM, PCIe, local ---
  double nvlink_bw_sm80 = 20.0, nvlink_bw_sm86 = 12.0, nvlink_bw_sm90 = 20.6,
         nvlink_bw_sm100 = 40.1, nvlink_bw_sm70 = 20.0, nvlink_bw_sm60 = 18.0;
  double pci_bw = 12.0;  // PCI_BW (Gen3 x16): below it Ring/Simple uses 256 threads
  double loc_bw = 5000.0;

  // --- search.cc: per-channel speed ladders (GB/s) ---
  std::vector<double> speed_intra, speed_inter;              // before SM90
  std::vector<double> speed_intra_sm90, speed_inter_sm90;    // SM90
  std::vector<double> speed_intra_sm100, speed_inter_sm100;  // SM100 (2.28; 2.18 uses SM90's)

  // --- transport/nvls.cc ---
  int nvls_channels_sm90 = 16;       // NVLS_NCHANNELS default
  int nvls_channels_sm100_nvl = 24;  // Blackwell, one NVLink domain
  int nvls_channels_sm100 = 32;      // Blackwell, several nodes
  int nvls_chunk_size = 128 * 1024;  // NCCL_NVLS_CHUNKSIZE default

  // --- buffers (init.cc) for chunk sizes ---
  int buff_simple = 1 << 22;  // DEFAULT_BUFFSIZE
  int steps = 8;              // NCCL_STEPS

  double nvlink_link_bw(int sm) const;
  bool has_pat() const { return rules == Rules::k2_28; }
  const std::vector<double>& intra_ladder(int sm) const;
  const std::vector<double>& inter_ladder(int sm) const;
};

// The constants for NCCL_VERSION_CODE `code` (e.g. 22809 for 2.28.9, 21805 for 2.18.5). Tables
// are kept per minor release; a code between two known releases gets the nearest older one, a
// code older than every table gets the oldest (2.18). Known: 2.18.x (21805), 2.28.x (22809).
const Version& version(int code);
inline constexpr int kDefaultVersionCode = 22809;
const Version& default_version();
std::vector<int> known_version_codes();

}  // namespace seer::sim::nccl

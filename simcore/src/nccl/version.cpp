#include "seer/simcore/nccl/version.h"

#include <algorithm>

namespace seer::sim::nccl {

namespace {

// Both releases use the same tree correction table (tuning.cc, "treeCorrectionFactor").
constexpr std::array<std::array<double, 23>, kNumProtos> kTreeCorrection = {{
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7,  .7,  .7,  .6, .5,
     .4,  .4,  .5,  .6,  .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7,  .6, .6,
     .6,  .6,  .6,  .6,  .8,  .9, .9, .9, .9, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9},
}};

// NCCL 2.28.9 (git tag v2.28.9-1): src/graph/tuning.cc ncclTunerConstantsDefaults,
// src/graph/search.cc speed arrays, src/graph/topo.h *_NVLINK_BW, src/include/device.h,
// src/transport/nvls.cc. These equal the 2.30.7 values of shared/reference/nccl-model.md except
// the Blackwell rows (2.28.9: ring LL128 73.4/34.6/73.4, NVLSTree 0/96/43.8).
Version make_2_28() {
  Version v;
  v.code = 22809;
  v.name = "2.28.9";
  v.source = "NVIDIA/nccl v2.28.9-1";
  v.rules = Rules::k2_28;
  //            LL    LL128  Simple
  v.base_lat = {{
      {6.8, 14.0, 8.4},  // Tree
      {6.6, 14.0, 8.4},  // Ring
      {0, 0, 0},         // CollNetDirect
      {0, 0, 0},         // CollNetChain
      {0, 0, 0},         // NVLS
      {0, 0, 0},         // NVLSTree
      {8.0, 8.0, 8.0},   // PAT
  }};
  v.hw_lat[idx(Hw::kNvlink)] = {{
      {.6, 1.25, 4.0},
      {.6, 1.9, 3.4},
      {0, 0, 3.7},
      {0, 0, 2.8},
      {0, 0, 25},
      {0, 0, 25},
      {0, 0, 4.0},
  }};
  v.hw_lat[idx(Hw::kPci)] = {{
      {1.0, 1.9, 4.0},
      {1.0, 2.5, 5.7},
      {0, 0, 3.7},
      {0, 0, 2.8},
      {0, 0, 0},
      {0, 0, 0},
      {0, 0, 4.0},
  }};
  v.hw_lat[idx(Hw::kNet)] = {{
      {5.0, 8.5, 14},
      {2.7, 4.0, 14.0},
      {0, 0, 31},
      {0, 0, 30},
      {0, 0, 18},
      {0, 0, 20.9},
      {0, 0, 14},
  }};
  v.ll_max_bw = {
      {{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {282.0, 90.0, 70.0}}};
  v.per_ch_max_ring_ll128_bw = {
      {{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 36.7}, {73.4, 34.6, 73.4}}};
  v.per_ch_max_tree_ll128_bw = {
      {{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}}};
  v.per_ch_max_tree_bw = {
      {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}}};
  v.per_ch_max_nvls_tree_bw = {
      {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {0.0, 57.7, 45.5}, {0.0, 96.0, 43.8}}};
  v.nvls_efficiency = {0.0, 0.0, 0.85, 0.74};
  v.tree_correction = kTreeCorrection;
  v.collnet_arity_lat = 0.4;
  v.max_channels = 64;
  v.max_nvls_arity = 32;
  v.max_dev_work_batch_colls = 9;  // NCCL_MAX_DEV_WORK_BATCH_BYTES 1024 / 112-byte ncclDevWorkColl
  v.nvlink_bw_sm90 = 20.6;
  v.speed_intra = {40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0};
  v.speed_inter = {48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0,
                   7.0,  6.0,  5.0,  4.0,  3.0,  2.4,  1.2,  0.24, 0.12};
  v.speed_intra_sm90 = {60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0};
  v.speed_inter_sm90 = {48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5,
                        15.0, 12.0, 6.0,  3.0,  2.4,  1.2,  0.24, 0.12};
  v.speed_intra_sm100 = {90.0, 80.0, 70.0, 60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 19.0, 18.0};
  v.speed_inter_sm100 = {96.0, 48.0, 45.1, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0,
                         17.5, 15.0, 12.0, 6.0,  3.0,  2.4,  1.2,  0.24, 0.12};
  v.nvls_channels_sm90 = 16;
  v.nvls_channels_sm100_nvl = 24;
  v.nvls_channels_sm100 = 32;
  return v;
}

// NCCL 2.18.5 (git tag v2.18.5-1), the release behind the Azure measurements of
// shared/reference/ground-truth.md. What really differs from 2.28 (all read from that tag):
//  * NVLS and NVLSTree: base latency 23 us and 0 per NVLink hop (2.28: 0 base, 25 per hop);
//    NVLS bandwidth is nChannels x bwIntra converted with a flat 5/6 (no nvlsEfficiency);
//    NVLSTree uses 0.70 x nNodes / (2 (nNodes-1)) and has no per-channel cap.
//  * Tree/Simple base latency 0 (2.28: 8.4), Tree/PCI/Simple hop 6 us (2.28: 4).
//  * CollNet hop latencies 8/4.75 (NVLink), 8/8 (PCI), 10.7/14 (NET); arity term 0.5 us.
//  * Hopper LL max bandwidth 87.7/22.5/19 (2.28: 141/45/35); no Blackwell tables (SM100 is
//    treated with the Hopper row, and LL128 is off there).
//  * No PAT; AllGather/ReduceScatter/Broadcast/Reduce are Ring only; NCCL_ALGO/NCCL_PROTO have no
//    per-collective prefixes and never disable Ring for non-AllReduce collectives.
//  * Ring LL bandwidth = busBw / 4 (several nodes, AllReduce, Reduce) or / 3 (2.28: / 2);
//    Ring LL128 = 0.7 x busBw with one GPU per node; Ring inter-node steps 2 nNodes for AllReduce
//    (2.28: 2 (nNodes-1)).
//  * SM90 NVLink counted at 20.0 GB/s per link (2.28: 20.6); SM90 intra-node ladder without 50
//    and 11 GB/s, inter-node ladder without 22 GB/s; MAXCHANNELS 32; NVLS arity 8.
//  * Search pass 2 raises bwIntra of non-Ring graphs (2.28: raises Ring bw, NVLS bwInter).
Version make_2_18() {
  Version v;
  v.code = 21805;
  v.name = "2.18.5";
  v.source = "NVIDIA/nccl v2.18.5-1";
  v.rules = Rules::k2_18;
  v.base_lat = {{
      {6.8, 14.0, 0},    // Tree
      {6.6, 14.0, 8.4},  // Ring
      {6.8, 14.0, 0},    // CollNetDirect
      {6.8, 14.0, 0},    // CollNetChain
      {0, 0, 23.0},      // NVLS
      {0, 0, 23.0},      // NVLSTree
      {0, 0, 0},         // PAT (absent)
  }};
  v.hw_lat[idx(Hw::kNvlink)] = {{
      {.6, 1.25, 4},
      {.6, 1.9, 3.4},
      {0, 0, 8.0},
      {0, 0, 4.75},
      {0, 0, 0},
      {0, 0, 0},
      {0, 0, 0},
  }};
  v.hw_lat[idx(Hw::kPci)] = {{
      {1.0, 1.9, 6},
      {1.0, 2.5, 5.7},
      {0, 0, 8.0},
      {0, 0, 8.0},
      {0, 0, 0},
      {0, 0, 0},
      {0, 0, 0},
  }};
  v.hw_lat[idx(Hw::kNet)] = {{
      {5.0, 8.5, 14},
      {2.7, 4.0, 14.0},
      {0, 0, 10.7},
      {0, 0, 14},
      {0, 0, 18},
      {0, 0, 19},
      {0, 0, 0},
  }};
  // Rows: Volta-N1/Intel-N2/Intel-N4, Ampere-N1/AMD-N2/AMD-N4, Hopper; Blackwell = Hopper.
  v.ll_max_bw = {{{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {87.7, 22.5, 19.0}, {87.7, 22.5, 19.0}}};
  v.per_ch_max_ring_ll128_bw = {
      {{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 36.7}, {36.7, 36.7, 36.7}}};
  v.per_ch_max_tree_ll128_bw = {
      {{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 29.0}, {36.7, 36.7, 29.0}}};
  v.per_ch_max_tree_bw = {
      {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {38.7, 41.4, 36.0}}};
  v.per_ch_max_nvls_tree_bw = {};  // unused by the 2.18 rules
  v.nvls_efficiency = {};          // unused by the 2.18 rules
  v.tree_correction = kTreeCorrection;
  v.collnet_arity_lat = 0.5;
  v.max_channels = 32;
  v.max_nvls_arity = 8;
  v.max_dev_work_batch_colls = 9;  // NCCL_MAX_WORK_ELEMENTS (static_assert == 9 in devcomm.h)
  v.nvlink_bw_sm90 = 20.0;
  v.nvlink_bw_sm100 = 20.0;  // 2.18 predates Blackwell: SM >= 90 gets SM90_NVLINK_BW
  v.speed_intra = {40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0};
  v.speed_inter = {48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0,
                   7.0,  6.0,  5.0,  4.0,  3.0,  2.4,  1.2,  0.24, 0.12};
  v.speed_intra_sm90 = {60.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 6.0, 3.0};
  v.speed_inter_sm90 = {48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 20.0, 17.5,
                        15.0, 12.0, 6.0,  3.0,  2.4,  1.2,  0.24, 0.12};
  v.speed_intra_sm100 = v.speed_intra_sm90;
  v.speed_inter_sm100 = v.speed_inter_sm90;
  v.nvls_channels_sm90 = 16;
  v.nvls_channels_sm100_nvl = 16;
  v.nvls_channels_sm100 = 16;
  return v;
}

const std::vector<Version>& table() {
  static const std::vector<Version> t = {make_2_18(), make_2_28()};  // oldest first
  return t;
}

}  // namespace

double Version::nvlink_link_bw(int sm) const {
  if (sm >= 100) return nvlink_bw_sm100;
  if (sm >= 90) return nvlink_bw_sm90;
  if (sm == 86) return nvlink_bw_sm86;
  if (sm >= 80) return nvlink_bw_sm80;
  if (sm >= 70) return nvlink_bw_sm70;
  if (sm >= 60) return nvlink_bw_sm60;
  return nvlink_bw_sm80;
}

const std::vector<double>& Version::intra_ladder(int sm) const {
  if (sm >= 100) return speed_intra_sm100;
  if (sm >= 90) return speed_intra_sm90;
  return speed_intra;
}

const std::vector<double>& Version::inter_ladder(int sm) const {
  if (sm >= 100) return speed_inter_sm100;
  if (sm >= 90) return speed_inter_sm90;
  return speed_inter;
}

const Version& version(int code) {
  const auto& t = table();
  // Compare major.minor only: 2.28.3 and 2.28.9 share a table.
  const int want = code / 100;
  const Version* best = &t.front();
  for (const Version& v : t) {
    if (v.code / 100 <= want) best = &v;
  }
  return *best;
}

const Version& default_version() { return version(kDefaultVersionCode); }

std::vector<int> known_version_codes() {
  std::vector<int> codes;
  for (const Version& v : table()) codes.push_back(v.code);
  return codes;
}

}  // namespace seer::sim::nccl

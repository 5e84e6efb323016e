// NCCL's tuning rules: gating, overrides, latencies, per-call channels, p2p, helpers.

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "seer/simcore/nccl/model.h"

namespace seer::sim::nccl {
namespace {

constexpr uint64_t kKiB = 1024;
constexpr uint64_t kMiB = 1024 * kKiB;
constexpr uint64_t kGiB = 1024 * kMiB;

Env env_with(const char* algo, const char* proto = nullptr) {
  Env env;
  if (algo != nullptr) {
    EXPECT_TRUE(parse_algo_list(algo, env)) << env.error();
  }
  if (proto != nullptr) {
    EXPECT_TRUE(parse_proto_list(proto, env)) << env.error();
  }
  return env;
}

const Choice* find(const std::vector<Choice>& cs, Algo a, Proto p) {
  for (const Choice& c : cs) {
    if (c.algo == a && c.proto == p) return &c;
  }
  return nullptr;
}

// shared/reference/nccl-model.md worked example: 8xH100 one node, small AllReduce:
// Ring/LL 6.6 + 14 x 0.6 = 15.0 us; NVLS 25 us (NCCL 2.28 constants).
TEST(NcclModel, WorkedExampleSmallAllReduceOnH100) {
  const CommModel m(Topo::dgx_h100(1), version(22809));
  ASSERT_TRUE(m.ok()) << m.error();
  EXPECT_DOUBLE_EQ(m.table_lat(Func::kAllReduce, Algo::kRing, Proto::kLL), 15.0);
  EXPECT_DOUBLE_EQ(m.table_lat(Func::kAllReduce, Algo::kNvls, Proto::kSimple), 25.0);
  const auto cs = m.candidates(Func::kAllReduce, 1 * kKiB);
  const Choice* ring_ll = find(cs, Algo::kRing, Proto::kLL);
  const Choice* nvls = find(cs, Algo::kNvls, Proto::kSimple);
  ASSERT_NE(ring_ll, nullptr);
  ASSERT_NE(nvls, nullptr);
  EXPECT_NEAR(ring_ll->lat_us, 15.0, 1e-9);
  EXPECT_NEAR(nvls->lat_us, 25.0, 1e-9);
  const Choice c = m.choose(Func::kAllReduce, 1 * kKiB);
  EXPECT_EQ(c.algo, Algo::kRing);
  EXPECT_EQ(c.proto, Proto::kLL);
  EXPECT_NEAR(c.nccl_us, 15.0, 0.05);
  // 2.18.5 had NVLS at 23 us flat.
  const CommModel old(Topo::dgx_h100(1), version(21805));
  EXPECT_DOUBLE_EQ(old.table_lat(Func::kAllReduce, Algo::kNvls, Proto::kSimple), 23.0);
}

TEST(NcclModel, BandwidthTablesOnH100) {
  const CommModel m(Topo::dgx_h100(1), version(22809));
  // Ring: 12 channels x 30 GB/s = 360 bus; algBw = 360 x 8/14.
  EXPECT_NEAR(m.table_bw(Func::kAllReduce, Algo::kRing, Proto::kSimple), 360.0 * 8 / 14, 1e-6);
  // Ring LL: min(llMaxBw 141, 0.5 x 360) x 8/14.
  EXPECT_NEAR(m.table_bw(Func::kAllReduce, Algo::kRing, Proto::kLL), 141.0 * 8 / 14, 1e-6);
  // NVLS: 40 x 0.85 x 7/8 x 2 = 59.5 per channel (< bwInter 60) x 8 = 476 bus.
  EXPECT_NEAR(m.table_bw(Func::kAllReduce, Algo::kNvls, Proto::kSimple), 476.0 * 8 / 14, 1e-3);
  // 2.18.5: 8 x 40 x 5/6.
  const CommModel old(Topo::dgx_h100(1), version(21805));
  EXPECT_NEAR(old.table_bw(Func::kAllReduce, Algo::kNvls, Proto::kSimple), 320.0 * 5 / 6, 1e-3);
}

TEST(NcclModel, NvlsNeedsHopperNvSwitchAndSimple) {
  const CommModel h100(Topo::dgx_h100(1), version(22809));
  EXPECT_TRUE(h100.enabled(Func::kAllReduce, Algo::kNvls, Proto::kSimple));
  EXPECT_FALSE(h100.enabled(Func::kAllReduce, Algo::kNvls, Proto::kLL));
  EXPECT_FALSE(h100.enabled(Func::kAllReduce, Algo::kNvls, Proto::kLL128));

  Topo a100 = Topo::dgx_a100(1);
  a100.nvls = true;  // asking for it does not make Ampere support it
  EXPECT_FALSE(
      CommModel(a100, version(22809)).enabled(Func::kAllReduce, Algo::kNvls, Proto::kSimple));
  Topo mesh = Topo::dgx_h100(1);
  mesh.intra = IntraKind::kNvLinkMesh;
  EXPECT_FALSE(
      CommModel(mesh, version(22809)).enabled(Func::kAllReduce, Algo::kNvls, Proto::kSimple));
  Topo off = Topo::dgx_h100(1);
  off.nvls = false;
  EXPECT_FALSE(
      CommModel(off, version(22809)).enabled(Func::kAllReduce, Algo::kNvls, Proto::kSimple));
  Env no_nvls;
  no_nvls.nvls_enable = 0;
  EXPECT_FALSE(CommModel(Topo::dgx_h100(1), version(22809), no_nvls)
                   .enabled(Func::kAllReduce, Algo::kNvls, Proto::kSimple));
}

TEST(NcclModel, NvlsTreeOffOnOneNodeAndNvlsAcrossNodesNeedsCollNet) {
  const CommModel one(Topo::dgx_h100(1), version(22809));
  EXPECT_FALSE(one.enabled(Func::kAllReduce, Algo::kNvlsTree, Proto::kSimple));
  const CommModel two(Topo::dgx_h100(2), version(22809));
  EXPECT_TRUE(two.enabled(Func::kAllReduce, Algo::kNvlsTree, Proto::kSimple));
  EXPECT_FALSE(two.enabled(Func::kAllReduce, Algo::kNvls, Proto::kSimple));
  EXPECT_FALSE(two.enabled(Func::kAllReduce, Algo::kCollNetDirect, Proto::kSimple));
  Topo sharp = Topo::dgx_h100(2);
  sharp.collnet = true;
  const CommModel with_sharp(sharp, version(22809));
  EXPECT_TRUE(with_sharp.enabled(Func::kAllReduce, Algo::kNvls, Proto::kSimple));
  EXPECT_TRUE(with_sharp.enabled(Func::kAllReduce, Algo::kCollNetDirect, Proto::kSimple));
  EXPECT_TRUE(with_sharp.enabled(Func::kAllReduce, Algo::kCollNetChain, Proto::kSimple));
  EXPECT_FALSE(with_sharp.enabled(Func::kAllReduce, Algo::kCollNetChain, Proto::kLL));
}

TEST(NcclModel, PatOnlyWithOneGpuPerNodeAndOnlyIn228) {
  Topo t = Topo::dgx_h100(4);
  t.nranks = 4;  // one GPU per node
  const CommModel m(t, version(22809));
  EXPECT_TRUE(m.enabled(Func::kAllGather, Algo::kPat, Proto::kSimple));
  EXPECT_TRUE(m.enabled(Func::kReduceScatter, Algo::kPat, Proto::kSimple));
  EXPECT_FALSE(m.enabled(Func::kAllGather, Algo::kPat, Proto::kLL));
  EXPECT_FALSE(m.enabled(Func::kAllReduce, Algo::kPat, Proto::kSimple));
  EXPECT_EQ(m.choose(Func::kAllGather, 1 * kMiB).algo, Algo::kPat);
  EXPECT_FALSE(CommModel(Topo::dgx_h100(4), version(22809))
                   .enabled(Func::kAllGather, Algo::kPat, Proto::kSimple));
  EXPECT_FALSE(CommModel(t, version(21805)).enabled(Func::kAllGather, Algo::kPat, Proto::kSimple));
}

TEST(NcclModel, AlgorithmsPerCollective) {
  Topo t = Topo::dgx_h100(1);
  const CommModel m(t, version(22809));
  for (Func f : {Func::kBroadcast, Func::kReduce}) {
    for (const Choice& c : m.candidates(f, 1 * kMiB))
      EXPECT_EQ(c.algo, Algo::kRing) << func_name(f);
  }
  for (Func f : {Func::kAllGather, Func::kReduceScatter}) {
    for (const Choice& c : m.candidates(f, 1 * kMiB)) {
      EXPECT_TRUE(c.algo == Algo::kRing || c.algo == Algo::kNvls || c.algo == Algo::kPat ||
                  c.algo == Algo::kCollNetDirect)
          << algo_name(c.algo);
    }
    EXPECT_TRUE(m.enabled(f, Algo::kNvls, Proto::kSimple));
    EXPECT_FALSE(m.enabled(f, Algo::kTree, Proto::kSimple));
  }
  // 2.18: AllGather / ReduceScatter are Ring only.
  const CommModel old(t, version(21805));
  for (const Choice& c : old.candidates(Func::kAllGather, 1 * kMiB)) EXPECT_EQ(c.algo, Algo::kRing);
  // AllReduce: Tree, Ring, NVLS on one H100 node.
  EXPECT_TRUE(m.enabled(Func::kAllReduce, Algo::kTree, Proto::kLL));
  EXPECT_TRUE(m.enabled(Func::kAllReduce, Algo::kRing, Proto::kSimple));
}

TEST(NcclModel, Ll128Gating) {
  // On by default over NVLink (NVSwitch).
  EXPECT_TRUE(CommModel(Topo::dgx_h100(1), version(22809))
                  .enabled(Func::kAllReduce, Algo::kRing, Proto::kLL128));
  EXPECT_TRUE(CommModel(Topo::dgx_a100(1), version(21805))
                  .enabled(Func::kAllReduce, Algo::kRing, Proto::kLL128));
  // Off when GPUs talk over PCIe, unless the user asks for it.
  Topo pcie;
  pcie.nranks = 8;
  pcie.intra = IntraKind::kPcie;
  pcie.sm = 89;
  EXPECT_FALSE(
      CommModel(pcie, version(22809)).enabled(Func::kAllReduce, Algo::kRing, Proto::kLL128));
  EXPECT_TRUE(CommModel(pcie, version(22809), env_with(nullptr, "LL128"))
                  .enabled(Func::kAllReduce, Algo::kRing, Proto::kLL128));
  // Off across nodes when the NIC is reached through the CPU (PHB) before Hopper.
  Topo phb = Topo::dgx_a100(2);
  phb.nic_path = PathType::kPhb;
  EXPECT_FALSE(
      CommModel(phb, version(22809)).enabled(Func::kAllReduce, Algo::kRing, Proto::kLL128));
  Topo pxn = Topo::dgx_h100(2);
  pxn.nic_path = PathType::kPxn;  // allowed on Hopper (2.28 LL128 C2C/PXN rule)
  EXPECT_TRUE(CommModel(pxn, version(22809)).enabled(Func::kAllReduce, Algo::kRing, Proto::kLL128));
  // 2.18 enables LL128 by default only on SM 70/80/90: not on Blackwell.
  EXPECT_FALSE(CommModel(Topo::dgx_b200(1), version(21805))
                   .enabled(Func::kAllReduce, Algo::kRing, Proto::kLL128));
  EXPECT_TRUE(CommModel(Topo::dgx_b200(1), version(22809))
                  .enabled(Func::kAllReduce, Algo::kRing, Proto::kLL128));
}

TEST(NcclModel, AlgoAndProtoOverridesAreRespected) {
  const Topo t = Topo::dgx_h100(1);
  for (uint64_t s : {1 * kKiB, 1 * kMiB, 64 * kMiB, 1 * kGiB}) {
    const Choice ring = CommModel(t, version(22809), env_with("ring")).choose(Func::kAllReduce, s);
    ASSERT_TRUE(ring.ok) << ring.error;
    EXPECT_EQ(ring.algo, Algo::kRing) << s;
    const Choice simple =
        CommModel(t, version(22809), env_with(nullptr, "simple")).choose(Func::kAllReduce, s);
    EXPECT_EQ(simple.proto, Proto::kSimple) << s;
    const Choice no128 =
        CommModel(t, version(22809), env_with("ring", "^LL128")).choose(Func::kAllReduce, s);
    EXPECT_NE(no128.proto, Proto::kLL128) << s;
    EXPECT_EQ(no128.algo, Algo::kRing) << s;
  }
  // Default picks NVLS for big AllReduce on H100; "^nvls" avoids it.
  EXPECT_EQ(CommModel(t, version(22809)).choose(Func::kAllReduce, 1 * kGiB).algo, Algo::kNvls);
  EXPECT_NE(CommModel(t, version(22809), env_with("^nvls")).choose(Func::kAllReduce, 1 * kGiB).algo,
            Algo::kNvls);
  // Per-collective: AllReduce on Tree, AllGather untouched.
  const CommModel per(t, version(22809), env_with("allreduce:tree"));
  EXPECT_EQ(per.choose(Func::kAllReduce, 64 * kMiB).algo, Algo::kTree);
  EXPECT_EQ(per.choose(Func::kAllGather, 64 * kMiB).algo, Algo::kRing);
}

TEST(NcclModel, NoAvailableAlgorithmIsAnErrorNotACrash) {
  // NCCL_ALGO=NVLS on A100: NCCL fails with "no algorithm/protocol available".
  const Choice c =
      CommModel(Topo::dgx_a100(1), version(22809), env_with("nvls")).choose(Func::kAllReduce, kMiB);
  EXPECT_FALSE(c.ok);
  EXPECT_NE(c.error.find("no algorithm/protocol available"), std::string::npos) << c.error;
  EXPECT_NE(c.error.find("NCCL_ALGO"), std::string::npos) << c.error;
  // 2.28 honours NCCL_ALGO=tree for AllGather too (fails); 2.18 never disables Ring there.
  EXPECT_FALSE(CommModel(Topo::dgx_h100(1), version(22809), env_with("tree"))
                   .choose(Func::kAllGather, kMiB)
                   .ok);
  const Choice old =
      CommModel(Topo::dgx_h100(1), version(21805), env_with("tree")).choose(Func::kAllGather, kMiB);
  EXPECT_TRUE(old.ok) << old.error;
  EXPECT_EQ(old.algo, Algo::kRing);
  // Invalid topology.
  Topo bad = Topo::dgx_h100(2);
  bad.nranks = 9;
  const Choice b = CommModel(bad, version(22809)).choose(Func::kAllReduce, kMiB);
  EXPECT_FALSE(b.ok);
  EXPECT_FALSE(b.error.empty());
  // Point-to-point kinds through the convenience API.
  const Choice a2a = choose(CollKind::kAllToAll, kMiB, Topo::dgx_h100(1), version(22809), Env());
  EXPECT_FALSE(a2a.ok);
  EXPECT_NE(a2a.error.find("p2p_estimate"), std::string::npos);
}

TEST(NcclModel, TreeCorrectionAndRingPlateau) {
  const CommModel m(Topo::dgx_h100(1), version(22809));
  // log2(1 MiB / 64) = 14: Simple factor .5.
  const Choice tree = m.evaluate(Func::kAllReduce, Algo::kTree, Proto::kSimple, kMiB);
  EXPECT_NEAR(tree.bw_GBps, m.table_bw(Func::kAllReduce, Algo::kTree, Proto::kSimple) * 0.5, 1e-9);
  // Ring/Simple multi-node AllReduce latency x 1.4 once nBytes/(nChannels nRanks) >= 64.
  const CommModel two(Topo::dgx_h100(2), version(22809));
  const double base = two.table_lat(Func::kAllReduce, Algo::kRing, Proto::kSimple);
  EXPECT_NEAR(two.evaluate(Func::kAllReduce, Algo::kRing, Proto::kSimple, 1024).lat_us, base, 1e-9);
  EXPECT_NEAR(two.evaluate(Func::kAllReduce, Algo::kRing, Proto::kSimple, kMiB).lat_us, base * 1.4,
              1e-9);
}

TEST(NcclModel, MultiNodeRingLatency) {
  // 2 nodes x 8: nsteps 30, 2 inter-node steps: 8.4 + 28 x max(3.4, 3 x 1.0) + 2 x 14 = 131.6.
  const CommModel m(Topo::dgx_h100(2), version(22809));
  EXPECT_NEAR(m.table_lat(Func::kAllReduce, Algo::kRing, Proto::kSimple), 131.6, 1e-9);
  // AMD hosts: netOverhead 2 us x 3 for Simple = 6 > 3.4.
  Topo amd = Topo::dgx_h100(2);
  amd.cpu = CpuVendor::kAmd;
  EXPECT_NEAR(
      CommModel(amd, version(22809)).table_lat(Func::kAllReduce, Algo::kRing, Proto::kSimple),
      8.4 + 28 * 6.0 + 2 * 14, 1e-9);
}

TEST(NcclModel, PerCallChannelsShrinkForSmallMessages) {
  const CommModel m(Topo::dgx_h100(1), version(22809));
  // Ring/LL threshold: 8 x nRanks = 64 bytes per thread, 512 threads.
  const Choice small = m.evaluate(Func::kAllReduce, Algo::kRing, Proto::kLL, 64 * kKiB);
  EXPECT_EQ(small.nchannels, 2);  // 64 KiB / (512 x 64) = 2
  const Choice big = m.evaluate(Func::kAllReduce, Algo::kRing, Proto::kLL, 64 * kMiB);
  EXPECT_EQ(big.nchannels, 24);
  // Simple: 64 bytes per thread, 512 threads: 24 x 32 KiB = 768 KiB.
  EXPECT_EQ(m.evaluate(Func::kAllReduce, Algo::kRing, Proto::kSimple, 256 * kKiB).nchannels, 8);
  EXPECT_EQ(m.evaluate(Func::kAllReduce, Algo::kRing, Proto::kSimple, 256 * kKiB).nthreads,
            512 + 32);
  // NVLS uses the NVLS channels (16 on SM90).
  EXPECT_EQ(m.evaluate(Func::kAllReduce, Algo::kNvls, Proto::kSimple, 1 * kKiB).nchannels, 16);
}

TEST(NcclModel, MinMaxChannelsAreHonoured) {
  const Topo t = Topo::dgx_h100(1);
  Env few = env_with("ring");
  few.max_nchannels = 4;
  const CommModel m4(t, version(22809), few);
  const Choice c4 = m4.choose(Func::kAllReduce, 1 * kGiB);
  EXPECT_LE(c4.nchannels, 4);
  const Choice c24 = CommModel(t, version(22809), env_with("ring")).choose(Func::kAllReduce, kGiB);
  EXPECT_EQ(c24.nchannels, 24);
  // NCCL's own estimate ignores the limit; Seer's time scales with the channels left.
  EXPECT_NEAR(c4.nccl_us, c24.nccl_us, 1e-6);
  EXPECT_GT(c4.time_us, 5 * c24.time_us);
  Env many = env_with("ring");
  many.min_nchannels = 32;
  const Choice c32 = CommModel(t, version(22809), many).choose(Func::kAllReduce, 1 * kGiB);
  EXPECT_EQ(c32.nchannels, 32);
  // Links were already saturated: only the chunking changes (smaller chunks per channel, see
  // Calibration::ring_pipeline).
  EXPECT_NEAR(c32.time_us, c24.time_us, 0.02 * c24.time_us);
}

TEST(NcclModel, CalibrationNoneGivesNcclsEstimate) {
  const CommModel m(Topo::dgx_h100(1), version(22809), Env(), Calibration::none());
  for (uint64_t s : {1 * kKiB, 1 * kMiB, 1 * kGiB}) {
    const Choice c = m.choose(Func::kAllReduce, s);
    EXPECT_DOUBLE_EQ(c.time_us, c.nccl_us) << s;
  }
  const Choice d = CommModel(Topo::dgx_h100(1), version(22809)).choose(Func::kAllReduce, kKiB);
  EXPECT_NEAR(d.time_us - d.nccl_us, Calibration().launch_us, 1e-9);  // Ring/LL: launch only
}

TEST(NcclModel, OneRank) {
  Topo t = Topo::dgx_h100(1);
  t.nranks = 1;
  const CommModel m(t, version(22809));
  const Choice c = m.choose(Func::kAllReduce, kMiB);
  EXPECT_TRUE(c.ok);
  EXPECT_EQ(c.algo, Algo::kRing);
  EXPECT_EQ(c.proto, Proto::kSimple);
  EXPECT_EQ(c.nccl_us, 0.0);
}

TEST(NcclModel, CandidatesListEveryEnabledPair) {
  const CommModel m(Topo::dgx_h100(1), version(22809));
  const auto cs = m.candidates(Func::kAllReduce, 16 * kMiB);
  EXPECT_EQ(cs.size(), 7u);  // Tree x3, Ring x3, NVLS
  const Choice best = m.choose(Func::kAllReduce, 16 * kMiB);
  for (const Choice& c : cs) {
    EXPECT_TRUE(c.ok);
    EXPECT_GE(c.nccl_us, best.nccl_us);
    EXPECT_GT(c.time_us, 0);
  }
  EXPECT_FALSE(m.describe().empty());
  EXPECT_EQ(
      all_candidates(CollKind::kAllReduce, 16 * kMiB, Topo::dgx_h100(1), version(22809), Env())
          .size(),
      7u);
}

TEST(NcclModel, P2pEstimate) {
  const Topo t = Topo::dgx_h100(2);
  const Version& v = version(22809);
  const P2pEstimate small = p2p_estimate(4 * kKiB, true, t, v);
  EXPECT_EQ(small.proto, Proto::kLL);
  EXPECT_NEAR(small.lat_us, 6.6 + 0.6, 1e-9);
  const P2pEstimate big_local = p2p_estimate(kGiB, true, t, v);
  EXPECT_EQ(big_local.proto, Proto::kSimple);
  EXPECT_NEAR(big_local.bw_GBps, 18 * 20.6, 1e-9);
  const P2pEstimate big_remote = p2p_estimate(kGiB, false, t, v);
  EXPECT_NEAR(big_remote.bw_GBps, 48.0, 1e-9);  // one NIC path
  EXPECT_NEAR(big_remote.lat_us, 8.4 + 14.0, 1e-9);
  EXPECT_GT(big_remote.time_us, 7 * big_local.time_us);
}

TEST(NcclModel, BusBandwidthFactors) {
  EXPECT_DOUBLE_EQ(bus_factor(CollKind::kAllReduce, 8), 1.75);
  EXPECT_DOUBLE_EQ(bus_factor(CollKind::kAllGather, 8), 0.875);
  EXPECT_DOUBLE_EQ(bus_factor(CollKind::kReduceScatter, 8), 0.875);
  EXPECT_DOUBLE_EQ(bus_factor(CollKind::kBroadcast, 8), 1.0);
  EXPECT_DOUBLE_EQ(bus_factor(CollKind::kAllReduce, 1), 1.0);
  EXPECT_DOUBLE_EQ(alg_bw_GBps(1000000, 1000.0), 1.0);
  EXPECT_DOUBLE_EQ(bus_bw_GBps(CollKind::kAllReduce, 8, 1000000, 1000.0), 1.75);
}

// Calibration::ring_pipeline: Ring/Simple pays NCCL's Simple NVLink hop latency (3.4 us) per
// slice, two slices per chunk step (ALLREDUCE_CHUNKSTEPS / ALLREDUCE_SLICESTEPS = 4 / 2), with
// the rate normalised so that a full 2 MiB chunk (4 MiB buffer / 8 steps x 4) takes what NCCL's
// bandwidth says. (On a DGX A100; the two Ampere terms are off here and tested below.)
Calibration without_ampere_terms() {
  Calibration cal;
  cal.sm80_reduce_slice_us = 0;
  cal.ll128_efficiency_sm80 = 1;
  return cal;
}

TEST(NcclModel, RingSimplePipelinePaysPerSliceSynchronisation) {
  const CommModel m(Topo::dgx_a100(1), version(21805), Env(), without_ampere_terms());
  const uint64_t s = 32 * kMiB;
  const Choice c = m.evaluate(Func::kAllReduce, Algo::kRing, Proto::kSimple, s);
  ASSERT_EQ(c.nchannels, 24);
  // One loop (32 MiB < 24 x 8 x 2 MiB): 14 chunk steps of 32 MiB / 192 per channel.
  const double data_us = static_cast<double>(s) / (1000 * c.bw_GBps);
  const double chunk = s / 192.0, cmax = 2.0 * kMiB;
  const double t_full = data_us / 14 * (cmax / chunk);
  const double o = 2 * 3.4;
  const double expected = 14 * (chunk * (t_full - o) / cmax + o);
  EXPECT_NEAR(c.time_us, Calibration().launch_us + c.lat_us + expected, 1e-6);
  EXPECT_GT(c.time_us, c.nccl_us + Calibration().launch_us + 80);  // ~87 us slower than NCCL

  // No overhead: NCCL's estimate (plus launch).
  Calibration zero = without_ampere_terms();
  zero.ring_slice_overhead_us = 0;
  const Choice z = CommModel(Topo::dgx_a100(1), version(21805), Env(), zero)
                       .evaluate(Func::kAllReduce, Algo::kRing, Proto::kSimple, s);
  EXPECT_NEAR(z.time_us, z.nccl_us + zero.launch_us, 1e-6);
  // Full chunks (a whole number of loops): NCCL's bandwidth exactly.
  const uint64_t full = 24ull * 8 * 2 * kMiB * 4;
  const Choice f = m.evaluate(Func::kAllReduce, Algo::kRing, Proto::kSimple, full);
  EXPECT_NEAR(f.time_us, f.nccl_us + Calibration().launch_us, 1e-6 * f.time_us);
  // LL and LL128 carry their flags in the data: no per-slice synchronisation.
  for (Proto p : {Proto::kLL, Proto::kLL128}) {
    const Choice l = m.evaluate(Func::kAllReduce, Algo::kRing, p, s);
    EXPECT_NEAR(l.time_us, l.nccl_us + Calibration().launch_us, 1e-6) << proto_name(p);
  }
  // Broadcast is a chain (one 512 KiB slice per step): 32 MiB / 24 channels = 1 loop... plus the
  // pipeline fill of n - 2 = 6 chunk steps.
  const Choice b = m.evaluate(Func::kBroadcast, Algo::kRing, Proto::kSimple, s);
  const double b_data = static_cast<double>(s) / (1000 * b.bw_GBps);
  const double loops = std::ceil(s / (24 * 512.0 * 1024));
  const double b_chunk = s / (24 * loops);
  const double b_full = b_data / loops * (512.0 * 1024 / b_chunk);
  const double b_exp = (loops + 6) * (b_chunk * (b_full - 3.4) / (512.0 * 1024) + 3.4);
  EXPECT_NEAR(b.time_us, Calibration().launch_us + b.lat_us + b_exp, 1e-6);
}

// Calibration::sm80_reduce_slice_us: on one Ampere node every slice of a reducing Ring/Simple
// collective costs 4.5 us more, at every size (not normalised away at full chunks); AllGather
// and multi-node communicators do not pay it. ::ll128_efficiency_sm80: LL128's data phase on
// Ampere runs at 0.63 of NCCL's bandwidth.
TEST(NcclModel, AmpereReduceSlicesAndLl128) {
  const CommModel plain(Topo::dgx_a100(1), version(21805), Env(), without_ampere_terms());
  const CommModel m(Topo::dgx_a100(1), version(21805));
  const uint64_t full = 24ull * 8 * 2 * kMiB * 4;  // 4 loops of full 2 MiB chunks
  const Choice a = m.evaluate(Func::kAllReduce, Algo::kRing, Proto::kSimple, full);
  const Choice b = plain.evaluate(Func::kAllReduce, Algo::kRing, Proto::kSimple, full);
  EXPECT_NEAR(a.time_us - b.time_us, 4 * 14 * 2 * 4.5, 1e-6);  // loops x steps x slices x 4.5
  EXPECT_NEAR(m.choose(Func::kAllReduce, 8 * kGiB).data_bw_GBps, a.bw_GBps, 1e-9);
  const double busbw_8g =
      bus_bw_GBps(CollKind::kAllReduce, 8, 8 * kGiB, m.choose(Func::kAllReduce, 8 * kGiB).time_us);
  EXPECT_NEAR(busbw_8g, 230, 2.5);  // the maintainers' ~230 GB/s
  for (Func f : {Func::kReduceScatter, Func::kReduce}) {
    EXPECT_GT(m.evaluate(f, Algo::kRing, Proto::kSimple, full).time_us,
              plain.evaluate(f, Algo::kRing, Proto::kSimple, full).time_us + 100)
        << func_name(f);
  }
  for (Func f : {Func::kAllGather, Func::kBroadcast}) {
    EXPECT_DOUBLE_EQ(m.evaluate(f, Algo::kRing, Proto::kSimple, full).time_us,
                     plain.evaluate(f, Algo::kRing, Proto::kSimple, full).time_us)
        << func_name(f);
  }
  const CommModel two(Topo::dgx_a100(2), version(21805));
  const CommModel two_plain(Topo::dgx_a100(2), version(21805), Env(), without_ampere_terms());
  EXPECT_DOUBLE_EQ(two.evaluate(Func::kAllReduce, Algo::kRing, Proto::kSimple, full).time_us,
                   two_plain.evaluate(Func::kAllReduce, Algo::kRing, Proto::kSimple, full).time_us);
  // LL128: the data phase at 0.63 of NCCL's bandwidth; the choice is NCCL's, unchanged.
  const uint64_t s = 16 * kMiB;
  const Choice l = m.evaluate(Func::kAllReduce, Algo::kRing, Proto::kLL128, s);
  EXPECT_NEAR(l.data_bw_GBps, 0.63 * l.bw_GBps, 1e-9);
  EXPECT_NEAR(l.time_us, Calibration().launch_us + l.lat_us + s / (1000 * 0.63 * l.bw_GBps), 1e-6);
  EXPECT_EQ(m.choose(Func::kAllReduce, s).proto, plain.choose(Func::kAllReduce, s).proto);
  // Hopper LL128 is left as NCCL has it.
  const CommModel h(Topo::dgx_h100(1), version(21805));
  const Choice hl = h.evaluate(Func::kAllGather, Algo::kRing, Proto::kLL128, s);
  EXPECT_DOUBLE_EQ(hl.data_bw_GBps, hl.bw_GBps);
}

}  // namespace
}  // namespace seer::sim::nccl

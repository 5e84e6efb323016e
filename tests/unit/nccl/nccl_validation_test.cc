// The model against published measurements (shared/reference/ground-truth.md, hardware.md).
//
// busbw is computed from the model's predicted time exactly as nccl-tests does:
// busbw = S x 2(n-1)/n / t for AllReduce (S x (n-1)/n / t for AllGather / ReduceScatter).
// Error metric: relative error of busbw; geometric-mean error = exp(mean |ln(model/measured)|) - 1.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "seer/simcore/nccl/model.h"

namespace seer::sim::nccl {
namespace {

constexpr uint64_t kMiB = 1024 * 1024;
constexpr uint64_t kGiB = 1024 * kMiB;

struct Point {
  uint64_t bytes;
  double busbw;  // GB/s, published
};

// Source: Azure/AI-benchmarking-guide, "Azure Results/ND_H100_v5_results.md" (NCCL 2.18.5,
// nccl-tests all_reduce_perf -g 8, in-place, the run with NCCL_ALGO=NVLS), 8 x H100 SXM NVSwitch.
const std::vector<Point> kH100 = {{1 * kMiB, 43.70},
                                  {16 * kMiB, 234.45},
                                  {128 * kMiB, 400.61},
                                  {1 * kGiB, 466.35},
                                  {8 * kGiB, 478.87}};
// Source: Azure/AI-benchmarking-guide, "Azure_Results/ND_A100_v4_results.md" (NCCL 2.18.5,
// in-place), 8 x A100 SXM4 NVSwitch (Ring/Tree: no NVLS on Ampere).
const std::vector<Point> kA100 = {{1 * kMiB, 36.22},
                                  {16 * kMiB, 109.22},
                                  {128 * kMiB, 174.18},
                                  {1 * kGiB, 228.10},
                                  {8 * kGiB, 231.58}};

// The full published curves (every size nccl-tests printed from 1 MiB), same sources.
std::vector<Point> curve(const std::vector<double>& busbw) {
  std::vector<Point> pts;
  uint64_t b = kMiB;
  for (double v : busbw) {
    pts.push_back({b, v});
    b *= 2;
  }
  return pts;
}
const std::vector<Point> kA100Full =
    curve({36.22, 53.54, 71.43, 89.99, 109.22, 132.77, 166.63, 174.18, 213.87, 221.58, 228.10,
           230.22, 230.48, 231.58});
const std::vector<Point> kH100Full =
    curve({43.70, 81.93, 128.73, 172.13, 234.45, 295.53, 361.78, 400.61, 423.38, 438.46, 466.35,
           472.36, 475.54, 478.87});
const std::vector<Point> kH200Full =
    curve({52.96, 88.78, 138.44, 181.94, 240.41, 300.91, 368.11, 412.45, 432.24, 442.72, 467.58,
           472.57, 477.41, 479.98});

double model_busbw(const CommModel& m, CollKind kind, uint64_t bytes) {
  const Choice c = m.choose(*func_of(kind), bytes);
  EXPECT_TRUE(c.ok) << c.error;
  return bus_bw_GBps(kind, m.topo().nranks, bytes, c.time_us);
}

struct Errors {
  std::vector<double> rel;  // model/measured - 1
  double geo() const {
    double s = 0;
    for (double r : rel) s += std::fabs(std::log1p(r));
    return std::exp(s / rel.size()) - 1;
  }
};

Errors compare(const char* label, const CommModel& m, const std::vector<Point>& pts) {
  Errors e;
  for (const Point& p : pts) {
    const Choice c = m.choose(Func::kAllReduce, p.bytes);
    const double bb = bus_bw_GBps(CollKind::kAllReduce, m.topo().nranks, p.bytes, c.time_us);
    e.rel.push_back(bb / p.busbw - 1);
    std::printf(
        "[%s] %6llu MiB %-8s %-6s t=%9.1f us busbw model %7.2f published %7.2f (%+5.1f%%)\n", label,
        static_cast<unsigned long long>(p.bytes / kMiB), algo_name(c.algo), proto_name(c.proto),
        c.time_us, bb, p.busbw, 100 * e.rel.back());
  }
  std::printf("[%s] geometric-mean error %.1f%%\n", label, 100 * e.geo());
  return e;
}

Env forced(const char* algo) {
  Env env;
  EXPECT_TRUE(parse_algo_list(algo, env));
  return env;
}

// 8 x H100, one node, NVLS. Compared with NCCL 2.18.5's constants (the measured release) and with
// NCCL 2.28.9's (Seer's default); both must hold 10 % per point and 5 % geometric mean.
TEST(NcclValidation, H100AllReduceNvls) {
  for (int code : {21805, 22809}) {
    // The published run forced NCCL_ALGO=NVLS; with 2.18.5 NCCL also picks NVLS by itself.
    const CommModel m(Topo::dgx_h100(1), version(code), forced("nvls"));
    const Errors e = compare(code == 21805 ? "H100 2.18.5" : "H100 2.28.9", m, kH100);
    for (size_t i = 0; i < e.rel.size(); ++i) {
      EXPECT_LT(std::fabs(e.rel[i]), 0.10) << code << " point " << kH100[i].bytes;
    }
    EXPECT_LT(e.geo(), 0.05) << code;
  }
  const CommModel dflt(Topo::dgx_h100(1), version(21805));
  for (const Point& p : kH100) EXPECT_EQ(dflt.choose(Func::kAllReduce, p.bytes).algo, Algo::kNvls);
}

// 8 x A100, one node, NCCL 2.18.5 constants, NCCL's own choice (Ring LL at 1 MiB, Ring LL128 at
// 2-16 MiB, Ring Simple from 32 MiB). The Simple sizes follow NCCL's chunking with the per-slice
// synchronisation of Calibration::ring_pipeline (32 MiB: +13 %, 64 MiB: +12 %, 256 MiB: +7 %
// instead of +45 %, +28 %, +9 % with NCCL's estimate alone). Known gaps, reported and not fitted:
//  * 2-16 MiB (LL128): the measured marginal bus bandwidth is 103-139 GB/s against NCCL's LL128
//    estimate of 220.8 GB/s. The deficit grows linearly with size, which no per-step or
//    per-chunk cost can produce (a single-loop call has a fixed 14 steps): it is a per-byte
//    throughput gap of LL128 on this machine (about 5.3 GB/s per channel, 24 channels).
//  * 128 MiB: the published point is slower than its neighbours allow (the marginal bandwidth
//    from 128 to 256 MiB would be 277 GB/s, above the 240 GB/s NVLink figure).
// Those points and the geometric mean are asserted loosely so that a regression still shows.
TEST(NcclValidation, A100AllReduce) {
  const CommModel m(Topo::dgx_a100(1), version(21805));
  const Errors e = compare("A100 2.18.5", m, kA100);
  EXPECT_LT(std::fabs(e.rel[0]), 0.10);  // 1 MiB
  EXPECT_LT(std::fabs(e.rel[3]), 0.10);  // 1 GiB
  EXPECT_LT(std::fabs(e.rel[4]), 0.10);  // 8 GiB
  EXPECT_LT(e.rel[1], 0.55);             // 16 MiB: known gap (LL128), model too fast
  EXPECT_LT(e.rel[2], 0.25);             // 128 MiB: known gap, model too fast
  EXPECT_LT(e.geo(), 0.16);              // known gap (5 % not held)
  EXPECT_EQ(m.choose(Func::kAllReduce, 8 * kGiB).algo, Algo::kRing);
  // The whole published curve (same source, every size 1 MiB..8 GiB), for the record; the
  // Simple sizes from 256 MiB hold 10 %, 32 and 64 MiB 15 %.
  const Errors all = compare("A100 2.18.5 full", m, kA100Full);
  for (size_t i = 0; i < kA100Full.size(); ++i) {
    const uint64_t b = kA100Full[i].bytes;
    if (b >= 256 * kMiB) {
      EXPECT_LT(std::fabs(all.rel[i]), 0.10) << b;
    }
    if (b == 32 * kMiB || b == 64 * kMiB) {
      EXPECT_LT(std::fabs(all.rel[i]), 0.15) << b;
    }
  }
  // 2.28.9's constants give the same large-message behaviour.
  const CommModel m28(Topo::dgx_a100(1), version(22809));
  EXPECT_LT(std::fabs(model_busbw(m28, CollKind::kAllReduce, 8 * kGiB) / 231.58 - 1), 0.10);
  // microsoft/mscclpp docs/performance-ndmv4.md (NDm A100 v4, NCCL 2.17.1, 1 GiB in-place):
  // AllReduce 231.45, AllGather 253.59 GB/s busbw.
  EXPECT_LT(std::fabs(model_busbw(m, CollKind::kAllReduce, kGiB) / 231.45 - 1), 0.10);
  EXPECT_LT(std::fabs(model_busbw(m, CollKind::kAllGather, kGiB) / 253.59 - 1), 0.10);
}

// Other published curves, not used to set anything: Azure/AI-benchmarking-guide "Azure
// Results/NDv5 Results.md", all_reduce_perf in-place, NVLS, 8 x H100 (NCCL 2.18.5) and 8 x H200
// (NCCL 2.20.5, whose tables Seer takes from 2.18.5), every size 1 MiB..8 GiB. Held from 8 MiB:
// 10 % per point (below 8 MiB the model is 7-20 % slow: see README "Known limits").
TEST(NcclValidation, H100AndH200FullNvlsCurves) {
  const CommModel m(Topo::dgx_h100(1), version(21805));
  const Errors h100 = compare("H100 2.18.5 full", m, kH100Full);
  const Errors h200 =
      compare("H200 2.20.5 full", CommModel(Topo::hgx_h200(1), version(22005)), kH200Full);
  for (size_t i = 0; i < kH100Full.size(); ++i) {
    if (kH100Full[i].bytes < 8 * kMiB) continue;
    EXPECT_LT(std::fabs(h100.rel[i]), 0.10) << kH100Full[i].bytes;
    EXPECT_LT(std::fabs(h200.rel[i]), 0.10) << kH200Full[i].bytes;
  }
  EXPECT_LT(h100.geo(), 0.05);
  EXPECT_LT(h200.geo(), 0.08);
}

// NVIDIA/nccl-tests issues #212 / #290 (NVIDIA maintainers): on 8 x H100, NCCL_ALGO=RING and
// AllGather / ReduceScatter reach ~370 GB/s busbw ("450 GB/s line rate less ~20 %").
TEST(NcclValidation, H100RingAllGatherReduceScatter) {
  for (int code : {21805, 22809}) {
    const CommModel ring(Topo::dgx_h100(1), version(code), forced("ring"));
    const CommModel dflt(Topo::dgx_h100(1), version(code));
    for (uint64_t s : {1 * kGiB, 8 * kGiB}) {
      const double ar = model_busbw(ring, CollKind::kAllReduce, s);
      const double ag = model_busbw(dflt, CollKind::kAllGather, s);
      const double rs = model_busbw(dflt, CollKind::kReduceScatter, s);
      std::printf("[H100 %d] %llu MiB ring AllReduce %.1f AllGather %.1f ReduceScatter %.1f GB/s\n",
                  code, static_cast<unsigned long long>(s / kMiB), ar, ag, rs);
      EXPECT_NEAR(ar, 370, 37) << code << " " << s;
      EXPECT_NEAR(ag, 370, 37) << code << " " << s;
      EXPECT_NEAR(rs, 370, 37) << code << " " << s;
    }
  }
}

// 2 and 4 DGX H100 nodes, 8 x 400 Gb/s NDR NICs (one per GPU, rail-aligned rings).
// Expected: a Ring AllReduce sends 2(n-1)/n x S out of every node; with the 8 rings spread one
// per NIC that traffic shares 8 NICs, so busbw = algbw x 2(n-1)/n <= 8 x (per-NIC payload rate).
// hardware.md: a NDR NIC delivers ~46-48.5 GB/s in NCCL -> busbw 368-388 GB/s. NCCL's graph
// runs each ring channel at 48 GB/s (the PCIe Gen5 x16 GPU-NIC path, 16 x 32 GT/s / 80 in NCCL's
// units; the NIC itself is 50) -> 8 x 48 = 384 GB/s asymptotically.
TEST(NcclValidation, MultiNodeH100RingIsBoundByNicRails) {
  for (int nodes : {2, 4}) {
    const Topo t = Topo::dgx_h100(nodes);
    const CommModel ring(t, version(22809), forced("ring"));
    const double bb = model_busbw(ring, CollKind::kAllReduce, 8 * kGiB);
    std::printf("[H100 x%d] ring AllReduce 8 GiB busbw %.1f GB/s (rails 8 x 46..48.5)\n", nodes,
                bb);
    EXPECT_GE(bb, 8 * 46.0) << nodes;
    EXPECT_LE(bb, 8 * 48.5) << nodes;
    // Never above the NIC line rate.
    EXPECT_LT(bb, t.nics_per_node * t.nic_gbps);

    // Fewer NICs, proportionally less.
    Topo one_nic = t;
    one_nic.nics_per_node = 1;
    const double one = model_busbw(CommModel(one_nic, version(22809), forced("ring")),
                                   CollKind::kAllReduce, 8 * kGiB);
    EXPECT_NEAR(one, 48.0, 48.0 * 0.05) << nodes;

    // NCCL's default: NVLSTree (NVLink SHARP inside the node, a tree across nodes) on 2 nodes,
    // which moves only S (not 2(n-1)/n x S) through the NICs, so it may exceed the ring's rail
    // bound; Ring again on 4 nodes, where NCCL caps NVLSTree at 45.5 GB/s per channel.
    const CommModel dflt(t, version(22809));
    const Choice c = dflt.choose(Func::kAllReduce, 8 * kGiB);
    const double d = bus_bw_GBps(CollKind::kAllReduce, t.nranks, 8 * kGiB, c.time_us);
    std::printf("[H100 x%d] default AllReduce 8 GiB: %s/%s busbw %.1f GB/s\n", nodes,
                algo_name(c.algo), proto_name(c.proto), d);
    EXPECT_EQ(c.algo, nodes == 2 ? Algo::kNvlsTree : Algo::kRing);
    EXPECT_GE(d, bb * 0.99);
    // Tree-shaped inter-node traffic: algbw <= 8 NICs x 50 GB/s.
    EXPECT_LE(alg_bw_GBps(8 * kGiB, c.time_us), t.nics_per_node * t.nic_gbps);
  }
}

}  // namespace
}  // namespace seer::sim::nccl

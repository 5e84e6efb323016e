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
// 2-16 MiB, Ring Simple from 32 MiB), with Seer's two Ampere terms (Calibration::
// ll128_efficiency_sm80, set from the other published curves below, not from this one, and
// ::sm80_reduce_slice_us, set from the maintainers' ~230 GB/s). Held as ground-truth.md asks:
// 10 % per point, 5 % geometric mean.
TEST(NcclValidation, A100AllReduce) {
  const CommModel m(Topo::dgx_a100(1), version(21805));
  const Errors e = compare("A100 2.18.5", m, kA100);
  for (size_t i = 0; i < e.rel.size(); ++i) {
    EXPECT_LT(std::fabs(e.rel[i]), 0.10) << kA100[i].bytes;
  }
  EXPECT_LT(e.geo(), 0.05);
  EXPECT_EQ(m.choose(Func::kAllReduce, 16 * kMiB).proto, Proto::kLL128);
  EXPECT_EQ(m.choose(Func::kAllReduce, 8 * kGiB).algo, Algo::kRing);
  // The whole published curve (same source, every size 1 MiB..8 GiB): within 10 % except 32 MiB
  // (-15 %: the published per-step cost at 175 KiB chunks is ~11 us, Seer charges ~16 us at every
  // chunk size) and 8 MiB (+9 %).
  const Errors all = compare("A100 2.18.5 full", m, kA100Full);
  for (size_t i = 0; i < kA100Full.size(); ++i) {
    EXPECT_LT(std::fabs(all.rel[i]), kA100Full[i].bytes == 32 * kMiB ? 0.16 : 0.10)
        << kA100Full[i].bytes;
  }
  EXPECT_LT(all.geo(), 0.06);
  // 2.28.9's constants give the same large-message behaviour.
  const CommModel m28(Topo::dgx_a100(1), version(22809));
  EXPECT_LT(std::fabs(model_busbw(m28, CollKind::kAllReduce, 8 * kGiB) / 231.58 - 1), 0.10);
  // microsoft/mscclpp docs/performance-ndmv4.md (NDm A100 v4, NCCL 2.17.1, 1 GiB in-place):
  // AllReduce 231.45, AllGather 253.59 GB/s busbw.
  EXPECT_LT(std::fabs(model_busbw(m, CollKind::kAllReduce, kGiB) / 231.45 - 1), 0.10);
  EXPECT_LT(std::fabs(model_busbw(m, CollKind::kAllGather, kGiB) / 253.59 - 1), 0.10);
}

// Four more published 8 x A100 SXM4 (NVSwitch) all_reduce_perf curves, in-place, every size from
// 1 MiB. Three of them (thanos -g 8, thanos mpirun, Hetu) set ll128_efficiency_sm80: their
// marginal LL128 bus bandwidth from 4 to 16 MiB is 140, 164 and 139 GB/s against NCCL's 220.8
// (0.63, 0.74, 0.63; the median is used). Oracle's small sizes carry ~80 us of fixed cost and an
// 8-16 MiB marginal bandwidth (252 GB/s) above the NVLink line rate, so it was left out there.
//  * thanos: a Chinese-language nccl-tests note, HGX A100-SXM4-80GB, NCCL from pip
//    nvidia-nccl-cu12 (late 2024): `all_reduce_perf -b 8 -e 4G -f 2 -g 8`, and the same under
//    `mpirun -np 8 ... -g 1`.
//  * oracle-japan/ocitutorials, tutorials/_intermediates/spinup-gpu-cluster.md (older revision),
//    OCI BM.GPU4.8 (8 x A100-SXM4-40GB), horovod container, `-b 64 -e 10G -f 2 -g 8`.
//  * AFDWang/Hetu-Galvatron tests/profiler/test_hardware_profile.py (a captured DGX A100 40GB
//    log, `-b 1M -e 1G -f 2 -g 8`).
// The sources disagree with each other by up to 1.5x at 1-8 MiB (launch mode, NCCL release),
// so they are held loosely, from 16 MiB, to catch regressions; the printout shows every point.
TEST(NcclValidation, A100OtherPublishedCurves) {
  const CommModel m(Topo::dgx_a100(1), version(21805));
  const std::vector<std::pair<const char*, std::vector<Point>>> curves = {
      {"A100 thanos -g 8", curve({34.60, 51.45, 71.41, 90.88, 112.92, 132.89, 168.93, 178.98,
                                  196.31, 221.02, 228.02, 229.87, 231.59})},
      {"A100 thanos mpirun", curve({47.58, 66.34, 77.28, 114.84, 135.81, 155.48, 191.03, 197.75,
                                    211.84, 221.26, 227.69, 230.64, 232.93})},
      {"A100 OCI BM.GPU4.8", curve({23.61, 32.28, 54.48, 80.12, 121.65, 147.68, 199.81, 198.62,
                                    222.55, 223.27, 230.13, 231.44, 234.16, 235.21})},
      {"A100 DGX (Hetu)",
       curve({22.57, 33.91, 56.02, 81.26, 101.46, 141.65, 178.57, 186.07, 201.27, 208.00, 229.11})},
  };
  for (const auto& [label, pts] : curves) {
    const Errors e = compare(label, m, pts);
    for (size_t i = 0; i < pts.size(); ++i) {
      if (pts[i].bytes >= 16 * kMiB) {
        EXPECT_LT(std::fabs(e.rel[i]), 0.30) << label << " " << pts[i].bytes;
      }
      if (pts[i].bytes >= 512 * kMiB) {
        EXPECT_LT(std::fabs(e.rel[i]), 0.10) << label << " " << pts[i].bytes;
      }
    }
  }
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

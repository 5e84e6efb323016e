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
// 16 MiB, Ring Simple above). Known gap (reported, not fitted): at 16 MiB and 128 MiB the
// measured Azure curve sits far below NCCL's own estimate (NCCL: 173.6 us at 16 MiB, measured
// 268.8 us; 1034.7 us vs 1348.5 us at 128 MiB). Matching it would mean departing from NCCL's
// model with a curve fit; those two points and the geometric mean are asserted loosely so that a
// regression still shows.
TEST(NcclValidation, A100AllReduce) {
  const CommModel m(Topo::dgx_a100(1), version(21805));
  const Errors e = compare("A100 2.18.5", m, kA100);
  EXPECT_LT(std::fabs(e.rel[0]), 0.10);  // 1 MiB
  EXPECT_LT(std::fabs(e.rel[3]), 0.10);  // 1 GiB
  EXPECT_LT(std::fabs(e.rel[4]), 0.10);  // 8 GiB
  EXPECT_LT(e.rel[1], 0.55);             // 16 MiB: known gap, model too fast
  EXPECT_LT(e.rel[2], 0.35);             // 128 MiB: known gap, model too fast
  EXPECT_LT(e.geo(), 0.18);              // known gap (5 % not held)
  EXPECT_EQ(m.choose(Func::kAllReduce, 8 * kGiB).algo, Algo::kRing);
  // 2.28.9's constants give the same large-message behaviour.
  const CommModel m28(Topo::dgx_a100(1), version(22809));
  EXPECT_LT(std::fabs(model_busbw(m28, CollKind::kAllReduce, 8 * kGiB) / 231.58 - 1), 0.10);
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

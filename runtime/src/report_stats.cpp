#include "report_stats.h"

#include <algorithm>
#include <tuple>

#include "intervals.h"
#include "seer/simcore/nccl/types.h"

namespace seer::rt {

std::string KernelStats::source() const {
  const int n =
      (database_ns > 0) + (library_ns > 0) + (triton_ns > 0) + (family_ns > 0) + (generic_ns > 0);
  if (n > 1) return "mixed";
  if (database_ns > 0) return "database";
  if (library_ns > 0) return "library";
  if (triton_ns > 0) return "triton";
  if (family_ns > 0) return "family";
  return "generic";
}

RunStats compute_stats(const Session& session, const SessionResult& result) {
  const sim::Engine& engine = session.engine();
  RunStats s;
  s.simulated_ns = result.simulated_ns;
  std::vector<GpuStats> gpus(engine.gpu_count());
  std::vector<std::vector<Interval>> intervals(engine.gpu_count());
  std::vector<std::vector<Interval>> compute(engine.gpu_count());
  std::vector<std::vector<Interval>> comm(engine.gpu_count());
  std::map<uint32_t, KernelStats> kernels;
  std::map<uint32_t, KernelStats> without_db;
  struct CollAccum {
    uint64_t count = 0;
    int64_t total_ns = 0;
    int algo = -1;
    int proto = -1;
    int channels = 0;
  };
  std::map<std::tuple<std::string, uint64_t, int>, CollAccum> colls;
  for (const sim::OpRecord& r : engine.records()) {
    const int64_t d = r.end - r.start;
    s.gpu_end_ns = std::max(s.gpu_end_ns, r.end);
    GpuStats& g = gpus[r.gpu];
    intervals[r.gpu].emplace_back(r.start, r.end);
    (r.desc.kind == sim::OpKind::kCollective ? comm : compute)[r.gpu].emplace_back(r.start, r.end);
    s.total_op_ns += d;
    (r.desc.kind == sim::OpKind::kCollective ? s.collective_interference_ns
                                             : s.compute_interference_ns) += r.interference;
    if (r.desc.kind == sim::OpKind::kKernel || r.desc.kind == sim::OpKind::kLibrary) {
      ++g.kernels;
      g.kernel_ns += d;
      if (r.source == sim::TimeSource::kGenericKernel) s.generic_kernel_ns += d;
      if (r.source == sim::TimeSource::kDatabase) s.database_kernel_ns += d;
      if (r.source == sim::TimeSource::kLibraryModel) s.library_kernel_ns += d;
      if (r.source == sim::TimeSource::kTritonModel) s.triton_kernel_ns += d;
      if (r.source == sim::TimeSource::kFamilyModel) s.family_kernel_ns += d;
      s.all_kernel_ns += d;
      KernelStats& k = kernels[r.desc.kernel];
      if (k.count == 0) {
        k.name = engine.kernel_name(r.desc.kernel);
        k.min_ns = d;
        k.max_ns = d;
      }
      ++k.count;
      k.total_ns += d;
      k.min_ns = std::min(k.min_ns, d);
      k.max_ns = std::max(k.max_ns, d);
      if (r.source == sim::TimeSource::kDatabase) k.database_ns += d;
      if (r.source == sim::TimeSource::kLibraryModel) k.library_ns += d;
      if (r.source == sim::TimeSource::kTritonModel) k.triton_ns += d;
      if (r.source == sim::TimeSource::kFamilyModel) k.family_ns += d;
      if (r.source == sim::TimeSource::kGenericKernel) k.generic_ns += d;
      if (r.desc.kind == sim::OpKind::kKernel && r.source != sim::TimeSource::kDatabase) {
        KernelStats& m = without_db[r.desc.kernel];
        if (m.count == 0) {
          m.name = k.name;
          m.min_ns = d;
          m.max_ns = d;
        }
        ++m.count;
        m.total_ns += d;
        m.min_ns = std::min(m.min_ns, d);
        m.max_ns = std::max(m.max_ns, d);
        if (r.source == sim::TimeSource::kGenericKernel) m.generic_ns += d;
      }
    } else if (r.desc.kind == sim::OpKind::kCollective) {
      ++g.collectives;
      g.collective_ns += d;
      // A call's duration is counted on rank 0's record (every rank's op ends together).
      const auto key = std::make_tuple(std::string(sim::coll_kind_name(r.desc.coll)), r.desc.bytes,
                                       r.desc.nranks);
      auto& c = colls[key];
      if (c.count == 0) {
        c.algo = r.desc.algo;
        c.proto = r.desc.proto;
        c.channels = r.desc.nchannels;
      }
      c.count += 1;
      c.total_ns += d;
    } else {
      ++g.copies;
      g.copy_ns += d;
      g.copy_bytes += r.desc.bytes;
    }
  }
  for (int i = 0; i < engine.gpu_count(); ++i) {
    GpuStats& g = gpus[i];
    g.gpu = i;
    g.peak_bytes = engine.peak_bytes(i);
    const std::vector<Interval> all = merged(std::move(intervals[i]));
    const std::vector<Interval> work = merged(std::move(compute[i]));
    const std::vector<Interval> nccl = merged(std::move(comm[i]));
    g.busy_ns = total_length(all);
    g.compute_ns = total_length(work);
    g.comm_ns = total_length(nccl);
    g.overlap_ns = overlap_length(work, nccl);
    g.exposed_comm_ns = g.comm_ns - g.overlap_ns;
    if (g.kernels || g.copies || g.collectives || g.peak_bytes) s.gpus.push_back(g);
  }
  for (GpuStats& g : s.gpus) g.idle_ns = s.gpu_end_ns - g.busy_ns;
  for (auto& [id, k] : kernels) s.kernels.push_back(k);
  for (auto& [id, k] : without_db) s.kernels_without_db.push_back(k);
  for (const auto& [key, acc] : colls) {
    CollectiveStats c;
    c.op = std::get<0>(key);
    c.bytes = std::get<1>(key);
    c.nranks = std::max(1, std::get<2>(key));
    // Each call appears once per participating rank.
    c.count = acc.count / static_cast<uint64_t>(c.op == "Send" || c.op == "Recv" ? 1 : c.nranks);
    c.total_ns = acc.total_ns / static_cast<int64_t>(acc.count / std::max<uint64_t>(1, c.count));
    const double avg = c.count ? static_cast<double>(c.total_ns) / static_cast<double>(c.count) : 0;
    c.algbw_gbs = avg > 0 ? static_cast<double>(c.bytes) / avg : 0;
    const double n = c.nranks;
    double factor = 1;
    if (c.op == "AllReduce") factor = 2 * (n - 1) / n;
    if (c.op == "AllGather" || c.op == "ReduceScatter" || c.op == "AlltoAll") factor = (n - 1) / n;
    c.busbw_gbs = c.algbw_gbs * factor;
    if (acc.algo >= 0) {
      c.algorithm = sim::nccl::algo_name(static_cast<sim::nccl::Algo>(acc.algo));
      c.protocol = sim::nccl::proto_name(static_cast<sim::nccl::Proto>(acc.proto));
    } else {
      // Spelled out: GCC 12 at -O3 reports a false -Wrestrict for the conditional assignment.
      static const std::string kP2p = "p2p", kSimple = "simple", kNone = "-";
      c.algorithm = acc.channels > 0 ? kP2p : kSimple;
      c.protocol = kNone;
    }
    c.channels = acc.channels;
    s.collectives.push_back(c);
  }
  std::sort(s.collectives.begin(), s.collectives.end(),
            [](const CollectiveStats& a, const CollectiveStats& b) {
              if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns;
              return std::tie(a.op, a.bytes) < std::tie(b.op, b.bytes);
            });
  const auto by_time = [](const KernelStats& a, const KernelStats& b) {
    if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns;
    return a.name < b.name;
  };
  std::sort(s.kernels.begin(), s.kernels.end(), by_time);
  std::sort(s.kernels_without_db.begin(), s.kernels_without_db.end(), by_time);
  return s;
}

}  // namespace seer::rt

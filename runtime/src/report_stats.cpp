#include "report_stats.h"

#include <algorithm>

namespace seer::rt {

RunStats compute_stats(const Session& session, const SessionResult& result) {
  const sim::Engine& engine = session.engine();
  RunStats s;
  s.simulated_ns = result.simulated_ns;
  std::vector<GpuStats> gpus(engine.gpu_count());
  std::vector<std::vector<std::pair<int64_t, int64_t>>> intervals(engine.gpu_count());
  std::map<uint32_t, KernelStats> kernels;
  for (const sim::OpRecord& r : engine.records()) {
    const int64_t d = r.end - r.start;
    GpuStats& g = gpus[r.gpu];
    intervals[r.gpu].emplace_back(r.start, r.end);
    s.total_op_ns += d;
    if (r.desc.kind == sim::OpKind::kKernel) {
      ++g.kernels;
      g.kernel_ns += d;
      if (r.source == sim::TimeSource::kGenericKernel) s.generic_kernel_ns += d;
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
    auto& iv = intervals[i];
    std::sort(iv.begin(), iv.end());
    int64_t cur_start = -1, cur_end = -1;
    for (const auto& [a, b] : iv) {
      if (a > cur_end) {
        if (cur_end > cur_start) g.busy_ns += cur_end - cur_start;
        cur_start = a;
        cur_end = b;
      } else {
        cur_end = std::max(cur_end, b);
      }
    }
    if (cur_end > cur_start) g.busy_ns += cur_end - cur_start;
    if (g.kernels || g.copies || g.peak_bytes) s.gpus.push_back(g);
  }
  for (auto& [id, k] : kernels) s.kernels.push_back(k);
  std::sort(s.kernels.begin(), s.kernels.end(), [](const KernelStats& a, const KernelStats& b) {
    if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns;
    return a.name < b.name;
  });
  return s;
}

}  // namespace seer::rt

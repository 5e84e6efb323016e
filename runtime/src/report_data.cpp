#include "report_data.h"

#include <algorithm>
#include <cstdio>
#include <set>

namespace seer::rt {

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

ReportData analyse(const Session& session, const SessionResult& result) {
  ReportData d;
  d.stats = compute_stats(session, result);
  d.nvtx = build_nvtx_timeline(result.nvtx);
  d.steps = detect_steps(session, d.nvtx, session.options().step_range);
  for (const sim::OpRecord& r : session.engine().records())
    d.gpu_process.try_emplace(r.gpu, r.process);
  for (const auto& s : session.engine().streams()) d.gpu_process.try_emplace(s.gpu, s.process);
  for (const ProcessInfo& p : result.processes) {
    d.process_rank[p.process] = p.rank;
    d.process_index.try_emplace(p.process, static_cast<int>(d.process_index.size()));
  }
  return d;
}

std::string process_label(const Session& session, const ReportData& data, int process) {
  const sim::Engine& e = session.engine();
  std::set<int> gpus;
  for (const auto& [gpu, p] : data.gpu_process) {
    if (p == process) gpus.insert(gpu);
  }
  auto it = data.process_rank.find(process);
  std::string label = it != data.process_rank.end() && it->second >= 0
                          ? "rank " + std::to_string(it->second)
                          : "process " + std::to_string(data.process_index.count(process)
                                                            ? data.process_index.at(process)
                                                            : process);
  if (gpus.empty()) return label;
  const int first = *gpus.begin(), last = *gpus.rbegin();
  // Appended piece by piece: GCC 12 at -O3 reports a false -Wrestrict for "literal" + string.
  label.append(" (node ").append(std::to_string(e.gpu_node(first)));
  if (e.gpu_node(last) != e.gpu_node(first)) {
    label.append("-").append(std::to_string(e.gpu_node(last)));
  }
  if (gpus.size() == 1) {
    label.append(", GPU ").append(std::to_string(first));
  } else {
    label.append(", GPUs ").append(std::to_string(first)).append("-").append(std::to_string(last));
  }
  return label + ")";
}

std::string process_file_stem(const ReportData& data, int process) {
  auto r = data.process_rank.find(process);
  if (r != data.process_rank.end() && r->second >= 0) return "rank" + std::to_string(r->second);
  auto i = data.process_index.find(process);
  return "process" + std::to_string(i != data.process_index.end() ? i->second : process);
}

std::string gpu_label(const Session& session, const ReportData& data, int gpu) {
  std::string label =
      "node " + std::to_string(session.engine().gpu_node(gpu)) + " gpu " + std::to_string(gpu);
  auto p = data.gpu_process.find(gpu);
  if (p == data.gpu_process.end()) return label;
  auto r = data.process_rank.find(p->second);
  if (r != data.process_rank.end() && r->second >= 0) {
    // A process driving several GPUs is one rank: show the rank only for one-GPU processes.
    int count = 0;
    for (const auto& [g, proc] : data.gpu_process) count += proc == p->second;
    if (count == 1) label += " (rank " + std::to_string(r->second) + ")";
  }
  return label;
}

}  // namespace seer::rt

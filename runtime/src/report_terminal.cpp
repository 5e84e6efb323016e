// The report printed after `seer run`.

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "report_data.h"
#include "seer/runtime/report.h"

namespace seer::rt {
namespace {

// A kernel name as a terminal line can show it: a long one loses its return type, parameter list
// and template arguments below the first level, and is cut at kMaxName characters (summary.json
// and the trace keep full names).
std::string short_kernel_name(const std::string& name) {
  constexpr size_t kMaxName = 110;
  if (name.size() <= kMaxName) return name;
  std::string n = name.rfind("void ", 0) == 0 ? name.substr(5) : name;
  if (!n.empty() && n.back() == ')') {
    int depth = 0;
    for (size_t i = n.size(); i-- > 0;) {
      if (n[i] == ')') ++depth;
      if (n[i] == '(' && --depth == 0) {
        n.erase(i);
        break;
      }
    }
  }
  std::string out;
  int depth = 0;
  for (char ch : n) {
    if (ch == '<' && ++depth == 2) out += "<...";
    if (ch == '>' && depth-- == 2) {
      out += '>';
      continue;
    }
    if (depth < 2) out += ch;
  }
  if (out.size() > kMaxName) out = out.substr(0, kMaxName - 3) + "...";
  return out;
}

std::string host_time_name(HostTime h) { return h == HostTime::kModeled ? "modeled" : "measured"; }

std::string pct(int64_t part, int64_t whole) {
  return whole > 0 ? fmt("%.1f%%", 100.0 * static_cast<double>(part) / static_cast<double>(whole))
                   : "-";
}

void print_steps(std::ostream& out, const Steps& s) {
  if (s.source == "whole_run") {
    out << "steps        none found (no NVTX step ranges, no recurring collective sequence): the "
           "run is one step of "
        << human_time(s.mean_ns) << "\n";
    if (!s.note.empty()) out << "             " << s.note << "\n";
    return;
  }
  const size_t n = s.steps.size();
  out << "steps        " << n << " step" << (n == 1 ? "" : "s") << " on " << s.processes << " rank"
      << (s.processes == 1 ? "" : "s") << ", "
      << (s.source == "nvtx" ? "from NVTX ranges (" + s.label + ")"
                             : "detected from the recurring collectives (" + s.label +
                                   "; NVTX step ranges give exact steps)")
      << "\n";
  if (!s.note.empty()) out << "             " << s.note << "\n";
  if (s.warmup_excluded) {
    out << "warm-up      first step " << human_time(s.steps.front().duration)
        << " (not in the figures below)\n";
  }
  out << "step time    mean " << human_time(s.mean_ns) << "   p50 " << human_time(s.p50_ns)
      << "   max " << human_time(s.max_ns) << "   min " << human_time(s.min_ns)
      << "   (each step: its slowest rank)\n";
  const std::string bound = boundedness(s);
  if (bound == "gpu") {
    out << "bound        GPU: busy " << fmt("%.0f%%", 100 * s.gpu_busy_share) << " of step time\n";
  } else if (bound == "host") {
    out << "bound        host: GPUs busy " << fmt("%.0f%%", 100 * s.gpu_busy_share)
        << " of step time; the ranks' host work (Python, framework, launches) sets the pace\n";
  } else if (bound == "mixed") {
    out << "bound        mixed: GPUs busy " << fmt("%.0f%%", 100 * s.gpu_busy_share)
        << " of step time\n";
  }
}

// "measured (this machine's CPU time x 1.34 for Xeon-Platinum-8480C hosts ...)".
std::string host_time_line(const SessionOptions& o) {
  std::string line = host_time_name(o.host_time);
  const std::optional<HostCpuPlan>& plan = o.host_cpu_plan;
  const std::string cpu = plan && plan->target ? plan->target->name : "";
  if (o.host_time == HostTime::kMeasured) {
    if (cpu.empty())
      return line + " (this machine's CPU stands in for the hosts': no node.host_cpu)";
    return line + " (this machine's CPU time x " + fmt("%.2f", o.costs.cpu_scale) +
           ": it runs interpreter work " + fmt("%.2f", o.costs.cpu_scale) + "x as fast as the " +
           cpu + " hosts; simcore/src/HOST_CPU.md)";
  }
  return line + " (" + (cpu.empty() ? "reference host" : cpu + " hosts") + ": " +
         fmt("%.1f us", static_cast<double>(o.costs.framework_op) / 1e3) +
         " per PyTorch operation, fixed API costs)";
}

void print_gpus(std::ostream& out, const Session& session, const ReportData& d) {
  const RunStats& s = d.stats;
  out << "\nPer GPU                        compute  exposed comm       overlap          idle   "
         "kernels   nccl   peak memory\n";
  const size_t shown = std::min<size_t>(s.gpus.size(), 16);
  for (size_t i = 0; i < shown; ++i) {
    const GpuStats& g = s.gpus[i];
    char line[320];
    std::snprintf(line, sizeof line, "%-27s %11s %13s %13s %13s %9" PRIu64 " %6" PRIu64 " %13s\n",
                  gpu_label(session, d, g.gpu).c_str(), human_time(g.compute_ns).c_str(),
                  human_time(g.exposed_comm_ns).c_str(), human_time(g.overlap_ns).c_str(),
                  human_time(g.idle_ns).c_str(), g.kernels, g.collectives,
                  human_bytes(g.peak_bytes).c_str());
    out << line;
  }
  if (shown < s.gpus.size()) {
    out << "  ... " << s.gpus.size() - shown << " more GPUs in summary.json\n";
  }
  out << "  compute: kernels, library calls and copies; exposed comm: NCCL with no compute under "
         "it; overlap: both; idle: neither (up to the end of the last GPU op)\n";
}

void print_collectives(std::ostream& out, const RunStats& s) {
  if (s.collectives.empty()) return;
  out << "\nCollectives (operation, bytes, ranks, calls, total, avg, algbw, busbw, algorithm/"
         "protocol/channels)\n";
  for (size_t i = 0; i < std::min<size_t>(s.collectives.size(), 12); ++i) {
    const CollectiveStats& c = s.collectives[i];
    char line[256];
    std::snprintf(line, sizeof line,
                  "  %-14s %12s %5d %7" PRIu64 " %12s %12s %8.1f GB/s %8.1f GB/s  %s/%s/%d\n",
                  c.op.c_str(), human_bytes(c.bytes).c_str(), c.nranks, c.count,
                  human_time(c.total_ns).c_str(),
                  human_time(c.count ? c.total_ns / static_cast<int64_t>(c.count) : 0).c_str(),
                  c.algbw_gbs, c.busbw_gbs, c.algorithm.c_str(), c.protocol.c_str(), c.channels);
    out << line;
  }
  if (s.collectives.size() > 12) {
    out << "  ... " << s.collectives.size() - 12 << " more in summary.json\n";
  }
}

void print_kernels(std::ostream& out, const Session& session, const RunStats& s) {
  if (s.kernels.empty()) return;
  out << "\nTop kernels (time %, total, instances, avg, min, max, name)\n";
  int64_t all = 0;
  for (const auto& k : s.kernels) all += k.total_ns;
  for (size_t i = 0; i < std::min<size_t>(s.kernels.size(), 10); ++i) {
    const KernelStats& k = s.kernels[i];
    char line[256];
    std::snprintf(line, sizeof line, "  %6s %12s %8" PRIu64 " %12s %12s %12s  ",
                  pct(k.total_ns, all).c_str(), human_time(k.total_ns).c_str(), k.count,
                  human_time(k.total_ns / static_cast<int64_t>(k.count)).c_str(),
                  human_time(k.min_ns).c_str(), human_time(k.max_ns).c_str());
    out << line << short_kernel_name(k.name) << "\n";
  }
  if (s.all_kernel_ns > 0) {
    out << "\ntime sources " << pct(s.database_kernel_ns, s.all_kernel_ns) << " kernel database, "
        << pct(s.library_kernel_ns, s.all_kernel_ns) << " library models, ";
    if (s.triton_kernel_ns > 0) {
      out << pct(s.triton_kernel_ns, s.all_kernel_ns)
          << " Triton model (IR loads/stores x size arguments; interim, see TRITON_MODEL.md), ";
    }
    if (s.family_kernel_ns > 0) {
      out << pct(s.family_kernel_ns, s.all_kernel_ns)
          << " kernel-family models (simcore/src/ATEN_KERNELS.md), ";
    }
    out << pct(s.generic_kernel_ns, s.all_kernel_ns)
        << " generic fallback (launch geometry only) of simulated kernel time\n";
  }
  if (s.compute_interference_ns > 0 || s.collective_interference_ns > 0) {
    out << "interference " << human_time(s.compute_interference_ns)
        << " added to compute beside collectives, " << human_time(s.collective_interference_ns)
        << " to collectives beside memory-bound compute (simcore/src/INTERFERENCE.md)\n";
  }
  if (!session.options().kernel_db.empty() && !s.kernels_without_db.empty()) {
    out << "\nTop kernels without a database entry (total, instances, name)\n";
    for (size_t i = 0; i < std::min<size_t>(s.kernels_without_db.size(), 10); ++i) {
      const KernelStats& k = s.kernels_without_db[i];
      char line[128];
      std::snprintf(line, sizeof line, "  %12s %8" PRIu64 "  ", human_time(k.total_ns).c_str(),
                    k.count);
      out << line << short_kernel_name(k.name) << "\n";
    }
  }
}

}  // namespace

void print_report(std::ostream& out, const Session& session, const SessionResult& result,
                  const RunDescription& run) {
  const ReportData d = analyse(session, result);
  const RunStats& s = d.stats;
  const ClusterSpec& c = session.options().cluster;
  out << "\n== seer report ==\n";
  out << "cluster      " << c.name << ": " << c.nodes << " node" << (c.nodes > 1 ? "s" : "")
      << " x " << c.gpus_per_node << " " << c.gpu.name << " (" << c.source << ")\n";
  out << "host time    " << host_time_line(session.options()) << "\n";
  out << "program      " << run.exit_description << "\n";
  const auto workers =
      static_cast<size_t>(std::count_if(result.processes.begin(), result.processes.end(),
                                        [](const ProcessInfo& p) { return p.submitted_work; }));
  const size_t others = result.processes.size() - workers;
  out << "ranks        " << result.processes.size() << " process"
      << (result.processes.size() == 1 ? "" : "es") << " joined the simulation";
  if (others > 0 && workers > 0) {
    out << " (" << others << " only asked about devices: a launcher or a compile worker)";
  }
  out << "\n";
  out << "simulated    " << human_time(s.gpu_end_ns) << " (end of the last GPU op)\n";
  print_steps(out, d.steps);
  print_gpus(out, session, d);
  print_collectives(out, s);
  print_kernels(out, session, s);
  out << "wall time    " << fmt("%.3f s", result.wall_seconds) << "; "
      << fmt("%.3g", result.wall_seconds > 0
                         ? static_cast<double>(s.simulated_ns) / 1e9 / result.wall_seconds
                         : 0.0)
      << " simulated s per wall s; " << result.records << " records ("
      << fmt("%.3g", result.wall_seconds > 0
                         ? static_cast<double>(result.records) / result.wall_seconds
                         : 0.0)
      << "/s), " << result.requests << " blocking calls\n";
  if (d.nvtx.unclosed > 0) {
    out << "nvtx         " << d.nvtx.unclosed
        << " range(s) were still open when the program ended (not shown)\n";
  }
  for (const auto& p : result.problems) out << "problem      " << p << "\n";
}

}  // namespace seer::rt

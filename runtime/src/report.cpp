#include "seer/runtime/report.h"

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>

#include "report_stats.h"

namespace seer::rt {
namespace {

using nlohmann::ordered_json;

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string gpu_label(const sim::Engine& e, int gpu) {
  return "node " + std::to_string(e.gpu_node(gpu)) + " gpu " + std::to_string(gpu);
}

std::string host_time_name(HostTime h) { return h == HostTime::kModeled ? "modeled" : "measured"; }

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) throw std::runtime_error("cannot write " + path.string() + ": " + std::strerror(errno));
  f << text;
  if (!f) throw std::runtime_error("cannot write " + path.string() + ": " + std::strerror(errno));
}

}  // namespace

std::string human_time(int64_t ns) {
  const double v = static_cast<double>(ns);
  if (ns < 10'000) return std::to_string(ns) + " ns";
  if (ns < 10'000'000) return fmt("%.2f us", v / 1e3);
  if (ns < 10'000'000'000) return fmt("%.3f ms", v / 1e6);
  return fmt("%.3f s", v / 1e9);
}

std::string human_bytes(uint64_t bytes) {
  const double v = static_cast<double>(bytes);
  if (bytes < 1024) return std::to_string(bytes) + " B";
  if (bytes < (1u << 20)) return fmt("%.1f KiB", v / 1024);
  if (bytes < (1ull << 30)) return fmt("%.1f MiB", v / 1048576);
  return fmt("%.2f GiB", v / 1073741824);
}

void print_report(std::ostream& out, const Session& session, const SessionResult& result,
                  const RunDescription& run) {
  const RunStats s = compute_stats(session, result);
  const ClusterSpec& c = session.options().cluster;
  const sim::Engine& e = session.engine();
  out << "\n== seer report ==\n";
  out << "cluster      " << c.name << ": " << c.nodes << " node" << (c.nodes > 1 ? "s" : "")
      << " x " << c.gpus_per_node << " " << c.gpu.name << " (" << c.source << ")\n";
  out << "host time    " << host_time_name(session.options().host_time) << "\n";
  out << "program      " << run.exit_description << "\n";
  out << "ranks        " << result.processes.size() << " process"
      << (result.processes.size() == 1 ? "" : "es") << " joined the simulation\n";
  out << "simulated    " << human_time(s.simulated_ns) << "\n\n";

  out << "GPU                      busy   kernels  kernel time   copies   copy time    nccl   nccl "
         "time   peak memory\n";
  const size_t shown = std::min<size_t>(s.gpus.size(), 16);
  for (size_t i = 0; i < shown; ++i) {
    const GpuStats& g = s.gpus[i];
    char line[256];
    std::snprintf(line, sizeof line,
                  "%-18s %12s %9" PRIu64 " %12s %8" PRIu64 " %11s %7" PRIu64 " %11s %13s\n",
                  gpu_label(e, g.gpu).c_str(), human_time(g.busy_ns).c_str(), g.kernels,
                  human_time(g.kernel_ns).c_str(), g.copies, human_time(g.copy_ns).c_str(),
                  g.collectives, human_time(g.collective_ns).c_str(),
                  human_bytes(g.peak_bytes).c_str());
    out << line;
  }
  if (shown < s.gpus.size())
    out << "  ... " << s.gpus.size() - shown << " more GPUs in summary.json\n";
  if (!s.collectives.empty()) {
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
  }
  if (!s.kernels.empty()) {
    out << "\nTop kernels (time %, total, instances, avg, name)\n";
    const size_t n = std::min<size_t>(s.kernels.size(), 10);
    int64_t all = 0;
    for (const auto& k : s.kernels) all += k.total_ns;
    for (size_t i = 0; i < n; ++i) {
      const KernelStats& k = s.kernels[i];
      char line[512];
      std::snprintf(line, sizeof line, "  %5.1f%% %12s %8" PRIu64 " %12s  %s\n",
                    all ? 100.0 * static_cast<double>(k.total_ns) / static_cast<double>(all) : 0.0,
                    human_time(k.total_ns).c_str(), k.count,
                    human_time(k.total_ns / static_cast<int64_t>(k.count)).c_str(), k.name.c_str());
      out << line;
    }
  }
  int64_t kernel_ns = 0;
  for (const GpuStats& g : s.gpus) kernel_ns += g.kernel_ns;
  if (kernel_ns > 0) {
    out << "\nestimated    "
        << fmt("%.1f",
               100.0 * static_cast<double>(s.generic_kernel_ns) / static_cast<double>(kernel_ns))
        << "% of kernel time came from the generic kernel model (launch geometry only)\n";
    const auto pct = [&](int64_t v) {
      return fmt("%.1f%%", 100.0 * static_cast<double>(v) / static_cast<double>(s.all_kernel_ns));
    };
    if (s.all_kernel_ns > 0) {
      out << "time sources " << pct(s.database_kernel_ns) << " kernel database, "
          << pct(s.library_kernel_ns) << " library models, " << pct(s.generic_kernel_ns)
          << " generic fallback (of simulated kernel time)\n";
    }
    if (!session.options().kernel_db.empty() && !s.kernels_without_db.empty()) {
      out << "\nTop kernels without a database entry (total, instances, name)\n";
      for (size_t i = 0; i < std::min<size_t>(s.kernels_without_db.size(), 10); ++i) {
        const KernelStats& k = s.kernels_without_db[i];
        char line[512];
        std::snprintf(line, sizeof line, "  %12s %8" PRIu64 "  %s\n",
                      human_time(k.total_ns).c_str(), k.count, k.name.c_str());
        out << line;
      }
    }
  }
  out << "wall time    " << fmt("%.3f s", result.wall_seconds) << "; "
      << fmt("%.3g", result.wall_seconds > 0
                         ? static_cast<double>(s.simulated_ns) / 1e9 / result.wall_seconds
                         : 0.0)
      << " simulated s per wall s; " << result.records << " records, " << result.requests
      << " blocking calls\n";
  for (const auto& p : result.problems) out << "problem      " << p << "\n";
}

std::string summary_json(const Session& session, const SessionResult& result,
                         const RunDescription& run) {
  const RunStats s = compute_stats(session, result);
  const ClusterSpec& c = session.options().cluster;
  const sim::Engine& e = session.engine();
  ordered_json j;
  j["schema"] = "seer.summary";
  j["schema_version"] = 1;
  j["cluster"] = {{"name", c.name},
                  {"source", c.source},
                  {"nodes", c.nodes},
                  {"gpus_per_node", c.gpus_per_node},
                  {"gpu", c.gpu.name}};
  j["host_time"] = host_time_name(session.options().host_time);
  j["command"] = run.command;
  j["exit_code"] = run.exit_code;
  // The end of the last GPU operation: what the ranks did on the host after it (waiting in MPI,
  // reading clocks) can vary from run to run, so it is in run.json, not here.
  j["simulated_time_ns"] = s.gpu_end_ns;
  ordered_json procs = ordered_json::array();
  for (const ProcessInfo& p : result.processes) {
    procs.push_back(
        {{"process", p.process}, {"rank", p.rank}, {"exited_normally", p.said_goodbye}});
  }
  j["processes"] = procs;
  ordered_json gpus = ordered_json::array();
  for (const GpuStats& g : s.gpus) {
    gpus.push_back(
        {{"gpu", g.gpu},
         {"node", e.gpu_node(g.gpu)},
         {"busy_ns", g.busy_ns},
         {"kernels", {{"count", g.kernels}, {"time_ns", g.kernel_ns}}},
         {"copies", {{"count", g.copies}, {"time_ns", g.copy_ns}, {"bytes", g.copy_bytes}}},
         {"collectives", {{"count", g.collectives}, {"time_ns", g.collective_ns}}},
         {"peak_memory_bytes", g.peak_bytes}});
  }
  j["gpus"] = gpus;
  ordered_json kernels = ordered_json::array();
  for (const KernelStats& k : s.kernels) {
    kernels.push_back({{"name", k.name},
                       {"count", k.count},
                       {"total_ns", k.total_ns},
                       {"avg_ns", k.total_ns / static_cast<int64_t>(k.count)},
                       {"min_ns", k.min_ns},
                       {"max_ns", k.max_ns},
                       {"source", k.source()}});
  }
  j["kernels"] = kernels;
  ordered_json colls = ordered_json::array();
  for (const CollectiveStats& c : s.collectives) {
    colls.push_back({{"op", c.op},
                     {"bytes", c.bytes},
                     {"nranks", c.nranks},
                     {"count", c.count},
                     {"total_ns", c.total_ns},
                     {"avg_ns", c.count ? c.total_ns / static_cast<int64_t>(c.count) : 0},
                     {"algbw_gbs", c.algbw_gbs},
                     {"busbw_gbs", c.busbw_gbs},
                     {"algorithm", c.algorithm},
                     {"protocol", c.protocol},
                     {"channels", c.channels}});
  }
  j["collectives"] = colls;
  const auto share = [&](int64_t v) {
    return s.all_kernel_ns > 0 ? static_cast<double>(v) / static_cast<double>(s.all_kernel_ns)
                               : 0.0;
  };
  ordered_json without_db = ordered_json::array();
  for (size_t i = 0; i < std::min<size_t>(s.kernels_without_db.size(), 10); ++i) {
    const KernelStats& k = s.kernels_without_db[i];
    without_db.push_back({{"name", k.name}, {"count", k.count}, {"total_ns", k.total_ns}});
  }
  j["time_sources"] = {{"generic_kernel_ns", s.generic_kernel_ns},
                       {"all_ops_ns", s.total_op_ns},
                       {"kernel_ns", s.all_kernel_ns},
                       {"database_kernel_ns", s.database_kernel_ns},
                       {"library_kernel_ns", s.library_kernel_ns},
                       {"kernel_shares",
                        {{"database", share(s.database_kernel_ns)},
                         {"library_model", share(s.library_kernel_ns)},
                         {"generic", share(s.generic_kernel_ns)}}},
                       {"top_kernels_without_db_entry", without_db}};
  j["problems"] = result.problems;
  return j.dump(2) + "\n";
}

std::string run_json(const Session& session, const SessionResult& result) {
  ordered_json j;
  j["schema"] = "seer.run";
  j["schema_version"] = 1;
  j["wall_seconds"] = result.wall_seconds;
  j["simulated_seconds_per_wall_second"] =
      result.wall_seconds > 0 ? static_cast<double>(result.simulated_ns) / 1e9 / result.wall_seconds
                              : 0.0;
  j["records"] = result.records;
  j["blocking_requests"] = result.requests;
  ordered_json procs = ordered_json::array();
  for (const ProcessInfo& p : result.processes) {
    procs.push_back({{"process", p.process},
                     {"rank", p.rank},
                     {"pid", p.pid},
                     {"program", p.program},
                     {"last_call_time_ns", p.last_time}});
  }
  j["processes"] = procs;
  return j.dump(2) + "\n";
}

std::string trace_json(const Session& session, const SessionResult& result) {
  const sim::Engine& e = session.engine();
  ordered_json events = ordered_json::array();
  std::map<int, std::string> process_names;
  for (const ProcessInfo& p : result.processes) {
    process_names[p.process] =
        (p.rank >= 0 ? "rank " + std::to_string(p.rank) : "process " + std::to_string(p.process)) +
        (p.program.empty() ? "" : " (" + p.program + ")");
  }
  for (const auto& [pid, name] : process_names) {
    events.push_back(
        {{"ph", "M"}, {"name", "process_name"}, {"pid", pid}, {"args", {{"name", name}}}});
  }
  const auto& streams = e.streams();
  for (size_t i = 0; i < streams.size(); ++i) {
    const auto& s = streams[i];
    const std::string name = "GPU " + std::to_string(s.gpu) + " " +
                             (s.legacy_default ? std::string("default stream")
                                               : "stream " + std::to_string(s.client_id));
    events.push_back({{"ph", "M"},
                      {"name", "thread_name"},
                      {"pid", s.process},
                      {"tid", static_cast<int>(i)},
                      {"args", {{"name", name}}}});
  }
  for (const sim::OpRecord& r : e.records()) {
    const bool named = r.desc.kind == sim::OpKind::kKernel || r.desc.kind == sim::OpKind::kLibrary;
    std::string name = named ? e.kernel_name(r.desc.kernel) : sim::op_kind_name(r.desc.kind);
    if (r.desc.kind == sim::OpKind::kCollective)
      name = std::string("nccl") + sim::coll_kind_name(r.desc.coll);
    ordered_json ev = {{"ph", "X"},
                       {"name", name},
                       {"cat", named                                     ? "kernel"
                               : r.desc.kind == sim::OpKind::kCollective ? "nccl"
                                                                         : "memory"},
                       {"pid", r.process},
                       {"tid", r.stream},
                       {"ts", static_cast<double>(r.start) / 1e3},
                       {"dur", static_cast<double>(r.end - r.start) / 1e3}};
    if (r.desc.kind == sim::OpKind::kKernel) {
      const auto& g = r.desc.geometry;
      ev["args"] = {{"grid", {g.gx, g.gy, g.gz}},
                    {"block", {g.bx, g.by, g.bz}},
                    {"submit_us", static_cast<double>(r.submit) / 1e3}};
    } else {
      ev["args"] = {{"bytes", r.desc.bytes}, {"submit_us", static_cast<double>(r.submit) / 1e3}};
    }
    events.push_back(std::move(ev));
  }
  ordered_json j;
  j["traceEvents"] = std::move(events);
  j["displayTimeUnit"] = "ns";
  return j.dump() + "\n";
}

void write_reports(const std::string& dir, const Session& session, const SessionResult& result,
                   const RunDescription& run) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create --out directory " + dir + ": " + ec.message());
  const std::filesystem::path d(dir);
  write_file(d / "summary.json", summary_json(session, result, run));
  write_file(d / "run.json", run_json(session, result));
  write_file(d / "trace.json", trace_json(session, result));
}

}  // namespace seer::rt

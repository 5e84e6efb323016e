// summary.json (deterministic results, schema in runtime/SUMMARY_SCHEMA.md) and run.json (facts
// about one execution).

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "report_data.h"
#include "seer/runtime/report.h"

namespace seer::rt {
namespace {

using nlohmann::ordered_json;

std::string host_time_name(HostTime h) { return h == HostTime::kModeled ? "modeled" : "measured"; }

ordered_json steps_json(const Steps& s) {
  ordered_json j;
  j["source"] = s.source;
  j["label"] = s.label;
  if (!s.note.empty()) j["note"] = s.note;
  if (s.source == "whole_run") {
    // No steps: gating on step time would silently gate on the whole run.
    j["count"] = 0;
    j["whole_run_ns"] = s.mean_ns;
    return j;
  }
  j["count"] = s.steps.size();
  j["ranks"] = s.processes;
  j["warmup_excluded"] = s.warmup_excluded;
  j["warmup_ns"] = s.warmup_excluded ? s.steps.front().duration : 0;
  j["mean_ns"] = s.mean_ns;
  j["p50_ns"] = s.p50_ns;
  if (s.gpu_busy_share >= 0) {
    j["gpu_busy_share"] = std::round(s.gpu_busy_share * 1e4) / 1e4;
    j["bound"] = boundedness(s);
  }
  j["min_ns"] = s.min_ns;
  j["max_ns"] = s.max_ns;
  ordered_json list = ordered_json::array();
  for (size_t i = 0; i < std::min<size_t>(s.steps.size(), 1000); ++i) {
    const StepInfo& st = s.steps[i];
    list.push_back({{"index", i},
                    {"start_ns", st.start},
                    {"end_ns", st.end},
                    {"duration_ns", st.duration},
                    {"fastest_rank_ns", st.fastest},
                    {"slowest_process", st.slowest_process}});
  }
  j["per_step"] = list;
  return j;
}

ordered_json nvtx_json(const NvtxTimeline& t) {
  struct Acc {
    uint64_t count = 0;
    int64_t total = 0, min = 0, max = 0;
  };
  std::map<std::pair<std::string, std::string>, Acc> by_name;
  for (const NvtxRange& r : t.ranges) {
    Acc& a = by_name[{r.domain, normalized_name(r.name)}];
    const int64_t d = r.end - r.start;
    a.min = a.count ? std::min(a.min, d) : d;
    a.max = a.count ? std::max(a.max, d) : d;
    ++a.count;
    a.total += d;
  }
  std::vector<std::pair<std::pair<std::string, std::string>, Acc>> rows(by_name.begin(),
                                                                        by_name.end());
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.second.total > b.second.total; });
  ordered_json list = ordered_json::array();
  for (size_t i = 0; i < std::min<size_t>(rows.size(), 50); ++i) {
    const auto& [key, a] = rows[i];
    list.push_back({{"name", key.second},
                    {"domain", key.first},
                    {"count", a.count},
                    {"total_ns", a.total},
                    {"avg_ns", a.total / static_cast<int64_t>(a.count)},
                    {"min_ns", a.min},
                    {"max_ns", a.max}});
  }
  return {{"ranges", t.ranges.size()},
          {"marks", t.marks.size()},
          {"unclosed", t.unclosed},
          {"by_name", list}};
}

}  // namespace

std::string summary_json(const Session& session, const SessionResult& result,
                         const RunDescription& run) {
  return summary_json(session, result, run, analyse(session, result));
}

std::string summary_json(const Session& session, const SessionResult& result,
                         const RunDescription& run, const ReportData& d) {
  const RunStats& s = d.stats;
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
  {
    const SessionOptions& o = session.options();
    const auto& plan = o.host_cpu_plan;
    ordered_json host = {{"cpu", plan && plan->target ? plan->target->name : ""},
                         {"framework_op_ns", o.costs.framework_op}};
    if (o.host_time == HostTime::kMeasured) host["cpu_scale"] = o.costs.cpu_scale;
    j["host"] = host;
  }
  j["command"] = run.command;
  j["exit_code"] = run.exit_code;
  // The end of the last GPU operation: what the ranks did on the host after it (waiting in MPI,
  // reading clocks) can vary from run to run, so it is in run.json, not here.
  j["simulated_time_ns"] = s.gpu_end_ns;
  j["steps"] = steps_json(d.steps);
  ordered_json procs = ordered_json::array();
  for (const ProcessInfo& p : result.processes) {
    procs.push_back({{"process", p.process},
                     {"rank", p.rank},
                     {"label", process_label(session, d, p.process)},
                     {"exited_normally", p.said_goodbye},
                     {"submitted_work", p.submitted_work}});
  }
  j["processes"] = procs;
  ordered_json gpus = ordered_json::array();
  for (const GpuStats& g : s.gpus) {
    auto proc = d.gpu_process.find(g.gpu);
    gpus.push_back(
        {{"gpu", g.gpu},
         {"node", e.gpu_node(g.gpu)},
         {"process", proc == d.gpu_process.end() ? -1 : proc->second},
         {"busy_ns", g.busy_ns},
         {"compute_ns", g.compute_ns},
         {"comm_ns", g.comm_ns},
         {"overlap_ns", g.overlap_ns},
         {"exposed_comm_ns", g.exposed_comm_ns},
         {"idle_ns", g.idle_ns},
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
  j["nvtx"] = nvtx_json(d.nvtx);
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
                       {"triton_kernel_ns", s.triton_kernel_ns},
                       {"family_kernel_ns", s.family_kernel_ns},
                       {"kernel_shares",
                        {{"database", share(s.database_kernel_ns)},
                         {"library_model", share(s.library_kernel_ns)},
                         {"triton_model", share(s.triton_kernel_ns)},
                         {"family_model", share(s.family_kernel_ns)},
                         {"generic", share(s.generic_kernel_ns)}}},
                       {"top_kernels_without_db_entry", without_db}};
  j["interference"] = {{"compute_ns", s.compute_interference_ns},
                       {"collective_ns", s.collective_interference_ns}};
  j["problems"] = result.problems;
  return j.dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

std::string run_json(const Session&, const SessionResult& result) {
  ordered_json j;
  j["schema"] = "seer.run";
  j["schema_version"] = 1;
  j["wall_seconds"] = result.wall_seconds;
  j["simulated_seconds_per_wall_second"] =
      result.wall_seconds > 0 ? static_cast<double>(result.simulated_ns) / 1e9 / result.wall_seconds
                              : 0.0;
  j["records"] = result.records;
  j["records_per_second"] =
      result.wall_seconds > 0 ? static_cast<double>(result.records) / result.wall_seconds : 0.0;
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
  return j.dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace seer::rt

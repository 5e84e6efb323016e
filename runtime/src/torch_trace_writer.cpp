// Per-rank traces shaped like the PyTorch profiler's (Kineto's JSON): what tools built for
// those files (Holistic Trace Analysis, TensorBoard's profiler plugin) read — device properties,
// distributedInfo, GPU kernels/memcpys/memsets by device and stream, NCCL kernels named the way
// NCCL names them, and NVTX ranges and steps as user annotations ("ProfilerStep#N").

#include <algorithm>
#include <cctype>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "report_data.h"
#include "seer/runtime/report.h"
#include "seer/simcore/nccl/types.h"

namespace seer::rt {
namespace {

using nlohmann::ordered_json;

double us(int64_t ns) { return static_cast<double>(ns) / 1e3; }

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

ordered_json gpu_event(const sim::Engine& e, const sim::OpRecord& r, uint64_t correlation) {
  std::string name, cat = "kernel";
  ordered_json args = {{"device", r.gpu}, {"stream", r.stream}, {"correlation", correlation}};
  switch (r.desc.kind) {
    case sim::OpKind::kKernel:
    case sim::OpKind::kLibrary: {
      name = e.kernel_name(r.desc.kernel);
      const auto& g = r.desc.geometry;
      args["grid"] = {g.gx, g.gy, g.gz};
      args["block"] = {g.bx, g.by, g.bz};
      break;
    }
    case sim::OpKind::kCollective: {
      const std::string op = sim::coll_kind_name(r.desc.coll);
      name = "ncclDevKernel_" + op;
      if (r.desc.algo >= 0) {
        name += std::string("_") +
                upper(sim::nccl::algo_name(static_cast<sim::nccl::Algo>(r.desc.algo))) + "_" +
                sim::nccl::proto_name(static_cast<sim::nccl::Proto>(r.desc.proto));
      }
      args["Collective name"] = op;
      args["Group size"] = r.desc.nranks;
      args["In msg bytes"] = r.desc.bytes;
      break;
    }
    case sim::OpKind::kMemset:
      name = "Memset (Device)";
      cat = "gpu_memset";
      args["bytes"] = r.desc.bytes;
      break;
    default:
      name = std::string("Memcpy ") + sim::op_kind_name(r.desc.kind);
      cat = "gpu_memcpy";
      args["bytes"] = r.desc.bytes;
  }
  return {{"ph", "X"},
          {"cat", cat},
          {"name", name},
          {"pid", r.gpu},
          {"tid", r.stream},
          {"ts", us(r.start)},
          {"dur", us(r.end - r.start)},
          {"args", args}};
}

}  // namespace

std::map<std::string, std::string> torch_traces(const Session& session,
                                                const SessionResult& result) {
  return torch_traces(session, result, analyse(session, result));
}

std::map<std::string, std::string> torch_traces(const Session& session, const SessionResult& result,
                                                const ReportData& d) {
  const sim::Engine& e = session.engine();
  const sim::GpuSpec& gpu = session.options().cluster.gpu;
  std::map<int, int> pid_of;
  for (const ProcessInfo& p : result.processes) pid_of[p.process] = p.pid;
  std::map<int, ordered_json> events;
  std::map<int, std::set<int>> devices;
  uint64_t correlation = 1;
  for (const sim::OpRecord& r : e.records()) {
    if (r.desc.kind == sim::OpKind::kEventRecord || r.desc.kind == sim::OpKind::kStreamWait) {
      continue;
    }
    events[r.process].push_back(gpu_event(e, r, correlation++));
    devices[r.process].insert(r.gpu);
  }
  for (const NvtxRange& r : d.nvtx.ranges) {
    if (!r.pushed) continue;
    events[r.process].push_back({{"ph", "X"},
                                 {"cat", "user_annotation"},
                                 {"name", r.name},
                                 {"pid", pid_of[r.process]},
                                 {"tid", r.thread},
                                 {"ts", us(r.start)},
                                 {"dur", us(r.end - r.start)}});
  }
  if (d.steps.source != "whole_run") {
    // The rank's own step spans are not kept per rank: use the across-rank ones on every rank.
    for (auto& [process, list] : events) {
      for (size_t i = 0; i < d.steps.steps.size(); ++i) {
        const StepInfo& s = d.steps.steps[i];
        list.push_back({{"ph", "X"},
                        {"cat", "user_annotation"},
                        {"name", "ProfilerStep#" + std::to_string(i)},
                        {"pid", pid_of[process]},
                        {"tid", 0},
                        {"ts", us(s.start)},
                        {"dur", us(s.end - s.start)}});
      }
    }
  }
  std::map<std::string, std::string> out;
  const int world = static_cast<int>(result.processes.size());
  for (auto& [process, list] : events) {
    ordered_json props = ordered_json::array();
    for (int dev : devices[process]) {
      props.push_back({{"id", dev},
                       {"name", gpu.marketing_name},
                       {"totalGlobalMem", gpu.memory_bytes},
                       {"computeMajor", gpu.cc_major},
                       {"computeMinor", gpu.cc_minor},
                       {"maxThreadsPerBlock", 1024},
                       {"maxThreadsPerMultiprocessor", gpu.max_threads_per_sm},
                       {"regsPerMultiprocessor", gpu.regs_per_sm},
                       {"sharedMemPerMultiprocessor", gpu.shared_mem_per_sm},
                       {"numSms", gpu.sm_count}});
    }
    auto rank = d.process_rank.find(process);
    ordered_json j;
    j["schemaVersion"] = 1;
    j["deviceProperties"] = props;
    j["distributedInfo"] = {
        {"backend", "nccl"},
        {"rank", rank != d.process_rank.end() && rank->second >= 0
                     ? rank->second
                     : (d.process_index.count(process) ? d.process_index.at(process) : process)},
        {"world_size", world}};
    j["traceName"] = "seer simulation, " + process_label(session, d, process);
    j["displayTimeUnit"] = "ms";
    j["baseTimeNanoseconds"] = 0;
    j["traceEvents"] = std::move(list);
    out[process_file_stem(d, process) + ".pt.trace.json"] =
        j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  }
  return out;
}

}  // namespace seer::rt

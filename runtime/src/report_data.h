#pragma once

#include <map>
#include <string>

#include "nvtx_ranges.h"
#include "report_stats.h"
#include "seer/runtime/report.h"
#include "seer/runtime/session.h"
#include "steps.h"

namespace seer::rt {

// Everything the report writers show, computed once from a finished session.
struct ReportData {
  RunStats stats;
  NvtxTimeline nvtx;
  Steps steps;
  std::map<int, int> gpu_process;    // GPU -> the process that used it (first seen)
  std::map<int, int> process_rank;   // process key -> rank (-1 when unknown)
  std::map<int, int> process_index;  // process key -> position among the processes (0, 1, ...)
};

ReportData analyse(const Session& session, const SessionResult& result);

// The writers of seer/runtime/report.h, from data already analysed (write_reports analyses once).
std::string summary_json(const Session& session, const SessionResult& result,
                         const RunDescription& run, const ReportData& data);
std::string trace_json(const Session& session, const SessionResult& result, const ReportData& data);
std::map<std::string, std::string> torch_traces(const Session& session, const SessionResult& result,
                                                const ReportData& data);

// "rank 3 (node 0, GPU 3)", "process 0 (node 0, GPUs 0-7)" (a process without a rank is named by
// its position among the processes).
std::string process_label(const Session& session, const ReportData& data, int process);
// "node 1 gpu 9 (rank 9)"
// "rank3" or "process0": for file names.
std::string process_file_stem(const ReportData& data, int process);
std::string gpu_label(const Session& session, const ReportData& data, int gpu);

std::string fmt(const char* format, double v);

}  // namespace seer::rt

#pragma once

#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "seer/runtime/session.h"

namespace seer::rt {

struct RunDescription {
  std::vector<std::string> command;
  int exit_code = 0;
  std::string exit_description;  // "exited with status 0", "killed by signal 9"
};

// The terminal report printed after `seer run`.
void print_report(std::ostream& out, const Session& session, const SessionResult& result,
                  const RunDescription& run);

// summary.json: deterministic content only (no wall time, no pids), schema-versioned.
std::string summary_json(const Session& session, const SessionResult& result,
                         const RunDescription& run);
// run.json: facts about this particular execution (wall time, pids, speed).
std::string run_json(const Session& session, const SessionResult& result);
// trace.json: Chrome trace format (one process per rank, one track per stream).
std::string trace_json(const Session& session, const SessionResult& result);

// Per-rank traces in the PyTorch profiler's (Kineto's) JSON shape, by file name
// ("rank3.pt.trace.json"; "process0.pt.trace.json" for a process without a rank).
std::map<std::string, std::string> torch_traces(const Session& session,
                                                const SessionResult& result);

struct ReportFiles {
  bool torch_traces = false;  // also DIR/torch/rank<R>.pt.trace.json
};

// Writes summary.json, run.json and trace.json under `dir` (created if missing), and the files
// `files` asks for. Throws on I/O errors with a message naming the file.
void write_reports(const std::string& dir, const Session& session, const SessionResult& result,
                   const RunDescription& run, const ReportFiles& files = {});

std::string human_time(int64_t ns);
std::string human_bytes(uint64_t bytes);

}  // namespace seer::rt

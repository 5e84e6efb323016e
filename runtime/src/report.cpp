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

#include "report_data.h"

namespace seer::rt {
namespace {

using nlohmann::ordered_json;

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
  if (ns < 1'000'000) return fmt("%.2f us", v / 1e3);
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

void write_reports(const std::string& dir, const Session& session, const SessionResult& result,
                   const RunDescription& run, const ReportFiles& files) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create --out directory " + dir + ": " + ec.message());
  const std::filesystem::path d(dir);
  const ReportData data = analyse(session, result);
  write_file(d / "summary.json", summary_json(session, result, run, data));
  write_file(d / "run.json", run_json(session, result));
  write_file(d / "trace.json", trace_json(session, result, data));
  if (files.torch_traces) {
    std::filesystem::create_directories(d / "torch", ec);
    if (ec)
      throw std::runtime_error("cannot create " + (d / "torch").string() + ": " + ec.message());
    for (const auto& [name, text] : torch_traces(session, result, data)) {
      write_file(d / "torch" / name, text);
    }
  }
}

}  // namespace seer::rt

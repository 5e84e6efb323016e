#include "metrics.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace seer::check {
namespace {

using nlohmann::json;

constexpr const char* kSchema = "seer.summary";
constexpr int kSchemaVersion = 1;
constexpr const char* kBusbwPrefix = "busbw_gbs:";
constexpr double kGiB = 1073741824.0;

bool iequal(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  }
  return true;
}

// Typed access to the summary with errors that name the file and the field.
class Reader {
 public:
  explicit Reader(const Summary& s) : s_(s) {}

  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw InputError(s_.path + ": field " + field + ": " + what);
  }

  const json& member(const json& object, const std::string& field, const std::string& key) const {
    if (!object.is_object()) fail(field, "expected an object");
    auto it = object.find(key);
    if (it == object.end()) fail(field + "." + key, "missing");
    return *it;
  }

  double number(const json& v, const std::string& field) const {
    if (!v.is_number()) fail(field, "expected a number, found " + std::string(v.type_name()));
    return v.get<double>();
  }

  double number(const json& object, const std::string& field, const std::string& key) const {
    return number(member(object, field, key), field.empty() ? key : field + "." + key);
  }

  double top(const std::string& key) const {
    auto it = s_.json.find(key);
    if (it == s_.json.end()) fail(key, "missing");
    return number(*it, key);
  }

  const json& array(const std::string& key, bool optional) const {
    static const json kEmpty = json::array();
    auto it = s_.json.find(key);
    if (it == s_.json.end()) {
      if (optional) return kEmpty;
      fail(key, "missing");
    }
    if (!it->is_array()) fail(key, "expected an array, found " + std::string(it->type_name()));
    return *it;
  }

  // Sum (or max) over gpus[] of gpus[i].<path...>; a missing optional group counts as 0.
  double over_gpus(const std::vector<std::string>& path, bool take_max, bool optional_group) const {
    const json& gpus = array("gpus", false);
    double acc = 0;
    for (size_t i = 0; i < gpus.size(); ++i) {
      std::string field = "gpus[" + std::to_string(i) + "]";
      const json* v = &gpus[i];
      if (!v->is_object()) fail(field, "expected an object");
      if (optional_group && path.size() > 1 && !v->contains(path.front())) continue;
      for (const std::string& key : path) {
        v = &member(*v, field, key);
        field += "." + key;
      }
      const double x = number(*v, field);
      acc = take_max ? std::max(acc, x) : acc + x;
    }
    return acc;
  }

  const json& steps(const std::string& metric) const {
    auto it = s_.json.find("steps");
    if (it == s_.json.end() || it->is_null() || !has_steps(s_)) {
      throw InputError(
          s_.path +
          ": this summary has no steps (no NVTX step ranges and no recurring collective "
          "sequence), so "
          "it has no " +
          metric +
          "; gate on simulated_time_ms instead, or mark each step with an "
          "NVTX range");
    }
    return *it;
  }

 private:
  const Summary& s_;
};

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw InputError("cannot read " + path + ": " + std::strerror(errno));
  std::ostringstream text;
  text << f.rdbuf();
  if (f.bad()) throw InputError("cannot read " + path + ": " + std::strerror(errno));
  return text.str();
}

// nlohmann's messages start with "[json.exception.parse_error.101] ": keep the sentence.
std::string json_message(const std::exception& e) {
  std::string m = e.what();
  if (!m.empty() && m[0] == '[') {
    const size_t close = m.find("] ");
    if (close != std::string::npos) m = m.substr(close + 2);
  }
  return m;
}

}  // namespace

const std::vector<Metric>& metric_table() {
  static const std::vector<Metric> table = {
      {"simulated_time_ms", Unit::kMilliseconds, true,
       "simulated time from the start of the run to the end of its last process "
       "(simulated_time_ns / 1e6)"},
      {"step_time_ms", Unit::kMilliseconds, true,
       "mean simulated time of a training step after the warm-up (steps.mean_ns / 1e6); needs "
       "NVTX step ranges or a recurring collective sequence"},
      {"step_time_p50_ms", Unit::kMilliseconds, false,
       "median simulated step time (steps.p50_ns / 1e6); needs NVTX step ranges"},
      {"step_time_max_ms", Unit::kMilliseconds, false,
       "slowest simulated step (steps.max_ns / 1e6); needs NVTX step ranges"},
      {"kernel_time_ms", Unit::kMilliseconds, true,
       "kernel time summed over all GPUs (sum of gpus[].kernels.time_ns / 1e6)"},
      {"copy_time_ms", Unit::kMilliseconds, false,
       "memory copy and memset time summed over all GPUs (sum of gpus[].copies.time_ns / 1e6)"},
      {"nccl_time_ms", Unit::kMilliseconds, true,
       "NCCL collective time summed over all GPUs (sum of gpus[].collectives.time_ns / 1e6)"},
      {"kernel_count", Unit::kCount, false,
       "kernels launched, all GPUs (sum of gpus[].kernels.count)"},
      {"peak_memory_gib", Unit::kGiB, false,
       "peak device memory of the fullest GPU (max of gpus[].peak_memory_bytes / 2^30)"},
      {"peak_memory_bytes", Unit::kBytes, false,
       "peak device memory of the fullest GPU (max of gpus[].peak_memory_bytes)"},
      {"busbw_gbs:<Op>", Unit::kGBPerSecond, false,
       "best bus bandwidth of collective operation Op, e.g. busbw_gbs:AllReduce (max of "
       "collectives[].busbw_gbs where op is Op; Op is matched ignoring case)"},
      {"exit_code", Unit::kCount, false, "the program's exit code as seer run saw it (exit_code)"},
  };
  return table;
}

std::optional<Metric> find_metric(const std::string& name) {
  const std::string prefix = kBusbwPrefix;
  if (name.rfind(prefix, 0) == 0) {
    const std::string op = name.substr(prefix.size());
    if (op.empty() || !std::isalpha(static_cast<unsigned char>(op[0]))) return std::nullopt;
    for (char c : op) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return std::nullopt;
    }
    for (const Metric& m : metric_table()) {
      if (m.name.rfind(prefix, 0) == 0) {
        Metric resolved = m;
        resolved.name = name;
        return resolved;
      }
    }
  }
  for (const Metric& m : metric_table()) {
    if (m.name == name && m.name.find('<') == std::string::npos) return m;
  }
  return std::nullopt;
}

std::string known_metrics() {
  std::string s = "known metrics: ";
  for (const Metric& m : metric_table()) {
    s += (&m == &metric_table().front() ? "" : ", ") + m.name;
  }
  return s;
}

const char* unit_name(Unit unit) {
  switch (unit) {
    case Unit::kMilliseconds:
      return "ms";
    case Unit::kGiB:
      return "GiB";
    case Unit::kBytes:
      return "B";
    case Unit::kGBPerSecond:
      return "GB/s";
    case Unit::kCount:
      return "";
  }
  return "";
}

const char* unit_suffixes(Unit unit) {
  switch (unit) {
    case Unit::kMilliseconds:
      return "ns, us, ms, s; a bare number is ms";
    case Unit::kGiB:
      return "B, KiB, MiB, GiB, TiB; a bare number is GiB";
    case Unit::kBytes:
      return "B, KiB, MiB, GiB, TiB; a bare number is bytes";
    case Unit::kGBPerSecond:
      return "GB/s; a bare number is GB/s";
    case Unit::kCount:
      return "none, a plain number";
  }
  return "";
}

std::string format_value(double value, Unit unit) {
  char buf[64];
  if (unit == Unit::kBytes || unit == Unit::kCount) {
    if (std::fabs(value) < 1e15 && value == std::floor(value)) {
      std::snprintf(buf, sizeof buf, "%.0f", value);
    } else {
      std::snprintf(buf, sizeof buf, "%.6g", value);
    }
  } else {
    std::snprintf(buf, sizeof buf, "%.6g", value);
  }
  std::string s = buf;
  const char* u = unit_name(unit);
  if (*u) s += std::string(" ") + u;
  return s;
}

Summary load_summary(const std::string& path) {
  Summary s;
  s.path = path;
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    s.path = (std::filesystem::path(path) / "summary.json").string();
  }
  const std::string text = read_text(s.path);
  try {
    s.json = json::parse(text);
  } catch (const json::exception& e) {
    throw InputError(s.path + ": not a valid summary.json (corrupt JSON: " + json_message(e) + ")");
  }
  if (!s.json.is_object()) {
    throw InputError(s.path + ": not a seer summary (expected a JSON object, found " +
                     std::string(s.json.type_name()) + ")");
  }
  auto schema = s.json.find("schema");
  if (schema == s.json.end() || !schema->is_string()) {
    throw InputError(s.path + ": not a seer summary (no \"schema\": \"" + kSchema + "\")");
  }
  if (schema->get<std::string>() != kSchema) {
    throw InputError(s.path + ": schema is \"" + schema->get<std::string>() + "\", expected \"" +
                     kSchema + "\" (pass the summary.json that seer run --out writes)");
  }
  auto version = s.json.find("schema_version");
  if (version == s.json.end() || !version->is_number_integer()) {
    throw InputError(s.path + ": no integer schema_version (this seer reads " + kSchema +
                     " version " + std::to_string(kSchemaVersion) + ")");
  }
  if (version->get<int64_t>() != kSchemaVersion) {
    throw InputError(s.path + ": schema_version " + std::to_string(version->get<int64_t>()) +
                     " is not supported (this seer reads " + kSchema + " version " +
                     std::to_string(kSchemaVersion) + ")");
  }
  return s;
}

bool has_steps(const Summary& summary) {
  auto it = summary.json.find("steps");
  if (it == summary.json.end() || it->is_null()) return false;
  Reader r(summary);
  return r.number(*it, "steps", "count") > 0;
}

double metric_value(const Summary& summary, const std::string& metric) {
  const Reader r(summary);
  if (metric == "simulated_time_ms") return r.top("simulated_time_ns") / 1e6;
  if (metric == "step_time_ms") return r.number(r.steps(metric), "steps", "mean_ns") / 1e6;
  if (metric == "step_time_p50_ms") return r.number(r.steps(metric), "steps", "p50_ns") / 1e6;
  if (metric == "step_time_max_ms") return r.number(r.steps(metric), "steps", "max_ns") / 1e6;
  if (metric == "kernel_time_ms") return r.over_gpus({"kernels", "time_ns"}, false, false) / 1e6;
  if (metric == "copy_time_ms") return r.over_gpus({"copies", "time_ns"}, false, false) / 1e6;
  if (metric == "nccl_time_ms") return r.over_gpus({"collectives", "time_ns"}, false, true) / 1e6;
  if (metric == "kernel_count") return r.over_gpus({"kernels", "count"}, false, false);
  if (metric == "peak_memory_bytes") return r.over_gpus({"peak_memory_bytes"}, true, false);
  if (metric == "peak_memory_gib") return r.over_gpus({"peak_memory_bytes"}, true, false) / kGiB;
  if (metric == "exit_code") return r.top("exit_code");
  if (metric.rfind(kBusbwPrefix, 0) == 0) {
    const std::string op = metric.substr(std::strlen(kBusbwPrefix));
    const json& colls = r.array("collectives", true);
    std::optional<double> best;
    std::vector<std::string> present;
    for (size_t i = 0; i < colls.size(); ++i) {
      const std::string field = "collectives[" + std::to_string(i) + "]";
      const json& name = r.member(colls[i], field, "op");
      if (!name.is_string()) r.fail(field + ".op", "expected a string");
      const std::string n = name.get<std::string>();
      if (std::find(present.begin(), present.end(), n) == present.end()) present.push_back(n);
      if (!iequal(n, op)) continue;
      const double bw = r.number(colls[i], field, "busbw_gbs");
      best = best ? std::max(*best, bw) : bw;
    }
    if (!best) {
      std::string msg = summary.path + ": no " + op +
                        " collectives in this summary, so it has no " + metric + " (";
      if (present.empty()) {
        msg += "it has no collectives at all)";
      } else {
        msg += "operations present:";
        for (const auto& p : present) msg += " " + p;
        msg += ")";
      }
      throw InputError(msg);
    }
    return *best;
  }
  throw InputError("unknown metric '" + metric + "'; " + known_metrics());
}

}  // namespace seer::check

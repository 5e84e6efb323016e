#include "seer/runtime/units.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>

#include "seer/runtime/cluster.h"

namespace seer::rt {
namespace {

struct Quantity {
  double value;
  std::string unit;
};

Quantity split(const std::string& field, const std::string& text, const char* expected) {
  size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  const char* begin = text.c_str() + i;
  char* end = nullptr;
  const double value = std::strtod(begin, &end);
  if (end == begin || !std::isfinite(value) || value < 0) {
    throw ClusterError(field + ": '" + text + "' is not a " + expected);
  }
  std::string unit(end);
  while (!unit.empty() && std::isspace(static_cast<unsigned char>(unit.front()))) unit.erase(0, 1);
  while (!unit.empty() && std::isspace(static_cast<unsigned char>(unit.back()))) unit.pop_back();
  return {value, unit};
}

double scale(const std::string& field, const std::string& text, const Quantity& q,
             const std::map<std::string, double>& units, const char* expected) {
  auto it = units.find(q.unit);
  if (it == units.end()) {
    std::string known;
    for (const auto& [u, _] : units) known += (known.empty() ? "" : ", ") + u;
    throw ClusterError(field + ": '" + text + "' is not a " + expected + " (units: " + known + ")");
  }
  const double v = q.value * it->second;
  if (!std::isfinite(v)) throw ClusterError(field + ": '" + text + "' is too large");
  return v;
}

int64_t to_int64(const std::string& field, const std::string& text, double v) {
  if (!(v < 9.2e18)) throw ClusterError(field + ": '" + text + "' is too large");
  return static_cast<int64_t>(std::llround(v));
}

}  // namespace

double parse_bandwidth(const std::string& field, const std::string& text) {
  static const std::map<std::string, double> units = {
      {"B/s", 1},        {"KB/s", 1e3},     {"MB/s", 1e6},        {"GB/s", 1e9},
      {"TB/s", 1e12},    {"KiB/s", 1024.0}, {"MiB/s", 1048576.0}, {"GiB/s", 1073741824.0},
      {"bps", 1.0 / 8},  {"Kbps", 1e3 / 8}, {"Mbps", 1e6 / 8},    {"Gbps", 1e9 / 8},
      {"Tbps", 1e12 / 8}};
  const char* what = "bandwidth such as 450GB/s or 400Gbps";
  const double v = scale(field, text, split(field, text, what), units, what);
  if (v <= 0) throw ClusterError(field + ": '" + text + "' must be positive");
  return v;
}

int64_t parse_bytes(const std::string& field, const std::string& text) {
  static const std::map<std::string, double> units = {
      {"B", 1},           {"KB", 1e3},           {"MB", 1e6},
      {"GB", 1e9},        {"TB", 1e12},          {"KiB", 1024.0},
      {"MiB", 1048576.0}, {"GiB", 1073741824.0}, {"TiB", 1099511627776.0}};
  const char* what = "size such as 80GiB";
  return to_int64(field, text, scale(field, text, split(field, text, what), units, what));
}

int64_t parse_duration_ns(const std::string& field, const std::string& text) {
  static const std::map<std::string, double> units = {
      {"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
  const char* what = "duration such as 300ns or 2us";
  return to_int64(field, text, scale(field, text, split(field, text, what), units, what));
}

}  // namespace seer::rt

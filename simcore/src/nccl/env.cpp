#include "seer/simcore/nccl/env.h"

#include <strings.h>

#include <cerrno>
#include <cstdlib>
#include <optional>

namespace seer::sim::nccl {

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  // Like strtok_r: empty tokens are skipped.
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

// Parses `value` into `table` ([func][elem], values 0/1). `lookup` maps an element name to its
// index or -1. Returns an error message, or nullopt on success.
template <size_t N>
std::optional<std::string> parse_list(const std::string& var, const std::string& value,
                                      const std::function<int(const char*)>& lookup,
                                      std::array<std::array<int, N>, kNumFuncs>& table) {
  auto work = table;
  const std::vector<std::string> entries = split(value, ';');
  for (size_t e = 0; e < entries.size(); ++e) {
    const std::string& entry = entries[e];
    std::optional<Func> func;
    std::string list = entry;
    const size_t colon = entry.find(':');
    if (colon != std::string::npos) {
      const std::string prefix = entry.substr(0, colon);
      list = entry.substr(colon + 1);
      func = func_from_name(prefix.c_str());
      if (!func) {
        return var + "=\"" + value + "\": unknown collective \"" + prefix +
               "\" (expected Broadcast, Reduce, AllGather, ReduceScatter or AllReduce)";
      }
      if (list.find(':') != std::string::npos) {
        return var + "=\"" + value + "\": malformed entry \"" + entry + "\"";
      }
    } else if (e != 0) {
      return var + "=\"" + value +
             "\": every entry except the first needs a \"collective:\" prefix";
    }
    int set = 1;
    if (!list.empty() && list[0] == '^') {
      set = 0;
      list = list.substr(1);
    }
    std::array<int, N> row;
    row.fill(1 - set);
    for (const std::string& elem : split(list, ',')) {
      const int i = lookup(elem.c_str());
      if (i < 0) return var + "=\"" + value + "\": unknown element \"" + elem + "\"";
      row[static_cast<size_t>(i)] = set;
    }
    for (int f = 0; f < kNumFuncs; ++f) {
      if (func && idx(*func) != f) continue;
      work[static_cast<size_t>(f)] = row;
    }
  }
  table = work;
  return std::nullopt;
}

// NCCL_PARAM semantics: strtoll base 0, the whole string must be consumed.
std::optional<long long> parse_int(const char* s) {
  if (s == nullptr || *s == '\0') return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(s, &end, 0);
  if (errno != 0 || end == s || *end != '\0') return std::nullopt;
  return v;
}

}  // namespace

Env::Env() {
  for (auto& row : algo_enable) row.fill(1);
  for (auto& row : proto_enable) row = {1, 2, 1};
}

std::string Env::error() const {
  std::string out;
  for (const std::string& e : errors) {
    if (!out.empty()) out += "; ";
    out += e;
  }
  return out;
}

bool parse_algo_list(const std::string& value, Env& env) {
  const auto err = parse_list<kNumAlgos>(
      "NCCL_ALGO", value,
      [](const char* s) {
        const auto a = algo_from_name(s);
        return a ? idx(*a) : -1;
      },
      env.algo_enable);
  if (err) {
    env.errors.push_back(*err);
    return false;
  }
  env.algo_set = true;
  env.algo_str = value;
  return true;
}

bool parse_proto_list(const std::string& value, Env& env) {
  const auto err = parse_list<kNumProtos>(
      "NCCL_PROTO", value,
      [](const char* s) {
        const auto p = proto_from_name(s);
        return p ? idx(*p) : -1;
      },
      env.proto_enable);
  if (err) {
    env.errors.push_back(*err);
    return false;
  }
  env.proto_set = true;
  env.proto_str = value;
  return true;
}

Env parse_env(const std::function<const char*(const char*)>& getenv) {
  Env env;
  if (!getenv) return env;
  auto get = [&](const char* name) -> const char* {
    const char* v = getenv(name);
    return v;
  };
  if (const char* s = get("NCCL_PROTO")) parse_proto_list(s, env);
  if (const char* s = get("NCCL_ALGO")) parse_algo_list(s, env);

  auto int_var = [&](const char* name, int& out, long long lo, long long hi) {
    const char* s = get(name);
    if (s == nullptr) return;
    const auto v = parse_int(s);
    if (!v) {
      env.errors.push_back(std::string(name) + "=\"" + s + "\": not an integer");
      return;
    }
    long long x = *v;
    if (x < lo) x = lo;
    if (x > hi) x = hi;
    out = static_cast<int>(x);
  };
  // Legacy names first; the new names win, as in NCCL's ncclMinNchannels()/ncclMaxNchannels().
  // NCCL clamps: minimum >= 0, maximum >= 1 (both <= MAXCHANNELS, applied by the model).
  int_var("NCCL_MIN_NRINGS", env.min_nchannels, 0, 1 << 20);
  int_var("NCCL_MAX_NRINGS", env.max_nchannels, 1, 1 << 20);
  int_var("NCCL_MIN_NCHANNELS", env.min_nchannels, 0, 1 << 20);
  int_var("NCCL_MAX_NCHANNELS", env.max_nchannels, 1, 1 << 20);
  int_var("NCCL_NVLS_ENABLE", env.nvls_enable, 0, 2);
  int_var("NCCL_COLLNET_ENABLE", env.collnet_enable, 0, 1);
  int_var("NCCL_PAT_ENABLE", env.pat_enable, 0, 2);
  int overhead_ns = -1;
  int_var("NCCL_NET_OVERHEAD", overhead_ns, 0, 1 << 30);
  if (overhead_ns >= 0) env.net_overhead_us = overhead_ns * 1e-3;
  return env;
}

}  // namespace seer::sim::nccl

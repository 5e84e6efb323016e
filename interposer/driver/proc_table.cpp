#include "proc_table.h"

#include <algorithm>
#include <iterator>

namespace seer::driver {
namespace {

struct Entry {
  const char* name;
  int version;
  const char* symbol;
};

constexpr Entry kTable[] = {
#include "proc_table.inc"
};

std::string with_stream_suffix(const std::string& symbol,
                               const std::function<bool(const std::string&)>& exported) {
  for (const char* suffix : {"_ptsz", "_ptds"}) {
    std::string s = symbol + suffix;
    if (exported(s)) return s;
  }
  return symbol;
}

}  // namespace

ProcLookup resolve_proc(std::string_view name, int cuda_version, bool per_thread_stream,
                        const std::function<bool(const std::string&)>& exported) {
  ProcLookup out;
  auto first = std::lower_bound(std::begin(kTable), std::end(kTable), name,
                                [](const Entry& e, std::string_view n) { return e.name < n; });
  const Entry* best = nullptr;
  bool known = false;
  for (auto it = first; it != std::end(kTable) && it->name == name; ++it) {
    known = true;
    if (it->version <= cuda_version) best = &*it;
  }
  std::string symbol;
  if (best) {
    symbol = best->symbol;
  } else if (known) {
    out.status = ProcStatus::kVersionNotSufficient;
    return out;
  } else {
    symbol = std::string(name);  // an exported name without a versioned typedef
  }
  if (!exported(symbol)) return out;
  out.status = ProcStatus::kFound;
  out.symbol = per_thread_stream ? with_stream_suffix(symbol, exported) : symbol;
  return out;
}

}  // namespace seer::driver

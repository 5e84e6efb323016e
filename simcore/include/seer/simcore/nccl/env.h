#pragma once

// NCCL environment variables that change the performance model, parsed like NCCL 2.28 does.

#include <array>
#include <functional>
#include <string>
#include <vector>

#include "seer/simcore/nccl/types.h"

namespace seer::sim::nccl {

struct Env {
  // Per collective function: 1 = enabled, 0 = disabled. LL128 additionally has 2 = "automatic"
  // (NCCL's default: on only where its enabling rules allow it).
  std::array<std::array<int, kNumAlgos>, kNumFuncs> algo_enable{};
  std::array<std::array<int, kNumProtos>, kNumFuncs> proto_enable{};
  bool algo_set = false;   // NCCL_ALGO was given (and parsed)
  bool proto_set = false;  // NCCL_PROTO was given (and parsed)
  std::string algo_str, proto_str;

  int min_nchannels = -1;       // NCCL_MIN_NCHANNELS (-1: unset)
  int max_nchannels = -1;       // NCCL_MAX_NCHANNELS (-1: unset)
  int nvls_enable = -1;         // NCCL_NVLS_ENABLE (-1 unset: NVLS where supported; 0 off)
  int collnet_enable = -1;      // NCCL_COLLNET_ENABLE (-1 unset: follow Topo::collnet; 0 off; 1 on)
  int pat_enable = -1;          // NCCL_PAT_ENABLE (-1 unset = NCCL's 2: automatic)
  double net_overhead_us = -1;  // NCCL_NET_OVERHEAD (given in ns; -1 unset)

  // One message per rejected variable. A rejected variable keeps NCCL's default, as NCCL does
  // (NCCL itself fails communicator creation on a malformed NCCL_ALGO/NCCL_PROTO).
  std::vector<std::string> errors;

  Env();  // all defaults (no variable set)
  bool ok() const { return errors.empty(); }
  std::string error() const;  // the messages joined by "; ", empty when ok()

  bool algo_enabled(Func f, Algo a) const { return algo_enable[idx(f)][idx(a)] != 0; }
  int proto_enabled(Func f, Proto p) const { return proto_enable[idx(f)][idx(p)]; }
};

// Reads NCCL_ALGO, NCCL_PROTO, NCCL_MIN_NCHANNELS, NCCL_MAX_NCHANNELS (also the legacy
// NCCL_MIN_NRINGS / NCCL_MAX_NRINGS), NCCL_NVLS_ENABLE, NCCL_COLLNET_ENABLE, NCCL_PAT_ENABLE and
// NCCL_NET_OVERHEAD through `getenv` (which returns nullptr for an unset variable). Never throws.
Env parse_env(const std::function<const char*(const char*)>& getenv);

// Parses one NCCL_ALGO / NCCL_PROTO value into `env` (sets algo_set / proto_set). Grammar of
// NCCL 2.28's parseList: ';'-separated entries "[func:][^]elem,elem..."; only the first entry may
// omit the function prefix (it then applies to every function); names are case-insensitive;
// an unknown element or function is an error. On error `env` keeps its previous table.
bool parse_algo_list(const std::string& value, Env& env);
bool parse_proto_list(const std::string& value, Env& env);

}  // namespace seer::sim::nccl

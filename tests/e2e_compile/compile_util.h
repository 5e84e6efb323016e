// Helpers for the torch.compile / Triton end-to-end tests: a run under `seer run` with its own
// compilation caches, the Triton kernels of a summary, the wall time of a run.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "torch_util.h"

namespace seer::e2e::torch {

// TORCHINDUCTOR_CACHE_DIR and TRITON_CACHE_DIR inside `dir`: empty caches, so the run compiles
// everything (no reuse of what an earlier test or user run left in ~/.triton or /tmp).
Env fresh_caches(const TempDir& dir);

struct Timed {
  Outcome outcome;
  double wall_s = 0;
};

// `seer run --host-time HOST_TIME --cluster CLUSTER --out OUT -- COMMAND` with extra environment
// variables and a timeout for compiling programs (540 s); prints the wall time under `label`.
Timed seer_compiled(const std::string& label, const std::string& cluster, const std::string& out,
                    const std::vector<std::string>& command, const Env& env,
                    const std::string& host_time = "modeled");

// Kernels of summary.json whose names start with one of Inductor's Triton prefixes
// (triton_poi_, triton_red_, triton_per_), with their counts.
std::vector<std::pair<std::string, int64_t>> inductor_kernels(const nlohmann::json& summary);

// The count of summary.json's kernel `name` (0 when absent).
int64_t kernel_count(const nlohmann::json& summary, const std::string& name);

}  // namespace seer::e2e::torch

#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nvtx_ranges.h"
#include "seer/runtime/session.h"

namespace seer::rt {

// One training step across ranks.
struct StepInfo {
  int64_t start = 0;     // earliest start on any rank
  int64_t end = 0;       // latest end on any rank
  int64_t duration = 0;  // the slowest rank's duration
  int64_t fastest = 0;   // the fastest rank's duration
  int slowest_process = 0;
};

struct Steps {
  // "nvtx": NVTX ranges; "collectives": the recurring collective sequence (the step starts
  // where the sequence repeats); "whole_run": no steps found, the run as one step.
  std::string source = "whole_run";
  std::string label;            // the range name (or pattern) used, or a description of the pattern
  std::string note;             // why a preferred source was not used, if it was asked for
  std::vector<StepInfo> steps;  // every step, the warm-up (first) included
  int processes = 0;            // processes that had the steps
  // Over the steps after the first (over the one step when there is only one):
  bool warmup_excluded = false;
  int64_t mean_ns = 0;
  int64_t p50_ns = 0;
  int64_t min_ns = 0;
  int64_t max_ns = 0;
  // Over the same steps, the mean over GPUs of the share of step time the GPU ran anything
  // (kernels, copies, collectives); -1 without steps. Low: the ranks' host work (Python, launch
  // overhead) or waiting on other ranks' hosts keeps the GPUs waiting.
  double gpu_busy_share = -1;
};

// "gpu" (busy >= 80% of step time), "host" (< 50%: host-bound, e.g. launch-bound) or "mixed";
// "" without steps.
std::string boundedness(const Steps& s);

// The name with each run of digits replaced by '#': "step 12" -> "step #".
std::string normalized_name(const std::string& name);

// `step_range`: a regular expression (case-insensitive, searched in the range name) choosing
// the NVTX ranges that are steps; empty: ranges named like "step" or "iter", else the most
// repeated outermost range.
Steps detect_steps(const Session& session, const NvtxTimeline& nvtx, const std::string& step_range);

}  // namespace seer::rt

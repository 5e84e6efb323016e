#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "seer/runtime/session.h"

namespace seer::rt {

// A closed NVTX range of one process.
struct NvtxRange {
  int process = 0;
  uint32_t thread = 0;  // push/pop: the thread; start/end: the thread that started it
  std::string domain;
  std::string name;
  int64_t start = 0;
  int64_t end = 0;
  int depth = 0;       // push/pop nesting level on its thread and domain (0: outermost)
  bool pushed = true;  // false: nvtxRangeStart/End (may cross threads and overlap)
};

struct NvtxMark {
  int process = 0;
  uint32_t thread = 0;
  std::string domain;
  std::string name;
  int64_t t = 0;
};

struct NvtxTimeline {
  std::vector<NvtxRange> ranges;  // by (process, start, -end)
  std::vector<NvtxMark> marks;
  std::map<std::pair<int, uint32_t>, std::string> thread_names;  // nvtxNameOsThread
  int unclosed = 0;  // pushes without a pop or starts without an end when the program ended
};

// Pairs pushes with pops (per process, thread and domain) and starts with ends (per process
// and id).
NvtxTimeline build_nvtx_timeline(const std::vector<NvtxEvent>& events);

}  // namespace seer::rt

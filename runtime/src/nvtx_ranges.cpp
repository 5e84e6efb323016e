#include "nvtx_ranges.h"

#include <algorithm>
#include <tuple>

namespace seer::rt {

namespace {

// A range opened by `e` (a push or a start), not yet closed.
NvtxRange opened_by(const NvtxEvent& e) {
  NvtxRange r;
  r.process = e.process;
  r.thread = e.thread;
  r.domain = e.domain;
  r.name = e.message;
  r.start = e.t;
  r.pushed = e.kind == NvtxEvent::kPush;
  return r;
}

}  // namespace

NvtxTimeline build_nvtx_timeline(const std::vector<NvtxEvent>& events) {
  NvtxTimeline out;
  std::map<std::tuple<int, uint32_t, std::string>, std::vector<NvtxRange>> stacks;
  std::map<std::pair<int, uint64_t>, NvtxRange> started;
  for (const NvtxEvent& e : events) {
    switch (e.kind) {
      case NvtxEvent::kPush: {
        auto& stack = stacks[{e.process, e.thread, e.domain}];
        NvtxRange r = opened_by(e);
        r.depth = static_cast<int>(stack.size());
        stack.push_back(std::move(r));
        break;
      }
      case NvtxEvent::kPop: {
        auto& stack = stacks[{e.process, e.thread, e.domain}];
        if (stack.empty()) break;
        NvtxRange r = std::move(stack.back());
        stack.pop_back();
        r.end = std::max(e.t, r.start);
        out.ranges.push_back(std::move(r));
        break;
      }
      case NvtxEvent::kStart:
        started[{e.process, e.id}] = opened_by(e);
        break;
      case NvtxEvent::kEnd: {
        auto it = started.find({e.process, e.id});
        if (it == started.end()) break;
        it->second.end = std::max(e.t, it->second.start);
        out.ranges.push_back(std::move(it->second));
        started.erase(it);
        break;
      }
      case NvtxEvent::kMark:
        out.marks.push_back({e.process, e.thread, e.domain, e.message, e.t});
        break;
      case NvtxEvent::kThreadName:
        out.thread_names[{e.process, e.thread}] = e.message;
        break;
    }
  }
  for (const auto& [key, stack] : stacks) out.unclosed += static_cast<int>(stack.size());
  out.unclosed += static_cast<int>(started.size());
  std::sort(out.ranges.begin(), out.ranges.end(), [](const NvtxRange& a, const NvtxRange& b) {
    return std::tie(a.process, a.start, b.end, a.depth) <
           std::tie(b.process, b.start, a.end, b.depth);
  });
  return out;
}

}  // namespace seer::rt

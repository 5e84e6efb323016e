#include "steps.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <regex>
#include <tuple>

#include "intervals.h"

namespace seer::rt {
namespace {

struct Span {
  int64_t start;
  int64_t end;
};

}  // namespace

std::string normalized_name(const std::string& name) {
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    if (name[i] >= '0' && name[i] <= '9') {
      if (out.empty() || out.back() != '#') out += '#';
    } else {
      out += name[i];
    }
  }
  return out;
}

namespace {

// Keeps the ranges not inside another kept range of the same process; input sorted by start.
std::vector<Span> outermost(const std::vector<const NvtxRange*>& ranges) {
  std::vector<Span> out;
  for (const NvtxRange* r : ranges) {
    if (!out.empty() && r->start >= out.back().start && r->end <= out.back().end) continue;
    out.push_back({r->start, r->end});
  }
  return out;
}

template <typename Pred>
std::map<int, std::vector<Span>> spans_where(const NvtxTimeline& nvtx, Pred pred) {
  std::map<int, std::vector<const NvtxRange*>> by_process;
  for (const NvtxRange& r : nvtx.ranges) {
    if (pred(r)) by_process[r.process].push_back(&r);
  }
  std::map<int, std::vector<Span>> out;
  for (auto& [p, rs] : by_process) out[p] = outermost(rs);
  return out;
}

// NVTX domains of libraries, whose ranges mark their own calls (CUB's device-wide algorithms,
// which PyTorch runs for sorts and unique, mark each call in domain CCCL), never a step.
bool library_domain(const std::string& domain) {
  static const char* const kLibraries[] = {"CCCL", "NCCL", "cuBLAS", "cuDNN", "cuFFT", "NPP"};
  for (const char* l : kLibraries) {
    if (domain == l) return true;
  }
  return false;
}

// The name (digits normalised) of the most repeated outermost pushed range of the program's own
// domains, if any repeats.
std::string most_repeated_outer_name(const NvtxTimeline& nvtx) {
  std::map<std::string, std::pair<int, int64_t>> counts;  // name -> (count, first start)
  for (const NvtxRange& r : nvtx.ranges) {
    if (!r.pushed || r.depth != 0 || library_domain(r.domain)) continue;
    auto [it, fresh] = counts.try_emplace(normalized_name(r.name), 0, r.start);
    ++it->second.first;
    if (!fresh) it->second.second = std::min(it->second.second, r.start);
  }
  std::string best;
  std::pair<int, int64_t> best_key{0, 0};
  for (const auto& [name, key] : counts) {
    if (key.first < 2) continue;
    if (key.first > best_key.first ||
        (key.first == best_key.first && key.second < best_key.second)) {
      best = name;
      best_key = key;
    }
  }
  return best;
}

// The share of the intervals between consecutive collective starts that do not repeat with
// period `period` (within 2 % or 1 us), past the first period (a warm-up may differ).
double gap_mismatches(const std::vector<int64_t>& gaps, size_t from, size_t period) {
  size_t compared = 0, differ = 0;
  for (size_t i = from + period; i + period < gaps.size(); ++i) {
    const int64_t a = gaps[i], b = gaps[i + period];
    const int64_t tol = std::max<int64_t>(1000, std::max(a, b) / 50);
    ++compared;
    if (std::abs(a - b) > tol) ++differ;
  }
  return compared == 0 ? 0.0 : static_cast<double>(differ) / static_cast<double>(compared);
}

// A key period longer than one collective whose intervals repeat but for less than this share is a
// step whose host work varies (the optimizer and logging between TorchTitan's steps: 7 of 105
// intervals off by 3-48 % on a quiet machine, 22-39 % off by more than 2 % on a busy one, host
// time being measured). Beyond it, the timing says nothing.
constexpr double kMaxNoisyGapShare = 0.5;

struct CollectiveEntry {
  int64_t submit;
  int64_t start;
  std::tuple<int, uint64_t, uint64_t> key;  // kind, bytes, comm
};

// The steps of one sequence of collectives in submission order: one period of it, the shortest
// over which both the sequence (operation, size, communicator) and the intervals between the
// collectives' starts repeat, three times or more, over at least half of the sequence (a period of
// several distinct collectives may let kMaxNoisyGapShare of its intervals vary). Several identical
// collectives per step (gradient buckets) are told apart by their timing; the step starts after
// the longest interval of the period. Empty when nothing repeats.
std::vector<Span> periodic_steps(const std::vector<CollectiveEntry>& seq, size_t& period_out) {
  const size_t n = seq.size();
  std::vector<int64_t> gaps(n, 0);
  for (size_t i = 1; i < n; ++i) gaps[i] = seq[i].start - seq[i - 1].start;
  for (size_t base = 1; base * 3 <= n; ++base) {
    size_t offset = 0;  // the repeating part starts after the last mismatch
    for (size_t i = n - base; i-- > 0;) {
      if (seq[i].key != seq[i + base].key) {
        offset = i + 1;
        break;
      }
    }
    // A training loop repeats through most of the run; a sweep (a benchmark's growing sizes)
    // only repeats at its end, which is no step.
    if ((n - offset) / base < 3 || 2 * (n - offset) < n) continue;
    size_t period = 0;
    for (size_t p = base; (n - offset) / p >= 3; p += base) {
      if (gap_mismatches(gaps, offset + 1, p) == 0) {
        period = p;
        break;
      }
    }
    // The collectives alone repeat with no shorter period: the step needs no timing to tell
    // identical collectives apart, so timing noise may be let through, up to half the intervals
    // (host time measured on a busy machine moves every interval by a few percent: 22-39 % of
    // TorchTitan's were off by more than 2 % on each rank). A multiple is never taken on noisy
    // timing: noise can make one look better on some ranks and not others.
    if (period == 0 && base > 1 && gap_mismatches(gaps, offset + 1, base) <= kMaxNoisyGapShare) {
      period = base;
    }
    if (period == 0) continue;
    size_t phase = 0;
    int64_t best = -1;
    for (size_t f = 0; f < period; ++f) {
      int64_t sum = 0;
      int count = 0;
      for (size_t i = offset + period + f; i < n; i += period) {
        sum += gaps[i];
        ++count;
      }
      if (count > 0 && sum / count > best) {
        best = sum / count;
        phase = f;
      }
    }
    std::vector<Span> spans;
    for (size_t i = offset + phase; i + period < n; i += period) {
      spans.push_back({seq[i].start, seq[i + period].start});
    }
    if (spans.empty()) continue;
    period_out = period;
    return spans;
  }
  return {};
}

// Per process, the steps of its collective sequence (periodic_steps) on its first GPU. Where
// collectives run on several streams (FSDP's all-gathers and reduce-scatters), how the streams'
// submissions interleave can differ from step to step (threads, host timing), and the merged
// sequence need not repeat: then each stream's own sequence, FIFO in program order, is tried,
// the busiest first.
std::map<int, std::vector<Span>> collective_steps(const sim::Engine& engine, std::string& label) {
  std::map<int, int> first_gpu;
  for (const sim::OpRecord& r : engine.records()) {
    if (r.desc.kind != sim::OpKind::kCollective) continue;
    auto [it, fresh] = first_gpu.try_emplace(r.process, r.gpu);
    if (!fresh) it->second = std::min(it->second, r.gpu);
  }
  std::map<int, std::vector<CollectiveEntry>> seqs;
  std::map<int, std::map<uint32_t, std::vector<CollectiveEntry>>> by_stream;
  for (const sim::OpRecord& r : engine.records()) {
    if (r.desc.kind != sim::OpKind::kCollective || r.gpu != first_gpu[r.process]) continue;
    const CollectiveEntry e{
        r.submit, r.start, {static_cast<int>(r.desc.coll), r.desc.bytes, r.desc.comm}};
    seqs[r.process].push_back(e);
    by_stream[r.process][r.stream].push_back(e);
  }
  const auto in_order = [](std::vector<CollectiveEntry>& seq) {
    std::stable_sort(seq.begin(), seq.end(),
                     [](const CollectiveEntry& a, const CollectiveEntry& b) {
                       return std::tie(a.submit, a.start) < std::tie(b.submit, b.start);
                     });
  };
  std::map<int, std::vector<Span>> out;
  for (auto& [process, seq] : seqs) {
    in_order(seq);
    size_t period = 0;
    std::vector<Span> spans = periodic_steps(seq, period);
    bool one_stream = false;
    if (spans.empty() && by_stream[process].size() > 1) {
      std::vector<std::vector<CollectiveEntry>*> streams;
      for (auto& [stream, s] : by_stream[process]) streams.push_back(&s);
      std::stable_sort(streams.begin(), streams.end(),
                       [](const auto* a, const auto* b) { return a->size() > b->size(); });
      for (std::vector<CollectiveEntry>* s : streams) {
        in_order(*s);
        spans = periodic_steps(*s, period);
        if (!spans.empty()) {
          one_stream = true;
          break;
        }
      }
    }
    if (spans.empty()) continue;
    out[process] = std::move(spans);
    if (label.empty()) {
      label = std::to_string(period) + " collective" + (period > 1 ? "s" : "") + " per step" +
              (one_stream ? " on one stream" : "");
    }
  }
  return out;
}

void summarize(Steps& s) {
  std::vector<int64_t> d;
  for (size_t i = s.steps.size() > 1 ? 1 : 0; i < s.steps.size(); ++i) {
    d.push_back(s.steps[i].duration);
  }
  s.warmup_excluded = s.steps.size() > 1;
  if (d.empty()) return;
  int64_t sum = 0;
  for (int64_t v : d) sum += v;
  s.mean_ns = sum / static_cast<int64_t>(d.size());
  std::sort(d.begin(), d.end());
  s.p50_ns = d[(d.size() - 1) / 2];
  s.min_ns = d.front();
  s.max_ns = d.back();
}

bool combine(Steps& s, const std::map<int, std::vector<Span>>& per_process) {
  size_t k = SIZE_MAX;
  for (const auto& [p, spans] : per_process) k = std::min(k, spans.size());
  if (per_process.empty() || k == 0) return false;
  s.processes = static_cast<int>(per_process.size());
  for (size_t i = 0; i < k; ++i) {
    StepInfo step;
    bool first = true;
    for (const auto& [p, spans] : per_process) {
      const Span& sp = spans[i];
      const int64_t d = sp.end - sp.start;
      if (first || d > step.duration) {
        step.duration = d;
        step.slowest_process = p;
      }
      step.start = first ? sp.start : std::min(step.start, sp.start);
      step.end = first ? sp.end : std::max(step.end, sp.end);
      step.fastest = first ? d : std::min(step.fastest, d);
      first = false;
    }
    s.steps.push_back(step);
  }
  summarize(s);
  return true;
}

// The share of the summarized steps' time each GPU was busy, averaged over the GPUs that ran
// anything in them.
double busy_share(const sim::Engine& engine, const Steps& s) {
  std::vector<Interval> windows;
  for (size_t i = s.warmup_excluded ? 1 : 0; i < s.steps.size(); ++i) {
    windows.emplace_back(s.steps[i].start, s.steps[i].end);
  }
  windows = merged(std::move(windows));
  const int64_t window_ns = total_length(windows);
  if (window_ns <= 0) return -1;
  std::vector<std::vector<Interval>> ops(static_cast<size_t>(engine.gpu_count()));
  for (const sim::OpRecord& r : engine.records()) ops[r.gpu].emplace_back(r.start, r.end);
  double sum = 0;
  int gpus = 0;
  for (std::vector<Interval>& g : ops) {
    const int64_t busy = overlap_length(merged(std::move(g)), windows);
    if (busy <= 0) continue;
    sum += static_cast<double>(busy) / static_cast<double>(window_ns);
    ++gpus;
  }
  return gpus > 0 ? sum / gpus : 0;
}

}  // namespace

std::string boundedness(const Steps& s) {
  if (s.gpu_busy_share < 0) return "";
  if (s.gpu_busy_share >= 0.8) return "gpu";
  if (s.gpu_busy_share < 0.5) return "host";
  return "mixed";
}

Steps detect_steps(const Session& session, const NvtxTimeline& nvtx,
                   const std::string& step_range) {
  Steps s;
  const std::regex pattern(step_range.empty() ? "step|iter" : step_range,
                           std::regex::icase | std::regex::ECMAScript);
  auto matching =
      spans_where(nvtx, [&](const NvtxRange& r) { return std::regex_search(r.name, pattern); });
  if (combine(s, matching)) {
    s.source = "nvtx";
    s.label = step_range.empty() ? "ranges named like step/iter" : step_range;
    s.gpu_busy_share = busy_share(session.engine(), s);
    return s;
  }
  if (!step_range.empty()) {
    s.note = "no NVTX range matched --step-range '" + step_range + "'";
  } else if (const std::string name = most_repeated_outer_name(nvtx); !name.empty()) {
    auto repeated = spans_where(nvtx, [&](const NvtxRange& r) {
      return r.pushed && r.depth == 0 && !library_domain(r.domain) &&
             normalized_name(r.name) == name;
    });
    if (combine(s, repeated)) {
      s.source = "nvtx";
      s.label = name;
      s.gpu_busy_share = busy_share(session.engine(), s);
      return s;
    }
  }
  std::string label;
  if (combine(s, collective_steps(session.engine(), label))) {
    s.source = "collectives";
    s.label = label;
    s.gpu_busy_share = busy_share(session.engine(), s);
    return s;
  }
  s.steps.clear();
  StepInfo whole;
  for (const sim::OpRecord& r : session.engine().records()) whole.end = std::max(whole.end, r.end);
  whole.duration = whole.end;
  whole.fastest = whole.end;
  s.steps.push_back(whole);
  s.source = "whole_run";
  s.label = "the whole run";
  summarize(s);
  return s;
}

}  // namespace seer::rt

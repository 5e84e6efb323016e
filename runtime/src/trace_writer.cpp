// trace.json in the Chrome trace format (chrome://tracing, ui.perfetto.dev): one process per
// rank, one track per stream and per host thread, NVTX ranges and marks, flow arrows between
// the participants of each collective and between matched sends and receives, and counter
// tracks for link utilisation.

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "report_data.h"
#include "seer/runtime/report.h"
#include "seer/simcore/nccl/types.h"
#include "trace_event_text.h"

namespace seer::rt {
namespace {

using nlohmann::ordered_json;

constexpr int kHostThreadTid = 1'000'000;  // host thread N is track kHostThreadTid + N
constexpr int kNetworkPid = 1 << 30;       // the process holding the link counters
constexpr size_t kMaxLinkCounters = 64;
// Flow arrows beyond this many are left out (an AlltoAll on 128 ranks alone has 16,256 sends):
// they would make the file too big to open.
constexpr uint64_t kMaxFlowArrows = 20'000;

double us(int64_t ns) { return static_cast<double>(ns) / 1e3; }

const char* category(sim::OpKind k) {
  switch (k) {
    case sim::OpKind::kKernel:
    case sim::OpKind::kLibrary:
      return "kernel";
    case sim::OpKind::kCollective:
      return "nccl";
    default:
      return "memory";
  }
}

std::string op_name(const sim::Engine& e, const sim::OpRecord& r) {
  if (r.desc.kind == sim::OpKind::kKernel || r.desc.kind == sim::OpKind::kLibrary) {
    return e.kernel_name(r.desc.kernel);
  }
  if (r.desc.kind == sim::OpKind::kCollective) {
    return std::string("nccl") + sim::coll_kind_name(r.desc.coll);
  }
  return sim::op_kind_name(r.desc.kind);
}

bool shown(const sim::OpRecord& r) {
  return r.desc.kind != sim::OpKind::kEventRecord && r.desc.kind != sim::OpKind::kStreamWait;
}

// (communicator, sending rank, receiving rank)
using P2pKey = std::tuple<uint64_t, int, int>;
struct P2pKeyHash {
  size_t operator()(const P2pKey& k) const {
    const uint64_t ranks = (static_cast<uint64_t>(static_cast<uint32_t>(std::get<1>(k))) << 32) |
                           static_cast<uint32_t>(std::get<2>(k));
    return std::hash<uint64_t>{}(std::get<0>(k) * 0x9e3779b97f4a7c15ULL ^ ranks);
  }
};
// A pair's sends and receives, each in the order the program issued them.
struct P2pGroup {
  std::vector<const sim::OpRecord*> sends;
  std::vector<const sim::OpRecord*> recvs;
};

struct Writer {
  const Session& session;
  const SessionResult& result;
  const ReportData& data;
  TraceEventText events = {};
  uint64_t next_flow = 1;
  uint64_t flow_arrows = 0;
  uint64_t omitted_flow_arrows = 0;

  void meta(const char* what, int pid, int tid, const std::string& name) {
    ordered_json ev = {{"ph", "M"}, {"name", what}, {"pid", pid}};
    if (tid >= 0) ev["tid"] = tid;
    ev["args"] = {{"name", name}};
    events.push_back(std::move(ev));
  }

  void names() {
    std::map<int, bool> processes;
    for (const ProcessInfo& p : result.processes) processes[p.process] = true;
    for (const auto& [gpu, p] : data.gpu_process) processes[p] = true;
    for (const auto& [p, unused] : processes) {
      meta("process_name", p, -1, process_label(session, data, p));
      events.push_back(
          {{"ph", "M"}, {"name", "process_sort_index"}, {"pid", p}, {"args", {{"sort_index", p}}}});
    }
    const auto& streams = session.engine().streams();
    for (size_t i = 0; i < streams.size(); ++i) {
      const auto& s = streams[i];
      meta("thread_name", s.process, static_cast<int>(i),
           "GPU " + std::to_string(s.gpu) + " " +
               (s.legacy_default ? std::string("default stream")
                                 : "stream " + std::to_string(s.client_id)));
    }
    std::map<std::pair<int, uint32_t>, bool> threads;
    for (const NvtxRange& r : data.nvtx.ranges) threads[{r.process, r.thread}] = true;
    for (const NvtxMark& m : data.nvtx.marks) threads[{m.process, m.thread}] = true;
    for (const HostWait& w : result.host_waits) threads[{w.process, w.thread}] = true;
    for (const auto& [key, unused] : threads) {
      auto named = data.nvtx.thread_names.find(key);
      meta("thread_name", key.first, kHostThreadTid + static_cast<int>(key.second),
           "host thread " + std::to_string(key.second) +
               (named == data.nvtx.thread_names.end() ? "" : " (" + named->second + ")"));
    }
  }

  void gpu_ops() {
    const sim::Engine& e = session.engine();
    for (const sim::OpRecord& r : e.records()) {
      if (!shown(r)) continue;
      events.begin()
          .text("ph", "X")
          .text("name", op_name(e, r))
          .text("cat", category(r.desc.kind))
          .number("pid", r.process)
          .number("tid", r.stream)
          .number("ts", us(r.start))
          .number("dur", us(r.end - r.start))
          .object("args");
      if (r.desc.kind == sim::OpKind::kKernel) {
        const auto& g = r.desc.geometry;
        events.numbers("grid", {g.gx, g.gy, g.gz}).numbers("block", {g.bx, g.by, g.bz});
      } else if (r.desc.kind == sim::OpKind::kCollective && r.desc.algo >= 0) {
        events.number("bytes", r.desc.bytes)
            .number("ranks", r.desc.nranks)
            .text("algorithm", sim::nccl::algo_name(static_cast<sim::nccl::Algo>(r.desc.algo)))
            .text("protocol", sim::nccl::proto_name(static_cast<sim::nccl::Proto>(r.desc.proto)))
            .number("channels", r.desc.nchannels);
      } else {
        events.number("bytes", r.desc.bytes);
      }
      events.number("submit_us", us(r.submit)).end().end();
    }
  }

  void nvtx() {
    for (const NvtxRange& r : data.nvtx.ranges) {
      const std::string name = r.domain.empty() ? r.name : r.domain + ": " + r.name;
      if (r.pushed) {
        events.push_back({{"ph", "X"},
                          {"name", name},
                          {"cat", "nvtx"},
                          {"pid", r.process},
                          {"tid", kHostThreadTid + static_cast<int>(r.thread)},
                          {"ts", us(r.start)},
                          {"dur", us(r.end - r.start)}});
      } else {
        // Start/end ranges may overlap each other: async slices, each on its own row.
        const uint64_t id = next_flow++;
        for (const char* ph : {"b", "e"}) {
          events.push_back({{"ph", ph},
                            {"name", name},
                            {"cat", "nvtx"},
                            {"id", id},
                            {"pid", r.process},
                            {"tid", kHostThreadTid + static_cast<int>(r.thread)},
                            {"ts", us(ph[0] == 'b' ? r.start : r.end)}});
        }
      }
    }
    for (const HostWait& w : result.host_waits) {
      events.push_back({{"ph", "X"},
                        {"name", w.call},
                        {"cat", "cuda_api"},
                        {"pid", w.process},
                        {"tid", kHostThreadTid + static_cast<int>(w.thread)},
                        {"ts", us(w.start)},
                        {"dur", us(w.end - w.start)}});
    }
    for (const NvtxMark& m : data.nvtx.marks) {
      events.push_back({{"ph", "i"},
                        {"name", m.domain.empty() ? m.name : m.domain + ": " + m.name},
                        {"cat", "nvtx"},
                        {"s", "t"},
                        {"pid", m.process},
                        {"tid", kHostThreadTid + static_cast<int>(m.thread)},
                        {"ts", us(m.t)}});
    }
  }

  // A flow arrow through `slices`, each event at its slice's `at` time (start or end).
  enum class At { kStart, kEnd };
  void flow(const std::string& name, const std::vector<std::pair<const sim::OpRecord*, At>>& hops) {
    if (hops.size() < 2) return;
    if (flow_arrows >= kMaxFlowArrows) {
      ++omitted_flow_arrows;
      return;
    }
    ++flow_arrows;
    const uint64_t id = next_flow++;
    for (size_t i = 0; i < hops.size(); ++i) {
      const sim::OpRecord& r = *hops[i].first;
      // An event binds to the slice enclosing it: one ns inside the end stays in this slice.
      const int64_t t = hops[i].second == At::kStart ? r.start : std::max(r.start, r.end - 1);
      const char* ph = i == 0 ? "s" : (i + 1 == hops.size() ? "f" : "t");
      events.begin()
          .text("ph", ph)
          .text("name", name)
          .text("cat", "flow")
          .number("id", id)
          .number("pid", r.process)
          .number("tid", r.stream)
          .number("ts", us(t));
      if (i > 0) events.text("bp", "e");
      events.end();
    }
  }

  void flows() {
    const sim::Engine& e = session.engine();
    const auto& streams = e.streams();
    // Each stream's collective ops in submission order, and the calls the program made on it.
    std::vector<std::vector<const sim::OpRecord*>> by_stream(streams.size());
    for (const sim::OpRecord& r : e.records()) {
      if (r.desc.kind != sim::OpKind::kCollective) continue;
      if (r.stream >= by_stream.size()) by_stream.resize(r.stream + 1);
      by_stream[r.stream].push_back(&r);
    }
    std::map<std::pair<int, uint64_t>, uint32_t> stream_index;
    for (size_t i = 0; i < streams.size(); ++i) {
      stream_index[{streams[i].process, streams[i].client_id}] = static_cast<uint32_t>(i);
    }
    std::vector<std::vector<const CollectiveCall*>> calls(by_stream.size());
    for (const CollectiveCall& c : result.collective_calls) {
      auto it = stream_index.find({c.process, c.stream});
      if (it != stream_index.end() && it->second < calls.size()) calls[it->second].push_back(&c);
    }
    // Collectives: the k-th call on a communicator by each GPU is one instance.
    std::map<std::tuple<uint64_t, size_t>, std::vector<const sim::OpRecord*>> instances;
    std::map<std::pair<uint64_t, int>, size_t> seen;  // (comm, gpu) -> calls so far
    // Send/recv: the n-th send from a to b on a communicator meets the n-th receive. A 128-rank
    // AlltoAll sweep has millions of them: they are grouped by hashing, and only the groups
    // sorted.
    std::unordered_map<P2pKey, P2pGroup, P2pKeyHash> p2p;
    for (size_t stream = 0; stream < by_stream.size(); ++stream) {
      auto& ops = by_stream[stream];
      std::stable_sort(ops.begin(), ops.end(), [](const sim::OpRecord* a, const sim::OpRecord* b) {
        return std::tie(a->submit, a->start) < std::tie(b->submit, b->start);
      });
      // The stream's k-th send/recv op is the k-th send/recv group the program issued on it.
      const auto& stream_calls = calls[stream];
      size_t next_call = 0;
      for (const sim::OpRecord* r : ops) {
        const bool p2p_op =
            r->desc.coll == sim::CollKind::kSend || r->desc.coll == sim::CollKind::kRecv;
        if (!p2p_op) {
          instances[{r->desc.comm, seen[{r->desc.comm, r->gpu}]++}].push_back(r);
          continue;
        }
        if (next_call >= stream_calls.size()) continue;
        const CollectiveCall& call = *stream_calls[next_call++];
        for (const auto& [kind, peer] : call.p2p_parts) {
          if (static_cast<sim::CollKind>(kind) == sim::CollKind::kSend) {
            p2p[{call.comm, call.rank, peer}].sends.push_back(r);
          } else {
            p2p[{call.comm, peer, call.rank}].recvs.push_back(r);
          }
        }
      }
    }
    // A collective's arrow visits its participants in the order they arrived: the last one is
    // the rank everybody waited for.
    for (auto& [key, ops] : instances) {
      std::sort(ops.begin(), ops.end(), [](const sim::OpRecord* a, const sim::OpRecord* b) {
        return std::tie(a->start, a->gpu) < std::tie(b->start, b->gpu);
      });
      std::vector<std::pair<const sim::OpRecord*, At>> hops;
      for (const sim::OpRecord* r : ops) hops.emplace_back(r, At::kStart);
      flow(op_name(e, *ops.front()), hops);
    }
    // A send's arrow goes from its start to the end of the receive that took its data.
    std::vector<const std::pair<const P2pKey, P2pGroup>*> pairs;
    pairs.reserve(p2p.size());
    for (const auto& entry : p2p) pairs.push_back(&entry);
    std::sort(pairs.begin(), pairs.end(),
              [](const auto* a, const auto* b) { return a->first < b->first; });
    const std::string name = "send/recv";
    for (const auto* entry : pairs) {
      const P2pGroup& group = entry->second;
      const size_t matched = std::min(group.sends.size(), group.recvs.size());
      for (size_t i = 0; i < matched; ++i) {
        if (flow_arrows >= kMaxFlowArrows) {
          omitted_flow_arrows += matched - i;
          break;
        }
        flow(name, {{group.sends[i], At::kStart}, {group.recvs[i], At::kEnd}});
      }
    }
  }

  // The busiest links (by bytes carried) as counter tracks of their load.
  void link_counters() {
    std::vector<sim::LinkSeries> links = session.engine().link_utilisation();
    if (links.empty()) return;
    std::vector<std::pair<double, size_t>> carried;
    for (size_t i = 0; i < links.size(); ++i) {
      double bytes = 0;
      const auto& p = links[i].points;
      for (size_t k = 0; k + 1 < p.size(); ++k) {
        bytes += p[k].second * static_cast<double>(p[k + 1].first - p[k].first) / 1e9;
      }
      carried.emplace_back(-bytes, i);
    }
    std::sort(carried.begin(), carried.end());
    if (carried.size() > kMaxLinkCounters) carried.resize(kMaxLinkCounters);
    meta("process_name", kNetworkPid, -1,
         "network links (GB/s carried; busiest " + std::to_string(carried.size()) + " of " +
             std::to_string(links.size()) + ")");
    for (const auto& [neg_bytes, i] : carried) {
      const sim::LinkSeries& l = links[i];
      for (const auto& [t, bytes_per_s] : l.points) {
        events.begin()
            .text("ph", "C")
            .text("name", l.name)
            .number("pid", kNetworkPid)
            .number("ts", us(t))
            .object("args")
            .number("GB/s", bytes_per_s / 1e9)
            .end()
            .end();
      }
    }
  }
};

}  // namespace

std::string trace_json(const Session& session, const SessionResult& result) {
  return trace_json(session, result, analyse(session, result));
}

std::string trace_json(const Session& session, const SessionResult& result,
                       const ReportData& data) {
  Writer w{session, result, data};
  w.names();
  w.gpu_ops();
  w.nvtx();
  w.flows();
  w.link_counters();
  ordered_json rest;
  rest["displayTimeUnit"] = "ns";
  rest["otherData"] = {{"producer", "seer"},
                       {"cluster", session.options().cluster.name},
                       {"steps", data.steps.source},
                       {"flow_arrows", w.flow_arrows},
                       {"flow_arrows_omitted", w.omitted_flow_arrows}};
  // {"traceEvents":[...],"displayTimeUnit":...}: the rest's object without its opening brace.
  return "{\"traceEvents\":[" + w.events.json() + "]," +
         rest.dump(-1, ' ', false, ordered_json::error_handler_t::replace).substr(1) + "\n";
}

}  // namespace seer::rt

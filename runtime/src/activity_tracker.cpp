#include "activity_tracker.h"

#include <iterator>

#include "seer/simcore/nccl/types.h"

namespace seer::rt {
namespace {

// The stream a record carries, and whether the engine runs it as an op (one engine record).
bool stream_of(const wire::Record& r, uint64_t& stream, bool& op) {
  op = false;
  switch (r.body_case()) {
    case wire::Record::kLaunch:
      stream = r.launch().stream();
      op = true;
      return true;
    case wire::Record::kCopy:
      stream = r.copy().stream();
      op = true;
      return true;
    case wire::Record::kLibrary:
      stream = r.library().stream();
      op = true;
      return true;
    case wire::Record::kCollective:
      stream = r.collective().stream();
      op = true;
      return true;
    case wire::Record::kEventRecord:
      stream = r.event_record().stream();
      return true;
    case wire::Record::kStreamWaitEvent:
      stream = r.stream_wait_event().stream();
      return true;
    default:
      return false;
  }
}

// NCCL's spelling in kernel names (src/device/generate.py), by sim::nccl::Algo and Proto value.
constexpr const char* kAlgoNames[] = {
    "TREE", "RING", "COLLNET_DIRECT", "COLLNET_CHAIN", "NVLS", "NVLS_TREE", "PAT"};
constexpr const char* kProtoNames[] = {"LL", "LL128", "SIMPLE"};
static_assert(std::size(kAlgoNames) == sim::nccl::kNumAlgos);
static_assert(std::size(kProtoNames) == sim::nccl::kNumProtos);

void set_nccl_choice(const sim::OpDesc& d, wire::OpTime& t) {
  if (d.kind != sim::OpKind::kCollective) return;
  t.set_channels(d.nchannels);
  if (d.algo < 0 || d.algo >= sim::nccl::kNumAlgos || d.proto < 0 ||
      d.proto >= sim::nccl::kNumProtos)
    return;
  t.set_algo(kAlgoNames[d.algo]);
  t.set_proto(kProtoNames[d.proto]);
}

}  // namespace

void ActivityTracker::on_record(int process, const wire::Record& r, bool ok) {
  uint64_t stream = 0;
  bool op = false;
  if (!stream_of(r, stream, op)) return;
  Process& p = processes_[process];
  StreamOps& s = p.streams[stream];
  ++s.records;
  if (!ok) return;
  Queue* q = op ? &s.ops : r.body_case() == wire::Record::kEventRecord ? &s.events : nullptr;
  if (!q) return;
  ++q->submitted;
  if (p.tracked) q->waiting.push_back(s.records);
}

void ActivityTracker::scan(const std::vector<sim::OpRecord>& records, size_t& scanned, Kind kind,
                           const sim::Engine& engine) {
  const auto& streams = engine.streams();
  for (; scanned < records.size(); ++scanned) {
    const sim::OpRecord& rec = records[scanned];
    auto it = processes_.find(rec.process);
    if (it == processes_.end() || !it->second.watched) continue;
    Process& p = it->second;
    const uint64_t stream = streams.at(rec.stream).client_id;
    StreamOps& s = p.streams[stream];
    Queue& q = kind == Kind::kOp ? s.ops : s.events;
    if (q.skip > 0) {
      --q.skip;
      continue;
    }
    if (q.waiting.empty()) continue;
    wire::OpTime t;
    t.set_stream(stream);
    t.set_ordinal(q.waiting.front());
    t.set_start(rec.start);
    t.set_end(rec.end);
    set_nccl_choice(rec.desc, t);
    q.waiting.pop_front();
    p.done.push_back(std::move(t));
  }
}

// Records submitted before now whose engine records are still to come are not this query's:
// count them per stream so scan() passes over them.
void ActivityTracker::start_tracking(int process, Process& p, const sim::Engine& engine) {
  std::unordered_map<uint64_t, uint64_t> ops_seen, events_seen;
  const auto& streams = engine.streams();
  const auto count = [&](const std::vector<sim::OpRecord>& records, size_t scanned,
                         std::unordered_map<uint64_t, uint64_t>& seen) {
    for (size_t i = 0; i < scanned; ++i) {
      if (records[i].process == process) ++seen[streams.at(records[i].stream).client_id];
    }
  };
  count(engine.records(), scanned_ops_, ops_seen);
  count(engine.event_records(), scanned_events_, events_seen);
  for (auto& [id, s] : p.streams) {
    s.ops.skip = s.ops.submitted > ops_seen[id] ? s.ops.submitted - ops_seen[id] : 0;
    s.events.skip = s.events.submitted > events_seen[id] ? s.events.submitted - events_seen[id] : 0;
  }
  p.tracked = true;
  p.watched = true;
}

std::vector<wire::OpTime> ActivityTracker::query(int process, bool track,
                                                 const sim::Engine& engine) {
  scan(engine.records(), scanned_ops_, Kind::kOp, engine);
  scan(engine.event_records(), scanned_events_, Kind::kEvent, engine);
  Process& p = processes_[process];
  if (track && !p.tracked) start_tracking(process, p, engine);
  if (!track) {
    p.tracked = false;
    bool waiting = false;
    for (const auto& [id, s] : p.streams) {
      waiting = waiting || !s.ops.waiting.empty() || !s.events.waiting.empty();
    }
    p.watched = waiting;
  }
  std::vector<wire::OpTime> out;
  out.swap(p.done);
  return out;
}

}  // namespace seer::rt

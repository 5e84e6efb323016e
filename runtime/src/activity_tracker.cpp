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
  if (!op || !ok) return;
  ++s.ops;
  if (p.tracked) s.waiting.push_back(s.records);
}

void ActivityTracker::scan(const sim::Engine& engine) {
  const auto& records = engine.records();
  const auto& streams = engine.streams();
  for (; scanned_ < records.size(); ++scanned_) {
    const sim::OpRecord& rec = records[scanned_];
    auto it = processes_.find(rec.process);
    if (it == processes_.end() || !it->second.watched) continue;
    Process& p = it->second;
    StreamOps& s = p.streams[streams.at(rec.stream).client_id];
    if (s.skip > 0) {
      --s.skip;
      continue;
    }
    if (s.waiting.empty()) continue;
    wire::OpTime t;
    t.set_stream(streams.at(rec.stream).client_id);
    t.set_ordinal(s.waiting.front());
    t.set_start(rec.start);
    t.set_end(rec.end);
    set_nccl_choice(rec.desc, t);
    s.waiting.pop_front();
    p.done.push_back(std::move(t));
  }
}

// Ops submitted before now whose engine records are still to come are not this query's: count
// them per stream so scan() passes over them.
void ActivityTracker::start_tracking(int process, Process& p, const sim::Engine& engine) {
  std::unordered_map<uint64_t, uint64_t> started;
  const auto& records = engine.records();
  const auto& streams = engine.streams();
  for (size_t i = 0; i < scanned_; ++i) {
    if (records[i].process == process) ++started[streams.at(records[i].stream).client_id];
  }
  for (auto& [id, s] : p.streams) {
    const uint64_t seen = started[id];
    s.skip = s.ops > seen ? s.ops - seen : 0;
  }
  p.tracked = true;
  p.watched = true;
}

std::vector<wire::OpTime> ActivityTracker::query(int process, bool track,
                                                 const sim::Engine& engine) {
  scan(engine);
  Process& p = processes_[process];
  if (track && !p.tracked) start_tracking(process, p, engine);
  if (!track) {
    p.tracked = false;
    bool waiting = false;
    for (const auto& [id, s] : p.streams) waiting = waiting || !s.waiting.empty();
    p.watched = waiting;
  }
  std::vector<wire::OpTime> out;
  out.swap(p.done);
  return out;
}

}  // namespace seer::rt

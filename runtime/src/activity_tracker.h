#pragma once

#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

#include "seer/simcore/engine.h"
#include "wire.pb.h"

namespace seer::rt {

// Simulated start/end of the ops of processes that profile with CUPTI (interposer/cupti).
// An op is named by (client stream, ordinal): the ordinal counts every record that carries that
// stream, exactly as the client's StreamObj::submitted does. Engine records of one stream appear
// in submission order (a stream is FIFO), so they are matched to the ops waiting on that stream.
// Event records (CUDA_EVENT activity records) are matched the same way against the engine's
// event records, start = end = the time the event completes: the time cudaEventSynchronize and
// cudaEventElapsedTime see. Only streams of tracked processes keep ordinals; every process keeps
// a few counters per stream.
class ActivityTracker {
 public:
  // Every record the session applied; `ok`: the engine accepted it.
  void on_record(int process, const wire::Record& r, bool ok);
  // The answer to a query: starts, keeps or stops tracking and hands over the times known.
  std::vector<wire::OpTime> query(int process, bool track, const sim::Engine& engine);

 private:
  // One kind of engine record on one stream: ops, or event records.
  struct Queue {
    uint64_t submitted = 0;        // records of this kind the engine accepted
    uint64_t skip = 0;             // submitted before tracking began, not yet seen by scan()
    std::deque<uint64_t> waiting;  // ordinals of tracked records not yet completed
  };
  struct StreamOps {
    uint64_t records = 0;  // records carrying this stream (the client's ordinal)
    Queue ops;
    Queue events;
  };
  struct Process {
    bool tracked = false;
    bool watched = false;  // tracked, or records still waiting
    std::unordered_map<uint64_t, StreamOps> streams;
    std::vector<wire::OpTime> done;
  };
  enum class Kind { kOp, kEvent };
  void scan(const std::vector<sim::OpRecord>& records, size_t& scanned, Kind kind,
            const sim::Engine& engine);
  void start_tracking(int process, Process& p, const sim::Engine& engine);

  std::unordered_map<int, Process> processes_;
  size_t scanned_ops_ = 0;     // engine records already matched
  size_t scanned_events_ = 0;  // engine event records already matched
};

}  // namespace seer::rt

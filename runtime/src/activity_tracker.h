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
// Only streams of tracked processes keep ops; every process keeps two counters per stream.
class ActivityTracker {
 public:
  // Every record the session applied; `ok`: the engine accepted it.
  void on_record(int process, const wire::Record& r, bool ok);
  // The answer to a query: starts, keeps or stops tracking and hands over the times known.
  std::vector<wire::OpTime> query(int process, bool track, const sim::Engine& engine);

 private:
  struct StreamOps {
    uint64_t records = 0;          // records carrying this stream (the client's ordinal)
    uint64_t ops = 0;              // of which the engine runs as ops
    uint64_t skip = 0;             // ops submitted before tracking began, not yet seen by scan()
    std::deque<uint64_t> waiting;  // ordinals of tracked ops not yet started
  };
  struct Process {
    bool tracked = false;
    bool watched = false;  // tracked, or ops still waiting
    std::unordered_map<uint64_t, StreamOps> streams;
    std::vector<wire::OpTime> done;
  };
  void scan(const sim::Engine& engine);
  void start_tracking(int process, Process& p, const sim::Engine& engine);

  std::unordered_map<int, Process> processes_;
  size_t scanned_ = 0;  // engine records already matched
};

}  // namespace seer::rt

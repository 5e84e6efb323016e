#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <queue>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "seer/simcore/aten_kernels.h"
#include "seer/simcore/collective_model.h"
#include "seer/simcore/collective_network.h"
#include "seer/simcore/cost_models.h"
#include "seer/simcore/gpu_spec.h"
#include "seer/simcore/interference.h"
#include "seer/simcore/op.h"
#include "seer/simcore/rank_pair_index.h"
#include "seer/simcore/time.h"
#include "seer/simcore/triton_model.h"

namespace seer::sim {

// Told when something a caller waits for is complete. Called from inside Engine::step() (or
// from the wait call itself when the answer is already known); the completion is final.
class WaitListener {
 public:
  virtual ~WaitListener() = default;
  virtual void on_wait_done(uint64_t token, Time completion) = 0;
};

// Discrete-event model of the GPUs: streams (FIFO), events, a compute engine and copy engines
// per GPU. Deterministic: events at equal times are ordered by (phase, process, per-process
// submission number), never by the order records reached the session.
class Engine {
 public:
  explicit Engine(WaitListener& listener);

  int add_gpu(const GpuSpec& spec, int node, const NodeLinks& links);
  int gpu_count() const { return static_cast<int>(gpus_.size()); }
  const GpuSpec& gpu_spec(int gpu) const { return gpus_.at(gpu).spec; }
  int gpu_node(int gpu) const { return gpus_.at(gpu).node; }

  uint32_t intern_kernel(const std::string& name);
  const std::string& kernel_name(uint32_t id) const { return kernel_names_.at(id); }

  // Streams and events are named by (process, client id). Returns false when the id is unknown
  // or the request is invalid; the caller turns that into an error for the client.
  bool create_stream(int process, uint64_t stream, int gpu, bool blocking, bool legacy_default);
  bool submit(int process, uint64_t stream, Time t, const OpDesc& op);
  // Orders the ops the next submissions enqueue among ops of the same process ready at the same
  // instant (the session passes the submitting thread and its count of records, so the order does
  // not depend on which thread's record arrived first); unset: arrival order.
  void set_order_key(std::optional<uint64_t> key) { order_key_ = key; }
  bool record_event(int process, uint64_t event, uint64_t stream, Time t);
  bool stream_wait_event(int process, uint64_t stream, uint64_t event, Time t);

  // Measured durations (the kernel database) take precedence over every model: given the GPU,
  // a kernel's name and its launch geometry — or, for a library call, its report label (e.g.
  // "cublasGemmEx [bf16]"), a 1x1x1 geometry and its parameters ("m=..,n=..,k=..,batch=..") —
  // the lookup returns the duration when it knows it. Kernels pass the size arguments their
  // family model reads (OpDesc::sizes), library calls none.
  using KernelLookup = std::function<std::optional<Time>(
      const GpuSpec&, const std::string& kernel, const LaunchGeometry&,
      const std::string& library_params, std::span<const uint64_t> sizes)>;
  void set_kernel_lookup(KernelLookup lookup) { kernel_lookup_ = std::move(lookup); }

  // Kernels the Triton model times (triton_model.h): a launch names one by OpDesc::triton.
  // One per (process, kernel handle): same-named kernels can differ (autotuned block sizes).
  int32_t add_triton_kernel(TritonKernel model);
  const TritonKernel* triton_kernel(int32_t index) const;
  // The time a kernel-family model (aten_kernels.h) gives this launch; nullopt when none applies.
  std::optional<Time> family_time(const GpuSpec& gpu, const OpDesc& op) const;

  // Times collectives with NCCL's model and moves their data as flows on the cluster's network
  // (otherwise: the simple collective model of collective_model.h).
  void set_network(NetworkConfig config);
  bool networked() const { return net_ != nullptr; }
  // The network model (nullptr without set_network), e.g. for link_bytes().
  const CollectiveNetwork* network() const { return net_.get(); }
  // Per-link utilisation series recorded when NetworkConfig::record_link_utilisation is set
  // (see CollectiveNetwork::link_utilisation); empty otherwise.
  std::vector<LinkSeries> link_utilisation() const {
    return net_ ? net_->link_utilisation() : std::vector<LinkSeries>{};
  }

  // NCCL. A communicator's ranks in order, as global GPU indices.
  void add_comm(uint64_t comm, const std::vector<int>& gpus);
  bool has_comm(uint64_t comm) const { return comms_.count(comm) > 0; }
  int comm_nodes(uint64_t comm) const {
    auto it = comms_.find(comm);
    return it == comms_.end() ? 1 : it->second.shape.nodes;
  }
  // One rank's collective (one part) or fused group of send/recv parts on a stream. Calls are
  // matched across ranks by order per communicator (send/recv: per ordered pair of ranks).
  bool submit_collective(int process, uint64_t stream, Time t, uint64_t comm, int rank,
                         const std::vector<CollPart>& parts);
  // Mismatched calls found since the last call (the session stops the run on any).
  std::vector<std::string> take_errors();
  // How reports name a communicator.
  static std::string comm_name(uint64_t comm);
  // Collectives and send/recv still waiting for peers, for deadlock reports.
  std::vector<std::string> describe_waiting_collectives() const;

  // Waits fire `token` on the listener when complete (immediately if already complete).
  bool wait_stream(int process, uint64_t stream, uint64_t token);
  void wait_event(int process, uint64_t event, uint64_t token);
  // Every stream the process has on the GPU (cudaDeviceSynchronize).
  void wait_gpu(int process, int gpu, uint64_t token);

  std::optional<Time> next_event_time() const;
  // Processes every queued event at the earliest pending time.
  void step();
  Time now() const { return now_; }

  const std::vector<OpRecord>& records() const { return records_; }
  // Every completed event record (cudaEventRecord), in completion order: start = end = the time
  // the event completes. Kept apart from records(), which the reports read as work.
  const std::vector<OpRecord>& event_records() const { return event_records_; }
  // Stream names for reports: (process, client stream id) of each engine stream index.
  struct StreamInfo {
    int process;
    uint64_t client_id;
    int gpu;
    bool legacy_default;
  };
  const std::vector<StreamInfo>& streams() const { return stream_info_; }

  // Memory accounting for reports.
  void note_alloc(int gpu, uint64_t bytes);
  void note_free(int gpu, uint64_t bytes);
  uint64_t peak_bytes(int gpu) const { return gpus_.at(gpu).peak_bytes; }
  uint64_t live_bytes(int gpu) const { return gpus_.at(gpu).live_bytes; }

  // Work not yet complete, for deadlock reports.
  size_t pending_ops() const { return pending_ops_; }

 private:
  using OpId = uint32_t;
  enum class Resource : uint8_t { kNone, kCompute, kCopyIn, kCopyOut, kPeerOut, kCount };
  enum class OpState : uint8_t { kQueued, kReadyScheduled, kWaitingResource, kRunning, kDone };
  enum class Phase : uint8_t { kEnd = 0, kReady = 1 };

  struct Op {
    OpDesc desc;
    int process = 0;
    int gpu = 0;
    uint32_t stream = 0;
    uint64_t seq = 0;  // per-process submission number: the deterministic tie-break
    Time submit = 0;
    Time ready = 0;
    Time start = 0;
    Time end = 0;
    OpState state = OpState::kQueued;
    std::vector<OpId> deps;
    std::vector<OpId> dependents;       // ops waiting for this one
    std::vector<uint32_t> wait_groups;  // WaitGroup indices waiting for this one
    uint32_t coll = UINT32_MAX;         // index into colls_ for collectives
    CommLoad load;                      // collectives: what this one takes from its GPU
    double hbm_rate = 0;                // compute ops: device-memory bytes/s while running
  };
  // The k-th send/recv of an ordered rank pair (PairTransfers in pair_transfers_).
  struct TransferRef {
    uint32_t pair = 0;
    uint64_t k = 0;
  };
  struct OpColl {
    uint64_t comm = 0;
    int rank = 0;
    std::vector<CollPart> parts;
    uint64_t seq = 0;                    // collectives: call number on the communicator
    std::vector<TransferRef> transfers;  // send/recv parts
    int pending = 0;
    Time max_end = 0;
  };
  struct Instance {
    std::vector<OpId> ops;  // by rank; UINT32_MAX until that rank arrives
    int arrived = 0;
    CollPart first;
    int first_rank = -1;
  };
  struct Transfer {
    OpId send_op = UINT32_MAX, recv_op = UINT32_MAX;
    uint64_t send_bytes = 0, recv_bytes = 0;
    bool send_arrived = false, recv_arrived = false;
  };
  // One ordered rank pair of a communicator: its k-th send meets its k-th recv. `pending[head..]`
  // are transfers first, first + 1, ... of which the first is not matched yet.
  struct PairTransfers {
    uint64_t comm = 0;
    int src = 0, dst = 0;
    uint64_t sends = 0, recvs = 0;  // posted
    uint64_t first = 0;
    size_t head = 0;
    std::vector<Transfer> pending;
  };
  struct Comm {
    std::vector<int> gpus;
    CommShape shape;
    std::map<int, uint64_t> next_seq;
    RankPairIndex pairs;  // into pair_transfers_
  };
  struct Stream {
    int process = 0;
    int gpu = 0;
    bool blocking = true;
    bool legacy_default = false;
    std::deque<OpId> queue;  // not yet done, in order
    std::optional<OpId> last;
  };
  struct ResourceState {
    bool busy = false;
    std::deque<OpId> waiting;
  };
  struct Gpu {
    GpuSpec spec;
    int node = 0;
    NodeLinks links;
    std::vector<uint32_t> streams;
    ResourceState resources[static_cast<int>(Resource::kCount)];
    uint64_t live_bytes = 0;
    uint64_t peak_bytes = 0;
    // Send/recv: when this GPU's outgoing / incoming link is free again, per link class
    // (0: scale-up within the node, 1: scale-out rail).
    Time send_free[2] = {0, 0};
    Time recv_free[2] = {0, 0};
    CommLoad comm_load;                 // the collectives running on it
    OpId running_compute = UINT32_MAX;  // the op holding its compute engine
  };
  struct WaitGroup {
    uint64_t token = 0;
    int remaining = 0;
    Time max_end = 0;
  };
  struct Event {
    Time t;
    Phase phase;
    int process;
    uint64_t seq;
    OpId op;
    bool operator>(const Event& o) const {
      if (t != o.t) return t > o.t;
      if (phase != o.phase) return phase > o.phase;
      if (process != o.process) return process > o.process;
      if (seq != o.seq) return seq > o.seq;
      return op > o.op;
    }
  };

  std::optional<uint32_t> find_stream(int process, uint64_t stream) const;
  OpId enqueue(uint32_t stream, Time t, const OpDesc& desc, std::vector<OpId> deps);
  OpId enqueue_with_coll(uint32_t stream, Time t, const OpDesc& desc, uint32_t coll);
  void add_implicit_deps(const Stream& s, std::vector<OpId>& deps) const;
  void try_ready(OpId id);
  void on_ready(OpId id);
  void start(OpId id);
  void finish(OpId id);
  Resource resource_for(const Op& op) const;
  Time duration_of(const Op& op, TimeSource& source, const GpuSpec& spec,
                   bool use_database = true) const;
  // The op's duration on a GPU whose collectives take `load` from it (interference.h); sets
  // `interference` to what that adds.
  Time contended_duration(const Op& op, TimeSource& source, Time alone, Time& interference) const;
  double hbm_bytes_of(const Op& op, const GpuSpec& spec) const;
  void add_comm_load(OpId id, const CommLoad& load);
  void remove_comm_load(OpId id);
  double collective_stretch_at_start(const std::vector<OpId>& ops, double rate) const;
  void wait_ops(const std::vector<OpId>& ops, uint64_t token);
  void schedule(Time t, Phase phase, OpId id);
  void arrive_collective(OpId id);
  void start_networked_collective(const std::vector<OpId>& ops, const CollPart& part,
                                  uint64_t comm);
  void transfer_done(OpId send_op, OpId recv_op, Time end);
  void on_network_done(uint64_t token);
  void complete_collective_op(OpId id, Time start, Time end, Time interference = 0);

  WaitListener& listener_;
  std::vector<Gpu> gpus_;
  std::vector<Op> ops_;
  std::vector<Stream> streams_;
  std::vector<StreamInfo> stream_info_;
  std::map<std::pair<int, uint64_t>, uint32_t> stream_index_;
  std::map<std::pair<int, uint64_t>, OpId> event_last_record_;
  std::unordered_map<int, uint64_t> process_seq_;
  std::optional<uint64_t> order_key_;
  std::vector<std::string> kernel_names_;
  std::vector<AtenKernel> aten_kernels_;  // parallel to kernel_names_
  std::unordered_map<std::string, uint32_t> kernel_ids_;
  std::vector<WaitGroup> wait_groups_;
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events_;
  std::vector<OpRecord> records_;
  std::vector<OpRecord> event_records_;
  std::map<uint64_t, Comm> comms_;
  std::vector<OpColl> colls_;
  std::map<std::pair<uint64_t, uint64_t>, Instance> instances_;
  std::vector<PairTransfers> pair_transfers_;
  static constexpr OpId kMatched = UINT32_MAX - 1;  // a Transfer's send_op once both sides met
  void matched(PairTransfers& pt, uint64_t k);
  std::vector<std::string> errors_;
  uint32_t pending_coll_ = UINT32_MAX;
  struct NetTask {
    std::vector<OpId> ops;                            // a collective's ops (every rank)
    OpId send_op = UINT32_MAX, recv_op = UINT32_MAX;  // or one send/recv transfer
    Time begin = 0;
    double stretch = 1.0;  // HBM shared with compute (interference.h)
    bool live = true;
  };
  std::unique_ptr<CollectiveNetwork> net_;
  KernelLookup kernel_lookup_;
  std::vector<TritonKernel> triton_kernels_;
  // Tasks by token, from token net_task_base_ on (tokens are issued in order and mostly end in
  // order): an entry with live == false is done, or had no flows.
  std::deque<NetTask> net_tasks_;
  uint64_t net_task_base_ = 1;
  uint64_t next_net_token_ = 1;
  void add_net_task(uint64_t token, NetTask task);
  Time now_ = 0;
  size_t pending_ops_ = 0;
};

}  // namespace seer::sim

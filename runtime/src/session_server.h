#pragma once

#include <google/protobuf/arena.h>

#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "activity_tracker.h"
#include "comm_registry.h"
#include "payload_exchange.h"
#include "proto/frame.h"
#include "remote_auth.h"
#include "seer/runtime/session.h"
#include "wire.pb.h"

namespace seer::rt {

// Everything the session knows about one connected rank process.
struct Client {
  int fd = -1;
  int process = -1;  // engine process key
  int index = 0;     // position in SessionServer::clients_
  ProcessInfo info;
  wire::FrameReader reader;
  bool welcomed = false;
  bool remote = false;  // joined over TCP through a host's `seer run --connect`
  int first_gpu = 0;    // the session's GPU of this process' device 0 (see handle_hello)
  std::chrono::steady_clock::time_point connected;
  bool submitted = false;  // has sent device work (records)
  bool counted = false;    // counted towards joined_ranks_ (first record, goodbye or gone)
  bool gone = false;
  // Promise bookkeeping (see DESIGN.md "Virtual time and synchronization").
  sim::Time promise = 0;
  uint64_t answers_received = 0;
  bool all_blocked = false;
  bool stalled = false;  // waiting for answers, some to queries at its clock (Batch.stalled)
  uint64_t answers_sent = 0;
  std::deque<std::pair<uint64_t, sim::Time>> unacked;     // (answer number, answer time)
  std::unordered_map<uint64_t, uint32_t> kernels;         // client func id -> engine kernel id
  std::unordered_map<uint32_t, uint32_t> thread_records;  // records so far, per thread id
  std::unordered_map<uint64_t, int32_t> triton_kernels;   // client func id -> Triton model index
  std::string last_call;
  size_t pending_requests = 0;
  uint64_t ignored_records = 0;  // naming an unknown stream, GPU or kind
  size_t ignored_problem = 0;    // their line in SessionServer::problems_
  // Messages not yet written: collective results are sent unasked, so a client that is busy
  // must not block the session.
  std::string outbox;
  size_t outbox_sent = 0;
  bool unflushed = false;                              // in SessionServer::unflushed_
  std::unordered_map<uint64_t, bool> results_pending;  // result ids submitted, not yet sent
};

// A TCP connection that has not authenticated yet (remote_hosts.cpp).
struct PendingRemote {
  int fd = -1;
  std::string peer;  // "10.0.0.2:41234"
  RemoteGate gate;
  bool authenticated = false;
  wire::FrameReader reader;
  std::chrono::steady_clock::time_point connected;
};

// A host that joined over TCP: the control connection of its `seer run --connect`.
struct RemoteHost {
  int fd = -1;
  HostInfo info;
  int pid = 0;
  wire::FrameReader reader;
  bool gone = false;
};

// A thread that reads a collective's output and waits for its bytes. It resumes at its own
// clock, so until answered it holds the safe time at `t` (see safe_time()).
struct PayloadWaitRequest {
  int client = 0;
  uint64_t id = 0;
  sim::Time t = 0;
  uint32_t thread = 0;
  std::vector<uint64_t> result_ids;
};

struct PendingRequest {
  int client = 0;
  wire::Request request;
};

// A comm_init request waiting for every communicator it creates to be complete.
struct PendingCommRequest {
  int client = 0;
  uint64_t id = 0;
  sim::Time t = 0;
  sim::Time ready = 0;
  int missing = 0;
  std::vector<wire::CommInfo> comms;
};

class SessionServer : public sim::WaitListener {
 public:
  explicit SessionServer(SessionOptions options);
  ~SessionServer() override;

  const std::string& socket_path() const { return socket_path_; }
  void serve(const std::function<bool()>& keep_going);
  SessionResult result() const;
  const sim::Engine& engine() const { return engine_; }
  const SessionOptions& options() const { return options_; }

  void on_wait_done(uint64_t token, sim::Time completion) override;

  // Serving ranks of other hosts: at least one host joined, every host's command ended and
  // every rank process left.
  bool remote_hosts_finished() const;
  std::string listen_address() const { return listen_address_; }
  void abort(const std::string& why) {
    if (!aborted_) abort_run(why);
  }

 private:
  void accept_clients();
  void listen_tcp(const Endpoint& at);
  void accept_remote();
  void read_pending(PendingRemote& p);
  void admit(PendingRemote& p, const std::string& first_message);
  void read_host(RemoteHost& h);
  void handle_host_message(RemoteHost& h, const std::string& payload);
  void host_lost(RemoteHost& h, const std::string& why);
  void refuse(PendingRemote& p, const std::string& why);
  void drop_unauthenticated();
  // The session's GPU of a client's device index (remote clients see the list rotated).
  int gpu_of(const Client& c, int device) const {
    const int n = engine_.gpu_count();
    return device < 0 || device >= n || c.first_gpu == 0 ? device : (device + c.first_gpu) % n;
  }
  void drop_silent_clients();
  void read_client(Client& c);
  void handle_message(Client& c, std::string_view payload);
  void handle_hello(Client& c, const wire::Hello& hello);
  void handle_batch(Client& c, wire::Batch& batch);
  void count_rank(Client& c);
  void abandon_payload_waits();
  void apply_record(Client& c, wire::Record& r);
  void handle_request(Client& c, const wire::Request& r);
  void send(Client& c, const wire::SessionMessage& m);
  void answer(Client& c, uint64_t id, sim::Time t, bool ready, sim::Time completion);
  void drop(Client& c, const std::string& why);
  sim::Time effective_promise(const Client& c, bool payload_waits_released) const;
  sim::Time safe_time() const;
  void advance();
  // Answers the stream/event queries whose time the engine has reached: not ready (a ready one was
  // answered when its work completed).
  void answer_due_queries();
  void check_stuck();
  void request_parking(double idle_s);
  void report_deadlock(const std::string& extra);
  void handle_comm_init(Client& c, const wire::Request& r);
  void handle_simulate(Client& c, const wire::Request& r);
  void handle_payload_wait(Client& c, const wire::Request& r);
  void handle_activity(Client& c, const wire::Request& r);
  void exchange_payloads(Client& c, wire::Collective& col);
  void send_result(PayloadResult& r);
  void answer_payload_waits(Client& c);
  void flush_outbox(Client& c);
  void flush_outboxes();
  void comm_completed(const CompletedComm& comm);
  void check_engine_errors();
  void abort_run(const std::string& why);
  bool everyone_blocked() const;
  int live_clients() const;
  int assign_process_key(int rank);
  void show_progress();

  SessionOptions options_;
  sim::Engine engine_;
  std::string dir_;
  std::string socket_path_;
  int listen_fd_ = -1;
  int tcp_fd_ = -1;
  std::string listen_address_;
  std::vector<std::unique_ptr<PendingRemote>> pending_;
  std::vector<std::unique_ptr<RemoteHost>> hosts_;
  std::vector<std::unique_ptr<Client>> clients_;
  std::vector<Client*> unflushed_;  // clients with messages appended since the last flush
  std::unordered_map<uint64_t, PendingRequest> waits_;  // engine token -> request
  std::set<uint64_t> queries_;  // tokens of waits_ that are cudaStreamQuery/cudaEventQuery
  uint64_t next_token_ = 1;
  int next_anonymous_ = 0;
  int expected_ranks_ = 0;
  int joined_ranks_ = 0;
  uint64_t payload_waits_abandoned_ = 0;
  // When processes were last asked to park (every park_after ms of a stuck stretch).
  std::optional<std::chrono::steady_clock::time_point> parking_requested_;
  std::map<int, int> used_keys_;
  std::vector<std::string> problems_;
  CommRegistry comms_;
  std::map<std::pair<int, uint64_t>, PendingCommRequest> comm_requests_;
  PayloadExchange payloads_;
  // Client messages are parsed into this arena, emptied before each (an all-to-all record holds a
  // part per peer); its first block is reused.
  std::vector<char> parse_block_ = std::vector<char>(1 << 20);
  google::protobuf::Arena parse_arena_{parse_block_.data(), parse_block_.size()};
  ActivityTracker activity_;
  std::vector<PayloadWaitRequest> payload_waits_;
  int64_t payload_max_bytes_ = 0;
  bool aborted_ = false;
  std::chrono::steady_clock::time_point started_;
  std::chrono::steady_clock::time_point last_progress_;
  bool hang_reported_ = false;
  double wall_seconds_ = 0;
  uint64_t records_ = 0;
  uint64_t requests_ = 0;
  std::vector<NvtxEvent> nvtx_;
  std::vector<CollectiveCall> collective_calls_;
  std::vector<HostWait> host_waits_;
  std::chrono::steady_clock::time_point last_progress_line_;
  uint64_t records_at_progress_line_ = 0;
  bool progress_shown_ = false;
};

}  // namespace seer::rt

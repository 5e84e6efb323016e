#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "seer/runtime/cluster.h"
#include "seer/runtime/host_calibration.h"
#include "seer/runtime/remote.h"
#include "seer/simcore/engine.h"
#include "seer/simcore/host_costs.h"

namespace seer::rt {

enum class HostTime { kMeasured, kModeled };

struct SessionOptions {
  ClusterSpec cluster;
  HostTime host_time = HostTime::kMeasured;
  sim::HostCosts costs;
  // The cluster's host CPU against this machine (cpu_scale and framework_op of `costs`). Unset:
  // the session plans it from cluster.host_cpu, calibrating this machine in measured mode.
  std::optional<HostCpuPlan> host_cpu_plan;
  // When ranks wait for simulated work that cannot complete because a process outside Seer (in MPI,
  // in a socket read) still holds virtual time back, after this long (real ms) without progress,
  // and again every such interval, processes park the threads that wait for the world outside
  // them: excluded from the promise until they call again, when their clock catches up with the
  // simulation (which depends on real timing; interposer/client/THREADS.md). Modeled mode waits
  // longer.
  int64_t park_after_ms = 100;
  int64_t park_after_ms_modeled = 400;
  // Real seconds without simulated progress while a rank waits before a hang warning is printed.
  double hang_warning_s = 10;
  // Real seconds after which ranks that all wait in Seer or sit outside CUDA (parked) while
  // nothing can progress are reported as a deadlock.
  double deadlock_grace_s = 3;
  // Real seconds to wait for ranks announced by WORLD_SIZE & co. that never make a CUDA call.
  double join_timeout_s = 120;
  // Real seconds a connection may stay silent before its hello: until then it holds virtual time
  // back (a rank says hello as it connects), after that it is dropped.
  double hello_timeout_s = 10;
  // "nccl": NCCL's own model with the data on the simulated network (default); "simple": the
  // ring formula of simcore/README.md "Collective model".
  std::string nccl_model = "nccl";
  int nccl_version = 22809;  // the NCCL release whose constants the model uses
  // A kernel database file (seer/runtime/kernel_db.h) consulted before the kernel models; "": none.
  std::string kernel_db;
  // Print a progress line on stderr about once a second (the CLI sets it when stderr is a
  // terminal and --quiet is off).
  bool progress = false;
  // Which NVTX ranges are training steps: a regular expression searched (case-insensitively) in
  // the range names; empty: ranges named like "step"/"iter", else the most repeated outer range
  // outside libraries' NVTX domains (CCCL and the like).
  std::string step_range;
  // Keep per-link load over time for the trace's counter tracks (the CLI sets it with --out).
  bool record_link_utilisation = false;
  // The largest copy, memset or per-rank collective buffer whose bytes the ranks carry
  // (interposer/client/PAYLOAD.md); -1: SEER_PAYLOAD_MAX_BYTES, else 1 MiB. 0: none.
  int64_t payload_max_bytes = -1;
  // Also accept ranks of other hosts over TCP here (`seer serve --listen`); they authenticate
  // with `token` (runtime/src/remote_auth.h). Port 0 picks a free port (listen_address()).
  std::optional<Endpoint> listen;
  std::string token;
};

// One process that joined the simulation, as the report sees it.
struct ProcessInfo {
  int process = 0;  // engine process key (rank when known)
  int rank = -1;
  int pid = 0;
  std::string program;
  bool said_goodbye = false;
  bool submitted_work = false;  // sent GPU work (a process that only asked questions did not)
  int64_t last_time = 0;        // the latest virtual time it reported
};

// One NVTX call of the program (see wire.proto Nvtx), at its thread's virtual time.
struct NvtxEvent {
  enum Kind { kPush = 0, kPop = 1, kMark = 2, kStart = 3, kEnd = 4, kThreadName = 5 };
  int process = 0;
  uint32_t thread = 0;  // client-local thread index
  int64_t t = 0;
  Kind kind = kMark;
  std::string message;
  std::string domain;
  uint64_t id = 0;
};

// One send/recv group of one rank as the program made it (for the trace's send/recv arrows).
struct CollectiveCall {
  int process = 0;
  uint64_t stream = 0;  // the client's stream id
  uint64_t comm = 0;
  int rank = 0;                                // in the communicator
  std::vector<std::pair<int, int>> p2p_parts;  // (sim::CollKind of a send or recv, peer rank)
};

// A host thread blocked in a call the session answered (cudaStreamSynchronize & co. whose GPU
// work was not already known to be complete), from the call to its return.
struct HostWait {
  int process = 0;
  uint32_t thread = 0;
  int64_t start = 0;
  int64_t end = 0;
  std::string call;
};

// A host whose ranks joined over TCP (`seer run --connect`).
struct HostInfo {
  std::string hostname;
  std::string peer;  // its address as the session saw it
  std::vector<std::string> command;
  bool done = false;  // it said its command ended
  int exit_code = 0;
  std::string exit_description;
};

struct SessionResult {
  std::vector<ProcessInfo> processes;
  std::vector<std::string> problems;  // deadlocks, protocol errors, processes that vanished
  bool aborted = false;               // the session stopped the run (deadlock, mismatch, death)
  double wall_seconds = 0;
  int64_t simulated_ns = 0;
  uint64_t records = 0;
  uint64_t requests = 0;
  std::vector<NvtxEvent> nvtx;                   // per process and thread in call order
  std::vector<CollectiveCall> collective_calls;  // send/recv groups, per process in call order
  std::vector<HostWait> host_waits;
  std::vector<HostInfo> hosts;  // in the order they joined
};

class SessionServer;

// The simulation session: listens on a Unix socket in a private directory, admits rank processes,
// applies their records to the engine in conservative virtual-time order, answers blocking calls.
class Session {
 public:
  explicit Session(SessionOptions options);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  const std::string& socket_path() const;
  // The TCP address ranks of other hosts connect to ("" without SessionOptions::listen).
  std::string listen_address() const;
  // At least one host joined over TCP, every host's command ended and every rank left.
  bool remote_hosts_finished() const;
  // Serves until `keep_going()` is false and every connected process has left.
  void serve(const std::function<bool()>& keep_going);
  SessionResult result() const;
  // Stops the run as a dying rank would: every process is told `why` and serve() returns.
  void abort(const std::string& why);
  const sim::Engine& engine() const;
  const SessionOptions& options() const;

 private:
  std::unique_ptr<SessionServer> server_;
};

}  // namespace seer::rt

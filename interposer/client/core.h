#pragma once

#include <google/protobuf/arena.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <ctime>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "pod_record.h"
#include "proto/frame.h"
#include "thread_state.h"
#include "wait_table.h"
#include "wire.pb.h"

namespace seer::client {

using Time = int64_t;

// The one piece of state every intercepted library shares in a rank process: the connection to
// the session, the batch of records, the threads' virtual clocks. It stays inert until the
// process makes its first CUDA, NCCL or NVTX call.
class Core {
 public:
  static Core& instance();

  // Joins the session on first use. False when not under `seer run`, in a forked child, or
  // after the process started exiting.
  bool ensure_joined();
  bool joined() const { return joined_.load(std::memory_order_acquire); }
  // Whether this process has joined a session and is not a forked child, without constructing the
  // Core: the clock and wait interposers run from any context (the sanitizers' allocator reads
  // the clock, static constructors sleep).
  static bool virtual_time_active() { return active_.load(std::memory_order_acquire); }
  bool shut_down() const { return shut_down_.load(std::memory_order_acquire); }
  bool forked_child() const { return forked_child_; }
  const wire::Welcome& welcome() const { return welcome_; }
  bool modeled() const { return welcome_.host_time() == wire::HOST_TIME_MODELED; }
  const wire::HostCosts& costs() const { return welcome_.costs(); }
  // Modeled mode: the host cost of the framework around one launched operation (kernel, library
  // call, copy, memset, collective) when this process runs PyTorch; 0 otherwise.
  Time framework_cost();
  // costs().launch() plus framework_cost(): what a program pays to launch one operation.
  Time launch_cost() { return costs().launch() + framework_cost(); }

  // The calling thread's state, registered on first use.
  ThreadState& thread();

  // Every intercepted call: enter() advances the thread clock by its host time since the last
  // call plus `cost`; leave() marks it back in application code.
  void enter(ThreadState& ts, Time cost);
  void leave(ThreadState& ts);

  void add_record(ThreadState& ts, const PodRecord& r);
  // Makes the thread a submitter now, so that a later add_record() never waits on the session:
  // call it before add_record() under a lock that orders records of several threads.
  void ensure_submitter(ThreadState& ts) {
    if (!ts.submitter.load(std::memory_order_relaxed)) become_submitter(ts);
  }
  // A blocking request; returns the session's answer and sets the thread clock to its time.
  wire::Answer request(ThreadState& ts, wire::Request& r);

  // A request whose answer is collected later with wait_async(); the thread keeps running.
  uint64_t send_async(ThreadState& ts, wire::Request& r);
  // Waits for an async request's answer; the thread clock becomes at least its time.
  wire::Answer wait_async(ThreadState& ts, uint64_t id);
  // An answer already read from the session (e.g. a collective result it sent unasked), without
  // waiting; false when none with this id has arrived yet.
  bool take_answer(uint64_t id, wire::Answer& out);

  // Virtual time for clock_gettime & co. (ns since the epoch of `clock`), for any thread.
  int64_t clock_read_ns(clockid_t clock);
  // The same reading, not charged as a clock read: the clock does not move for it (a malloc's
  // own reads, allocator_code.h, which depend on how it met other threads in real time).
  int64_t uncharged_clock_read_ns(clockid_t clock) const;
  // The same reading without advancing the thread's clock (timed waits convert deadlines).
  int64_t clock_peek_ns(clockid_t clock) const;
  // The calling thread slept or waited (timed_waits.cpp): the clock reads of its polling loop are
  // not a busy wait on virtual time. `outside`: it waited for the world outside the process (a
  // poll, a sleep, a socket, a yield), so a stuck session may park it.
  static void note_host_wait(bool outside);
  // Around a wait for the world outside the process (OutsideWait): while it lasts, and for a
  // moment after, the thread counts as waiting for another rank (park_idle_threads).
  static ThreadState* begin_outside_wait();
  static void end_outside_wait(ThreadState* ts);

  // Threads that hand work to one another (thread_handoff.cpp, thread_sync.cpp).
  // The calling thread when it takes part: the process joined, the thread registered and in
  // application code (not inside Seer, whose own locks and condition variables are not the
  // program's).
  static ThreadState* participant();
  // Before pthread_create: when the creator is tracked, the new thread's state, registered now
  // with the creator's clock so that the promise covers it from its first instant; else null.
  ThreadState* prepare_child(uint32_t child_id);
  void child_not_started(ThreadState* ts);
  // In the new thread, before its start routine.
  static void start_child(ThreadState* ts);
  // A wait on another thread of the process (a condition variable, a semaphore, a join): the
  // thread promises nothing until it returns.
  void begin_wait(ThreadState& ts, const void* object);
  void end_wait(ThreadState& ts, const void* object);
  // The calling thread signals, posts or exits: a waiter it wakes resumes at its clock.
  void release(ThreadState& ts, const void* object, int wakes);
  // The calling thread took a mutex: it continues from the time the last tracked thread released
  // it at, if later.
  void acquired(ThreadState& ts, const void* object);
  // A thread joined (or found finished) the thread whose join object this is.
  void joined_thread(ThreadState& ts, const void* object);
  void thread_exiting(ThreadState& ts);

  // For the launch-path benchmark: how many records were flushed.
  uint64_t records_sent() const { return records_sent_; }

 private:
  Core() = default;
  bool join_locked();
  void flush_locked(const wire::Request* request);
  void flusher_loop();
  void park_idle_threads();
  static bool seems_stuck(const ThreadState& ts, int64_t idle);
  static int64_t cpu_ns_of(const ThreadState& ts);
  void read_unasked_messages();
  void resume(ThreadState& ts);
  void become_submitter(ThreadState& ts);
  void raise_high_water(Time c);
  wire::Answer wait_answer(uint64_t id);
  void read_one_message();
  void dispatch(wire::SessionMessage& m);
  void acknowledge();  // sends the answers read so far, if not sent yet
  // `stalled`: every active thread waits for an answer, some to a query at its clock.
  Time promise_locked(bool& all_blocked, bool& stalled) const;
  void account_cpu(ThreadState& ts);
  void goodbye();
  static void at_fork_child();
  static void at_exit();

  std::atomic<bool> joined_{false};
  static std::atomic<bool> active_;  // joined, not shut down by a fork
  std::atomic<bool> shut_down_{false};
  bool join_failed_ = false;
  bool forked_child_ = false;
  std::mutex join_mu_;
  int fd_ = -1;
  wire::Welcome welcome_;
  std::atomic<bool> park_requested_{false};  // the session asked to park idle threads
  // -1 until the first launch, then whether PyTorch's CUDA library is loaded (it loads before any
  // launch a PyTorch program makes).
  std::atomic<int> runs_pytorch_{-1};
  int64_t clock_base_[16] = {};  // real ns of each clock id when the process joined

  // batch_mu_ guards the pending records, the thread list and the socket's write side.
  mutable std::mutex batch_mu_;
  std::vector<PodRecord> pending_;
  std::vector<ThreadState*> threads_;
  // Batch messages are built in this arena and dropped at once; its first block is reused.
  std::vector<char> arena_block_ = std::vector<char>(4 << 20);
  google::protobuf::Arena arena_{arena_block_.data(), arena_block_.size()};
  std::string out_buffer_;
  uint64_t answers_received_ = 0;
  Time last_promise_sent_ = -1;
  bool last_all_blocked_sent_ = false;
  bool last_stalled_sent_ = false;
  bool has_submitter_ = false;  // some thread has submitted device work
  uint64_t last_answers_sent_ = 0;
  uint64_t records_sent_ = 0;
  std::atomic<uint64_t> next_request_id_{1};

  // Answers: one waiting thread at a time reads the socket and hands answers to the others.
  std::mutex read_mu_;
  wire::FrameReader reader_;  // under read_mu_
  std::mutex answer_mu_;
  std::condition_variable answer_cv_;
  std::unordered_map<uint64_t, wire::Answer> answers_;
  std::unordered_map<uint64_t, ThreadState*> waiting_;  // guarded by batch_mu_

  // The flusher sleeps longer and longer while nothing changes (so idle ranks cost the machine
  // next to nothing); the next call, record or answer wakes it.
  std::condition_variable flusher_cv_;  // waited on with batch_mu_
  std::atomic<bool> flusher_dozing_{false};
  void wake_flusher();
  void wake_flusher_locked();   // batch_mu_ held
  bool changed_locked() const;  // something the session has not been told yet (batch_mu_ held)

  int initial_device_ = 0;           // a new thread's current device (Welcome.first_gpu)
  std::atomic<Time> high_water_{0};  // the latest clock any submitting thread reached
  WaitTable waits_;                  // hand-offs between the process' threads
};

// Scoped enter/leave for API implementations.
class ApiCall {
 public:
  ApiCall(Core& core, Time cost) : core_(core), ts_(core.thread()) { core_.enter(ts_, cost); }
  ~ApiCall() { core_.leave(ts_); }
  ApiCall(const ApiCall&) = delete;
  ApiCall& operator=(const ApiCall&) = delete;
  ThreadState& ts() { return ts_; }

 private:
  Core& core_;
  ThreadState& ts_;
};

// A wait for the world outside the process (a poll, a sleep, a socket read, a yield), for its
// duration.
class OutsideWait {
 public:
  OutsideWait() : ts_(Core::begin_outside_wait()) {}
  ~OutsideWait() { Core::end_outside_wait(ts_); }
  OutsideWait(const OutsideWait&) = delete;
  OutsideWait& operator=(const OutsideWait&) = delete;

 private:
  ThreadState* ts_;
};

}  // namespace seer::client

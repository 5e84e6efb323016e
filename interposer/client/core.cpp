#include "core.h"

#include <dlfcn.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <thread>

#include "device_memory.h"
#include "injection.h"
#include "proto/frame.h"
#include "rank_env.h"
#include "thread_cpu_clock.h"
#include "thread_sync.h"
#include "time_source.h"

namespace seer::client {
namespace {

constexpr Time kNever = INT64_MAX;
constexpr size_t kFlushAtRecords = 4096;
// Parking (Core::park_idle_threads): how long a thread waiting outside, and one seen nowhere, may
// go without a call.
constexpr int64_t kParkBusyNs = 10'000'000;
constexpr int64_t kParkIdleNs = 2'000'000'000;
thread_local ThreadState* tl_thread = nullptr;
thread_local int64_t tl_unregistered_last = 0;
pthread_key_t g_thread_key;

void on_thread_exit(void* p) {
  auto* ts = static_cast<ThreadState*>(p);
  Core::instance().thread_exiting(*ts);
  ts->mode.store(static_cast<int>(ThreadMode::kExited), std::memory_order_release);
}

[[noreturn]] void die(const std::string& msg) {
  std::fprintf(stderr, "seer: %s\n", msg.c_str());
  std::fflush(stderr);
  _exit(1);
}

bool read_exact(int fd, char* p, size_t n) {
  while (n > 0) {
    const ssize_t r = ::read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

bool read_frame(int fd, std::string& payload) {
  unsigned char h[4];
  if (!read_exact(fd, reinterpret_cast<char*>(h), 4)) return false;
  const uint32_t len = h[0] | (h[1] << 8) | (h[2] << 16) | (uint32_t{h[3]} << 24);
  if (len > wire::kMaxFrameBytes) return false;
  payload.resize(len);
  return read_exact(fd, payload.data(), len);
}

bool write_message(int fd, const google::protobuf::MessageLite& m, std::string& buffer) {
  buffer.clear();
  const size_t size = m.ByteSizeLong();
  wire::append_frame_header(buffer, static_cast<uint32_t>(size));
  buffer.resize(4 + size);
  m.SerializeWithCachedSizesToArray(reinterpret_cast<uint8_t*>(buffer.data() + 4));
  return wire::write_all(fd, buffer.data(), buffer.size());
}

std::string program_name() {
  char buf[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "?";
  buf[n] = 0;
  const char* slash = std::strrchr(buf, '/');
  return slash ? slash + 1 : buf;
}

void to_wire(const PodRecord& p, wire::Record* r) {
  r->set_thread(p.thread);
  r->set_t(p.t);
  switch (p.type) {
    case PodRecord::kRegisterKernel: {
      auto* k = r->mutable_register_kernel();
      k->set_func_id(p.a);
      k->set_name(p.name ? p.name : "?");
      if (p.triton) *k->mutable_triton() = *p.triton;
      break;
    }
    case PodRecord::kLaunch: {
      auto* l = r->mutable_launch();
      l->set_func_id(p.a);
      l->set_stream(p.b);
      l->set_gx(p.dims[0]);
      l->set_gy(p.dims[1]);
      l->set_gz(p.dims[2]);
      l->set_bx(p.dims[3]);
      l->set_by(p.dims[4]);
      l->set_bz(p.dims[5]);
      l->set_shmem(p.dims[6]);
      for (int i = 0; i < p.nsizes; ++i) l->add_size_args(p.sizes[i]);
      break;
    }
    case PodRecord::kCopy: {
      auto* c = r->mutable_copy();
      c->set_kind(static_cast<wire::CopyKind>(p.copy_kind));
      c->set_stream(p.a);
      c->set_bytes(p.b);
      c->set_pinned(p.flag_a);
      c->set_src_gpu(p.i0);
      c->set_dst_gpu(p.i1);
      break;
    }
    case PodRecord::kEventRecord: {
      auto* e = r->mutable_event_record();
      e->set_event(p.a);
      e->set_stream(p.b);
      break;
    }
    case PodRecord::kStreamWaitEvent: {
      auto* w = r->mutable_stream_wait_event();
      w->set_stream(p.a);
      w->set_event(p.b);
      break;
    }
    case PodRecord::kStreamCreate: {
      auto* s = r->mutable_stream_create();
      s->set_stream(p.a);
      s->set_gpu(p.i0);
      s->set_blocking(p.flag_a);
      s->set_legacy_default(p.flag_b);
      s->set_priority(p.i1);
      break;
    }
    case PodRecord::kAlloc: {
      auto* a = r->mutable_alloc();
      a->set_gpu(p.i0);
      a->set_address(p.a);
      a->set_bytes(p.b);
      break;
    }
    case PodRecord::kLibrary: {
      *r->mutable_library() = *p.library;
      delete p.library;
      break;
    }
    case PodRecord::kNvtx: {
      *r->mutable_nvtx() = *p.nvtx;
      delete p.nvtx;
      break;
    }
    case PodRecord::kCollective: {
      *r->mutable_collective() = *p.collective;
      delete p.collective;
      break;
    }
    case PodRecord::kFree: {
      auto* f = r->mutable_free();
      f->set_gpu(p.i0);
      f->set_address(p.a);
      f->set_bytes(p.b);
      break;
    }
  }
}

}  // namespace

std::atomic<bool> Core::active_{false};

Core& Core::instance() {
  static Core* core = new Core();  // never destroyed: used until the very end of exit
  return *core;
}

bool Core::ensure_joined() {
  if (joined_.load(std::memory_order_acquire)) return !shut_down_.load(std::memory_order_acquire);
  {
    std::lock_guard<std::mutex> lock(join_mu_);
    if (joined_.load(std::memory_order_relaxed)) return !shut_down_.load(std::memory_order_relaxed);
    if (join_failed_ || forked_child_) return false;
    if (!join_locked()) {
      join_failed_ = true;
      return false;
    }
  }
  load_injected_tool();
  return true;
}

bool Core::join_locked() {
  const char* path = std::getenv("SEER_SOCKET");
  if (!path || !*path) {
    std::fprintf(stderr,
                 "seer: this is Seer's CUDA runtime, but the program was not started by `seer run`"
                 " (SEER_SOCKET is not set); CUDA calls will fail.\n");
    return false;
  }
  fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path, sizeof(addr.sun_path) - 1);
  if (fd_ < 0 || ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    std::fprintf(stderr, "seer: cannot reach the session at %s: %s\n", path, std::strerror(errno));
    return false;
  }
  const RankInfo rank = discover_rank();
  wire::ClientMessage hello_msg;
  wire::Hello* hello = hello_msg.mutable_hello();
  hello->set_pid(static_cast<int>(::getpid()));
  hello->set_rank(rank.rank);
  hello->set_world_size(rank.world_size);
  hello->set_local_rank(rank.local_rank);
  hello->set_rank_source(rank.source);
  hello->set_program(program_name());
  std::string buffer;
  std::string payload;
  wire::SessionMessage reply;
  if (!write_message(fd_, hello_msg, buffer) || !read_frame(fd_, payload) ||
      !reply.ParseFromString(payload) || !reply.has_welcome()) {
    std::fprintf(stderr, "seer: the session did not answer this process' hello\n");
    return false;
  }
  welcome_ = reply.welcome();
  if (!welcome_.error().empty()) {
    std::fprintf(stderr, "seer: %s\n", welcome_.error().c_str());
    return false;
  }
  for (clockid_t c : {CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_MONOTONIC_RAW, CLOCK_REALTIME_COARSE,
                      CLOCK_MONOTONIC_COARSE, CLOCK_BOOTTIME}) {
    clock_base_[c] = real_clock_ns(c);
  }
  DeviceMemory::instance().configure(welcome_);
  // A thread starts on the device that is the cluster's GPU 0, as every thread does in a one-host
  // run: a rank of another host sees the devices rotated (Welcome.first_gpu).
  if (welcome_.gpu_count() > 0 && welcome_.first_gpu() > 0) {
    initial_device_ =
        (welcome_.gpu_count() - welcome_.first_gpu() % welcome_.gpu_count()) % welcome_.gpu_count();
  }
  {
    std::lock_guard<std::mutex> lock(batch_mu_);
    for (ThreadState* t : threads_) t->device = initial_device_;
  }
  pthread_key_create(&g_thread_key, on_thread_exit);
  pthread_atfork(nullptr, nullptr, &Core::at_fork_child);
  std::atexit(&Core::at_exit);
  joined_.store(true, std::memory_order_release);
  active_.store(true, std::memory_order_release);
  std::thread([this] { flusher_loop(); }).detach();
  return true;
}

ThreadState& Core::thread() {
  if (tl_thread) return *tl_thread;
  auto* ts = new ThreadState();
  ts->registered = true;
  ts->device = initial_device_;
  ts->id = logical_thread_id();
  ts->cpu_mark = thread_cpu_ns();
  ts->unchanged_since = real_monotonic_ns();
  ts->set_cpu_clock();
  ts->clock.store(high_water_.load(std::memory_order_relaxed), std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> lock(batch_mu_);
    ts->index = static_cast<uint32_t>(threads_.size());
    threads_.push_back(ts);
  }
  if (joined()) pthread_setspecific(g_thread_key, ts);
  tl_thread = ts;
  return *ts;
}

Time Core::framework_cost() {
  if (!modeled()) return 0;
  int runs = runs_pytorch_.load(std::memory_order_relaxed);
  if (runs < 0) {
    void* torch = ::dlopen("libtorch_cuda.so", RTLD_NOLOAD | RTLD_LAZY);
    runs = torch != nullptr ? 1 : 0;
    if (torch != nullptr) ::dlclose(torch);
    runs_pytorch_.store(runs, std::memory_order_relaxed);
  }
  return runs == 1 ? costs().framework_op() : 0;
}

void Core::account_cpu(ThreadState& ts) {
  if (modeled()) return;
  const int64_t cpu = thread_cpu_ns();
  const int64_t delta = cpu - ts.cpu_mark;
  ts.cpu_mark = cpu;
  if (delta > 0) {
    const auto scaled = static_cast<Time>(static_cast<double>(delta) * costs().cpu_scale());
    ts.clock.store(ts.clock.load(std::memory_order_relaxed) + scaled, std::memory_order_relaxed);
  }
}

void Core::raise_high_water(Time c) {
  Time hw = high_water_.load(std::memory_order_relaxed);
  while (c > hw && !high_water_.compare_exchange_weak(hw, c, std::memory_order_relaxed)) {
  }
}

void Core::enter(ThreadState& ts, Time cost) {
  const bool submitter = ts.submitter.load(std::memory_order_relaxed);
  // An observer (e.g. a framework's watchdog polling events) sees the process' present: its own
  // clock barely moves while it sleeps between polls. Tracked threads keep their own clocks; time
  // flows between them only where one hands work to another (a condition variable, a semaphore, a
  // thread's start or end: thread_handoff.cpp), so a thread's clock depends on what the threads
  // did, not on the order the machine ran them in.
  const bool join = !submitter && !ts.tracked.load(std::memory_order_relaxed);
  ts.outside_since.store(0, std::memory_order_relaxed);
  int expected = static_cast<int>(ThreadMode::kInApp);
  if (!ts.mode.compare_exchange_strong(expected, static_cast<int>(ThreadMode::kInSeer))) {
    if (expected == static_cast<int>(ThreadMode::kParked)) {
      if (join) {
        ts.clock.store(std::max(ts.clock.load(std::memory_order_relaxed),
                                high_water_.load(std::memory_order_relaxed)),
                       std::memory_order_relaxed);
      }
      resume(ts);
    }
    ts.mode.store(static_cast<int>(ThreadMode::kInSeer), std::memory_order_release);
  }
  account_cpu(ts);
  Time c = ts.clock.load(std::memory_order_relaxed);
  if (join) c = std::max(c, high_water_.load(std::memory_order_relaxed));
  if (modeled()) c += costs().clock_read() * static_cast<Time>(ts.reads_since_call);
  ts.reads_since_call = 0;
  c += cost;
  ts.clock.store(c, std::memory_order_relaxed);
  // The high-water mark stays at or above every submitter's clock, hence above any promise sent.
  if (submitter) raise_high_water(c);
}

void Core::leave(ThreadState& ts) {
  // Time spent inside Seer (serializing, zero-filling host buffers) is not the program's.
  if (!modeled()) ts.cpu_mark = thread_cpu_ns();
  if (ts.submitter.load(std::memory_order_relaxed)) {
    raise_high_water(ts.clock.load(std::memory_order_relaxed));
  }
  ts.calls.store(ts.calls.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  ts.mode.store(static_cast<int>(ThreadMode::kInApp), std::memory_order_release);
  // Pairs with the fence in flusher_loop: either the flusher sees this call's clock before it
  // dozes off, or this thread sees it dozing and wakes it.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (flusher_dozing_.load(std::memory_order_relaxed)) wake_flusher();
}

void Core::wake_flusher() {
  std::lock_guard<std::mutex> lock(batch_mu_);
  wake_flusher_locked();
}

void Core::wake_flusher_locked() {
  if (flusher_dozing_.exchange(false, std::memory_order_relaxed)) flusher_cv_.notify_one();
}

void Core::resume(ThreadState& ts) {
  ts.mode.store(static_cast<int>(ThreadMode::kInSeer), std::memory_order_release);
  wire::Request r;
  r.set_resume(true);
  request(ts, r);
}

// An observer's first device work: from now on its clock is part of the promise. It starts from
// the process' present. If a promise already sent exceeds that (the process had no submitter and
// promised nothing), or every submitter was blocked, the session may have moved on: it asks.
// Ranked processes make their first record before the session may move at all (it waits for
// every rank's first record), so their start stays deterministic.
void Core::become_submitter(ThreadState& ts) {
  bool ask = false;
  {
    std::lock_guard<std::mutex> lock(batch_mu_);
    has_submitter_ = true;
    // A tracked thread's clock has bounded the promise all along.
    if (ts.tracked.load(std::memory_order_relaxed)) {
      ts.submitter.store(true, std::memory_order_relaxed);
      return;
    }
    const Time c = std::max(ts.clock.load(std::memory_order_relaxed),
                            high_water_.load(std::memory_order_relaxed));
    ts.clock.store(c, std::memory_order_relaxed);
    ask = last_all_blocked_sent_ || last_promise_sent_ > c;
    ts.submitter.store(true, std::memory_order_relaxed);
    has_submitter_ = true;
  }
  if (ask) {
    wire::Request r;
    r.set_resume(true);
    request(ts, r);
    ts.mode.store(static_cast<int>(ThreadMode::kInSeer), std::memory_order_release);
  }
}

void Core::add_record(ThreadState& ts, const PodRecord& r) {
  ensure_submitter(ts);
  std::lock_guard<std::mutex> lock(batch_mu_);
  pending_.push_back(r);
  pending_.back().thread = ts.id;
  pending_.back().t = std::max(r.t, ts.clock.load(std::memory_order_relaxed));
  if (pending_.size() >= kFlushAtRecords) flush_locked(nullptr);
  wake_flusher_locked();
}

Time Core::promise_locked(bool& all_blocked, bool& stalled) const {
  Time p = kNever;
  int active = 0, blocked = 0, querying = 0;
  const auto counts = [](const ThreadState* ts) {
    return ts->registered && (ts->submitter.load(std::memory_order_relaxed) ||
                              ts->tracked.load(std::memory_order_relaxed));
  };
  // A thread waiting on another thread of the process keeps its clock in the promise (it is
  // woken by a thread outside the simulation, a data loader, as often as by a tracked one),
  // except while a tracked thread waits on the session: then the one it waits for may be that
  // thread, which needs virtual time to pass (thread_handoff.cpp).
  bool some_blocked = false;
  for (const ThreadState* ts : threads_) {
    const auto mode = static_cast<ThreadMode>(ts->mode.load(std::memory_order_acquire));
    some_blocked = some_blocked ||
                   (counts(ts) && (mode == ThreadMode::kBlocked || mode == ThreadMode::kQuerying));
  }
  for (ThreadState* ts : threads_) {
    const auto mode = static_cast<ThreadMode>(ts->mode.load(std::memory_order_acquire));
    if (mode == ThreadMode::kParked || mode == ThreadMode::kExited) continue;
    if (!counts(ts)) continue;
    if (mode == ThreadMode::kWaiting && (some_blocked || ts->parked_in_wait)) {
      ts->excluded_in_wait = true;
      continue;
    }
    ++active;
    if (mode == ThreadMode::kBlocked) ++blocked;
    if (mode == ThreadMode::kQuerying) ++querying;
    p = std::min(p, ts->clock.load(std::memory_order_relaxed));
  }
  // A thread woken by a hand-off that has not run yet resumes at the token's time.
  const std::optional<Time> token = waits_.earliest_token();
  if (token) p = std::min(p, *token);
  // A process none of whose threads ever submitted work (a launcher that only counted devices, a
  // compile worker) holds nothing back.
  all_blocked = has_submitter_ ? active > 0 && blocked == active && !token : true;
  stalled = !all_blocked && querying > 0 && blocked + querying == active && !token;
  return p;
}

// Test hook: SEER_TEST_JITTER_US=N sleeps a random 0..N us of real time before each message, to
// show that virtual results do not depend on real-time arrival order.
static void jitter() {
  static const long max_us = [] {
    const char* v = std::getenv("SEER_TEST_JITTER_US");
    return v ? std::strtol(v, nullptr, 10) : 0L;
  }();
  if (max_us <= 0) return;
  static thread_local unsigned seed = static_cast<unsigned>(::getpid()) * 2654435761u;
  seed = seed * 1103515245u + 12345u;
  timespec ts{0, static_cast<long>((seed >> 8) % static_cast<unsigned long>(max_us)) * 1000};
  ::nanosleep(&ts, nullptr);
}

// Waits on `cv` for at most `ns` of real time. std::condition_variable::wait_for would read the
// steady clock, which in this process is virtual (and reading it advances the thread's clock).
static void wait_real(std::condition_variable& cv, std::unique_lock<std::mutex>& lock, int64_t ns) {
  timespec now{};
  real_clock_gettime(CLOCK_MONOTONIC, &now);
  const int64_t t = now.tv_sec * int64_t{1000000000} + now.tv_nsec + ns;
  const timespec deadline{static_cast<time_t>(t / 1000000000), static_cast<long>(t % 1000000000)};
  real_cond_clockwait(cv.native_handle(), lock.mutex()->native_handle(), CLOCK_MONOTONIC,
                      &deadline);
}

void Core::flush_locked(const wire::Request* request) {
  if (fd_ < 0) return;
  jitter();
  arena_.Reset();
  auto* message = google::protobuf::Arena::CreateMessage<wire::ClientMessage>(&arena_);
  wire::Batch* batch = message->mutable_batch();
  for (const PodRecord& p : pending_) to_wire(p, batch->add_records());
  records_sent_ += pending_.size();
  pending_.clear();
  bool all_blocked = false, stalled = false;
  const Time promise = promise_locked(all_blocked, stalled);
  batch->set_promise(promise);
  batch->set_answers_received(answers_received_);
  batch->set_all_blocked(all_blocked);
  batch->set_stalled(stalled);
  if (request) *batch->mutable_request() = *request;
  last_promise_sent_ = promise;
  last_all_blocked_sent_ = all_blocked;
  last_stalled_sent_ = stalled;
  last_answers_sent_ = answers_received_;
  if (!write_message(fd_, *message, out_buffer_)) die("lost the connection to the session");
}

wire::Answer Core::request(ThreadState& ts, wire::Request& r) {
  // Inside an API call, the CPU time since the call began is Seer's (serializing payloads,
  // parsing answers), not the program's; outside one, the program's time so far counts first.
  if (ts.mode.load(std::memory_order_relaxed) != static_cast<int>(ThreadMode::kInSeer)) {
    account_cpu(ts);
  }
  r.set_id(next_request_id_.fetch_add(1));
  r.set_thread(ts.id);
  r.set_t(ts.clock.load(std::memory_order_relaxed));
  r.set_observer(!ts.submitter.load(std::memory_order_relaxed) &&
                 !ts.tracked.load(std::memory_order_relaxed));
  // A query's thread resumes at its own clock, so that clock stays in the promise while it waits
  // (the session answers once it has simulated up to it).
  const bool query = r.at_clock();
  {
    std::lock_guard<std::mutex> lock(batch_mu_);
    ts.mode.store(static_cast<int>(query ? ThreadMode::kQuerying : ThreadMode::kBlocked),
                  std::memory_order_release);
    waiting_[r.id()] = &ts;
    flush_locked(&r);
  }
  wire::Answer a = wait_answer(r.id());
  if (query) ts.mode.store(static_cast<int>(ThreadMode::kInSeer), std::memory_order_release);
  acknowledge();
  if (!modeled()) ts.cpu_mark = thread_cpu_ns();
  return a;
}

// The session holds its time at an answered thread's until the process acknowledges the answer
// (with a promise that counts the thread running again). The answered thread does it at once:
// waking the flusher for it costs two context switches, one write does it.
void Core::acknowledge() {
  std::lock_guard<std::mutex> lock(batch_mu_);
  if (answers_received_ != last_answers_sent_) flush_locked(nullptr);
}

uint64_t Core::send_async(ThreadState& ts, wire::Request& r) {
  r.set_id(next_request_id_.fetch_add(1));
  r.set_thread(ts.id);
  r.set_t(ts.clock.load(std::memory_order_relaxed));
  std::lock_guard<std::mutex> lock(batch_mu_);
  flush_locked(&r);
  return r.id();
}

wire::Answer Core::wait_async(ThreadState& ts, uint64_t id) {
  {
    std::lock_guard<std::mutex> lock(batch_mu_);
    bool arrived = false;
    {
      std::lock_guard<std::mutex> answers(answer_mu_);
      arrived = answers_.count(id) > 0;
    }
    if (!arrived) {
      ts.mode.store(static_cast<int>(ThreadMode::kBlocked), std::memory_order_release);
      waiting_[id] = &ts;
      flush_locked(nullptr);  // tell the session this thread now waits
    }
  }
  wire::Answer a = wait_answer(id);
  if (a.t() > ts.clock.load(std::memory_order_relaxed)) {
    ts.clock.store(a.t(), std::memory_order_relaxed);
  }
  acknowledge();
  ts.mode.store(static_cast<int>(ThreadMode::kInSeer), std::memory_order_release);
  return a;
}

bool Core::take_answer(uint64_t id, wire::Answer& out) {
  std::lock_guard<std::mutex> lock(answer_mu_);
  auto it = answers_.find(id);
  if (it == answers_.end()) return false;
  out = std::move(it->second);
  answers_.erase(it);
  return true;
}

wire::Answer Core::wait_answer(uint64_t id) {
  while (true) {
    {
      std::unique_lock<std::mutex> lock(answer_mu_);
      auto it = answers_.find(id);
      if (it != answers_.end()) {
        wire::Answer a = std::move(it->second);
        answers_.erase(it);
        return a;
      }
    }
    if (read_mu_.try_lock()) {
      // Another reader (the flusher polling for unasked messages) may have read this answer
      // between the look above and taking the socket: look again before reading, or the read
      // waits for a message that never comes.
      while (true) {
        {
          std::lock_guard<std::mutex> lock(answer_mu_);
          if (answers_.count(id) > 0) break;
        }
        read_one_message();
      }
      read_mu_.unlock();
      answer_cv_.notify_all();
      continue;
    }
    std::unique_lock<std::mutex> lock(answer_mu_);
    if (answers_.count(id) == 0) wait_real(answer_cv_, lock, 1000000);
  }
}

// Reads at least one message, then dispatches every message already received: the session writes
// what it has for a rank at once (a collective's results, one per part), and nothing may stay
// buffered once read_mu_ is released, since readers only wait for the socket.
void Core::read_one_message() {
  bool corrupt = false;
  std::optional<std::string_view> frame = reader_.peek(corrupt);
  while (!frame && !corrupt) {
    char buf[65536];
    const ssize_t n = ::read(fd_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    reader_.append(buf, static_cast<size_t>(n));
    frame = reader_.peek(corrupt);
  }
  while (frame) {
    wire::SessionMessage m;
    const bool parsed = m.ParseFromArray(frame->data(), static_cast<int>(frame->size()));
    reader_.pop();
    if (!parsed) break;
    dispatch(m);
    frame = reader_.peek(corrupt);
    if (!frame && !corrupt) return;
  }
  if (shut_down()) return;
  die("lost the connection to the session (did `seer run` stop?)");
}

void Core::dispatch(wire::SessionMessage& m) {
  // The session prints the reason in its report; each rank just says why it stops.
  if (m.has_fatal()) die("this rank was stopped by the session (see seer's report)");
  if (m.body_case() == wire::SessionMessage::kPark) {
    park_requested_.store(true, std::memory_order_relaxed);
    std::lock_guard<std::mutex> lock(batch_mu_);
    wake_flusher_locked();
    return;
  }
  if (!m.has_answer()) return;
  wire::Answer& a = *m.mutable_answer();
  const uint64_t id = a.id();
  if (a.unasked()) {
    // A collective's result: kept until the program reads its buffer (Payload::settle). Nobody
    // waits for it and the session does not wait for its acknowledgement.
    std::lock_guard<std::mutex> answers(answer_mu_);
    answers_[id] = std::move(a);
    return;
  }
  bool waited = false;
  {
    // The answered thread counts as running again from the moment its answer is read, so the
    // promise sent with the next batch accounts for it. Lock order: batch_mu_, then answer_mu_.
    std::lock_guard<std::mutex> lock(batch_mu_);
    ++answers_received_;
    auto it = waiting_.find(id);
    waited = it != waiting_.end();
    if (waited) {
      ThreadState* ts = it->second;
      if (a.t() > ts->clock.load(std::memory_order_relaxed)) {
        ts->clock.store(a.t(), std::memory_order_relaxed);
      }
      ts->mode.store(static_cast<int>(ThreadMode::kInSeer), std::memory_order_release);
      waiting_.erase(it);
    } else {
      wake_flusher_locked();  // the session waits for the acknowledgement
    }
    std::lock_guard<std::mutex> answers(answer_mu_);
    answers_[id] = std::move(a);
  }
  // Only a thread in waiting_ sleeps on an answer; a collective's result, sent unasked, wakes
  // nobody (there is one per part, and a woken thread would only sleep again).
  if (waited) answer_cv_.notify_all();
}

int64_t Core::uncharged_clock_read_ns(clockid_t clock) const {
  const int64_t now = clock_peek_ns(clock);
  // Readings never go back: not before what a modeled read showed.
  if (!modeled() || !tl_thread || !tl_thread->registered) return now;
  return std::max(now, clock_base_[clock & 15] + tl_thread->last_shown);
}

int64_t Core::clock_read_ns(clockid_t clock) {
  const int64_t base = clock_base_[clock & 15];
  const Time quantum = costs().clock_read();
  if (tl_thread && tl_thread->registered) {
    ThreadState& ts = *tl_thread;
    account_cpu(ts);
    Time c = ts.clock.load(std::memory_order_relaxed);
    const bool own =
        ts.submitter.load(std::memory_order_relaxed) || ts.tracked.load(std::memory_order_relaxed);
    if (!own) c = std::max(c, high_water_.load(std::memory_order_relaxed));
    if (!modeled()) {
      c += quantum;
      ts.clock.store(c, std::memory_order_relaxed);
      if (ts.submitter.load(std::memory_order_relaxed)) raise_high_water(c);
      return base + c;
    }
    // Modeled mode: a read shows the clock plus one quantum per read since the thread's last
    // call, so reads strictly increase and busy-wait loops end; the next call adds those quanta
    // to the clock. A host wait (a sleep, a poll, a timed condition wait) drops them instead:
    // how often a program reads the clock around such waits (an interpreter's thread hand-offs,
    // a loop polling a socket) depends on the machine's scheduling, not on the program. (What a
    // dropped read showed is still never shown again: readings never go back.)
    const auto n = static_cast<Time>(++ts.reads_since_call);
    ts.last_shown = std::max(ts.last_shown + quantum, c + quantum * n);
    return base + ts.last_shown;
  }
  const Time v =
      std::max(tl_unregistered_last + quantum, high_water_.load(std::memory_order_relaxed));
  tl_unregistered_last = v;
  return base + v;
}

void Core::note_host_wait(bool outside) {
  ThreadState* ts = tl_thread;
  if (!ts) return;
  ts->reads_since_call = 0;
  if (outside && ts->outside_since.load(std::memory_order_relaxed) == 0) {
    ts->outside_since.store(real_monotonic_ns(), std::memory_order_relaxed);
  }
}

ThreadState* Core::begin_outside_wait() {
  note_host_wait(true);
  ThreadState* ts = tl_thread;
  if (ts) ts->outside_depth.fetch_add(1, std::memory_order_relaxed);
  return ts;
}

void Core::end_outside_wait(ThreadState* ts) {
  if (!ts) return;
  ts->outside_left.store(real_monotonic_ns(), std::memory_order_relaxed);
  ts->outside_depth.fetch_sub(1, std::memory_order_relaxed);
}

ThreadState* Core::participant() {
  if (!virtual_time_active()) return nullptr;
  ThreadState* ts = tl_thread;
  if (!ts || ts->mode.load(std::memory_order_relaxed) != static_cast<int>(ThreadMode::kInApp)) {
    return nullptr;
  }
  return ts;
}

ThreadState* Core::prepare_child(uint32_t child_id) {
  ThreadState* parent = participant();
  if (!parent || shut_down() || forked_child_) return nullptr;
  if (!parent->submitter.load(std::memory_order_relaxed) &&
      !parent->tracked.load(std::memory_order_relaxed)) {
    return nullptr;
  }
  account_cpu(*parent);
  auto* ts = new ThreadState();
  ts->registered = true;
  ts->device = initial_device_;
  ts->id = child_id;
  ts->unchanged_since = real_monotonic_ns();
  ts->clock.store(parent->clock.load(std::memory_order_relaxed), std::memory_order_relaxed);
  ts->tracked.store(true, std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(batch_mu_);
  ts->index = static_cast<uint32_t>(threads_.size());
  threads_.push_back(ts);
  return ts;
}

void Core::child_not_started(ThreadState* ts) {
  ts->mode.store(static_cast<int>(ThreadMode::kExited), std::memory_order_release);
}

void Core::start_child(ThreadState* ts) {
  tl_thread = ts;
  ts->cpu_mark = thread_cpu_ns();
  ts->set_cpu_clock();
  pthread_setspecific(g_thread_key, ts);
}

int64_t Core::clock_peek_ns(clockid_t clock) const {
  const int64_t base = clock_base_[clock & 15];
  const Time hw = high_water_.load(std::memory_order_relaxed);
  if (tl_thread && tl_thread->registered) {
    const Time c = tl_thread->clock.load(std::memory_order_relaxed);
    const bool own = tl_thread->submitter.load(std::memory_order_relaxed) ||
                     tl_thread->tracked.load(std::memory_order_relaxed);
    return base + (own ? c : std::max(c, hw));
  }
  return base + std::max(tl_unregistered_last, hw);
}

// Parks threads that sit outside Seer, when the session asked (it is stuck on this process'
// promise: see SessionServer::request_parking): those that wait for the world outside the process
// (in MPI's polling loop, a socket read, a sleep), or left such a wait under kParkBusyNs ago, and
// made no call for kParkBusyNs. A thread at work in the program is never parked for being slow, so
// the machine's load does not move virtual time. Last resort, for waits Seer does not see: a thread
// that has made no call for kParkIdleNs and either spent that much CPU time (a spin loop) or
// almost none (blocked in a system call Seer does not wrap). One that computed at a starved
// share of a loaded machine is neither.
void Core::park_idle_threads() {
  const int64_t now = real_monotonic_ns();
  const bool asked = park_requested_.exchange(false, std::memory_order_relaxed);
  for (ThreadState* ts : threads_) {
    const uint64_t calls = ts->calls.load(std::memory_order_relaxed);
    if (calls != ts->calls_seen) {
      ts->calls_seen = calls;
      ts->unchanged_since = now;
      ts->cpu_when_unchanged = kCpuNotRead;
      continue;
    }
    // Read once per stretch without calls, a period after it began (a system call each).
    if (ts->cpu_when_unchanged == kCpuNotRead) ts->cpu_when_unchanged = cpu_ns_of(*ts);
    if (!asked) continue;
    const int64_t idle = now - ts->unchanged_since;
    if (ts->mode.load(std::memory_order_acquire) == static_cast<int>(ThreadMode::kWaiting) &&
        idle >= kParkIdleNs) {
      ts->parked_in_wait = true;
      continue;
    }
    if (ts->mode.load(std::memory_order_acquire) != static_cast<int>(ThreadMode::kInApp)) continue;
    const bool waits_outside =
        ts->outside_since.load(std::memory_order_relaxed) != 0 &&
        (ts->outside_depth.load(std::memory_order_relaxed) > 0 ||
         now - ts->outside_left.load(std::memory_order_relaxed) < kParkBusyNs);
    if (waits_outside ? idle < kParkBusyNs : !seems_stuck(*ts, idle)) continue;
    int expected = static_cast<int>(ThreadMode::kInApp);
    ts->mode.compare_exchange_strong(expected, static_cast<int>(ThreadMode::kParked));
  }
}

// A thread without calls for `idle` real ns (see park_idle_threads).
bool Core::seems_stuck(const ThreadState& ts, int64_t idle) {
  if (idle < kParkIdleNs) return false;
  const int64_t cpu = cpu_ns_of(ts);
  if (cpu < 0 || ts.cpu_when_unchanged < 0) return true;
  const int64_t used = cpu - ts.cpu_when_unchanged;
  return used >= kParkIdleNs || used < idle / 100;
}

// Another thread's CPU time in ns, -1 when unknown (not started yet, or exited).
int64_t Core::cpu_ns_of(const ThreadState& ts) {
  if (!ts.has_cpu_clock.load(std::memory_order_acquire)) return -1;
  timespec t{};
  if (real_clock_gettime(ts.cpu_clock, &t) != 0) return -1;
  return int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec;
}

// Reads what the session sent while no thread waits for an answer (a park request).
void Core::read_unasked_messages() {
  if (!read_mu_.try_lock()) return;  // a waiting thread reads them
  pollfd p{fd_, POLLIN, 0};
  bool read = false;
  while (fd_ >= 0 && real_poll(&p, 1, 0) > 0 && (p.revents & POLLIN)) {
    read_one_message();
    read = true;
  }
  read_mu_.unlock();
  if (read) answer_cv_.notify_all();
}

// Sends what changed (records, the promise, whether every thread is blocked, answers read) once
// per period. While nothing changes the period doubles up to kMaxIdlePeriodUs; activity wakes it
// (leave(), add_record(), dispatch()), and the batch then gets one base period to fill.
void Core::flusher_loop() {
  const char* env = std::getenv("SEER_FLUSH_US");
  const long base_us = env ? std::max(100L, std::strtol(env, nullptr, 10)) : 1000;
  constexpr long kMaxIdlePeriodUs = 32000;
  long period_us = base_us;
  std::unique_lock<std::mutex> lock(batch_mu_);
  while (!shut_down()) {
    bool dozing = period_us > base_us;
    if (dozing) {
      flusher_dozing_.store(true, std::memory_order_relaxed);
      std::atomic_thread_fence(std::memory_order_seq_cst);  // pairs with leave()
      if (changed_locked()) {
        flusher_dozing_.store(false, std::memory_order_relaxed);
        dozing = false;
        period_us = base_us;
      }
    }
    wait_real(flusher_cv_, lock, int64_t{period_us} * 1000);
    if (shut_down() || forked_child_) return;
    if (dozing && !flusher_dozing_.load(std::memory_order_relaxed)) {
      period_us = base_us;  // woken by activity
      continue;
    }
    flusher_dozing_.store(false, std::memory_order_relaxed);
    lock.unlock();
    read_unasked_messages();
    lock.lock();
    park_idle_threads();
    if (changed_locked()) {
      flush_locked(nullptr);
      period_us = base_us;
    } else {
      period_us = std::min(period_us * 2, std::max(base_us, kMaxIdlePeriodUs));
    }
  }
}

bool Core::changed_locked() const {
  bool all_blocked = false, stalled = false;
  const Time promise = promise_locked(all_blocked, stalled);
  return !pending_.empty() || promise != last_promise_sent_ ||
         all_blocked != last_all_blocked_sent_ || stalled != last_stalled_sent_ ||
         answers_received_ != last_answers_sent_;
}

void Core::goodbye() {
  std::lock_guard<std::mutex> lock(batch_mu_);
  if (fd_ < 0 || shut_down()) return;
  shut_down_.store(true, std::memory_order_release);
  ThreadState* ts = tl_thread;
  wire::Request r;
  r.set_id(next_request_id_.fetch_add(1));
  r.set_thread(ts ? ts->id : 0);
  r.set_t(ts ? ts->clock.load(std::memory_order_relaxed) : high_water_.load());
  r.set_goodbye(true);
  flush_locked(&r);
}

void Core::at_exit() {
  Core& core = instance();
  if (core.joined() && !core.forked_child_) core.goodbye();
}

void Core::at_fork_child() {
  active_.store(false, std::memory_order_release);
  thread_cpu_clock_at_fork_child();
  Core& core = instance();
  core.forked_child_ = true;
  core.shut_down_.store(true, std::memory_order_release);
  if (core.fd_ >= 0) ::close(core.fd_);
  core.fd_ = -1;
  new (&core.batch_mu_) std::mutex();
  core.flusher_dozing_.store(false, std::memory_order_relaxed);  // no flusher in the child
  new (&core.flusher_cv_) std::condition_variable();
  new (&core.read_mu_) std::mutex();
  new (&core.answer_mu_) std::mutex();
}

}  // namespace seer::client

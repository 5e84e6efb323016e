#include "activity.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <map>
#include <mutex>
#include <utility>

#include "ops.h"
#include "wire.pb.h"

namespace seer::client::activity {

std::atomic<bool> g_enabled{false};
std::atomic<bool> g_sync_enabled{false};

namespace {

// Never destroyed: framework threads (a watchdog polling events) still call CUDA while the
// process runs its static destructors.
std::mutex& g_mu = *new std::mutex();
std::vector<Op>& g_ops = *new std::vector<Op>();  // guarded by g_mu
std::vector<int>& g_devices =
    *new std::vector<int>();  // devices with remembered ops, guarded by g_mu
std::vector<Sync>& g_syncs = *new std::vector<Sync>();  // guarded by g_mu
std::atomic<uint32_t> g_next_correlation{1};

// Per thread and kind (CUpti_ExternalCorrelationKind), the pushed external ids.
thread_local std::map<uint32_t, std::vector<uint64_t>> tl_external;
thread_local uint32_t tl_tid = 0;

uint32_t thread_id() {
  if (tl_tid == 0) tl_tid = static_cast<uint32_t>(syscall(SYS_gettid));
  return tl_tid;
}

std::vector<std::pair<uint32_t, uint64_t>> external_ids() {
  std::vector<std::pair<uint32_t, uint64_t>> out;
  for (const auto& [kind, stack] : tl_external) {
    if (!stack.empty()) out.emplace_back(kind, stack.back());
  }
  return out;
}

std::string library_label(const wire::LibraryCall& l) {
  static const char* const kTypes[] = {"f64", "f32", "tf32", "f16", "bf16", "f8", "i8"};
  const int d = l.dtype();
  return l.api() + " [" + (d >= 0 && d < 7 ? kTypes[d] : "?") + "]";
}

void ask_session(bool track, std::vector<wire::OpTime>* times) {
  Core& core = Core::instance();
  if (!core.ensure_joined()) return;
  ApiCall call(core, 0);
  wire::Request r;
  r.mutable_activity()->set_track(track);
  const wire::Answer a = core.request(call.ts(), r);
  if (times) times->assign(a.op_times().begin(), a.op_times().end());
}

}  // namespace

uint32_t next_correlation() { return g_next_correlation.fetch_add(1, std::memory_order_relaxed); }

void note_submit_slow(ThreadState& ts, const StreamObj& s, const PodRecord& r) {
  Op op;
  switch (r.type) {
    case PodRecord::kLaunch: {
      op.kind = OpKind::kKernel;
      const char* name = CudaState::instance().function_name(reinterpret_cast<const void*>(r.a));
      op.name = name ? name : "<unknown kernel>";
      for (int i = 0; i < 3; ++i) {
        op.grid[i] = r.dims[i];
        op.block[i] = r.dims[3 + i];
      }
      op.shmem = r.dims[6];
      break;
    }
    case PodRecord::kLibrary:
      op.kind = OpKind::kKernel;
      op.name = r.library ? library_label(*r.library) : "<library call>";
      break;
    case PodRecord::kCopy:
      op.kind = r.copy_kind == wire::COPY_MEMSET ? OpKind::kMemset : OpKind::kCopy;
      op.copy_kind = r.copy_kind;
      op.pinned = r.flag_a;
      op.bytes = r.b;
      break;
    case PodRecord::kCollective:
      op.kind = OpKind::kCollective;
      if (r.collective && r.collective->parts_size() > 0) {
        op.coll = static_cast<uint8_t>(r.collective->parts(0).kind());
        op.datatype = r.collective->parts(0).datatype();
      }
      break;
    default:
      return;
  }
  op.correlation = next_correlation();
  op.stream = s.id;
  op.ordinal = s.submitted;
  op.device = s.device;
  op.thread_id = thread_id();
  op.api_start = ts.clock.load(std::memory_order_relaxed);
  op.api_end = op.api_start + Core::instance().costs().launch();
  op.external = external_ids();
  std::lock_guard<std::mutex> lock(g_mu);
  bool known = false;
  for (int d : g_devices) known = known || d == op.device;
  if (!known) g_devices.push_back(op.device);
  g_ops.push_back(std::move(op));
}

void set_enabled(bool on) {
  if (on == g_enabled.load()) return;
  // The session starts noting this process' ops before the first one is remembered.
  if (on) ask_session(true, nullptr);
  g_enabled.store(on);
}

bool enabled() { return g_enabled.load(); }

void push_external(uint32_t kind, uint64_t id) { tl_external[kind].push_back(id); }

bool pop_external(uint32_t kind, uint64_t* id) {
  auto it = tl_external.find(kind);
  if (it == tl_external.end() || it->second.empty()) return false;
  if (id) *id = it->second.back();
  it->second.pop_back();
  return true;
}

std::vector<Op> collect() {
  std::vector<Op> ops;
  std::vector<int> devices;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    ops.swap(g_ops);
    devices.swap(g_devices);
  }
  if (ops.empty() && g_enabled.load()) return ops;
  Core& core = Core::instance();
  if (!core.ensure_joined()) return ops;
  {
    // Every remembered op has been simulated once its device is idle.
    ApiCall call(core, 0);
    for (int d : devices) ops::sync_device(call.ts(), d);
  }
  std::vector<wire::OpTime> times;
  ask_session(g_enabled.load(), &times);
  std::map<std::pair<uint64_t, uint64_t>, const wire::OpTime*> by_op;
  for (const wire::OpTime& t : times) by_op[{t.stream(), t.ordinal()}] = &t;
  for (Op& op : ops) {
    auto it = by_op.find({op.stream, op.ordinal});
    if (it == by_op.end()) continue;
    op.start = it->second->start();
    op.end = it->second->end();
    op.algo = it->second->algo();
    op.proto = it->second->proto();
    op.channels = it->second->channels();
  }
  return ops;
}

void SyncNote::begin(SyncKind kind, int device, uint64_t stream, uint64_t event) {
  active_ = true;
  sync_.kind = kind;
  sync_.correlation = next_correlation();
  sync_.device = device;
  sync_.stream = stream;
  sync_.event = event;
  sync_.thread_id = thread_id();
  sync_.start = ts_.clock.load(std::memory_order_relaxed);
  sync_.external = external_ids();
}

void SyncNote::end() {
  sync_.end = ts_.clock.load(std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(g_mu);
  g_syncs.push_back(std::move(sync_));
}

void set_sync_enabled(bool on) { g_sync_enabled.store(on); }

std::vector<Sync> collect_syncs() {
  std::vector<Sync> out;
  std::lock_guard<std::mutex> lock(g_mu);
  out.swap(g_syncs);
  return out;
}

}  // namespace seer::client::activity

#include "cuda_state.h"

#include <cstdio>

#include "ops.h"

namespace seer::client {
namespace {

struct PerThreadStreams {
  std::vector<StreamObj*> by_device;
};
thread_local PerThreadStreams tl_streams;

// Launch-path caches: the last kernel announced and the last user stream validated by this
// thread (invalidated when any stream is destroyed).
thread_local const void* tl_last_kernel = nullptr;
thread_local const void* tl_last_stream = nullptr;
thread_local uint64_t tl_last_stream_generation = 0;
std::atomic<uint64_t> g_stream_generation{1};

}  // namespace

// Stream ids name the creating thread and its count of streams, not the order in which the
// process' threads first touched a stream: the same in every run. The main thread's are 1, 2, ...
uint64_t CudaState::new_stream_id(ThreadState& ts) {
  return (uint64_t{ts.id} << 24) | ++ts.streams_created;
}

CudaState& CudaState::instance() {
  static CudaState* s = new CudaState();
  return *s;
}

void CudaState::announce(ThreadState& ts, StreamObj* s) {
  PodRecord r;
  r.type = PodRecord::kStreamCreate;
  r.t = ts.clock.load(std::memory_order_relaxed);
  r.a = s->id;
  r.i0 = s->device;
  r.i1 = s->priority;
  r.flag_a = !s->nonblocking;
  r.flag_b = s->legacy;
  Core::instance().add_record(ts, r);
}

StreamObj* CudaState::legacy_stream(ThreadState& ts, int device) {
  // Launch-path cache: the legacy stream objects never go away once created.
  thread_local std::vector<StreamObj*> cached;
  if (static_cast<size_t>(device) < cached.size() && cached[device]) return cached[device];
  StreamObj* s = legacy_stream_locked(ts, device);
  if (cached.size() <= static_cast<size_t>(device)) cached.resize(device + 1, nullptr);
  cached[device] = s;
  return s;
}

StreamObj* CudaState::legacy_stream_locked(ThreadState& ts, int device) {
  Core::instance().ensure_submitter(ts);
  std::lock_guard<std::mutex> lock(mu_);
  if (legacy_.size() <= static_cast<size_t>(device)) legacy_.resize(device + 1, nullptr);
  if (legacy_[device]) return legacy_[device];
  auto* s = new StreamObj();
  s->id = new_stream_id(ts);
  s->device = device;
  s->legacy = true;
  legacy_[device] = s;
  all_streams_.push_back(s);
  mark_device_active(device);
  // Under mu_: another thread's work on this stream reaches the batch after its creation.
  announce(ts, s);
  return s;
}

StreamObj* CudaState::per_thread_stream(ThreadState& ts, int device) {
  auto& v = tl_streams.by_device;
  if (v.size() <= static_cast<size_t>(device)) v.resize(device + 1, nullptr);
  if (v[device]) return v[device];
  auto* s = new StreamObj();
  {
    std::lock_guard<std::mutex> lock(mu_);
    s->id = new_stream_id(ts);
    all_streams_.push_back(s);
  }
  s->device = device;
  v[device] = s;
  mark_device_active(device);
  announce(ts, s);
  return s;
}

StreamObj* CudaState::resolve_stream(ThreadState& ts, const void* handle, bool per_thread_default) {
  const auto value = reinterpret_cast<uintptr_t>(handle);
  if (value == 0) {
    return per_thread_default ? per_thread_stream(ts, ts.device) : legacy_stream(ts, ts.device);
  }
  if (value == kLegacyHandle) return legacy_stream(ts, ts.device);
  if (value == kPerThreadHandle) return per_thread_stream(ts, ts.device);
  const uint64_t generation = g_stream_generation.load(std::memory_order_acquire);
  if (handle == tl_last_stream && generation == tl_last_stream_generation) {
    return static_cast<StreamObj*>(const_cast<void*>(handle));
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (!live_streams_.count(handle)) return nullptr;
  tl_last_stream = handle;
  tl_last_stream_generation = generation;
  return static_cast<StreamObj*>(const_cast<void*>(handle));
}

StreamObj* CudaState::create_stream(ThreadState& ts, int device, unsigned flags, int priority) {
  auto* s = new StreamObj();
  {
    std::lock_guard<std::mutex> lock(mu_);
    s->id = new_stream_id(ts);
    live_streams_.insert(s);
    all_streams_.push_back(s);
  }
  s->device = device;
  s->flags = flags;
  s->nonblocking = (flags & 0x1) != 0;  // cudaStreamNonBlocking
  s->priority = priority;
  mark_device_active(device);
  announce(ts, s);
  return s;
}

bool CudaState::destroy_stream(const void* handle) {
  std::lock_guard<std::mutex> lock(mu_);
  g_stream_generation.fetch_add(1, std::memory_order_acq_rel);
  // The object stays allocated: ops already submitted may still refer to its id.
  return live_streams_.erase(handle) > 0;
}

std::vector<StreamObj*> CudaState::streams_of_device(int device) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<StreamObj*> out;
  for (StreamObj* s : all_streams_) {
    if (s->device == device) out.push_back(s);
  }
  return out;
}

EventObj* CudaState::create_event(int device, unsigned flags) {
  auto* e = new EventObj();
  e->device = device;
  e->flags = flags;
  std::lock_guard<std::mutex> lock(mu_);
  e->id = next_event_id_++;
  live_events_.insert(e);
  return e;
}

EventObj* CudaState::find_event(const void* handle) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!live_events_.count(handle)) return nullptr;
  return static_cast<EventObj*>(const_cast<void*>(handle));
}

bool CudaState::destroy_event(const void* handle) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!live_events_.erase(handle)) return false;
  delete static_cast<const EventObj*>(handle);
  return true;
}

void CudaState::register_function(const void* host_fun, const char* device_name,
                                  const wire::TritonKernel* triton, const void* image) {
  std::lock_guard<std::mutex> lock(mu_);
  function_names_[host_fun] = device_name;
  if (triton) triton_kernels_[host_fun] = triton;
  if (image) function_images_[host_fun] = image;
}

const char* CudaState::function_name(const void* host_fun) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = function_names_.find(host_fun);
  return it != function_names_.end() ? it->second : nullptr;
}

const KernelInfo* CudaState::kernel_info_locked(const void* host_fun, int device) {
  auto image = function_images_.find(host_fun);
  auto name = function_names_.find(host_fun);
  if (image == function_images_.end() || name == function_names_.end()) return nullptr;
  std::unique_ptr<ImageInfo>& info = images_[image->second];
  if (!info) {
    info = std::make_unique<ImageInfo>();
    const int sm = ops::valid_device(device)
                       ? ops::gpu(device).cc_major() * 10 + ops::gpu(device).cc_minor()
                       : 0;
    parse_kernel_image(image->second, 0, sm, *info);
  }
  return info->kernel(name->second);
}

const KernelInfo* CudaState::kernel_info(const void* host_fun, int device) {
  std::lock_guard<std::mutex> lock(mu_);
  return kernel_info_locked(host_fun, device);
}

const ArgSpec* CudaState::checked_spec_locked(const void* host_fun, const char* name, int device) {
  const ArgSpec* spec = arg_spec_for_name(name);
  if (!spec) return nullptr;
  const KernelInfo* kernel = kernel_info_locked(host_fun, device);
  if (!kernel || arg_spec_fits(*spec, kernel->params)) return spec;
  std::fprintf(stderr,
               "seer: %s: its parameters are not where Seer's kernel-family model reads its "
               "sizes (another PyTorch version?); it is timed with the generic model\n",
               name);
  return nullptr;
}

const ArgSpec* CudaState::arg_spec(const void* host_fun, int device) {
  thread_local const void* last_fun = nullptr;
  thread_local const ArgSpec* last_spec = nullptr;
  if (host_fun == last_fun) return last_spec;
  const ArgSpec* spec = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = arg_specs_.find(host_fun);
    if (it != arg_specs_.end()) {
      spec = it->second;
    } else {
      auto n = function_names_.find(host_fun);
      spec =
          n != function_names_.end() ? checked_spec_locked(host_fun, n->second, device) : nullptr;
      arg_specs_.emplace(host_fun, spec);
    }
  }
  last_fun = host_fun;
  last_spec = spec;
  return spec;
}

uint64_t CudaState::kernel_id(ThreadState& ts, const void* host_fun) {
  const auto id = reinterpret_cast<uint64_t>(host_fun);
  if (host_fun == tl_last_kernel) return id;
  tl_last_kernel = host_fun;
  Core& core = Core::instance();
  core.ensure_submitter(ts);
  // Under mu_: another thread's launch of this kernel reaches the batch after its name.
  std::lock_guard<std::mutex> lock(mu_);
  auto [it, inserted] = announced_functions_.emplace(host_fun, id);
  if (!inserted) return id;
  auto n = function_names_.find(host_fun);
  auto t = triton_kernels_.find(host_fun);
  PodRecord r;
  r.type = PodRecord::kRegisterKernel;
  r.t = ts.clock.load(std::memory_order_relaxed);
  r.a = id;
  r.name = n != function_names_.end() ? n->second : "<unknown kernel>";
  r.triton = t != triton_kernels_.end() ? t->second : nullptr;
  core.add_record(ts, r);
  return id;
}

}  // namespace seer::client

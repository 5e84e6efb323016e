#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core.h"
#include "kernel_args.h"

namespace seer::client {

inline constexpr Time kUnknown = INT64_MAX;

// A CUDA stream as the client knows it. The handle the application holds is a pointer to one
// of these (user streams) or one of CUDA's special values (0, cudaStreamLegacy,
// cudaStreamPerThread).
struct StreamObj {
  uint64_t id = 0;
  int device = 0;
  bool nonblocking = false;
  bool legacy = false;
  int priority = 0;
  unsigned flags = 0;
  uint64_t submitted = 0;           // ops submitted so far
  uint64_t known_for = UINT64_MAX;  // `submitted` when `known_completion` was learnt
  Time known_completion = kUnknown;
};

struct EventObj {
  uint64_t id = 0;
  unsigned flags = 0;
  int device = 0;
  bool recorded = false;
  Time completion = kUnknown;  // final completion of the latest record, once the session said
};

// Streams, events and kernels of this process. Handles are validated against live sets.
class CudaState {
 public:
  static CudaState& instance();

  // Special handle values of the CUDA runtime.
  static constexpr uintptr_t kLegacyHandle = 0x1;
  static constexpr uintptr_t kPerThreadHandle = 0x2;

  // Resolves an application stream handle; nullptr when invalid. `per_thread_default` says
  // whether handle 0 means the per-thread default stream (the _ptsz entry points).
  StreamObj* resolve_stream(ThreadState& ts, const void* handle, bool per_thread_default);
  StreamObj* create_stream(ThreadState& ts, int device, unsigned flags, int priority);
  bool destroy_stream(const void* handle);
  std::vector<StreamObj*> streams_of_device(int device);

  EventObj* create_event(int device, unsigned flags);
  EventObj* find_event(const void* handle);
  bool destroy_event(const void* handle);

  // Devices whose primary context is active: the process used them (cudaSetDevice, a stream,
  // an allocation, cuDevicePrimaryCtxRetain). Devices past 63 always count as active.
  void mark_device_active(int device) {
    if (device >= 0 && device < 64) {
      active_devices_.fetch_or(uint64_t{1} << device, std::memory_order_relaxed);
    }
  }
  bool device_active(int device) const {
    return device >= 64 ||
           (device >= 0 && (active_devices_.load(std::memory_order_relaxed) >> device & 1));
  }

  // Kernel registration: host stub (or driver function handle) -> device (mangled) name, the
  // Triton model's description of the kernel when it has one (lives for the process), and the
  // image (fat binary) holding its code, whose parameter layout is read when it is first needed.
  void register_function(const void* host_fun, const char* device_name,
                         const wire::TritonKernel* triton = nullptr, const void* image = nullptr);
  // The registered name, or nullptr.
  const char* function_name(const void* host_fun);
  // Returns the function id; registers its name with the session on first use.
  uint64_t kernel_id(ThreadState& ts, const void* host_fun);
  // The launch arguments a kernel-family model reads for this kernel (kernel_args.h), or
  // nullptr. Decided once per kernel, at its first launch (on `device`), from its name, and
  // checked against the parameter layout in its image: a spec that does not fit is dropped.
  const ArgSpec* arg_spec(const void* host_fun, int device);
  // What the kernel's image says of it (registers, shared memory, parameters), read from the
  // image the first time it is asked for; nullptr when unknown.
  const KernelInfo* kernel_info(const void* host_fun, int device);

 private:
  static uint64_t new_stream_id(ThreadState& ts);
  StreamObj* legacy_stream(ThreadState& ts, int device);
  StreamObj* legacy_stream_locked(ThreadState& ts, int device);
  StreamObj* per_thread_stream(ThreadState& ts, int device);
  void announce(ThreadState& ts, StreamObj* s);
  // Called with mu_ held.
  const KernelInfo* kernel_info_locked(const void* host_fun, int device);
  const ArgSpec* checked_spec_locked(const void* host_fun, const char* name, int device);

  std::mutex mu_;
  std::unordered_set<const void*> live_streams_;
  std::unordered_set<const void*> live_events_;
  std::vector<StreamObj*> legacy_;
  std::vector<StreamObj*> all_streams_;
  std::unordered_map<const void*, const char*> function_names_;
  std::unordered_map<const void*, const wire::TritonKernel*> triton_kernels_;
  std::unordered_map<const void*, const ArgSpec*> arg_specs_;
  std::unordered_map<const void*, const void*> function_images_;
  std::unordered_map<const void*, std::unique_ptr<ImageInfo>> images_;  // parsed on first need
  std::unordered_map<const void*, uint64_t> announced_functions_;
  std::atomic<uint64_t> active_devices_{0};
  uint64_t next_event_id_ = 1;
};

}  // namespace seer::client

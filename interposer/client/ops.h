#pragma once

// Operations shared by the two CUDA front-ends (libcudart.so.13 and libcuda.so.1). Each takes
// the calling thread (inside an ApiCall) and returns a cudaError_t; the runtime records it as
// the last error, the driver maps it to a CUresult. No simulation logic: ops become records.

#include <cuda_runtime_api.h>

#include <cstdint>

#include "core.h"
#include "cuda_state.h"
#include "device_memory.h"

namespace seer::client::ops {

// The error a call returns when the process cannot take part in the simulation.
cudaError_t not_joined_error();
// Joins the session if needed; false (and the error in `err`) when CUDA is unavailable.
inline bool ready(cudaError_t& err) {
  if (Core::instance().ensure_joined()) return true;
  err = not_joined_error();
  return false;
}

inline int device_count() { return Core::instance().welcome().gpu_count(); }
inline bool valid_device(int d) { return d >= 0 && d < device_count(); }
inline const wire::GpuProperties& gpu(int device) {
  return Core::instance().welcome().gpus(device);
}

// Appends an op to `s` (the caller fills the record's body).
void submit(ThreadState& ts, StreamObj* s, PodRecord& r);
// Blocks until everything submitted to `s` is complete; updates the thread clock.
void sync_stream(ThreadState& ts, StreamObj* s);
// Blocks until everything submitted to the device is complete.
void sync_device(ThreadState& ts, int device);

// ---- Kernel launches (ops_launch.cpp) ----
struct LaunchDims {
  uint32_t grid[3];
  uint32_t block[3];
  uint64_t shmem;
};
// Size arguments of the launch that the kernel's model reads (Triton: xnumel, r0_numel, ...).
struct LaunchSizes {
  int n = 0;
  uint64_t values[PodRecord::kMaxSizes] = {};
};
// `func` is the kernel's key in CudaState (host stub, cudaKernel_t or CUfunction).
cudaError_t launch(ThreadState& ts, const void* func, const LaunchDims& d, const void* stream,
                   bool per_thread, const LaunchSizes* sizes = nullptr);
// Blocks per SM the target GPU runs for a block size and dynamic shared memory.
int blocks_per_sm(int device, int block_size, size_t shmem, int registers_per_thread);
// The largest block a kernel can run: its __launch_bounds__, else what its registers allow
// (`default_registers` when its image does not say).
int max_threads_per_block(int device, const KernelInfo& kernel, int default_registers);

// ---- Devices (ops_device.cpp) ----
void fill_properties(cudaDeviceProp* p, int device);
cudaError_t device_attribute(int* value, int attr, int device);

// ---- Memory (ops_memory.cpp) ----
cudaError_t malloc_device(ThreadState& ts, void** ptr, size_t size, int device);
cudaError_t free_device(ThreadState& ts, void* ptr);
cudaError_t malloc_host(void** ptr, size_t size);
cudaError_t free_host(void* ptr);
cudaError_t host_register(void* ptr, size_t size);
cudaError_t host_unregister(void* ptr);
// A copy as the runtime's cudaMemcpy* does it: `async` copies never block; blocking ones
// return when done (except device-to-device).
cudaError_t copy(ThreadState& ts, void* dst, const void* src, size_t n, cudaMemcpyKind kind,
                 const void* stream, bool async, bool per_thread);
// A 2D copy: `height` rows of `width` bytes with pitches.
cudaError_t copy_2d(ThreadState& ts, void* dst, size_t dpitch, const void* src, size_t spitch,
                    size_t width, size_t height, cudaMemcpyKind kind, const void* stream,
                    bool async, bool per_thread);
// `count` elements of `elem_bytes` (1, 2, 4 or 8), each set to `value`.
cudaError_t fill(ThreadState& ts, void* dst, uint64_t value, uint32_t elem_bytes, size_t count,
                 const void* stream, bool async, bool per_thread);
// A 2D memset: `height` rows of `width` elements, rows `pitch` bytes apart.
cudaError_t fill_2d(ThreadState& ts, void* dst, size_t pitch, uint64_t value, uint32_t elem_bytes,
                    size_t width, size_t height, const void* stream, bool async, bool per_thread);
// Capacity accounting records for the session (cudaMalloc/cudaFree, cuMemCreate/Release).
void note_alloc(ThreadState& ts, int gpu, uint64_t address, uint64_t bytes);
void note_free(ThreadState& ts, int gpu, uint64_t address, uint64_t bytes);
// Where a pointer lives.
enum class Where { kHost, kPinned, kDevice };
Where where(const void* p);
bool valid_device_range(const void* p, size_t n);

// ---- Streams and events (ops_stream.cpp) ----
cudaError_t stream_create(ThreadState& ts, void** out, unsigned flags, int priority);
cudaError_t stream_destroy(const void* stream);
cudaError_t stream_synchronize(ThreadState& ts, const void* stream, bool per_thread);
cudaError_t stream_query(ThreadState& ts, const void* stream, bool per_thread);
cudaError_t stream_wait_event(ThreadState& ts, const void* stream, const void* event,
                              unsigned flags, bool per_thread);
cudaError_t event_create(ThreadState& ts, void** out, unsigned flags);
cudaError_t event_destroy(const void* event);
cudaError_t event_record(ThreadState& ts, const void* event, const void* stream, bool per_thread);
cudaError_t event_synchronize(ThreadState& ts, const void* event);
cudaError_t event_query(ThreadState& ts, const void* event);
cudaError_t event_elapsed(ThreadState& ts, float* ms, const void* start, const void* end);

}  // namespace seer::client::ops

namespace seer::client::ops {

// ---- Memory pools (ops_mempool.cpp): one default pool per device; attributes use the shared
// numbering of cudaMemPoolAttr and CUmemPool_attribute ----
void* default_mem_pool(int device);
bool is_mem_pool(const void* pool);
cudaError_t mem_pool_get_attribute(const void* pool, int attr, void* value);
cudaError_t mem_pool_set_attribute(const void* pool, int attr, const void* value);

}  // namespace seer::client::ops

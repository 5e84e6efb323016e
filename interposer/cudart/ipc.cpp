// Interprocess handles, usable within one Seer session. A memory handle names the exporting
// process, the GPU and the allocation; the exporter opening it gets its own pointer back, any
// other process gets a range of the same size on that GPU (not counted again by the session).
// An event handle opened in another process gives an event that process never records, so it
// reads as complete.

#include <unistd.h>

#include <cstring>
#include <mutex>
#include <unordered_set>

#include "api.h"

using namespace seer::cudart;
using seer::client::DeviceMemory;

namespace {

constexpr uint64_t kMemMagic = 0x5345455249504d31ull;    // "SEERIPM1"
constexpr uint64_t kEventMagic = 0x5345455249504531ull;  // "SEERIPE1"

struct MemBlob {
  uint64_t magic;
  int64_t pid;
  int32_t gpu;
  uint64_t base;
  uint64_t size;
  uint64_t offset;
};
static_assert(sizeof(MemBlob) <= sizeof(cudaIpcMemHandle_t));

struct EventBlob {
  uint64_t magic;
  int64_t pid;
  uint64_t id;
};
static_assert(sizeof(EventBlob) <= sizeof(cudaIpcEventHandle_t));

std::mutex g_mu;
std::unordered_set<uint64_t> g_opened;  // ranges this process created for foreign handles

}  // namespace

SEER_CUDA_API cudaError_t cudaIpcGetMemHandle(cudaIpcMemHandle_t* handle, void* ptr) {
  SEER_ENTER(other_call);
  if (!handle || !ptr) return fail(call.ts(), cudaErrorInvalidValue);
  auto a = DeviceMemory::instance().find(reinterpret_cast<uint64_t>(ptr));
  if (!a) return fail(call.ts(), cudaErrorInvalidValue);
  MemBlob blob{kMemMagic, getpid(), a->gpu,
               a->base,   a->size,  reinterpret_cast<uint64_t>(ptr) - a->base};
  std::memset(handle, 0, sizeof *handle);
  std::memcpy(handle, &blob, sizeof blob);
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaIpcOpenMemHandle(void** ptr, cudaIpcMemHandle_t handle,
                                               unsigned /*flags*/) {
  SEER_ENTER(other_call);
  if (!ptr) return fail(call.ts(), cudaErrorInvalidValue);
  MemBlob blob;
  std::memcpy(&blob, &handle, sizeof blob);
  if (blob.magic != kMemMagic || !valid_device(blob.gpu)) {
    return fail(call.ts(), cudaErrorInvalidResourceHandle);
  }
  if (blob.pid == getpid()) {
    *ptr = reinterpret_cast<void*>(blob.base + blob.offset);
    return cudaSuccess;
  }
  uint64_t address = 0;
  if (DeviceMemory::instance().allocate(blob.gpu, blob.size, address) !=
      DeviceMemory::AllocResult::kOk) {
    return fail(call.ts(), cudaErrorMemoryAllocation);
  }
  std::lock_guard<std::mutex> lock(g_mu);
  g_opened.insert(address);
  *ptr = reinterpret_cast<void*>(address + blob.offset);
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaIpcCloseMemHandle(void* ptr) {
  SEER_ENTER(other_call);
  auto a = DeviceMemory::instance().find(reinterpret_cast<uint64_t>(ptr));
  if (!a) return fail(call.ts(), cudaErrorInvalidValue);
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_opened.erase(a->base)) DeviceMemory::instance().release(a->base);
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaIpcGetEventHandle(cudaIpcEventHandle_t* handle, cudaEvent_t event) {
  SEER_ENTER(other_call);
  if (!handle) return fail(call.ts(), cudaErrorInvalidValue);
  seer::client::EventObj* e = CudaState::instance().find_event(event);
  if (!e) return fail(call.ts(), cudaErrorInvalidResourceHandle);
  if (!(e->flags & cudaEventInterprocess)) return fail(call.ts(), cudaErrorInvalidResourceHandle);
  EventBlob blob{kEventMagic, getpid(), e->id};
  std::memset(handle, 0, sizeof *handle);
  std::memcpy(handle, &blob, sizeof blob);
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaIpcOpenEventHandle(cudaEvent_t* event, cudaIpcEventHandle_t handle) {
  SEER_ENTER(other_call);
  if (!event) return fail(call.ts(), cudaErrorInvalidValue);
  EventBlob blob;
  std::memcpy(&blob, &handle, sizeof blob);
  if (blob.magic != kEventMagic) return fail(call.ts(), cudaErrorInvalidResourceHandle);
  return fail(call.ts(),
              seer::client::ops::event_create(call.ts(), reinterpret_cast<void**>(event),
                                              cudaEventDisableTiming | cudaEventInterprocess));
}

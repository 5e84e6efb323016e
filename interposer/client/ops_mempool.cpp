// Memory pools: a default pool object per device whose attributes read back what was set and
// whose usage is the device's (pool allocations are plain allocations here).

#include <mutex>
#include <vector>

#include "ops.h"

namespace seer::client::ops {
namespace {

struct Pool {
  int device = 0;
  uint64_t release_threshold = 0;
  int reuse[3] = {1, 1, 1};  // follow-event, opportunistic, allow-internal-dependencies
};

std::mutex g_mu;
std::vector<Pool*> g_pools;

Pool* find(const void* pool) {
  std::lock_guard<std::mutex> lock(g_mu);
  for (Pool* p : g_pools) {
    if (p && p == pool) return p;
  }
  return nullptr;
}

}  // namespace

void* default_mem_pool(int device) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_pools.size() <= static_cast<size_t>(device)) g_pools.resize(device + 1, nullptr);
  if (!g_pools[device]) {
    g_pools[device] = new Pool();
    g_pools[device]->device = device;
  }
  return g_pools[device];
}

bool is_mem_pool(const void* pool) { return find(pool) != nullptr; }

cudaError_t mem_pool_get_attribute(const void* pool, int attr, void* value) {
  Pool* p = find(pool);
  if (!p) return cudaErrorInvalidResourceHandle;
  if (!value) return cudaErrorInvalidValue;
  switch (attr) {
    case cudaMemPoolReuseFollowEventDependencies:
    case cudaMemPoolReuseAllowOpportunistic:
    case cudaMemPoolReuseAllowInternalDependencies:
      *static_cast<int*>(value) = p->reuse[attr - cudaMemPoolReuseFollowEventDependencies];
      return cudaSuccess;
    case cudaMemPoolAttrReleaseThreshold:
      *static_cast<uint64_t*>(value) = p->release_threshold;
      return cudaSuccess;
    case cudaMemPoolAttrReservedMemCurrent:
    case cudaMemPoolAttrReservedMemHigh:
    case cudaMemPoolAttrUsedMemCurrent:
    case cudaMemPoolAttrUsedMemHigh:
      *static_cast<uint64_t*>(value) = DeviceMemory::instance().used(p->device);
      return cudaSuccess;
    default:
      return cudaErrorInvalidValue;
  }
}

cudaError_t mem_pool_set_attribute(const void* pool, int attr, const void* value) {
  Pool* p = find(pool);
  if (!p) return cudaErrorInvalidResourceHandle;
  if (!value) return cudaErrorInvalidValue;
  switch (attr) {
    case cudaMemPoolReuseFollowEventDependencies:
    case cudaMemPoolReuseAllowOpportunistic:
    case cudaMemPoolReuseAllowInternalDependencies:
      p->reuse[attr - cudaMemPoolReuseFollowEventDependencies] = *static_cast<const int*>(value);
      return cudaSuccess;
    case cudaMemPoolAttrReleaseThreshold:
      p->release_threshold = *static_cast<const uint64_t*>(value);
      return cudaSuccess;
    case cudaMemPoolAttrReservedMemHigh:
    case cudaMemPoolAttrUsedMemHigh:
      return cudaSuccess;  // resetting the high-water marks
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace seer::client::ops

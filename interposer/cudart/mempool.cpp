// Memory pools (backend:cudaMallocAsync): the default pool per device (client/ops_mempool.cpp);
// allocations from a pool are plain allocations.

#include "api.h"

using namespace seer::cudart;
namespace ops = seer::client::ops;

SEER_CUDA_API cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t* pool, int device) {
  SEER_ENTER(other_call);
  if (!pool) return fail(call.ts(), cudaErrorInvalidValue);
  if (!valid_device(device)) return fail(call.ts(), cudaErrorInvalidDevice);
  *pool = static_cast<cudaMemPool_t>(ops::default_mem_pool(device));
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaDeviceGetMemPool(cudaMemPool_t* pool, int device) {
  return cudaDeviceGetDefaultMemPool(pool, device);
}

SEER_CUDA_API cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t pool) {
  SEER_ENTER(other_call);
  if (!valid_device(device)) return fail(call.ts(), cudaErrorInvalidDevice);
  return pool == ops::default_mem_pool(device) ? cudaSuccess
                                               : fail(call.ts(), cudaErrorInvalidValue);
}

SEER_CUDA_API cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, cudaMemPoolAttr attr,
                                                  void* value) {
  SEER_ENTER(other_call);
  return fail(call.ts(), ops::mem_pool_get_attribute(pool, attr, value));
}

SEER_CUDA_API cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, cudaMemPoolAttr attr,
                                                  void* value) {
  SEER_ENTER(other_call);
  return fail(call.ts(), ops::mem_pool_set_attribute(pool, attr, value));
}

SEER_CUDA_API cudaError_t cudaMemPoolTrimTo(cudaMemPool_t pool, size_t /*keep*/) {
  SEER_ENTER(other_call);
  return ops::is_mem_pool(pool) ? cudaSuccess : fail(call.ts(), cudaErrorInvalidResourceHandle);
}

SEER_CUDA_API cudaError_t cudaMemPoolSetAccess(cudaMemPool_t pool, const cudaMemAccessDesc* desc,
                                               size_t count) {
  SEER_ENTER(other_call);
  if (!ops::is_mem_pool(pool)) return fail(call.ts(), cudaErrorInvalidResourceHandle);
  return desc || count == 0 ? cudaSuccess : fail(call.ts(), cudaErrorInvalidValue);
}

static cudaError_t pool_alloc(void** ptr, size_t size, cudaMemPool_t pool, cudaStream_t stream,
                              bool per_thread) {
  SEER_ENTER(malloc);
  if (!ops::is_mem_pool(pool)) return fail(call.ts(), cudaErrorInvalidValue);
  if (!CudaState::instance().resolve_stream(call.ts(), stream, per_thread)) {
    return fail(call.ts(), cudaErrorInvalidResourceHandle);
  }
  return fail(call.ts(), ops::malloc_device(call.ts(), ptr, size, call.ts().device));
}

SEER_CUDA_API cudaError_t cudaMallocFromPoolAsync(void** ptr, size_t size, cudaMemPool_t pool,
                                                  cudaStream_t stream) {
  return pool_alloc(ptr, size, pool, stream, false);
}

SEER_CUDA_API cudaError_t cudaMallocFromPoolAsync_ptsz(void** ptr, size_t size, cudaMemPool_t pool,
                                                       cudaStream_t stream) {
  return pool_alloc(ptr, size, pool, stream, true);
}

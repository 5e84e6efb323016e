// Memory pools through the driver: the runtime's pool objects (client/ops_mempool.cpp).

#include "api.h"

using namespace seer::driver;

SEER_CU_API CUresult cuDeviceGetDefaultMemPool(CUmemoryPool* out, CUdevice device) {
  SEER_CU_ENTER(other_call);
  if (!out) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(device)) return CUDA_ERROR_INVALID_DEVICE;
  *out = static_cast<CUmemoryPool>(ops::default_mem_pool(device));
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuDeviceGetMemPool(CUmemoryPool* out, CUdevice device) {
  return cuDeviceGetDefaultMemPool(out, device);
}

SEER_CU_API CUresult cuMemPoolGetAttribute(CUmemoryPool pool, CUmemPool_attribute attr,
                                           void* value) {
  SEER_CU_ENTER(other_call);
  return to_cu(ops::mem_pool_get_attribute(pool, attr, value));
}

SEER_CU_API CUresult cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute attr,
                                           void* value) {
  SEER_CU_ENTER(other_call);
  return to_cu(ops::mem_pool_set_attribute(pool, attr, value));
}

SEER_CU_API CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t /*keep*/) {
  SEER_CU_ENTER(other_call);
  return ops::is_mem_pool(pool) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

SEER_CU_API CUresult cuMemPoolSetAccess(CUmemoryPool pool, const CUmemAccessDesc* desc,
                                        size_t count) {
  SEER_CU_ENTER(other_call);
  if (!ops::is_mem_pool(pool)) return CUDA_ERROR_INVALID_HANDLE;
  return desc || count == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

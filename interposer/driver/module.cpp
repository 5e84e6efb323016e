// Modules and libraries (cuModuleLoad*, cuLibraryLoad*): kernels named from the image, globals
// as device allocations of the symbol's size; function attributes and occupancy from the cubin
// where it says (registers, local and shared bytes), plausible defaults otherwise.

#include <algorithm>

#include "api.h"
#include "ops_module.h"

using namespace seer::driver;
using seer::client::FunctionObj;
using seer::client::ModuleObj;
using seer::client::Modules;

namespace {

constexpr int kDefaultRegisters = 32;

template <typename T>
T* as(const void* handle) {
  return static_cast<T*>(const_cast<void*>(handle));
}

CUresult load(CUmodule* out, const void* image, size_t size) {
  SEER_CU_ENTER(other_call);
  if (!out || !image) return CUDA_ERROR_INVALID_VALUE;
  ModuleObj* m = nullptr;
  const cudaError_t err = Modules::instance().load(image, size, call.ts().device, &m);
  if (err == cudaSuccess) *out = reinterpret_cast<CUmodule>(m);
  return to_cu(err);
}

int registers(const FunctionObj* f) {
  return f->info.registers > 0 ? f->info.registers : kDefaultRegisters;
}

int static_shared(const FunctionObj* f) { return std::max(f->info.static_shared, 0); }

int max_threads(const FunctionObj* f, int device) {
  return ops::max_threads_per_block(device, f->info, kDefaultRegisters);
}

CUresult function_attribute(int* value, CUfunction_attribute attr, const FunctionObj* f,
                            int device) {
  if (!value) return CUDA_ERROR_INVALID_VALUE;
  if (!f) return CUDA_ERROR_INVALID_HANDLE;
  if (!valid_device(device)) return CUDA_ERROR_INVALID_DEVICE;
  const auto& g = ops::gpu(device);
  const int cc = g.cc_major() * 10 + g.cc_minor();
  switch (attr) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
      *value = max_threads(f, device);
      break;
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES:
      *value = static_shared(f);
      break;
    case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES:
      *value = 0;
      break;
    case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES:
      *value = std::max(f->info.local_bytes, 0);
      break;
    case CU_FUNC_ATTRIBUTE_NUM_REGS:
      *value = registers(f);
      break;
    case CU_FUNC_ATTRIBUTE_PTX_VERSION:
      *value = cc;
      break;
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION:
      *value = f->module && f->module->image.sm > 0 ? f->module->image.sm : cc;
      break;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
      *value = f->max_dynamic_shared;
      break;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
      *value = f->preferred_carveout;
      break;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH:
      *value = f->required_cluster[attr - CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH];
      break;
    case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
      *value = f->non_portable_cluster;
      break;
    default:
      *value = 0;
      break;
  }
  return CUDA_SUCCESS;
}

CUresult set_function_attribute(FunctionObj* f, CUfunction_attribute attr, int value, int device) {
  if (!f) return CUDA_ERROR_INVALID_HANDLE;
  if (!valid_device(device)) return CUDA_ERROR_INVALID_DEVICE;
  switch (attr) {
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
      if (value < 0 || value + static_shared(f) > ops::gpu(device).shared_mem_per_block_optin()) {
        return CUDA_ERROR_INVALID_VALUE;
      }
      f->max_dynamic_shared = value;
      return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
      if (value < -1 || value > 100) return CUDA_ERROR_INVALID_VALUE;
      f->preferred_carveout = value;
      return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH:
      if (value < 0) return CUDA_ERROR_INVALID_VALUE;
      f->required_cluster[attr - CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH] = value;
      return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
      f->non_portable_cluster = value;
      return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
      return CUDA_SUCCESS;
    default:
      return CUDA_ERROR_INVALID_VALUE;
  }
}

FunctionObj* function_of(const void* handle) { return Modules::instance().find_function(handle); }

}  // namespace

SEER_CU_API CUresult cuModuleLoad(CUmodule* out, const char* path) {
  SEER_CU_ENTER(other_call);
  if (!out || !path) return CUDA_ERROR_INVALID_VALUE;
  ModuleObj* m = nullptr;
  const cudaError_t err = Modules::instance().load_file(path, call.ts().device, &m);
  if (err == cudaSuccess) *out = reinterpret_cast<CUmodule>(m);
  return to_cu(err);
}

SEER_CU_API CUresult cuModuleLoadData(CUmodule* out, const void* image) {
  return load(out, image, 0);
}

SEER_CU_API CUresult cuModuleLoadDataEx(CUmodule* out, const void* image, unsigned /*n*/,
                                        CUjit_option* /*options*/, void** /*values*/) {
  return load(out, image, 0);
}

SEER_CU_API CUresult cuModuleLoadFatBinary(CUmodule* out, const void* fatbin) {
  return load(out, fatbin, 0);
}

SEER_CU_API CUresult cuModuleUnload(CUmodule module) {
  SEER_CU_ENTER(other_call);
  return to_cu(Modules::instance().unload(call.ts(), module));
}

SEER_CU_API CUresult cuModuleGetFunction(CUfunction* out, CUmodule module, const char* name) {
  SEER_CU_ENTER(other_call);
  if (!out) return CUDA_ERROR_INVALID_VALUE;
  FunctionObj* f = nullptr;
  const cudaError_t err = Modules::instance().function(module, name, &f);
  if (err == cudaSuccess) *out = reinterpret_cast<CUfunction>(f);
  return to_cu(err);
}

SEER_CU_API CUresult cuModuleGetFunctionCount(unsigned* count, CUmodule module) {
  SEER_CU_ENTER(other_call);
  if (!count) return CUDA_ERROR_INVALID_VALUE;
  if (!Modules::instance().find_module(module)) return CUDA_ERROR_INVALID_HANDLE;
  *count = Modules::instance().count_functions(module);
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuModuleGetGlobal_v2(CUdeviceptr* dptr, size_t* bytes, CUmodule module,
                                          const char* name) {
  SEER_CU_ENTER(other_call);
  uint64_t address = 0, size = 0;
  const cudaError_t err = Modules::instance().global(call.ts(), module, name, &address, &size);
  if (err != cudaSuccess) return to_cu(err);
  if (dptr) *dptr = address;
  if (bytes) *bytes = size;
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuModuleGetLoadingMode(CUmoduleLoadingMode* mode) {
  if (!mode) return CUDA_ERROR_INVALID_VALUE;
  *mode = CU_MODULE_LAZY_LOADING;
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuLibraryLoadData(CUlibrary* out, const void* code, CUjit_option*, void**,
                                       unsigned, CUlibraryOption*, void**, unsigned) {
  return load(reinterpret_cast<CUmodule*>(out), code, 0);
}

SEER_CU_API CUresult cuLibraryLoadFromFile(CUlibrary* out, const char* path, CUjit_option*, void**,
                                           unsigned, CUlibraryOption*, void**, unsigned) {
  return cuModuleLoad(reinterpret_cast<CUmodule*>(out), path);
}

SEER_CU_API CUresult cuLibraryUnload(CUlibrary library) {
  return cuModuleUnload(reinterpret_cast<CUmodule>(library));
}

SEER_CU_API CUresult cuLibraryGetKernel(CUkernel* out, CUlibrary library, const char* name) {
  return cuModuleGetFunction(reinterpret_cast<CUfunction*>(out),
                             reinterpret_cast<CUmodule>(library), name);
}

SEER_CU_API CUresult cuLibraryGetKernelCount(unsigned* count, CUlibrary library) {
  return cuModuleGetFunctionCount(count, reinterpret_cast<CUmodule>(library));
}

SEER_CU_API CUresult cuLibraryGetModule(CUmodule* out, CUlibrary library) {
  SEER_CU_ENTER(other_call);
  if (!out) return CUDA_ERROR_INVALID_VALUE;
  if (!Modules::instance().find_module(library)) return CUDA_ERROR_INVALID_HANDLE;
  *out = reinterpret_cast<CUmodule>(library);
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuLibraryGetGlobal(CUdeviceptr* dptr, size_t* bytes, CUlibrary library,
                                        const char* name) {
  return cuModuleGetGlobal_v2(dptr, bytes, reinterpret_cast<CUmodule>(library), name);
}

SEER_CU_API CUresult cuKernelGetFunction(CUfunction* out, CUkernel kernel) {
  SEER_CU_ENTER(other_call);
  if (!out) return CUDA_ERROR_INVALID_VALUE;
  if (!function_of(kernel)) return CUDA_ERROR_INVALID_HANDLE;
  *out = reinterpret_cast<CUfunction>(kernel);
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuKernelGetLibrary(CUlibrary* out, CUkernel kernel) {
  SEER_CU_ENTER(other_call);
  FunctionObj* f = function_of(kernel);
  if (!out) return CUDA_ERROR_INVALID_VALUE;
  if (!f) return CUDA_ERROR_INVALID_HANDLE;
  *out = reinterpret_cast<CUlibrary>(f->module);
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuFuncGetModule(CUmodule* out, CUfunction func) {
  return cuKernelGetLibrary(reinterpret_cast<CUlibrary*>(out), reinterpret_cast<CUkernel>(func));
}

SEER_CU_API CUresult cuFuncGetName(const char** name, CUfunction func) {
  SEER_CU_ENTER(other_call);
  FunctionObj* f = function_of(func);
  if (!name) return CUDA_ERROR_INVALID_VALUE;
  if (!f) return CUDA_ERROR_INVALID_HANDLE;
  *name = f->name.c_str();
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuKernelGetName(const char** name, CUkernel kernel) {
  return cuFuncGetName(name, reinterpret_cast<CUfunction>(kernel));
}

SEER_CU_API CUresult cuFuncIsLoaded(CUfunctionLoadingState* state, CUfunction func) {
  SEER_CU_ENTER(other_call);
  if (!state) return CUDA_ERROR_INVALID_VALUE;
  if (!function_of(func)) return CUDA_ERROR_INVALID_HANDLE;
  *state = CU_FUNCTION_LOADING_STATE_LOADED;
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuFuncLoad(CUfunction func) {
  SEER_CU_ENTER(other_call);
  return function_of(func) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

SEER_CU_API CUresult cuFuncGetAttribute(int* value, CUfunction_attribute attr, CUfunction func) {
  SEER_CU_ENTER(other_call);
  return function_attribute(value, attr, function_of(func), call.ts().device);
}

SEER_CU_API CUresult cuFuncSetAttribute(CUfunction func, CUfunction_attribute attr, int value) {
  SEER_CU_ENTER(other_call);
  return set_function_attribute(function_of(func), attr, value, call.ts().device);
}

SEER_CU_API CUresult cuKernelGetAttribute(int* value, CUfunction_attribute attr, CUkernel kernel,
                                          CUdevice device) {
  SEER_CU_ENTER(other_call);
  return function_attribute(value, attr, function_of(kernel), device);
}

SEER_CU_API CUresult cuKernelSetAttribute(CUfunction_attribute attr, int value, CUkernel kernel,
                                          CUdevice device) {
  SEER_CU_ENTER(other_call);
  return set_function_attribute(function_of(kernel), attr, value, device);
}

SEER_CU_API CUresult cuFuncSetCacheConfig(CUfunction func, CUfunc_cache config) {
  SEER_CU_ENTER(other_call);
  FunctionObj* f = function_of(func);
  if (!f) return CUDA_ERROR_INVALID_HANDLE;
  f->cache_config = config;
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuKernelSetCacheConfig(CUkernel kernel, CUfunc_cache config,
                                            CUdevice /*device*/) {
  return cuFuncSetCacheConfig(reinterpret_cast<CUfunction>(kernel), config);
}

SEER_CU_API CUresult cuFuncSetSharedMemConfig(CUfunction func, CUsharedconfig /*config*/) {
  SEER_CU_ENTER(other_call);
  return function_of(func) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

// ---- Occupancy ----

static int active_blocks(const FunctionObj* f, int device, int block_size, size_t dynamic_shared) {
  return ops::blocks_per_sm(device, block_size, dynamic_shared + static_shared(f), registers(f));
}

SEER_CU_API CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int* blocks, CUfunction func, int block_size, size_t dynamic_shared, unsigned /*flags*/) {
  SEER_CU_ENTER(other_call);
  FunctionObj* f = function_of(func);
  if (!blocks || block_size <= 0) return CUDA_ERROR_INVALID_VALUE;
  if (!f) return CUDA_ERROR_INVALID_HANDLE;
  *blocks = block_size > max_threads(f, call.ts().device)
                ? 0
                : active_blocks(f, call.ts().device, block_size, dynamic_shared);
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, CUfunction func,
                                                                 int block_size,
                                                                 size_t dynamic_shared) {
  return cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(blocks, func, block_size,
                                                              dynamic_shared, 0);
}

SEER_CU_API CUresult cuOccupancyMaxPotentialBlockSizeWithFlags(int* min_grid, int* block_size,
                                                               CUfunction func,
                                                               CUoccupancyB2DSize shared_of_block,
                                                               size_t dynamic_shared, int limit,
                                                               unsigned /*flags*/) {
  SEER_CU_ENTER(other_call);
  FunctionObj* f = function_of(func);
  if (!min_grid || !block_size) return CUDA_ERROR_INVALID_VALUE;
  if (!f) return CUDA_ERROR_INVALID_HANDLE;
  const int device = call.ts().device;
  int top = max_threads(f, device);
  if (limit > 0) top = std::min(top, limit);
  int best = 0, best_blocks = 0;
  for (int b = top / 32 * 32; b >= 32; b -= 32) {
    const size_t shared = shared_of_block ? shared_of_block(b) : dynamic_shared;
    const int n = active_blocks(f, device, b, shared);
    if (n * b > best * best_blocks) {
      best = b;
      best_blocks = n;
    }
  }
  *block_size = best;
  *min_grid = best_blocks * ops::gpu(device).sm_count();
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuOccupancyMaxPotentialBlockSize(int* min_grid, int* block_size,
                                                      CUfunction func,
                                                      CUoccupancyB2DSize shared_of_block,
                                                      size_t dynamic_shared, int limit) {
  return cuOccupancyMaxPotentialBlockSizeWithFlags(min_grid, block_size, func, shared_of_block,
                                                   dynamic_shared, limit, 0);
}

SEER_CU_API CUresult cuOccupancyAvailableDynamicSMemPerBlock(size_t* bytes, CUfunction func,
                                                             int blocks, int block_size) {
  SEER_CU_ENTER(other_call);
  FunctionObj* f = function_of(func);
  if (!bytes || blocks <= 0 || block_size <= 0) return CUDA_ERROR_INVALID_VALUE;
  if (!f) return CUDA_ERROR_INVALID_HANDLE;
  const auto& g = ops::gpu(call.ts().device);
  const int per = g.shared_mem_per_sm() / blocks - static_shared(f);
  *bytes = static_cast<size_t>(std::clamp(per, 0, g.shared_mem_per_block_optin()));
  return CUDA_SUCCESS;
}

// H100-like: clusters are placed within a GPC (16 usable SMs of 132), so a cluster of n blocks
// needs n co-resident block slots inside one GPC.
SEER_CU_API CUresult cuOccupancyMaxActiveClusters(int* clusters, CUfunction func,
                                                  const CUlaunchConfig* config) {
  SEER_CU_ENTER(other_call);
  FunctionObj* f = function_of(func);
  if (!clusters || !config) return CUDA_ERROR_INVALID_VALUE;
  if (!f) return CUDA_ERROR_INVALID_HANDLE;
  unsigned size = 1;
  for (unsigned i = 0; i < config->numAttrs; ++i) {
    const CUlaunchAttribute& a = config->attrs[i];
    if (a.id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
      size = a.value.clusterDim.x * a.value.clusterDim.y * a.value.clusterDim.z;
    }
  }
  if (size == 1 && f->required_cluster[0] > 0) {
    size = static_cast<unsigned>(f->required_cluster[0]) *
           static_cast<unsigned>(std::max(1, f->required_cluster[1])) *
           static_cast<unsigned>(std::max(1, f->required_cluster[2]));
  }
  const int device = call.ts().device;
  const int limit = f->non_portable_cluster ? 16 : 8;
  if (size == 0 || size > static_cast<unsigned>(limit)) return CUDA_ERROR_INVALID_CLUSTER_SIZE;
  const int block = static_cast<int>(config->blockDimX * config->blockDimY * config->blockDimZ);
  const int per_sm = active_blocks(f, device, block, config->sharedMemBytes);
  const int sms = ops::gpu(device).sm_count();
  const int gpcs = std::max(1, sms / 16);
  const int per_gpc = sms / gpcs;
  *clusters = gpcs * (per_gpc * per_sm / static_cast<int>(size));
  return CUDA_SUCCESS;
}

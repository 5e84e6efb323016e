// cudaLibrary*: code loaded at run time (CuTeDSL AOT kernels in libtorch_cuda). A cudaKernel_t
// is a client FunctionObj registered under its name, so cudaLaunchKernel[ExC] with it records
// a named launch like a <<<>>> one.

#include "api.h"
#include "ops_module.h"

using namespace seer::cudart;
using seer::client::FunctionObj;
using seer::client::ModuleObj;
using seer::client::Modules;

SEER_CUDA_API cudaError_t cudaLibraryLoadData(cudaLibrary_t* library, const void* code,
                                              cudaJitOption*, void**, unsigned, cudaLibraryOption*,
                                              void**, unsigned) {
  SEER_ENTER(other_call);
  if (!library) return fail(call.ts(), cudaErrorInvalidValue);
  ModuleObj* m = nullptr;
  const cudaError_t err = Modules::instance().load(code, 0, call.ts().device, &m);
  if (err == cudaSuccess) *library = reinterpret_cast<cudaLibrary_t>(m);
  return fail(call.ts(), err);
}

SEER_CUDA_API cudaError_t cudaLibraryLoadFromFile(cudaLibrary_t* library, const char* path,
                                                  cudaJitOption*, void**, unsigned,
                                                  cudaLibraryOption*, void**, unsigned) {
  SEER_ENTER(other_call);
  if (!library) return fail(call.ts(), cudaErrorInvalidValue);
  ModuleObj* m = nullptr;
  const cudaError_t err = Modules::instance().load_file(path, call.ts().device, &m);
  if (err == cudaSuccess) *library = reinterpret_cast<cudaLibrary_t>(m);
  return fail(call.ts(), err);
}

SEER_CUDA_API cudaError_t cudaLibraryUnload(cudaLibrary_t library) {
  SEER_ENTER(other_call);
  return fail(call.ts(), Modules::instance().unload(call.ts(), library));
}

SEER_CUDA_API cudaError_t cudaLibraryGetKernel(cudaKernel_t* kernel, cudaLibrary_t library,
                                               const char* name) {
  SEER_ENTER(other_call);
  if (!kernel) return fail(call.ts(), cudaErrorInvalidValue);
  FunctionObj* f = nullptr;
  const cudaError_t err = Modules::instance().function(library, name, &f);
  if (err == cudaSuccess) *kernel = reinterpret_cast<cudaKernel_t>(f);
  return fail(call.ts(), err);
}

SEER_CUDA_API cudaError_t cudaLibraryGetKernelCount(unsigned* count, cudaLibrary_t library) {
  SEER_ENTER(other_call);
  if (!count) return fail(call.ts(), cudaErrorInvalidValue);
  if (!Modules::instance().find_module(library)) {
    return fail(call.ts(), cudaErrorInvalidResourceHandle);
  }
  *count = Modules::instance().count_functions(library);
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaLibraryGetGlobal(void** dptr, size_t* bytes, cudaLibrary_t library,
                                               const char* name) {
  SEER_ENTER(other_call);
  uint64_t address = 0, size = 0;
  const cudaError_t err = Modules::instance().global(call.ts(), library, name, &address, &size);
  if (err != cudaSuccess) return fail(call.ts(), err);
  if (dptr) *dptr = reinterpret_cast<void*>(address);
  if (bytes) *bytes = size;
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaKernelSetAttributeForDevice(cudaKernel_t kernel,
                                                          cudaFuncAttribute attr, int value,
                                                          int device) {
  SEER_ENTER(other_call);
  FunctionObj* f = Modules::instance().find_function(kernel);
  if (!f) return fail(call.ts(), cudaErrorInvalidDeviceFunction);
  if (!valid_device(device)) return fail(call.ts(), cudaErrorInvalidDevice);
  if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize) {
    if (value < 0 || value > gpu(device).shared_mem_per_block_optin()) {
      return fail(call.ts(), cudaErrorInvalidValue);
    }
    f->max_dynamic_shared = value;
  } else if (attr == cudaFuncAttributePreferredSharedMemoryCarveout) {
    f->preferred_carveout = value;
  }
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaFuncGetName(const char** name, const void* func) {
  SEER_ENTER(other_call);
  if (!name) return fail(call.ts(), cudaErrorInvalidValue);
  if (FunctionObj* f = Modules::instance().find_function(func)) {
    *name = f->name.c_str();
    return cudaSuccess;
  }
  const char* registered = CudaState::instance().function_name(func);
  if (!registered) return fail(call.ts(), cudaErrorInvalidDeviceFunction);
  *name = registered;
  return cudaSuccess;
}

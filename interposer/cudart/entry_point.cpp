// cudaGetDriverEntryPoint[ByVersion]: pointers into Seer's libcuda.so.1, resolved by its own
// cuGetProcAddress table (interposer/driver/proc_address.cpp), so c10's DriverAPI and
// LazyNVRTC call the same driver whichever way they found it.

#include <dlfcn.h>

#include "api.h"

using namespace seer::cudart;

namespace {

using EntryPoint = int (*)(const char*, void**, int, unsigned long long, int*);

EntryPoint driver_entry_point() {
  static EntryPoint fn = [] {
    void* handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!handle) handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    return handle ? reinterpret_cast<EntryPoint>(dlsym(handle, "seer_driver_entry_point"))
                  : nullptr;
  }();
  return fn;
}

cudaError_t entry_point(const char* symbol, void** fn, int version, unsigned long long flags,
                        cudaDriverEntryPointQueryResult* status) {
  if (!symbol || !fn) return cudaErrorInvalidValue;
  *fn = nullptr;
  EntryPoint lookup = driver_entry_point();
  int found = cudaDriverEntryPointSymbolNotFound;
  if (lookup) lookup(symbol, fn, version, flags, &found);
  if (status) *status = static_cast<cudaDriverEntryPointQueryResult>(found);
  // With a status to read, a missing symbol is not an error (as the real runtime does).
  if (*fn || status) return cudaSuccess;
  return cudaErrorSymbolNotFound;
}

}  // namespace

SEER_CUDA_API cudaError_t cudaGetDriverEntryPointByVersion(
    const char* symbol, void** fn, unsigned version, unsigned long long flags,
    cudaDriverEntryPointQueryResult* status) {
  return entry_point(symbol, fn, static_cast<int>(version), flags, status);
}

SEER_CUDA_API cudaError_t cudaGetDriverEntryPointByVersion_ptsz(
    const char* symbol, void** fn, unsigned version, unsigned long long flags,
    cudaDriverEntryPointQueryResult* status) {
  return entry_point(symbol, fn, static_cast<int>(version),
                     flags | cudaEnablePerThreadDefaultStream, status);
}

SEER_CUDA_API cudaError_t cudaGetDriverEntryPoint(const char* symbol, void** fn,
                                                  unsigned long long flags,
                                                  cudaDriverEntryPointQueryResult* status) {
  return entry_point(symbol, fn, CUDART_VERSION, flags, status);
}

SEER_CUDA_API cudaError_t cudaGetDriverEntryPoint_ptsz(const char* symbol, void** fn,
                                                       unsigned long long flags,
                                                       cudaDriverEntryPointQueryResult* status) {
  return entry_point(symbol, fn, CUDART_VERSION, flags | cudaEnablePerThreadDefaultStream, status);
}

SEER_CUDA_API cudaError_t cudaProfilerStart(void) { return cudaSuccess; }
SEER_CUDA_API cudaError_t cudaProfilerStop(void) { return cudaSuccess; }

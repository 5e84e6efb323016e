// cuGetProcAddress[_v2]: a version-aware name -> entry point table over this library's own
// exports (proc_table.h), so cuda-python, c10's DriverAPI (through cudaGetDriverEntryPoint) and
// a statically linked runtime get our functions, implemented or stubs.

#include <dlfcn.h>

#include <cstring>

#include "api.h"
#include "proc_table.h"

using namespace seer::driver;

namespace {

void* self_handle() {
  static void* handle = [] {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&self_handle), &info) == 0 || !info.dli_fname) {
      return static_cast<void*>(nullptr);
    }
    return dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
  }();
  return handle;
}

// Only this object's definitions count: dlsym on the handle would also search dependencies.
void* own_symbol(const std::string& name) {
  void* handle = self_handle();
  if (!handle) return nullptr;
  void* p = dlsym(handle, name.c_str());
  if (!p) return nullptr;
  Dl_info mine{}, found{};
  if (dladdr(reinterpret_cast<void*>(&self_handle), &mine) == 0 || dladdr(p, &found) == 0) {
    return nullptr;
  }
  return mine.dli_fbase == found.dli_fbase ? p : nullptr;
}

CUresult get_proc(const char* symbol, void** fn, int version, cuuint64_t flags,
                  CUdriverProcAddressQueryResult* status) {
  if (!symbol || !fn) return CUDA_ERROR_INVALID_VALUE;
  *fn = nullptr;
  const bool per_thread = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
  const ProcLookup found = resolve_proc(
      symbol, version, per_thread, [](const std::string& s) { return own_symbol(s) != nullptr; });
  CUdriverProcAddressQueryResult result = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  if (found.status == ProcStatus::kFound) {
    *fn = own_symbol(found.symbol);
    result = CU_GET_PROC_ADDRESS_SUCCESS;
  } else if (found.status == ProcStatus::kVersionNotSufficient) {
    result = CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT;
  }
  if (status) *status = result;
  return *fn ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

}  // namespace

SEER_CU_API CUresult cuGetProcAddress_v2(const char* symbol, void** fn, int version,
                                         cuuint64_t flags, CUdriverProcAddressQueryResult* status) {
  return get_proc(symbol, fn, version, flags, status);
}

SEER_CU_API CUresult cuGetProcAddress(const char* symbol, void** fn, int version,
                                      cuuint64_t flags) {
  return get_proc(symbol, fn, version, flags, nullptr);
}

// Also serves the runtime's cudaGetDriverEntryPoint (interposer/cudart/entry_point.cpp), which
// finds it with dlsym: a plain C entry so the runtime needs no link to this library.
SEER_CU_API CUresult seer_driver_entry_point(const char* symbol, void** fn, int version,
                                             unsigned long long flags, int* status) {
  CUdriverProcAddressQueryResult s = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  const CUresult r = get_proc(symbol, fn, version, flags, &s);
  if (status) *status = s;
  return r;
}

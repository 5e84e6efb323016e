// __device__ and __constant__ variables: registered by the program's fat-binary constructor
// (__cudaRegisterVar), given device memory of their size on first use (cudaGetSymbolAddress,
// cudaMemcpyToSymbol/FromSymbol), so copies to and from them are checked and carry bytes.

#include <mutex>
#include <string>
#include <unordered_map>

#include "api.h"

using namespace seer::cudart;
namespace ops = seer::client::ops;

namespace {

struct Var {
  size_t size = 0;
  std::string name;
  void* device = nullptr;  // allocated on first use
};

std::mutex g_mu;
std::unordered_map<const void*, Var>& vars() {
  static auto* v = new std::unordered_map<const void*, Var>();
  return *v;
}

// The device address of a registered variable; allocates it on the thread's device.
cudaError_t address_of(ThreadState& ts, const void* symbol, void** out, size_t* size) {
  std::lock_guard<std::mutex> lock(g_mu);
  auto it = vars().find(symbol);
  if (it == vars().end()) return cudaErrorInvalidSymbol;
  Var& v = it->second;
  if (!v.device) {
    if (cudaError_t e = ops::malloc_device(ts, &v.device, v.size ? v.size : 1, ts.device);
        e != cudaSuccess) {
      return e;
    }
  }
  if (out) *out = v.device;
  if (size) *size = v.size;
  return cudaSuccess;
}

cudaError_t to_symbol(const void* symbol, const void* src, size_t count, size_t offset,
                      cudaMemcpyKind kind, cudaStream_t stream, bool async, bool per_thread) {
  SEER_ENTER_OP(memcpy_sync);
  void* base = nullptr;
  size_t size = 0;
  if (cudaError_t e = address_of(call.ts(), symbol, &base, &size); e != cudaSuccess) {
    return fail(call.ts(), e);
  }
  if (offset + count > size) return fail(call.ts(), cudaErrorInvalidValue);
  if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice &&
      kind != cudaMemcpyDefault) {
    return fail(call.ts(), cudaErrorInvalidMemcpyDirection);
  }
  return fail(call.ts(), ops::copy(call.ts(), static_cast<char*>(base) + offset, src, count, kind,
                                   stream, async, per_thread));
}

cudaError_t from_symbol(void* dst, const void* symbol, size_t count, size_t offset,
                        cudaMemcpyKind kind, cudaStream_t stream, bool async, bool per_thread) {
  SEER_ENTER_OP(memcpy_sync);
  void* base = nullptr;
  size_t size = 0;
  if (cudaError_t e = address_of(call.ts(), symbol, &base, &size); e != cudaSuccess) {
    return fail(call.ts(), e);
  }
  if (offset + count > size) return fail(call.ts(), cudaErrorInvalidValue);
  if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice &&
      kind != cudaMemcpyDefault) {
    return fail(call.ts(), cudaErrorInvalidMemcpyDirection);
  }
  return fail(call.ts(), ops::copy(call.ts(), dst, static_cast<char*>(base) + offset, count, kind,
                                   stream, async, per_thread));
}

}  // namespace

SEER_CUDA_API void __cudaRegisterVar(void** /*handle*/, char* host_var, char* /*device_address*/,
                                     const char* device_name, int /*ext*/, size_t size,
                                     int /*constant*/, int /*global*/) {
  std::lock_guard<std::mutex> lock(g_mu);
  vars()[host_var] = Var{size, device_name ? device_name : "", nullptr};
}

SEER_CUDA_API void __cudaRegisterManagedVar(void** /*handle*/, void** /*host_var_ptr*/,
                                            char* /*device_address*/, const char* /*device_name*/,
                                            int /*ext*/, size_t /*size*/, int /*constant*/,
                                            int /*global*/) {}

SEER_CUDA_API cudaError_t cudaGetSymbolAddress(void** ptr, const void* symbol) {
  SEER_ENTER(other_call);
  if (!ptr) return fail(call.ts(), cudaErrorInvalidValue);
  return fail(call.ts(), address_of(call.ts(), symbol, ptr, nullptr));
}

SEER_CUDA_API cudaError_t cudaGetSymbolSize(size_t* size, const void* symbol) {
  SEER_ENTER(other_call);
  if (!size) return fail(call.ts(), cudaErrorInvalidValue);
  std::lock_guard<std::mutex> lock(g_mu);
  auto it = vars().find(symbol);
  if (it == vars().end()) return fail(call.ts(), cudaErrorInvalidSymbol);
  *size = it->second.size;
  return cudaSuccess;
}

SEER_CUDA_API cudaError_t cudaMemcpyToSymbol(const void* symbol, const void* src, size_t count,
                                             size_t offset, cudaMemcpyKind kind) {
  return to_symbol(symbol, src, count, offset, kind, nullptr, false, false);
}
SEER_CUDA_API cudaError_t cudaMemcpyToSymbol_ptds(const void* symbol, const void* src, size_t count,
                                                  size_t offset, cudaMemcpyKind kind) {
  return to_symbol(symbol, src, count, offset, kind, nullptr, false, true);
}
SEER_CUDA_API cudaError_t cudaMemcpyToSymbolAsync(const void* symbol, const void* src, size_t count,
                                                  size_t offset, cudaMemcpyKind kind,
                                                  cudaStream_t stream) {
  return to_symbol(symbol, src, count, offset, kind, stream, true, false);
}
SEER_CUDA_API cudaError_t cudaMemcpyToSymbolAsync_ptsz(const void* symbol, const void* src,
                                                       size_t count, size_t offset,
                                                       cudaMemcpyKind kind, cudaStream_t stream) {
  return to_symbol(symbol, src, count, offset, kind, stream, true, true);
}
SEER_CUDA_API cudaError_t cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t count,
                                               size_t offset, cudaMemcpyKind kind) {
  return from_symbol(dst, symbol, count, offset, kind, nullptr, false, false);
}
SEER_CUDA_API cudaError_t cudaMemcpyFromSymbol_ptds(void* dst, const void* symbol, size_t count,
                                                    size_t offset, cudaMemcpyKind kind) {
  return from_symbol(dst, symbol, count, offset, kind, nullptr, false, true);
}
SEER_CUDA_API cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const void* symbol, size_t count,
                                                    size_t offset, cudaMemcpyKind kind,
                                                    cudaStream_t stream) {
  return from_symbol(dst, symbol, count, offset, kind, stream, true, false);
}
SEER_CUDA_API cudaError_t cudaMemcpyFromSymbolAsync_ptsz(void* dst, const void* symbol,
                                                         size_t count, size_t offset,
                                                         cudaMemcpyKind kind, cudaStream_t stream) {
  return from_symbol(dst, symbol, count, offset, kind, stream, true, true);
}

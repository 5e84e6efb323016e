// Triton kernels' size arguments. Triton's launcher finds cuLaunchKernelEx with
// dlsym(dlopen("libcuda.so.1")), which no preloaded wrapper sees, so the launches are heard
// through CUPTI's callback API: at the enter of cuLaunchKernel[Ex][_ptsz], the callback data's
// functionParams (generated_cuda_meta.h's `<entry point>_params`) give the CUfunction and its
// kernelParams, and its correlationId is the one the kernel's activity record carries. Which
// functions are Triton kernels is learnt from the modules: Triton's compiled helper (driver.c's
// loadBinary) links libcuda and calls cuModuleLoadData and cuModuleGetFunction through its PLT,
// so the preloaded recorder's wrappers below see the cubin and the kernel's name, and find its
// IR in Triton's cache (../client/triton_sizes.h, shared with Seer's client) as `seer run` does.

#include <cuda.h>
#include <cupti.h>  // the callback API, and generated_cuda_meta.h's parameter structures
#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <iterator>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "recorder.h"
#include "triton_sizes.h"

#define SEER_PROFILER_API extern "C" __attribute__((visibility("default")))

namespace {

using SubscribeFn = CUptiResult (*)(CUpti_SubscriberHandle*, CUpti_CallbackFunc, void*);
using EnableCallbackFn = CUptiResult (*)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain,
                                         CUpti_CallbackId);

// Set once the callbacks are enabled: until then (and when they never are) the module wrappers
// only pass the calls on.
std::atomic<bool> g_listening{false};

// Where a module came from: the file it was loaded from, or a copy of its cubin (the caller's
// image need not outlive the load).
struct ModuleSource {
  std::string path;
  std::vector<char> image;
};

std::mutex g_mu;
std::unordered_map<CUmodule, ModuleSource>* g_modules =
    new std::unordered_map<CUmodule, ModuleSource>();
struct TritonFunction {
  const seer::client::TritonSignature* signature = nullptr;
  CUmodule module = nullptr;
};
std::unordered_map<CUfunction, TritonFunction>* g_triton =
    new std::unordered_map<CUfunction, TritonFunction>();

template <typename Fn>
Fn next(const char* symbol) {
  return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, symbol));
}

void remember_image(CUmodule module, const void* image) {
  const size_t bytes = seer::client::cubin_extent(image);
  if (!bytes || bytes > (size_t{256} << 20)) return;  // not a cubin (Triton's are)
  const char* p = static_cast<const char*>(image);
  std::lock_guard<std::mutex> lock(g_mu);
  (*g_modules)[module] = ModuleSource{{}, std::vector<char>(p, p + bytes)};
}

void CUPTIAPI on_launch(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                        const void* data) {
  const auto* cb = static_cast<const CUpti_CallbackData*>(data);
  if (domain != CUPTI_CB_DOMAIN_DRIVER_API || !cb || cb->callbackSite != CUPTI_API_ENTER ||
      !cb->functionParams) {
    return;
  }
  CUfunction f = nullptr;
  void** params = nullptr;
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
      // The two layouts are the same; so are the Ex ones below.
      const auto* p = static_cast<const cuLaunchKernel_params*>(cb->functionParams);
      f = p->f;
      params = p->kernelParams;
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
      const auto* p = static_cast<const cuLaunchKernelEx_params*>(cb->functionParams);
      f = p->f;
      params = p->kernelParams;
      break;
    }
    default:
      return;
  }
  const seer::client::TritonSignature* sig = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    auto it = g_triton->find(f);
    if (it == g_triton->end()) return;
    sig = it->second.signature;
  }
  uint64_t sizes[4] = {};
  const int n = seer::client::read_size_args(sig->size_params, params, sizes, 4);
  seer::profiler::record_launch_sizes(cb->correlationId, sizes, n);
}

}  // namespace

namespace seer::profiler {

void start_triton_launches(void* cupti) {
  auto subscribe = reinterpret_cast<SubscribeFn>(dlsym(cupti, "cuptiSubscribe"));
  auto enable = reinterpret_cast<EnableCallbackFn>(dlsym(cupti, "cuptiEnableCallback"));
  CUptiResult r = CUPTI_ERROR_NOT_SUPPORTED;
  CUpti_SubscriberHandle subscriber = nullptr;
  if (subscribe && enable) r = subscribe(&subscriber, on_launch, nullptr);
  for (CUpti_CallbackId cbid :
       {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz}) {
    if (r == CUPTI_SUCCESS) r = enable(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, cbid);
  }
  if (r != CUPTI_SUCCESS) {
    std::fprintf(stderr,
                 "seer profile: CUPTI's callback API is not available (error %d%s): Triton "
                 "kernels are recorded without their size arguments\n",
                 static_cast<int>(r),
                 r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED ? ", another subscriber" : "");
    return;
  }
  g_listening.store(true, std::memory_order_release);
}

}  // namespace seer::profiler

SEER_PROFILER_API CUresult cuModuleLoadData(CUmodule* module, const void* image) {
  static const auto real = next<CUresult (*)(CUmodule*, const void*)>("cuModuleLoadData");
  if (!real) return CUDA_ERROR_NOT_INITIALIZED;
  const CUresult r = real(module, image);
  if (r == CUDA_SUCCESS && g_listening.load(std::memory_order_acquire)) {
    remember_image(*module, image);
  }
  return r;
}

SEER_PROFILER_API CUresult cuModuleLoadDataEx(CUmodule* module, const void* image, unsigned n,
                                              CUjit_option* options, void** values) {
  static const auto real =
      next<CUresult (*)(CUmodule*, const void*, unsigned, CUjit_option*, void**)>(
          "cuModuleLoadDataEx");
  if (!real) return CUDA_ERROR_NOT_INITIALIZED;
  const CUresult r = real(module, image, n, options, values);
  if (r == CUDA_SUCCESS && g_listening.load(std::memory_order_acquire)) {
    remember_image(*module, image);
  }
  return r;
}

SEER_PROFILER_API CUresult cuModuleLoad(CUmodule* module, const char* path) {
  static const auto real = next<CUresult (*)(CUmodule*, const char*)>("cuModuleLoad");
  if (!real) return CUDA_ERROR_NOT_INITIALIZED;
  const CUresult r = real(module, path);
  if (r == CUDA_SUCCESS && path && g_listening.load(std::memory_order_acquire)) {
    std::lock_guard<std::mutex> lock(g_mu);
    (*g_modules)[*module] = ModuleSource{path, {}};
  }
  return r;
}

SEER_PROFILER_API CUresult cuModuleGetFunction(CUfunction* f, CUmodule module, const char* name) {
  static const auto real =
      next<CUresult (*)(CUfunction*, CUmodule, const char*)>("cuModuleGetFunction");
  if (!real) return CUDA_ERROR_NOT_INITIALIZED;
  const CUresult r = real(f, module, name);
  if (r != CUDA_SUCCESS || !name || !g_listening.load(std::memory_order_acquire)) return r;
  ModuleSource source;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    auto it = g_modules->find(module);
    if (it == g_modules->end()) return r;
    source = it->second;
  }
  const seer::client::TritonSignature* sig = seer::client::find_triton_signature(
      name, source.path, source.image.empty() ? nullptr : source.image.data(), source.image.size());
  std::lock_guard<std::mutex> lock(g_mu);
  if (sig && !sig->size_params.empty()) {
    (*g_triton)[*f] = TritonFunction{sig, module};
  } else {
    g_triton->erase(*f);
  }
  return r;
}

SEER_PROFILER_API CUresult cuModuleUnload(CUmodule module) {
  static const auto real = next<CUresult (*)(CUmodule)>("cuModuleUnload");
  if (!real) return CUDA_ERROR_NOT_INITIALIZED;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    g_modules->erase(module);
    for (auto it = g_triton->begin(); it != g_triton->end();) {
      it = it->second.module == module ? g_triton->erase(it) : std::next(it);
    }
  }
  return real(module);
}

// Kernel launches through the driver: the same record as the runtime's cudaLaunchKernel
// (client/ops_launch.cpp), named by the CUfunction's kernel.

#include "api.h"
#include "graph.h"
#include "ops_module.h"

using namespace seer::driver;
using seer::client::FunctionObj;
using seer::client::Modules;

namespace {

// Launch-path cache: function objects are never freed, so one validated stays valid.
thread_local const void* tl_last_function = nullptr;

FunctionObj* function_of(CUfunction f) {
  if (f && f == tl_last_function) return reinterpret_cast<FunctionObj*>(f);
  FunctionObj* found = Modules::instance().find_function(f);
  if (found) tl_last_function = f;
  return found;
}

CUresult launch(CUfunction f, const ops::LaunchDims& d, CUstream stream, bool per_thread,
                void** params) {
  CUresult err = CUDA_SUCCESS;
  if (!ready(err)) return err;
  ApiCall call(Core::instance(), Core::instance().launch_cost());
  FunctionObj* fn = function_of(f);
  if (!fn) return CUDA_ERROR_INVALID_HANDLE;
  ops::LaunchSizes sizes;
  if (fn->triton) {
    sizes.n = seer::client::read_size_args(*fn->triton, params, sizes.values,
                                           seer::client::PodRecord::kMaxSizes);
  }
  const cudaError_t e = ops::launch(call.ts(), fn, d, stream, per_thread, &sizes);
  return e == cudaErrorInvalidConfiguration ? CUDA_ERROR_INVALID_VALUE : to_cu(e);
}

// Checks the launch attributes: cluster dimensions must divide the grid and stay within the
// portable size (16 when the kernel allows non-portable sizes); a cooperative grid must fit.
CUresult check_attributes(const CUlaunchConfig* c, FunctionObj* f, bool& cooperative) {
  for (unsigned i = 0; i < c->numAttrs; ++i) {
    const CUlaunchAttribute& a = c->attrs[i];
    if (a.id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
      const auto& dim = a.value.clusterDim;
      if (dim.x == 0 || dim.y == 0 || dim.z == 0 || c->gridDimX % dim.x || c->gridDimY % dim.y ||
          c->gridDimZ % dim.z) {
        return CUDA_ERROR_INVALID_CLUSTER_SIZE;
      }
      const unsigned limit = f && f->non_portable_cluster ? 16 : 8;
      if (dim.x * dim.y * dim.z > limit) return CUDA_ERROR_INVALID_CLUSTER_SIZE;
    } else if (a.id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE) {
      cooperative = a.value.cooperative != 0;
    }
  }
  return CUDA_SUCCESS;
}

CUresult launch_ex(const CUlaunchConfig* c, CUfunction f, bool per_thread, void** params) {
  if (!c) return CUDA_ERROR_INVALID_VALUE;
  bool cooperative = false;
  if (CUresult r = check_attributes(c, function_of(f), cooperative); r != CUDA_SUCCESS) return r;
  (void)cooperative;  // accepted: the grid is not checked for co-residency
  const ops::LaunchDims d{{c->gridDimX, c->gridDimY, c->gridDimZ},
                          {c->blockDimX, c->blockDimY, c->blockDimZ},
                          c->sharedMemBytes};
  return launch(f, d, c->hStream, per_thread, params);
}

}  // namespace

// A launch's entry point with its parameters for CUPTI subscribers (`functionParams`, in
// generated_cuda_meta.h's `<entry point>_params` layout, client/activity.h): filled only when one
// listens, so the cost without one stays one relaxed load.
#define SEER_CU_LAUNCH_SCOPE(type, f, ...)                                           \
  ::seer::client::activity::type seer_params_;                                       \
  ::seer::client::activity::ApiScope seer_api_scope_(                                \
      ::seer::client::activity::Domain::kDriver, __func__, f, [&]() -> const void* { \
        seer_params_ = ::seer::client::activity::type{__VA_ARGS__};                  \
        return &seer_params_;                                                        \
      });

SEER_CU_API CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                                    unsigned bx, unsigned by, unsigned bz, unsigned shmem,
                                    CUstream stream, void** params, void** extra) {
  SEER_CU_LAUNCH_SCOPE(LaunchKernelParams, f, f, gx, gy, gz, bx, by, bz, shmem, stream, params,
                       extra)
  return launch(f, {{gx, gy, gz}, {bx, by, bz}, shmem}, stream, false, params);
}

SEER_CU_API CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                                         unsigned bx, unsigned by, unsigned bz, unsigned shmem,
                                         CUstream stream, void** params, void** extra) {
  SEER_CU_LAUNCH_SCOPE(LaunchKernelParams, f, f, gx, gy, gz, bx, by, bz, shmem, stream, params,
                       extra)
  return launch(f, {{gx, gy, gz}, {bx, by, bz}, shmem}, stream, true, params);
}

SEER_CU_API CUresult cuLaunchKernelEx(const CUlaunchConfig* config, CUfunction f, void** params,
                                      void** extra) {
  SEER_CU_LAUNCH_SCOPE(LaunchKernelExParams, f, config, f, params, extra)
  return launch_ex(config, f, false, params);
}

SEER_CU_API CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig* config, CUfunction f,
                                           void** params, void** extra) {
  SEER_CU_LAUNCH_SCOPE(LaunchKernelExParams, f, config, f, params, extra)
  return launch_ex(config, f, true, params);
}

SEER_CU_API CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                                               unsigned bx, unsigned by, unsigned bz,
                                               unsigned shmem, CUstream stream, void** params) {
  SEER_CU_LAUNCH_SCOPE(LaunchKernelParams, f, f, gx, gy, gz, bx, by, bz, shmem, stream, params,
                       nullptr)
  return launch(f, {{gx, gy, gz}, {bx, by, bz}, shmem}, stream, false, params);
}

SEER_CU_API CUresult cuLaunchCooperativeKernel_ptsz(CUfunction f, unsigned gx, unsigned gy,
                                                    unsigned gz, unsigned bx, unsigned by,
                                                    unsigned bz, unsigned shmem, CUstream stream,
                                                    void** params) {
  SEER_CU_LAUNCH_SCOPE(LaunchKernelParams, f, f, gx, gy, gz, bx, by, bz, shmem, stream, params,
                       nullptr)
  return launch(f, {{gx, gy, gz}, {bx, by, bz}, shmem}, stream, true, params);
}

// Host functions run when the stream reaches them (see cudart/streams.cpp): the caller waits
// for the stream's earlier work in virtual time, then runs the function.
static CUresult host_func(CUstream stream, CUhostFn fn, void* data, bool per_thread) {
  {
    SEER_CU_ENTER(other_call);
    if (!fn) return CUDA_ERROR_INVALID_VALUE;
    seer::client::StreamObj* s =
        CudaState::instance().resolve_stream(call.ts(), stream, per_thread);
    cudaError_t captured = cudaSuccess;
    if (s && seer::client::graph::capture_host(call.ts(), s, fn, data, captured))
      return to_cu(captured);
    const cudaError_t e = ops::stream_synchronize(call.ts(), stream, per_thread);
    if (e != cudaSuccess) return to_cu(e);
  }
  fn(data);
  return CUDA_SUCCESS;
}

SEER_CU_API CUresult cuLaunchHostFunc(CUstream stream, CUhostFn fn, void* data) {
  return host_func(stream, fn, data, false);
}

SEER_CU_API CUresult cuLaunchHostFunc_ptsz(CUstream stream, CUhostFn fn, void* data) {
  return host_func(stream, fn, data, true);
}

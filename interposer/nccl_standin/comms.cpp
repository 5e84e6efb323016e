// Communicator creation and teardown, the unique id, versions and errors of the NCCL stand-in
// (README.md). Every communicator has the size and rank it was asked for; nothing waits for
// peers.

#include "comms.h"

#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <ctime>

#define STANDIN_API extern "C" __attribute__((visibility("default")))

namespace seer::nccl_standin {
namespace {

// PyTorch 2.15's NCCL (2.30.7), as Seer's own NCCL reports: version checks in the program pass.
constexpr int kVersion = 23007;

thread_local ncclResult_t t_last = ncclSuccess;
thread_local char t_message[256];

ncclResult_t make(ncclComm_t* out, int nranks, int rank) {
  if (!out) return fail(ncclInvalidArgument, "communicator pointer is NULL");
  if (nranks < 1 || rank < 0 || rank >= nranks) {
    return fail(ncclInvalidArgument, "invalid rank or number of ranks");
  }
  *out = new ncclComm{nranks, rank, current_device(), ncclSuccess};
  return ncclSuccess;
}

}  // namespace

void* driver(const char* name) {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (!lib) lib = dlopen("libcuda.so.1", RTLD_NOW);
  return lib ? dlsym(lib, name) : nullptr;
}

ncclResult_t fail(ncclResult_t r, const char* message) {
  t_last = r;
  std::snprintf(t_message, sizeof t_message, "NCCL stand-in: %s", message);
  return r;
}

int current_device() {
  using CtxGetDevice = CUresult (*)(CUdevice*);
  static auto get = reinterpret_cast<CtxGetDevice>(driver("cuCtxGetDevice"));
  CUdevice d = 0;
  return get && get(&d) == CUDA_SUCCESS ? static_cast<int>(d) : 0;
}

ncclResult_t local_copy(void* dst, const void* src, size_t bytes, cudaStream_t stream) {
  using MemcpyAsync = CUresult (*)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
  static auto copy = reinterpret_cast<MemcpyAsync>(driver("cuMemcpyAsync"));
  if (bytes == 0 || dst == src) return ncclSuccess;
  if (!copy) return fail(ncclUnhandledCudaError, "no CUDA driver (cuMemcpyAsync)");
  if (copy(reinterpret_cast<CUdeviceptr>(dst), reinterpret_cast<CUdeviceptr>(src), bytes,
           reinterpret_cast<CUstream>(stream)) != CUDA_SUCCESS) {
    return fail(ncclUnhandledCudaError, "cuMemcpyAsync failed");
  }
  return ncclSuccess;
}

}  // namespace seer::nccl_standin

using namespace seer::nccl_standin;

STANDIN_API ncclResult_t ncclGetVersion(int* version) {
  if (!version) return fail(ncclInvalidArgument, "version pointer is NULL");
  *version = kVersion;
  return ncclSuccess;
}

STANDIN_API ncclResult_t ncclGetUniqueId(ncclUniqueId* id) {
  if (!id) return fail(ncclInvalidArgument, "unique id pointer is NULL");
  static std::atomic<unsigned> serial{0};
  std::memset(id->internal, 0, sizeof id->internal);
  std::snprintf(id->internal, sizeof id->internal, "seer-nccl-standin %d %u %ld",
                static_cast<int>(getpid()), serial.fetch_add(1), static_cast<long>(time(nullptr)));
  return ncclSuccess;
}

STANDIN_API const char* ncclGetErrorString(ncclResult_t r) {
  switch (r) {
    case ncclSuccess:
      return "no error";
    case ncclUnhandledCudaError:
      return "unhandled cuda error";
    case ncclSystemError:
      return "unhandled system error";
    case ncclInternalError:
      return "internal error";
    case ncclInvalidArgument:
      return "invalid argument";
    case ncclInvalidUsage:
      return "invalid usage";
    case ncclRemoteError:
      return "remote process exited or there was a network error";
    case ncclInProgress:
      return "NCCL operation in progress";
    default:
      return "unknown result code";
  }
}

STANDIN_API const char* ncclGetLastError(ncclComm_t) {
  return t_last == ncclSuccess ? "" : t_message;
}

STANDIN_API ncclResult_t ncclCommInitRank(ncclComm_t* comm, int nranks, ncclUniqueId, int rank) {
  return make(comm, nranks, rank);
}

STANDIN_API ncclResult_t ncclCommInitRankConfig(ncclComm_t* comm, int nranks, ncclUniqueId,
                                                int rank, ncclConfig_t*) {
  return make(comm, nranks, rank);  // complete at once, even for a non-blocking config
}

STANDIN_API ncclResult_t ncclCommInitRankScalable(ncclComm_t* comm, int nranks, int rank, int,
                                                  ncclUniqueId*, ncclConfig_t*) {
  return make(comm, nranks, rank);
}

STANDIN_API ncclResult_t ncclCommInitAll(ncclComm_t* comms, int ndev, const int*) {
  if (!comms || ndev < 1) return fail(ncclInvalidArgument, "bad communicator array");
  for (int i = 0; i < ndev; ++i) {
    if (ncclResult_t r = make(&comms[i], ndev, i)) return r;
  }
  return ncclSuccess;
}

// Which peers chose the same colour is unknown: the new communicator keeps the parent's size and
// this process' rank in it.
STANDIN_API ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int, ncclComm_t* newcomm,
                                       ncclConfig_t*) {
  if (!comm || !newcomm) return fail(ncclInvalidArgument, "bad communicator");
  if (color == NCCL_SPLIT_NOCOLOR) {
    *newcomm = nullptr;
    return ncclSuccess;
  }
  return make(newcomm, comm->nranks, comm->rank);
}

STANDIN_API ncclResult_t ncclCommShrink(ncclComm_t comm, int* exclude, int count,
                                        ncclComm_t* newcomm, ncclConfig_t*, int) {
  if (!comm || !newcomm || count < 0 || (count > 0 && !exclude) || count >= comm->nranks) {
    return fail(ncclInvalidArgument, "bad communicator or exclusion list");
  }
  int below = 0;
  for (int i = 0; i < count; ++i) {
    if (exclude[i] == comm->rank) return fail(ncclInvalidArgument, "this rank is excluded");
    if (exclude[i] < comm->rank) ++below;
  }
  return make(newcomm, comm->nranks - count, comm->rank - below);
}

STANDIN_API ncclResult_t ncclCommFinalize(ncclComm_t comm) {
  return comm ? ncclSuccess : fail(ncclInvalidArgument, "communicator is NULL");
}

STANDIN_API ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  delete comm;  // NULL is accepted, as by NCCL
  return ncclSuccess;
}

STANDIN_API ncclResult_t ncclCommAbort(ncclComm_t comm) { return ncclCommDestroy(comm); }

STANDIN_API ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t* error) {
  if (!comm || !error) return fail(ncclInvalidArgument, "bad argument");
  *error = comm->async_error;
  return ncclSuccess;
}

STANDIN_API ncclResult_t ncclCommCount(const ncclComm_t comm, int* count) {
  if (!comm || !count) return fail(ncclInvalidArgument, "bad argument");
  *count = comm->nranks;
  return ncclSuccess;
}

STANDIN_API ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int* device) {
  if (!comm || !device) return fail(ncclInvalidArgument, "bad argument");
  *device = comm->device;
  return ncclSuccess;
}

STANDIN_API ncclResult_t ncclCommUserRank(const ncclComm_t comm, int* rank) {
  if (!comm || !rank) return fail(ncclInvalidArgument, "bad argument");
  *rank = comm->rank;
  return ncclSuccess;
}

// The stand-in's operations: no peer takes part, so each completes on its stream at once, as if
// every other rank had contributed nothing. Where the result would hold this rank's own data, it
// is a local device-to-device copy (AllReduce/Reduce/Broadcast out of place: recvbuff = sendbuff;
// AllGather and Gather: this rank's slot; ReduceScatter and Scatter: this rank's block; AlltoAll:
// this rank's block to itself); everything else (Send, Recv, the other ranks' slots) leaves the
// buffers as they are. No kernel is launched. Groups, registration and memory helpers complete
// at once too.

#include <cuda.h>

#include <cstdint>

#include "comms.h"

#define STANDIN_API extern "C" __attribute__((visibility("default")))

using namespace seer::nccl_standin;

namespace {

// The checks NCCL makes before it enqueues anything.
ncclResult_t check(ncclComm_t comm, ncclDataType_t type) {
  if (!comm) return fail(ncclInvalidArgument, "communicator is NULL");
  if (type_bytes(type) == 0) return fail(ncclInvalidArgument, "unknown data type");
  return ncclSuccess;
}

const char* at(const void* base, size_t block, size_t index) {
  return static_cast<const char*>(base) + block * index;
}

int g_group_depth = 0;  // per process, like NCCL's (groups are per thread there; nothing waits)

}  // namespace

STANDIN_API ncclResult_t ncclAllReduce(const void* send, void* recv, size_t count,
                                       ncclDataType_t type, ncclRedOp_t, ncclComm_t comm,
                                       cudaStream_t stream) {
  if (ncclResult_t r = check(comm, type)) return r;
  return local_copy(recv, send, count * type_bytes(type), stream);
}

STANDIN_API ncclResult_t ncclReduce(const void* send, void* recv, size_t count, ncclDataType_t type,
                                    ncclRedOp_t, int root, ncclComm_t comm, cudaStream_t stream) {
  if (ncclResult_t r = check(comm, type)) return r;
  if (comm->rank != root) return ncclSuccess;
  return local_copy(recv, send, count * type_bytes(type), stream);
}

STANDIN_API ncclResult_t ncclBroadcast(const void* send, void* recv, size_t count,
                                       ncclDataType_t type, int root, ncclComm_t comm,
                                       cudaStream_t stream) {
  if (ncclResult_t r = check(comm, type)) return r;
  if (comm->rank != root) return ncclSuccess;
  return local_copy(recv, send, count * type_bytes(type), stream);
}

STANDIN_API ncclResult_t ncclBcast(void* buff, size_t count, ncclDataType_t type, int root,
                                   ncclComm_t comm, cudaStream_t stream) {
  return ncclBroadcast(buff, buff, count, type, root, comm, stream);
}

STANDIN_API ncclResult_t ncclAllGather(const void* send, void* recv, size_t count,
                                       ncclDataType_t type, ncclComm_t comm, cudaStream_t stream) {
  if (ncclResult_t r = check(comm, type)) return r;
  const size_t block = count * type_bytes(type);
  return local_copy(const_cast<char*>(at(recv, block, static_cast<size_t>(comm->rank))), send,
                    block, stream);
}

STANDIN_API ncclResult_t ncclReduceScatter(const void* send, void* recv, size_t count,
                                           ncclDataType_t type, ncclRedOp_t, ncclComm_t comm,
                                           cudaStream_t stream) {
  if (ncclResult_t r = check(comm, type)) return r;
  const size_t block = count * type_bytes(type);
  return local_copy(recv, at(send, block, static_cast<size_t>(comm->rank)), block, stream);
}

STANDIN_API ncclResult_t ncclAlltoAll(const void* send, void* recv, size_t count,
                                      ncclDataType_t type, ncclComm_t comm, cudaStream_t stream) {
  if (ncclResult_t r = check(comm, type)) return r;
  const size_t block = count * type_bytes(type), rank = static_cast<size_t>(comm->rank);
  return local_copy(const_cast<char*>(at(recv, block, rank)), at(send, block, rank), block, stream);
}

STANDIN_API ncclResult_t ncclGather(const void* send, void* recv, size_t count, ncclDataType_t type,
                                    int root, ncclComm_t comm, cudaStream_t stream) {
  if (ncclResult_t r = check(comm, type)) return r;
  if (comm->rank != root) return ncclSuccess;
  const size_t block = count * type_bytes(type);
  return local_copy(const_cast<char*>(at(recv, block, static_cast<size_t>(comm->rank))), send,
                    block, stream);
}

STANDIN_API ncclResult_t ncclScatter(const void* send, void* recv, size_t count,
                                     ncclDataType_t type, int root, ncclComm_t comm,
                                     cudaStream_t stream) {
  if (ncclResult_t r = check(comm, type)) return r;
  if (comm->rank != root) return ncclSuccess;
  const size_t block = count * type_bytes(type);
  return local_copy(recv, at(send, block, static_cast<size_t>(comm->rank)), block, stream);
}

STANDIN_API ncclResult_t ncclSend(const void*, size_t, ncclDataType_t type, int peer,
                                  ncclComm_t comm, cudaStream_t) {
  if (ncclResult_t r = check(comm, type)) return r;
  if (peer < 0 || peer >= comm->nranks) return fail(ncclInvalidArgument, "invalid peer");
  return ncclSuccess;
}

STANDIN_API ncclResult_t ncclRecv(void*, size_t, ncclDataType_t type, int peer, ncclComm_t comm,
                                  cudaStream_t) {
  if (ncclResult_t r = check(comm, type)) return r;
  if (peer < 0 || peer >= comm->nranks) return fail(ncclInvalidArgument, "invalid peer");
  return ncclSuccess;
}

STANDIN_API ncclResult_t ncclGroupStart() {
  ++g_group_depth;
  return ncclSuccess;
}

STANDIN_API ncclResult_t ncclGroupEnd() {
  if (g_group_depth == 0) return fail(ncclInvalidUsage, "ncclGroupEnd without ncclGroupStart");
  --g_group_depth;
  return ncclSuccess;
}

STANDIN_API ncclResult_t ncclGroupSimulateEnd(ncclSimInfo_t* info) {
  if (info) info->estimatedTime = 0.0f;
  return ncclGroupEnd();
}

STANDIN_API ncclResult_t ncclRedOpCreatePreMulSum(ncclRedOp_t* op, void*, ncclDataType_t,
                                                  ncclScalarResidence_t, ncclComm_t comm) {
  if (!op || !comm) return fail(ncclInvalidArgument, "bad argument");
  *op = static_cast<ncclRedOp_t>(ncclNumOps);
  return ncclSuccess;
}

STANDIN_API ncclResult_t ncclRedOpDestroy(ncclRedOp_t, ncclComm_t comm) {
  return comm ? ncclSuccess : fail(ncclInvalidArgument, "communicator is NULL");
}

STANDIN_API ncclResult_t ncclCommRegister(const ncclComm_t comm, void* buff, size_t,
                                          void** handle) {
  if (!comm || !handle) return fail(ncclInvalidArgument, "bad argument");
  *handle = buff;
  return ncclSuccess;
}

STANDIN_API ncclResult_t ncclCommDeregister(const ncclComm_t comm, void*) {
  return comm ? ncclSuccess : fail(ncclInvalidArgument, "communicator is NULL");
}

// Plain device memory from the driver.
STANDIN_API ncclResult_t ncclMemAlloc(void** ptr, size_t size) {
  using Alloc = CUresult (*)(CUdeviceptr*, size_t);
  static auto alloc = reinterpret_cast<Alloc>(driver("cuMemAlloc_v2"));
  if (!ptr) return fail(ncclInvalidArgument, "pointer is NULL");
  CUdeviceptr p = 0;
  if (!alloc || alloc(&p, size) != CUDA_SUCCESS) {
    return fail(ncclUnhandledCudaError, "cuMemAlloc failed");
  }
  *ptr = reinterpret_cast<void*>(p);
  return ncclSuccess;
}

STANDIN_API ncclResult_t ncclMemFree(void* ptr) {
  using Free = CUresult (*)(CUdeviceptr);
  static auto release = reinterpret_cast<Free>(driver("cuMemFree_v2"));
  if (!release || release(reinterpret_cast<CUdeviceptr>(ptr)) != CUDA_SUCCESS) {
    return fail(ncclUnhandledCudaError, "cuMemFree failed");
  }
  return ncclSuccess;
}

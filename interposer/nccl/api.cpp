// The NCCL 2.28 public API, simulated: communicators come from the session, operations become
// timed ops on their CUDA streams. Anything else the library exports answers ncclInvalidUsage
// (interposer/stubs).

#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>

#include "comm.h"
#include "cuda_state.h"
#include "device_memory.h"

#define SEER_NCCL_API extern "C" __attribute__((visibility("default")))

using seer::client::ApiCall;
using seer::client::Core;
using seer::client::ThreadState;
using namespace seer::nccl;
namespace wire = seer::wire;

namespace {

constexpr int kTorchNcclVersion = 23007;  // NCCL 2.30.7, PyTorch 2.15's
thread_local ncclResult_t tl_last_result = ncclSuccess;
thread_local char tl_last_error[512];
uint64_t g_comm_seq = 0;
std::mutex g_seq_mu;
int g_next_redop = ncclNumOps;

ncclResult_t fail(ncclResult_t r, const char* fmt, const char* detail = "") {
  tl_last_result = r;
  std::snprintf(tl_last_error, sizeof tl_last_error, fmt, detail);
  return r;
}

bool joined() { return Core::instance().ensure_joined(); }

uint64_t next_seq() {
  std::lock_guard<std::mutex> lock(g_seq_mu);
  return ++g_comm_seq;
}

// Runs the deferred calls now unless a group is open.
ncclResult_t maybe_run(ThreadState& ts) {
  if (group_depth() > 0) return ncclSuccess;
  return run_group(ts);
}

ncclResult_t init_rank(ncclComm_t* out, int nranks, const ncclUniqueId& id, int rank,
                       const ncclConfig_t* config) {
  if (!out) return fail(ncclInvalidArgument, "comm pointer is NULL%s");
  if (nranks < 1 || rank < 0 || rank >= nranks) {
    return fail(ncclInvalidArgument, "invalid rank or nranks%s");
  }
  if (!joined()) return fail(ncclSystemError, "not running under `seer run`%s");
  ApiCall call(Core::instance(), Core::instance().costs().other_call());
  Comm* c = new_comm();
  c->device = call.ts().device;
  c->nonblocking = config && config->blocking == 0;
  Deferred d;
  d.kind = Deferred::kInit;
  d.comm = c;
  d.init.set_unique_id(std::string(id.internal, sizeof id.internal));
  d.init.set_nranks(nranks);
  d.init.set_rank(rank);
  d.init.set_gpu(c->device);
  d.init.set_seq(next_seq());
  deferred().push_back(d);
  *out = reinterpret_cast<ncclComm_t>(c);
  const ncclResult_t r = maybe_run(call.ts());
  return (c->nonblocking && group_depth() == 0) ? ncclInProgress : r;
}

ncclResult_t enqueue(wire::CollKind kind, const void* sendbuff, void* recvbuff, size_t count,
                     ncclDataType_t type, ncclRedOp_t op, int root, ncclComm_t handle,
                     cudaStream_t stream) {
  auto* c = reinterpret_cast<Comm*>(handle);
  if (!valid(c)) return fail(ncclInvalidArgument, "invalid communicator%s");
  const int bytes = type_bytes(type);
  if (bytes == 0) return fail(ncclInvalidArgument, "invalid data type%s");
  if (static_cast<int>(op) < 0 || static_cast<int>(op) >= g_next_redop) {
    return fail(ncclInvalidArgument, "invalid reduction operation%s");
  }
  if (!joined()) return fail(ncclSystemError, "not running under `seer run`%s");
  ApiCall call(Core::instance(), Core::instance().launch_cost());
  if (c->pending_request) finish_pending(call.ts(), c);
  if (root < 0 || (c->nranks > 0 && root >= c->nranks)) {
    return fail(ncclInvalidArgument, "root or peer out of range%s");
  }
  if (!seer::client::CudaState::instance().resolve_stream(call.ts(), stream, false)) {
    return fail(ncclInvalidArgument, "invalid CUDA stream%s");
  }
  Deferred d;
  d.kind = Deferred::kColl;
  d.comm = c;
  d.stream = stream;
  d.sendbuff = sendbuff;
  d.recvbuff = recvbuff;
  d.part.set_kind(kind);
  d.part.set_count(count);
  d.part.set_datatype(static_cast<int>(type));
  d.part.set_type_bytes(bytes);
  d.part.set_redop(static_cast<int>(op));
  d.part.set_root(root);
  deferred().push_back(d);
  return maybe_run(call.ts());
}

}  // namespace

// The version the caller was built against is not knowable at run time: PyTorch 2.15 ships and
// was built with NCCL 2.30.7, so its libraries get that; other programs get the headers Seer was
// built with (nccl-tests stops when the library is older than its headers).
// SEER_NCCL_VERSION_CODE overrides both.
SEER_NCCL_API ncclResult_t ncclGetVersion(int* version) {
  if (!version) return ncclInvalidArgument;
  if (const char* forced = std::getenv("SEER_NCCL_VERSION_CODE"); forced && *forced) {
    *version = std::atoi(forced);
    return ncclSuccess;
  }
  Dl_info caller{};
  const bool torch = dladdr(__builtin_return_address(0), &caller) && caller.dli_fname &&
                     std::strstr(caller.dli_fname, "libtorch");
  *version = torch ? kTorchNcclVersion : NCCL_VERSION_CODE;
  return ncclSuccess;
}

SEER_NCCL_API ncclResult_t ncclGetUniqueId(ncclUniqueId* id) {
  if (!id) return fail(ncclInvalidArgument, "uniqueId is NULL%s");
  std::memset(id->internal, 0, sizeof id->internal);
  std::memcpy(id->internal, "seer-nccl-id", 12);
  std::random_device rd;
  for (size_t i = 16; i < 48; i += 4) {
    const uint32_t v = rd();
    std::memcpy(id->internal + i, &v, 4);
  }
  const pid_t pid = ::getpid();
  std::memcpy(id->internal + 48, &pid, sizeof pid);
  return ncclSuccess;
}

SEER_NCCL_API ncclResult_t ncclCommInitRank(ncclComm_t* comm, int nranks, ncclUniqueId id,
                                            int rank) {
  return init_rank(comm, nranks, id, rank, nullptr);
}

SEER_NCCL_API ncclResult_t ncclCommInitRankConfig(ncclComm_t* comm, int nranks, ncclUniqueId id,
                                                  int rank, ncclConfig_t* config) {
  return init_rank(comm, nranks, id, rank, config);
}

SEER_NCCL_API ncclResult_t ncclCommInitRankScalable(ncclComm_t* comm, int nranks, int rank,
                                                    int nids, ncclUniqueId* ids,
                                                    ncclConfig_t* config) {
  if (nids < 1 || !ids) return fail(ncclInvalidArgument, "no unique ids%s");
  return init_rank(comm, nranks, ids[0], rank, config);
}

SEER_NCCL_API ncclResult_t ncclCommInitAll(ncclComm_t* comms, int ndev, const int* devlist) {
  if (!comms || ndev < 1) return fail(ncclInvalidArgument, "invalid arguments%s");
  if (!joined()) return fail(ncclSystemError, "not running under `seer run`%s");
  ncclUniqueId id;
  ncclGetUniqueId(&id);
  int saved = 0;
  cudaGetDevice(&saved);
  ncclGroupStart();
  for (int i = 0; i < ndev; ++i) {
    cudaSetDevice(devlist ? devlist[i] : i);
    ncclCommInitRank(comms + i, ndev, id, i);
  }
  const ncclResult_t r = ncclGroupEnd();
  cudaSetDevice(saved);
  return r;
}

SEER_NCCL_API ncclResult_t ncclCommSplit(ncclComm_t parent, int color, int key, ncclComm_t* newcomm,
                                         ncclConfig_t* config) {
  auto* p = reinterpret_cast<Comm*>(parent);
  if (!valid(p) || !newcomm) return fail(ncclInvalidArgument, "invalid communicator%s");
  if (!joined()) return fail(ncclSystemError, "not running under `seer run`%s");
  ApiCall call(Core::instance(), Core::instance().costs().other_call());
  if (p->pending_request) finish_pending(call.ts(), p);
  Comm* c = new_comm();
  c->device = p->device;
  c->nonblocking = config && config->blocking == 0;
  Deferred d;
  d.kind = Deferred::kSplit;
  d.comm = c;
  d.parent = p;
  d.out = newcomm;
  d.split.set_parent(p->id);
  d.split.set_color(color);
  d.split.set_key(key);
  d.split.set_gpu(p->device);
  d.split.set_rank(p->rank);
  deferred().push_back(d);
  *newcomm = reinterpret_cast<ncclComm_t>(c);
  return maybe_run(call.ts());
}

SEER_NCCL_API ncclResult_t ncclCommShrink(ncclComm_t parent, int* exclude, int exclude_count,
                                          ncclComm_t* newcomm, ncclConfig_t* config,
                                          int /*flags*/) {
  auto* p = reinterpret_cast<Comm*>(parent);
  if (!valid(p) || !newcomm || exclude_count < 0 || (exclude_count > 0 && !exclude)) {
    return fail(ncclInvalidArgument, "invalid communicator or exclude list%s");
  }
  if (!joined()) return fail(ncclSystemError, "not running under `seer run`%s");
  ApiCall call(Core::instance(), Core::instance().costs().other_call());
  if (p->pending_request) finish_pending(call.ts(), p);
  for (int i = 0; i < exclude_count; ++i) {
    if (exclude[i] == p->rank) return fail(ncclInvalidUsage, "an excluded rank called it%s");
  }
  Comm* c = new_comm();
  c->device = p->device;
  c->nonblocking = config && config->blocking == 0;
  Deferred d;
  d.kind = Deferred::kSplit;
  d.comm = c;
  d.parent = p;
  d.out = newcomm;
  d.split.set_parent(p->id);
  d.split.set_color(0);
  d.split.set_key(p->rank);
  d.split.set_gpu(p->device);
  d.split.set_rank(p->rank);
  for (int i = 0; i < exclude_count; ++i) d.split.add_exclude(exclude[i]);
  deferred().push_back(d);
  *newcomm = reinterpret_cast<ncclComm_t>(c);
  return maybe_run(call.ts());
}

SEER_NCCL_API ncclResult_t ncclCommFinalize(ncclComm_t comm) {
  return valid(reinterpret_cast<Comm*>(comm)) ? ncclSuccess : ncclInvalidArgument;
}

SEER_NCCL_API ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  auto* c = reinterpret_cast<Comm*>(comm);
  if (!c) return ncclSuccess;
  if (!valid(c)) return fail(ncclInvalidArgument, "invalid communicator%s");
  forget(c);
  return ncclSuccess;
}

SEER_NCCL_API ncclResult_t ncclCommAbort(ncclComm_t comm) { return ncclCommDestroy(comm); }

SEER_NCCL_API ncclResult_t ncclCommCount(const ncclComm_t comm, int* count) {
  auto* c = reinterpret_cast<Comm*>(comm);
  if (!valid(c) || !count) return ncclInvalidArgument;
  *count = c->nranks;
  return ncclSuccess;
}

SEER_NCCL_API ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int* device) {
  auto* c = reinterpret_cast<Comm*>(comm);
  if (!valid(c) || !device) return ncclInvalidArgument;
  *device = c->device;
  return ncclSuccess;
}

SEER_NCCL_API ncclResult_t ncclCommUserRank(const ncclComm_t comm, int* rank) {
  auto* c = reinterpret_cast<Comm*>(comm);
  if (!valid(c) || !rank) return ncclInvalidArgument;
  *rank = c->rank;
  return ncclSuccess;
}

SEER_NCCL_API ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t* error) {
  auto* c = reinterpret_cast<Comm*>(comm);
  if (!valid(c) || !error) return ncclInvalidArgument;
  if (c->pending_request && joined()) {
    ApiCall call(Core::instance(), Core::instance().costs().query());
    finish_pending(call.ts(), c);
  }
  *error = c->async_error;
  return ncclSuccess;
}

SEER_NCCL_API const char* ncclGetErrorString(ncclResult_t result) { return error_string(result); }

SEER_NCCL_API const char* ncclGetLastError(ncclComm_t /*comm*/) { return tl_last_error; }

SEER_NCCL_API ncclResult_t ncclMemAlloc(void** ptr, size_t size) {
  if (!ptr) return ncclInvalidArgument;
  return cudaMalloc(ptr, size) == cudaSuccess ? ncclSuccess : ncclUnhandledCudaError;
}

SEER_NCCL_API ncclResult_t ncclMemFree(void* ptr) {
  return cudaFree(ptr) == cudaSuccess ? ncclSuccess : ncclUnhandledCudaError;
}

SEER_NCCL_API ncclResult_t ncclCommRegister(const ncclComm_t comm, void* buff, size_t /*size*/,
                                            void** handle) {
  if (!valid(reinterpret_cast<Comm*>(comm)) || !handle) return ncclInvalidArgument;
  *handle = buff;
  return ncclSuccess;
}

SEER_NCCL_API ncclResult_t ncclCommDeregister(const ncclComm_t comm, void* /*handle*/) {
  return valid(reinterpret_cast<Comm*>(comm)) ? ncclSuccess : ncclInvalidArgument;
}

SEER_NCCL_API ncclResult_t ncclCommWindowRegister(ncclComm_t comm, void* buff, size_t /*size*/,
                                                  ncclWindow_t* win, int /*flags*/) {
  if (!valid(reinterpret_cast<Comm*>(comm)) || !win) return ncclInvalidArgument;
  *win = reinterpret_cast<ncclWindow_t>(buff);
  return ncclSuccess;
}

SEER_NCCL_API ncclResult_t ncclCommWindowDeregister(ncclComm_t comm, ncclWindow_t /*win*/) {
  return valid(reinterpret_cast<Comm*>(comm)) ? ncclSuccess : ncclInvalidArgument;
}

SEER_NCCL_API ncclResult_t ncclRedOpCreatePreMulSum(ncclRedOp_t* op, void* scalar,
                                                    ncclDataType_t type,
                                                    ncclScalarResidence_t residence,
                                                    ncclComm_t comm) {
  if (!op || !valid(reinterpret_cast<Comm*>(comm)) || type_bytes(type) == 0) {
    return ncclInvalidArgument;
  }
  *op = static_cast<ncclRedOp_t>(g_next_redop++);
  remember_premul_scalar(*op, scalar, type, residence);
  return ncclSuccess;
}

SEER_NCCL_API ncclResult_t ncclRedOpDestroy(ncclRedOp_t op, ncclComm_t comm) {
  if (!valid(reinterpret_cast<Comm*>(comm)) || static_cast<int>(op) < ncclNumOps) {
    return ncclInvalidArgument;
  }
  return ncclSuccess;
}

SEER_NCCL_API ncclResult_t ncclGroupStart() {
  ++group_depth();
  return ncclSuccess;
}

SEER_NCCL_API ncclResult_t ncclGroupEnd() {
  if (group_depth() <= 0) return fail(ncclInvalidUsage, "ncclGroupEnd without ncclGroupStart%s");
  if (--group_depth() > 0) return ncclSuccess;
  if (deferred().empty()) return ncclSuccess;
  if (!joined()) return fail(ncclSystemError, "not running under `seer run`%s");
  ApiCall call(Core::instance(), Core::instance().costs().other_call());
  return run_group(call.ts());
}

SEER_NCCL_API ncclResult_t ncclGroupSimulateEnd(ncclSimInfo_t* info) {
  if (group_depth() <= 0) return fail(ncclInvalidUsage, "no group is open%s");
  if (--group_depth() > 0) return ncclSuccess;
  std::vector<Deferred> calls;
  calls.swap(deferred());
  if (!info) return ncclInvalidArgument;
  if (!joined()) return fail(ncclSystemError, "not running under `seer run`%s");
  ApiCall call(Core::instance(), Core::instance().costs().other_call());
  double total_ns = 0;
  for (const Deferred& d : calls) {
    if (d.kind != Deferred::kColl) continue;
    wire::Request r;
    r.mutable_simulate()->set_comm(d.comm->id);
    *r.mutable_simulate()->add_parts() = d.part;
    total_ns += static_cast<double>(Core::instance().request(call.ts(), r).completion());
  }
  info->estimatedTime = static_cast<float>(total_ns / 1e3);
  return ncclSuccess;
}

SEER_NCCL_API ncclResult_t ncclAllReduce(const void* sendbuff, void* recvbuff, size_t count,
                                         ncclDataType_t type, ncclRedOp_t op, ncclComm_t comm,
                                         cudaStream_t stream) {
  return enqueue(wire::COLL_ALL_REDUCE, sendbuff, recvbuff, count, type, op, 0, comm, stream);
}

SEER_NCCL_API ncclResult_t ncclBroadcast(const void* sendbuff, void* recvbuff, size_t count,
                                         ncclDataType_t type, int root, ncclComm_t comm,
                                         cudaStream_t stream) {
  return enqueue(wire::COLL_BROADCAST, sendbuff, recvbuff, count, type, ncclSum, root, comm,
                 stream);
}

SEER_NCCL_API ncclResult_t ncclBcast(void* buff, size_t count, ncclDataType_t type, int root,
                                     ncclComm_t comm, cudaStream_t stream) {
  return enqueue(wire::COLL_BROADCAST, buff, buff, count, type, ncclSum, root, comm, stream);
}

SEER_NCCL_API ncclResult_t ncclReduce(const void* sendbuff, void* recvbuff, size_t count,
                                      ncclDataType_t type, ncclRedOp_t op, int root,
                                      ncclComm_t comm, cudaStream_t stream) {
  return enqueue(wire::COLL_REDUCE, sendbuff, recvbuff, count, type, op, root, comm, stream);
}

SEER_NCCL_API ncclResult_t ncclAllGather(const void* sendbuff, void* recvbuff, size_t count,
                                         ncclDataType_t type, ncclComm_t comm,
                                         cudaStream_t stream) {
  return enqueue(wire::COLL_ALL_GATHER, sendbuff, recvbuff, count, type, ncclSum, 0, comm, stream);
}

SEER_NCCL_API ncclResult_t ncclReduceScatter(const void* sendbuff, void* recvbuff, size_t count,
                                             ncclDataType_t type, ncclRedOp_t op, ncclComm_t comm,
                                             cudaStream_t stream) {
  return enqueue(wire::COLL_REDUCE_SCATTER, sendbuff, recvbuff, count, type, op, 0, comm, stream);
}

SEER_NCCL_API ncclResult_t ncclAlltoAll(const void* sendbuff, void* recvbuff, size_t count,
                                        ncclDataType_t type, ncclComm_t comm, cudaStream_t stream) {
  return enqueue(wire::COLL_ALL_TO_ALL, sendbuff, recvbuff, count, type, ncclSum, 0, comm, stream);
}

SEER_NCCL_API ncclResult_t ncclGather(const void* sendbuff, void* recvbuff, size_t count,
                                      ncclDataType_t type, int root, ncclComm_t comm,
                                      cudaStream_t stream) {
  return enqueue(wire::COLL_GATHER, sendbuff, recvbuff, count, type, ncclSum, root, comm, stream);
}

SEER_NCCL_API ncclResult_t ncclScatter(const void* sendbuff, void* recvbuff, size_t count,
                                       ncclDataType_t type, int root, ncclComm_t comm,
                                       cudaStream_t stream) {
  return enqueue(wire::COLL_SCATTER, sendbuff, recvbuff, count, type, ncclSum, root, comm, stream);
}

SEER_NCCL_API ncclResult_t ncclSend(const void* sendbuff, size_t count, ncclDataType_t type,
                                    int peer, ncclComm_t comm, cudaStream_t stream) {
  return enqueue(wire::COLL_SEND, sendbuff, nullptr, count, type, ncclSum, peer, comm, stream);
}

SEER_NCCL_API ncclResult_t ncclRecv(void* recvbuff, size_t count, ncclDataType_t type, int peer,
                                    ncclComm_t comm, cudaStream_t stream) {
  return enqueue(wire::COLL_RECV, nullptr, recvbuff, count, type, ncclSum, peer, comm, stream);
}

// NCCL 2.30 additions (not in the 2.28 headers Seer builds with; declared here as 2.30's nccl.h
// has them, enums as int). Suspend/resume and memory statistics are success no-ops (no memory is
// held for a suspended communicator); windows are the user's buffer.
extern "C" {
ncclResult_t ncclCommGetUniqueId(ncclComm_t comm, ncclUniqueId* unique_id);
ncclResult_t ncclCommSuspend(ncclComm_t comm, int flags);
ncclResult_t ncclCommResume(ncclComm_t comm);
ncclResult_t ncclCommMemStats(ncclComm_t comm, int stat, uint64_t* value);
ncclResult_t ncclWinGetUserPtr(ncclComm_t comm, ncclWindow_t win, void** user_ptr);
}

SEER_NCCL_API ncclResult_t ncclCommGetUniqueId(ncclComm_t comm, ncclUniqueId* unique_id) {
  if (!valid(reinterpret_cast<Comm*>(comm))) return fail(ncclInvalidArgument, "invalid comm%s");
  return ncclGetUniqueId(unique_id);
}

SEER_NCCL_API ncclResult_t ncclCommSuspend(ncclComm_t comm, int /*flags*/) {
  return valid(reinterpret_cast<Comm*>(comm)) ? ncclSuccess : ncclInvalidArgument;
}

SEER_NCCL_API ncclResult_t ncclCommResume(ncclComm_t comm) {
  return valid(reinterpret_cast<Comm*>(comm)) ? ncclSuccess : ncclInvalidArgument;
}

SEER_NCCL_API ncclResult_t ncclCommMemStats(ncclComm_t comm, int /*stat*/, uint64_t* value) {
  if (!valid(reinterpret_cast<Comm*>(comm)) || !value) return ncclInvalidArgument;
  *value = 0;
  return ncclSuccess;
}

SEER_NCCL_API ncclResult_t ncclWinGetUserPtr(ncclComm_t comm, ncclWindow_t win, void** user_ptr) {
  if (!valid(reinterpret_cast<Comm*>(comm)) || !win || !user_ptr) return ncclInvalidArgument;
  *user_ptr = reinterpret_cast<void*>(win);
  return ncclSuccess;
}

// The profiling-interface names (pncclX) of every implemented function.
extern "C" __attribute__((visibility("default"))) __typeof__(ncclGetVersion) pncclGetVersion
    __attribute__((alias("ncclGetVersion")));
extern "C" __attribute__((visibility("default"))) __typeof__(ncclGetUniqueId) pncclGetUniqueId
    __attribute__((alias("ncclGetUniqueId")));
extern "C" __attribute__((visibility("default"))) __typeof__(ncclCommInitRank) pncclCommInitRank
    __attribute__((alias("ncclCommInitRank")));
extern "C" __attribute__((
    visibility("default"))) __typeof__(ncclCommInitRankConfig) pncclCommInitRankConfig
    __attribute__((alias("ncclCommInitRankConfig")));
extern "C" __attribute__((
    visibility("default"))) __typeof__(ncclCommInitRankScalable) pncclCommInitRankScalable
    __attribute__((alias("ncclCommInitRankScalable")));
extern "C" __attribute__((visibility("default"))) __typeof__(ncclCommInitAll) pncclCommInitAll
    __attribute__((alias("ncclCommInitAll")));
extern "C" __attribute__((visibility("default"))) __typeof__(ncclCommSplit) pncclCommSplit
    __attribute__((alias("ncclCommSplit")));
extern "C" __attribute__((visibility("default"))) __typeof__(ncclCommFinalize) pncclCommFinalize
    __attribute__((alias("ncclCommFinalize")));
extern "C" __attribute__((visibility("default"))) __typeof__(ncclCommDestroy) pncclCommDestroy
    __attribute__((alias("ncclCommDestroy")));
extern "C" __attribute__((visibility("default"))) __typeof__(ncclCommAbort) pncclCommAbort
    __attribute__((alias("ncclCommAbort")));
extern "C" __attribute__((visibility("default"))) __typeof__(ncclCommCount) pncclCommCount
    __attribute__((alias("ncclCommCount")));
extern "C" __attribute__((visibility("default"))) __typeof__(ncclCommCuDevice) pncclCommCuDevice
    __attribute__((alias("ncclCommCuDevice")));
extern "C" __attribute__((visibility("default"))) __typeof__(ncclCommUserRank) pncclCommUserRank
    __attribute__((alias("ncclCommUserRank")));
extern "C"
    __attribute__((visibility("default"))) __typeof__(ncclCommGetAsyncError) pncclCommGetAsyncError
    __attribute__((alias("ncclCommGetAsyncError")));
extern "C" __attribute__((visibility("default"))) __typeof__(ncclGetErrorString) pncclGetErrorString
    __attribute__((alias("ncclGetErrorString")));
extern "C" __attribute__((visibility("default"))) __typeof__(ncclGetLastError) pncclGetLastError
    __attribute__((alias("ncclGetLastError")));
extern "C" __attribute__((visibility("default"))) __typeof__(ncclMemAlloc) pncclMemAlloc
    __attribute__((alias("ncclMemAlloc")));
extern "C" __attribute__((visibility("default"))) __typeof__(ncclMemFree) pncclMemFree
    __attribute__((alias("ncclMemFree")));
extern "C" __attribute__((visibility("default"))) __typeof__(ncclCommRegister) pncclCommRegister
    __attribute__((alias("ncclCommRegister")));
extern "C" __attribute__((visibility("default"))) __typeof__(ncclCommDeregister) pncclCommDeregister
    __attribute__((alias("ncclCommDeregister")));
extern "C" __attribute__((
    visibility("default"))) __typeof__(ncclCommWindowRegister) pncclCommWindowRegister
    __attribute__((alias("ncclCommWindowRegister")));
extern "C" __attribute__((
    visibility("default"))) __typeof__(ncclCommWindowDeregister) pncclCommWindowDeregister
    __attribute__((alias("ncclCommWindowDeregister")));
extern "C" __attribute__((
    visibility("default"))) __typeof__(ncclRedOpCreatePreMulSum) pncclRedOpCreatePreMulSum
    __attribute__((alias("ncclRedOpCreatePreMulSum")));
extern "C" __attribute__((visibility("default"))) __typeof__(ncclRedOpDestroy) pncclRedOpDestroy
    __attribute__((alias("ncclRedOpDestroy")));
extern "C" __attribute__((visibility("default"))) __typeof__(ncclGroupStart) pncclGroupStart
    __attribute__((alias("ncclGroupStart")));
extern "C" __attribute__((visibility("default"))) __typeof__(ncclGroupEnd) pncclGroupEnd
    __attribute__((alias("ncclGroupEnd")));
extern "C"
    __attribute__((visibility("default"))) __typeof__(ncclGroupSimulateEnd) pncclGroupSimulateEnd
    __attribute__((alias("ncclGroupSimulateEnd")));
extern "C" __attribute__((visibility("default"))) __typeof__(ncclAllReduce) pncclAllReduce
    __attribute__((alias("ncclAllReduce")));
extern "C" __attribute__((visibility("default"))) __typeof__(ncclBroadcast) pncclBroadcast
    __attribute__((alias("ncclBroadcast")));
extern "C" __attribute__((visibility("default"))) __typeof__(ncclBcast) pncclBcast
    __attribute__((alias("ncclBcast")));
extern "C" __attribute__((visibility("default"))) __typeof__(ncclReduce) pncclReduce
    __attribute__((alias("ncclReduce")));
extern "C" __attribute__((visibility("default"))) __typeof__(ncclAllGather) pncclAllGather
    __attribute__((alias("ncclAllGather")));
extern "C" __attribute__((visibility("default"))) __typeof__(ncclReduceScatter) pncclReduceScatter
    __attribute__((alias("ncclReduceScatter")));
extern "C" __attribute__((visibility("default"))) __typeof__(ncclAlltoAll) pncclAlltoAll
    __attribute__((alias("ncclAlltoAll")));
extern "C" __attribute__((visibility("default"))) __typeof__(ncclGather) pncclGather
    __attribute__((alias("ncclGather")));
extern "C" __attribute__((visibility("default"))) __typeof__(ncclScatter) pncclScatter
    __attribute__((alias("ncclScatter")));
extern "C" __attribute__((visibility("default"))) __typeof__(ncclSend) pncclSend
    __attribute__((alias("ncclSend")));
extern "C" __attribute__((visibility("default"))) __typeof__(ncclRecv) pncclRecv
    __attribute__((alias("ncclRecv")));
extern "C" __attribute__((visibility("default"))) __typeof__(ncclCommShrink) pncclCommShrink
    __attribute__((alias("ncclCommShrink")));
extern "C"
    __attribute__((visibility("default"))) __typeof__(ncclCommGetUniqueId) pncclCommGetUniqueId
    __attribute__((alias("ncclCommGetUniqueId")));
extern "C" __attribute__((visibility("default"))) __typeof__(ncclCommSuspend) pncclCommSuspend
    __attribute__((alias("ncclCommSuspend")));
extern "C" __attribute__((visibility("default"))) __typeof__(ncclCommResume) pncclCommResume
    __attribute__((alias("ncclCommResume")));
extern "C" __attribute__((visibility("default"))) __typeof__(ncclCommMemStats) pncclCommMemStats
    __attribute__((alias("ncclCommMemStats")));
extern "C" __attribute__((visibility("default"))) __typeof__(ncclWinGetUserPtr) pncclWinGetUserPtr
    __attribute__((alias("ncclWinGetUserPtr")));

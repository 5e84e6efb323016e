#pragma once

#include <cstdint>

#include "seer/simcore/time.h"

namespace seer::sim {

enum class OpKind : uint8_t {
  kKernel,
  kCopyH2D,
  kCopyD2H,
  kCopyD2D,
  kCopyH2H,
  kCopyPeer,
  kMemset,
  kEventRecord,
  kStreamWait,  // internal: a stream waits for an event; never reported
  kCollective,  // an NCCL collective or a fused group of send/recv parts
  kLibrary,     // a math-library call (cuBLAS GEMM, level-1/2 routine)
};

enum class CollKind : uint8_t {
  kAllReduce,
  kBroadcast,
  kReduce,
  kAllGather,
  kReduceScatter,
  kAllToAll,
  kGather,
  kScatter,
  kSend,
  kRecv,
};

const char* coll_kind_name(CollKind kind);

// One NCCL operation of one rank (send/recv: root is the peer).
struct CollPart {
  CollKind kind = CollKind::kAllReduce;
  uint64_t count = 0;
  int type_bytes = 4;
  int datatype = 0;
  int redop = 0;
  int root = 0;

  bool p2p() const { return kind == CollKind::kSend || kind == CollKind::kRecv; }
  bool same_call(const CollPart& o) const {
    return kind == o.kind && count == o.count && datatype == o.datatype && redop == o.redop &&
           root == o.root;
  }
};

const char* op_kind_name(OpKind kind);

struct LaunchGeometry {
  uint32_t gx = 1, gy = 1, gz = 1;
  uint32_t bx = 1, by = 1, bz = 1;
  uint32_t shmem = 0;

  uint64_t blocks() const { return uint64_t{gx} * gy * gz; }
  uint64_t threads_per_block() const { return uint64_t{bx} * by * bz; }
};

// What an operation is, as submitted. Timing fields are filled in by the engine.
struct OpDesc {
  OpKind kind = OpKind::kKernel;
  uint32_t kernel = 0;  // index into the engine's kernel-name table
  LaunchGeometry geometry;
  uint64_t bytes = 0;
  bool pinned = false;
  int peer_gpu = -1;  // the other GPU of a peer copy
  // Collectives (for reports): communicator, rank count, the first part's kind, and the
  // nccl-tests buffer size S of the operation (see collective_model.h).
  uint64_t comm = 0;
  int nranks = 0;
  CollKind coll = CollKind::kAllReduce;
  int parts = 0;
  // The NCCL model's choice (-1: the simple model timed it) and its channel count.
  int8_t algo = -1;
  int8_t proto = -1;
  int16_t nchannels = 0;
  // Library calls: GEMM shape and element type (simcore gemm DType), or bytes for memory-bound
  // routines (gemm == false). `kernel` names the call in reports.
  bool gemm = false;
  int64_t m = 0, n = 0, k = 0, batch = 1;
  int dtype = 0;
  int compute = -1;  // math pipe (gemm DType); -1: the element type's
  // Kernels whose model needs sizes (Triton: xnumel, r0_numel, ...): the values the launch
  // passed, in the order the kernel's model names them.
  static constexpr int kMaxSizes = 4;
  int32_t triton = -1;  // the Engine's Triton kernel description, when the model times it
  uint8_t nsizes = 0;
  uint64_t sizes[kMaxSizes] = {};
};

// Where each kernel's duration came from (the report shows the shares).
enum class TimeSource : uint8_t {
  kNone,
  kGenericKernel,
  kCopyModel,
  kCollectiveModel,
  kLibraryModel,
  kDatabase,
  kTritonModel,  // a Triton kernel timed from its IR's accesses and its size arguments
  kFamilyModel,  // a PyTorch (ATen) kernel timed by its family's model (aten_kernels.h)
};

// One finished operation, as the report and the trace see it.
struct OpRecord {
  int process = 0;
  int gpu = 0;
  uint32_t stream = 0;  // engine stream index
  OpDesc desc;
  TimeSource source = TimeSource::kNone;
  Time submit = 0;
  Time start = 0;
  Time end = 0;
  Time interference = 0;  // what running beside collectives added (interference.h)
};

}  // namespace seer::sim

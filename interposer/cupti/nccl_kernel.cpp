#include "nccl_kernel.h"

#include <iterator>

#include "wire.pb.h"

namespace seer::cupti {
namespace {

// ncclDataType_t order. NCCL's kernels for signed integers are those of the unsigned type.
constexpr const char* kTypes[] = {"u8",  "u8",  "u32", "u32",  "u64",    "u64",
                                  "f16", "f32", "f64", "bf16", "f8e4m3", "f8e5m2"};

}  // namespace

std::string nccl_kernel_name(int coll, int datatype, const std::string& algo) {
  std::string fn = "ncclDevKernel_";
  bool reduces = false;
  switch (coll) {
    case wire::COLL_ALL_REDUCE:
      fn += "AllReduce";
      reduces = true;
      break;
    case wire::COLL_REDUCE:
      fn += "Reduce";
      reduces = true;
      break;
    case wire::COLL_REDUCE_SCATTER:
      fn += "ReduceScatter";
      reduces = true;
      break;
    case wire::COLL_ALL_GATHER:
      fn += "AllGather_RING_LL";
      break;
    case wire::COLL_BROADCAST:
      fn += "Broadcast_RING_LL";
      break;
    default:  // send/recv and what NCCL builds from them (all-to-all, gather, scatter)
      fn += "SendRecv";
  }
  if (reduces) {
    if (datatype >= 0 && datatype < static_cast<int>(std::size(kTypes))) {
      fn += std::string("_Sum_") + kTypes[datatype] + (algo == "TREE" ? "_TREE_LL" : "_RING_LL");
    } else {
      fn = "ncclDevKernel_Generic";
    }
  }
  return "_Z" + std::to_string(fn.size()) + fn + "24ncclDevKernelArgsStorageILm4096EE";
}

int nccl_kernel_threads(const std::string& proto) { return proto == "LL128" ? 640 : 512; }

}  // namespace seer::cupti

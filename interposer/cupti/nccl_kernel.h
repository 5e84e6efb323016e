#pragma once

// The kernel real NCCL (2.19 and later) launches for an operation, as CUPTI names it: NCCL
// specializes one kernel per collective, element type and Tree-or-Ring (src/device/generate.py)
// and runs every other reduction, algorithm and protocol through it, so an AllReduce of bf16
// with NVLS/Simple still runs `ncclDevKernel_AllReduce_Sum_bf16_RING_LL`.

#include <string>

namespace seer::cupti {

// `coll`: the wire::CollKind of the operation's first part; `datatype`: its ncclDataType_t;
// `algo`: the NCCL model's algorithm in NCCL's spelling ("TREE", "RING", ...; may be empty).
// Returns the mangled name, e.g.
// `_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE`.
std::string nccl_kernel_name(int coll, int datatype, const std::string& algo);

// Threads per block NCCL launches with for a protocol ("LL", "LL128", "SIMPLE"; may be empty).
int nccl_kernel_threads(const std::string& proto);

}  // namespace seer::cupti

#pragma once

#include "seer/simcore/gpu_spec.h"
#include "seer/simcore/op.h"
#include "seer/simcore/time.h"

namespace seer::sim {

// Links of one node as the copy model sees them (the network model replaces this for NCCL).
struct NodeLinks {
  double pcie_bytes_per_s = 55e9;
  Time pcie_latency = 2000;
  double pageable_factor = 0.5;  // pageable host memory is staged: this share of pinned bandwidth
  double nvlink_bytes_per_s = 450e9;
  Time nvlink_latency = 1000;
  double host_memcpy_bytes_per_s = 10e9;
  double scale_out_bytes_per_s = 50e9;  // per GPU (its NIC rail), each direction
  Time scale_out_latency = 3000;
};

// Generic kernel model (used when nothing better knows the kernel), documented in
// simcore/README.md:
//   blocks_per_sm = clamp(floor(max_threads_per_sm / threads_per_block), 1, max_blocks_per_sm)
//   waves         = ceil(blocks / (sm_count * blocks_per_sm))
//   duration      = kKernelBaseNs + waves * kKernelWaveNs
inline constexpr Time kKernelBaseNs = 2000;
inline constexpr Time kKernelWaveNs = 1500;
Time generic_kernel_ns(const GpuSpec& gpu, const LaunchGeometry& geometry);

// Copy model, documented in simcore/README.md.
inline constexpr Time kDeviceCopyLatencyNs = 1000;
Time copy_ns(const GpuSpec& gpu, const NodeLinks& links, const OpDesc& op, bool peer_same_node);

// Math-library calls (cuBLAS): GEMMs through the GEMM model, other routines memory-bound.
Time library_ns(const GpuSpec& gpu, const OpDesc& op);
// The device-memory bytes a library call's model moves (a GEMM's operands and result).
double library_hbm_bytes(const GpuSpec& gpu, const OpDesc& op);

// Time to move `bytes` at `bytes_per_s`, rounded up to whole ns.
Time transfer_ns(double bytes, double bytes_per_s);

}  // namespace seer::sim

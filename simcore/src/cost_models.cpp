#include "seer/simcore/cost_models.h"

#include <algorithm>
#include <cmath>

#include "seer/simcore/gemm_model.h"

namespace seer::sim {

const char* op_kind_name(OpKind kind) {
  switch (kind) {
    case OpKind::kKernel:
      return "kernel";
    case OpKind::kCopyH2D:
      return "memcpy HtoD";
    case OpKind::kCopyD2H:
      return "memcpy DtoH";
    case OpKind::kCopyD2D:
      return "memcpy DtoD";
    case OpKind::kCopyH2H:
      return "memcpy HtoH";
    case OpKind::kCopyPeer:
      return "memcpy PtoP";
    case OpKind::kMemset:
      return "memset";
    case OpKind::kEventRecord:
      return "event record";
    case OpKind::kStreamWait:
      return "stream wait";
    case OpKind::kCollective:
      return "nccl";
    case OpKind::kLibrary:
      return "library";
  }
  return "?";
}

Time transfer_ns(double bytes, double bytes_per_s) {
  if (bytes <= 0) return 0;
  return static_cast<Time>(std::ceil(bytes * 1e9 / bytes_per_s));
}

Time generic_kernel_ns(const GpuSpec& gpu, const LaunchGeometry& geometry) {
  const uint64_t threads = std::max<uint64_t>(1, geometry.threads_per_block());
  const uint64_t by_threads = static_cast<uint64_t>(gpu.max_threads_per_sm) / threads;
  const uint64_t blocks_per_sm =
      std::clamp<uint64_t>(by_threads, 1, static_cast<uint64_t>(gpu.max_blocks_per_sm));
  const uint64_t per_wave = static_cast<uint64_t>(gpu.sm_count) * blocks_per_sm;
  const uint64_t waves = (std::max<uint64_t>(1, geometry.blocks()) + per_wave - 1) / per_wave;
  // The largest legal grids would overflow int64 ns: saturate (such a kernel never ends anyway).
  constexpr uint64_t kMaxWaves = static_cast<uint64_t>((kNever - kKernelBaseNs) / kKernelWaveNs);
  return kKernelBaseNs + static_cast<Time>(std::min(waves, kMaxWaves)) * kKernelWaveNs;
}

Time copy_ns(const GpuSpec& gpu, const NodeLinks& links, const OpDesc& op, bool peer_same_node) {
  const double bytes = static_cast<double>(op.bytes);
  const double hbm = gpu.hbm_bytes_per_s * gpu.copy_efficiency;
  switch (op.kind) {
    case OpKind::kCopyH2D:
    case OpKind::kCopyD2H: {
      const double bw = links.pcie_bytes_per_s * (op.pinned ? 1.0 : links.pageable_factor);
      return links.pcie_latency + transfer_ns(bytes, bw);
    }
    case OpKind::kCopyD2D:
      return kDeviceCopyLatencyNs + transfer_ns(2 * bytes, hbm);
    case OpKind::kMemset:
      return kDeviceCopyLatencyNs + transfer_ns(bytes, hbm);
    case OpKind::kCopyPeer:
      if (peer_same_node)
        return links.nvlink_latency + transfer_ns(bytes, links.nvlink_bytes_per_s);
      return 2 * links.pcie_latency + transfer_ns(bytes, links.pcie_bytes_per_s);
    case OpKind::kCopyH2H:
      return transfer_ns(bytes, links.host_memcpy_bytes_per_s);
    case OpKind::kKernel:
    case OpKind::kEventRecord:
    case OpKind::kStreamWait:
    case OpKind::kCollective:
    case OpKind::kLibrary:
      return 0;
  }
  return 0;
}

}  // namespace seer::sim

namespace seer::sim {

namespace {

GemmShape gemm_shape(const OpDesc& op) {
  GemmShape shape;
  shape.m = op.m;
  shape.n = op.n;
  shape.k = op.k;
  shape.batch = std::max<int64_t>(1, op.batch);
  shape.a_type = static_cast<DType>(op.dtype);
  shape.c_type =
      shape.a_type == DType::kF8 || shape.a_type == DType::kI8 ? DType::kBF16 : shape.a_type;
  shape.compute_type = op.compute >= 0 ? static_cast<DType>(op.compute) : shape.a_type;
  return shape;
}

}  // namespace

Time library_ns(const GpuSpec& gpu, const OpDesc& op) {
  if (!op.gemm) return elementwise_time(gpu, static_cast<double>(op.bytes));
  return gemm_time(gpu, gemm_shape(op)).ns;
}

double library_hbm_bytes(const GpuSpec& gpu, const OpDesc& op) {
  if (!op.gemm) return static_cast<double>(op.bytes);
  return gemm_time(gpu, gemm_shape(op)).hbm_bytes;
}

}  // namespace seer::sim

#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "seer/simcore/time.h"

namespace seer::sim {

// What the simulator needs to know about one GPU model. Values come from vendor datasheets,
// whitepapers and the CUDA C++ Programming Guide; gpu_catalog.cpp cites them entry by entry.
//
// Throughput peaks are the datasheet's *dense* numbers (marketing "with sparsity" numbers are
// twice these), in FLOP/s (integer ops/s for int8), for the whole GPU at the clock NVIDIA quotes
// them at. 0 means the GPU has no such unit (no FP8 tensor cores on Ampere, no NVLink on L40S).
struct GpuSpec {
  std::string name;            // catalog key, e.g. "H100-SXM-80GB"
  std::string marketing_name;  // what cudaGetDeviceProperties reports
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  int clock_khz = 0;         // maximum (boost) SM clock, as cudaDeviceProp::clockRate reports it
  int memory_clock_khz = 0;  // cudaDeviceProp::memoryClockRate (peak bw = 2 * clock * bus / 8)
  int memory_bus_width = 0;  // bits
  int64_t memory_bytes = 0;
  int64_t context_reserve_bytes = 0;  // what the CUDA context and driver take before any cudaMalloc
  int l2_bytes = 0;
  int max_threads_per_sm = 2048;
  int max_blocks_per_sm = 32;
  int shared_mem_per_sm = 0;
  int shared_mem_per_block_optin = 0;
  int regs_per_sm = 65536;
  double hbm_bytes_per_s = 0;    // peak device-memory bandwidth (HBM, or GDDR on L40S)
  double tdp_watts = 0;          // the datasheet's maximum board power
  double power_limit_watts = 0;  // the limit this GPU runs at (a variant's; else the TDP)
  double copy_efficiency = 0.9;  // fraction of peak HBM a device-to-device copy reaches

  // Dense peaks per data type (see above).
  double fp64_flops = 0;         // FP64 on the CUDA cores
  double fp64_tensor_flops = 0;  // FP64 on tensor cores (DMMA); 0 when absent
  double fp32_flops = 0;         // FP32 on the CUDA cores (no tensor cores)
  double tf32_dense_flops = 0;   // TF32 tensor cores
  double fp16_dense_flops = 0;   // FP16 tensor cores, FP32 accumulate
  double bf16_dense_flops = 0;   // BF16 tensor cores, FP32 accumulate
  double fp8_dense_flops = 0;    // FP8 (E4M3/E5M2) tensor cores; 0 when absent
  double int8_dense_ops = 0;     // INT8 tensor cores (ops/s)

  // Scale-up link of one GPU (informational: the cluster file's node.scale_up drives the
  // simulation). 0 = no NVLink.
  int nvlink_generation = 0;
  int nvlink_links = 0;
  double nvlink_bytes_per_s = 0;  // per GPU, per direction, all links together
};

// A variant of a catalog GPU (a cluster file's `node.gpu_variant`): what differs from the base.
struct GpuVariant {
  std::string name;            // the catalog key reports show; empty: "<base>-variant"
  std::string marketing_name;  // what cudaGetDeviceProperties reports; empty: the base's
  std::optional<int64_t> memory_bytes;
  std::optional<double> hbm_bytes_per_s;
  std::optional<int> clock_khz;  // maximum SM clock
  std::optional<double> power_limit_watts;
};

// The variant's spec (documented in simcore/README.md, "GPU variants"): memory size and
// bandwidth replace the base's (memory_clock_khz follows the bandwidth); every compute peak
// scales with the SM clock ratio, and, under a power limit below the TDP, by
// (limit / TDP)^(1/3). Throws std::invalid_argument for a value out of range.
GpuSpec apply_variant(const GpuSpec& base, const GpuVariant& variant);
// The compute-peak factor of a power limit: min(1, (limit / tdp)^(1/3)).
double power_limit_factor(double limit_watts, double tdp_watts);

// Looks a GPU model up by catalog key (case-insensitive); nullopt when unknown.
std::optional<GpuSpec> find_gpu(const std::string& name);
std::vector<std::string> gpu_catalog_names();

}  // namespace seer::sim

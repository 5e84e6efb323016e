#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "seer/simcore/time.h"

namespace seer::sim {

// What the simulator needs to know about one GPU model. Values come from vendor datasheets;
// gpu_catalog.cpp cites them.
struct GpuSpec {
  std::string name;            // catalog key, e.g. "H100-SXM-80GB"
  std::string marketing_name;  // what cudaGetDeviceProperties reports
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  int clock_khz = 0;
  int memory_clock_khz = 0;
  int memory_bus_width = 0;
  int64_t memory_bytes = 0;
  int64_t context_reserve_bytes = 0;  // what the CUDA context and driver take before any cudaMalloc
  int l2_bytes = 0;
  int max_threads_per_sm = 2048;
  int max_blocks_per_sm = 32;
  int shared_mem_per_sm = 0;
  int shared_mem_per_block_optin = 0;
  int regs_per_sm = 65536;
  double hbm_bytes_per_s = 0;    // peak HBM bandwidth
  double copy_efficiency = 0.9;  // fraction of peak HBM a device-to-device copy reaches
  double bf16_dense_flops = 0;
};

// Looks a GPU model up by catalog key (case-insensitive); nullopt when unknown.
std::optional<GpuSpec> find_gpu(const std::string& name);
std::vector<std::string> gpu_catalog_names();

}  // namespace seer::sim

#include <algorithm>
#include <cctype>

#include "seer/simcore/gpu_spec.h"

namespace seer::sim {
namespace {

constexpr int64_t kGiB = int64_t{1} << 30;
constexpr int64_t kMiB = int64_t{1} << 20;

// Sources: NVIDIA A100 and H100 datasheets and whitepapers; H200 product brief; CUDA occupancy
// tables (max threads/blocks per SM, shared memory per SM) in the CUDA C++ Programming Guide.
std::vector<GpuSpec> make_catalog() {
  std::vector<GpuSpec> catalog;
  {
    GpuSpec g;
    g.name = "H100-SXM-80GB";
    g.marketing_name = "NVIDIA H100 80GB HBM3";
    g.cc_major = 9;
    g.cc_minor = 0;
    g.sm_count = 132;
    g.clock_khz = 1980000;
    g.memory_clock_khz = 2619000;
    g.memory_bus_width = 5120;
    g.memory_bytes = 80 * kGiB;
    g.context_reserve_bytes = 512 * kMiB;
    g.l2_bytes = 50 * 1024 * 1024;
    g.max_threads_per_sm = 2048;
    g.max_blocks_per_sm = 32;
    g.shared_mem_per_sm = 228 * 1024;
    g.shared_mem_per_block_optin = 227 * 1024;
    g.hbm_bytes_per_s = 3.35e12;
    g.copy_efficiency = 0.9;
    g.bf16_dense_flops = 989.4e12;
    catalog.push_back(g);
  }
  {
    GpuSpec g;
    g.name = "A100-SXM-80GB";
    g.marketing_name = "NVIDIA A100-SXM4-80GB";
    g.cc_major = 8;
    g.cc_minor = 0;
    g.sm_count = 108;
    g.clock_khz = 1410000;
    g.memory_clock_khz = 1593000;
    g.memory_bus_width = 5120;
    g.memory_bytes = 80 * kGiB;
    g.context_reserve_bytes = 512 * kMiB;
    g.l2_bytes = 40 * 1024 * 1024;
    g.max_threads_per_sm = 2048;
    g.max_blocks_per_sm = 32;
    g.shared_mem_per_sm = 164 * 1024;
    g.shared_mem_per_block_optin = 163 * 1024;
    g.hbm_bytes_per_s = 2.039e12;
    g.copy_efficiency = 0.9;
    g.bf16_dense_flops = 312e12;
    catalog.push_back(g);
  }
  {
    GpuSpec g;
    g.name = "H200-SXM-141GB";
    g.marketing_name = "NVIDIA H200";
    g.cc_major = 9;
    g.cc_minor = 0;
    g.sm_count = 132;
    g.clock_khz = 1980000;
    g.memory_clock_khz = 3201000;
    g.memory_bus_width = 6144;
    g.memory_bytes = 141 * int64_t{1000000000};
    g.context_reserve_bytes = 512 * kMiB;
    g.l2_bytes = 50 * 1024 * 1024;
    g.max_threads_per_sm = 2048;
    g.max_blocks_per_sm = 32;
    g.shared_mem_per_sm = 228 * 1024;
    g.shared_mem_per_block_optin = 227 * 1024;
    g.hbm_bytes_per_s = 4.8e12;
    g.copy_efficiency = 0.9;
    g.bf16_dense_flops = 989.4e12;
    catalog.push_back(g);
  }
  return catalog;
}

const std::vector<GpuSpec>& catalog() {
  static const std::vector<GpuSpec> c = make_catalog();
  return c;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

}  // namespace

std::optional<GpuSpec> find_gpu(const std::string& name) {
  for (const GpuSpec& g : catalog()) {
    if (lower(g.name) == lower(name)) return g;
  }
  return std::nullopt;
}

std::vector<std::string> gpu_catalog_names() {
  std::vector<std::string> names;
  for (const GpuSpec& g : catalog()) names.push_back(g.name);
  return names;
}

}  // namespace seer::sim

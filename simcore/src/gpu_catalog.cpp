#include <algorithm>
#include <cctype>

#include "seer/simcore/gpu_spec.h"

namespace seer::sim {
namespace {

constexpr int64_t kGiB = int64_t{1} << 30;
constexpr int64_t kMiB = int64_t{1} << 20;
constexpr int kMiBInt = 1 << 20;

// Sources, cited again next to each entry:
//  [A100-DS]  NVIDIA A100 Tensor Core GPU datasheet (SXM4 40GB / 80GB columns).
//  [A100-WP]  NVIDIA A100 Tensor Core GPU Architecture whitepaper (V1.0): 108 SMs, 40 MB L2,
//             1410 MHz boost, 5120-bit HBM2, 12 NVLink3 links.
//  [H100-DS]  NVIDIA H100 Tensor Core GPU datasheet (H100 SXM and H100 PCIe columns).
//  [H100-WP]  NVIDIA H100 Tensor Core GPU Architecture whitepaper (V1.04): 132 SMs (SXM5),
//             114 SMs (PCIe), 50 MB L2, 18 NVLink4 links; tensor peaks quoted at 1830 MHz (SXM5)
//             and 1620 MHz (PCIe), the CUDA-core peaks at the maximum clock.
//  [H200-DS]  NVIDIA H200 Tensor Core GPU product brief / datasheet (H200 SXM column).
//  [B200-DS]  NVIDIA HGX B200 datasheet, per GPU (8-GPU system numbers / 8): 180 GB HBM3e,
//             8 TB/s, dense BF16/FP16 2.25 PF, FP8 4.5 PF, INT8 4.5 POPS, TF32 1.125 PF,
//             FP32 75 TF, FP64 = FP64 tensor 37 TF. (The GTC 2024 Blackwell datasheet had
//             40 TF FP64 / 80 TF FP32; 80 TF would need 275 FP32 FLOP/clk/SM at the 1.965 GHz
//             maximum clock, more than the 128 FP32 lanes per SM give, so we use the final
//             numbers.)
//  [L40S-DS]  NVIDIA L40S datasheet: 142 RT cores/SMs, 48 GB GDDR6 ECC, 864 GB/s, 2520 MHz boost,
//             96 MB L2, PCIe Gen4 x16, no NVLink.
//  [CUDA-PG]  CUDA C++ Programming Guide, "Technical Specifications per Compute Capability"
//             (threads, blocks and shared memory per SM) and "Arithmetic Instructions"
//             (FP64 results per clock per SM on cc 8.9: 2, i.e. 1/64 of FP32).
//  [MLE]      S. Bekman, ml-engineering, compute/accelerator/README.md, TFLOPS comparison
//             table (cross-check of the dense peaks of all entries).
// Sparse ("with sparsity") numbers are twice the dense ones; only dense numbers are stored.
// memory_clock_khz follows cudaDeviceProp: peak bandwidth = 2 * clock * bus_width / 8.
std::vector<GpuSpec> make_catalog() {
  std::vector<GpuSpec> catalog;
  {
    // [H100-DS] H100 SXM, [H100-WP], [CUDA-PG] cc 9.0.
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
    g.l2_bytes = 50 * kMiBInt;
    g.max_threads_per_sm = 2048;
    g.max_blocks_per_sm = 32;
    g.shared_mem_per_sm = 228 * 1024;
    g.shared_mem_per_block_optin = 227 * 1024;
    g.hbm_bytes_per_s = 3.35e12;
    g.copy_efficiency = 0.9;
    g.fp64_flops = 34e12;
    g.fp64_tensor_flops = 67e12;
    g.fp32_flops = 66.9e12;
    g.tf32_dense_flops = 494.7e12;
    g.fp16_dense_flops = 989.4e12;
    g.bf16_dense_flops = 989.4e12;  // 132 SMs x 4096 FLOP/clk x 1.83 GHz
    g.fp8_dense_flops = 1978.9e12;
    g.int8_dense_ops = 1978.9e12;
    g.nvlink_generation = 4;
    g.nvlink_links = 18;
    g.nvlink_bytes_per_s = 450e9;  // 900 GB/s total bidirectional
    g.tdp_watts = 700;             // [H100-DS] max TDP up to 700 W
    g.power_limit_watts = g.tdp_watts;
    catalog.push_back(g);
  }
  {
    // [A100-DS] A100 80GB SXM, [A100-WP], [CUDA-PG] cc 8.0.
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
    g.l2_bytes = 40 * kMiBInt;
    g.max_threads_per_sm = 2048;
    g.max_blocks_per_sm = 32;
    g.shared_mem_per_sm = 164 * 1024;
    g.shared_mem_per_block_optin = 163 * 1024;
    g.hbm_bytes_per_s = 2.039e12;
    g.copy_efficiency = 0.9;
    g.fp64_flops = 9.7e12;
    g.fp64_tensor_flops = 19.5e12;
    g.fp32_flops = 19.5e12;
    g.tf32_dense_flops = 156e12;
    g.fp16_dense_flops = 312e12;
    g.bf16_dense_flops = 312e12;  // 108 SMs x 2048 FLOP/clk x 1.41 GHz
    g.fp8_dense_flops = 0;        // no FP8 tensor cores on Ampere
    g.int8_dense_ops = 624e12;
    g.nvlink_generation = 3;
    g.nvlink_links = 12;
    g.nvlink_bytes_per_s = 300e9;  // 600 GB/s total bidirectional
    g.tdp_watts = 400;             // [A100-DS] max TDP 400 W
    g.power_limit_watts = g.tdp_watts;
    catalog.push_back(g);
  }
  {
    // [H200-DS], compute identical to H100 SXM ([H100-WP]), [CUDA-PG] cc 9.0.
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
    g.l2_bytes = 50 * kMiBInt;
    g.max_threads_per_sm = 2048;
    g.max_blocks_per_sm = 32;
    g.shared_mem_per_sm = 228 * 1024;
    g.shared_mem_per_block_optin = 227 * 1024;
    g.hbm_bytes_per_s = 4.8e12;
    g.copy_efficiency = 0.9;
    g.fp64_flops = 34e12;
    g.fp64_tensor_flops = 67e12;
    g.fp32_flops = 66.9e12;
    g.tf32_dense_flops = 494.7e12;
    g.fp16_dense_flops = 989.4e12;
    g.bf16_dense_flops = 989.4e12;
    g.fp8_dense_flops = 1978.9e12;
    g.int8_dense_ops = 1978.9e12;
    g.nvlink_generation = 4;
    g.nvlink_links = 18;
    g.nvlink_bytes_per_s = 450e9;  // 900 GB/s total bidirectional
    g.tdp_watts = 700;             // [H200-DS] max TDP up to 700 W
    g.power_limit_watts = g.tdp_watts;
    catalog.push_back(g);
  }
  {
    // [A100-DS] A100 40GB SXM: same GPU as the 80 GB part with 40 GB HBM2 at 1555 GB/s
    // (1215 MHz x 2 x 5120 bits / 8). nvidia-smi reports 40960 MiB.
    GpuSpec g;
    g.name = "A100-SXM-40GB";
    g.marketing_name = "NVIDIA A100-SXM4-40GB";
    g.cc_major = 8;
    g.cc_minor = 0;
    g.sm_count = 108;
    g.clock_khz = 1410000;
    g.memory_clock_khz = 1215000;
    g.memory_bus_width = 5120;
    g.memory_bytes = 40 * kGiB;
    g.context_reserve_bytes = 512 * kMiB;
    g.l2_bytes = 40 * kMiBInt;
    g.max_threads_per_sm = 2048;
    g.max_blocks_per_sm = 32;
    g.shared_mem_per_sm = 164 * 1024;
    g.shared_mem_per_block_optin = 163 * 1024;
    g.hbm_bytes_per_s = 1.555e12;
    g.copy_efficiency = 0.9;
    g.fp64_flops = 9.7e12;
    g.fp64_tensor_flops = 19.5e12;
    g.fp32_flops = 19.5e12;
    g.tf32_dense_flops = 156e12;
    g.fp16_dense_flops = 312e12;
    g.bf16_dense_flops = 312e12;
    g.fp8_dense_flops = 0;
    g.int8_dense_ops = 624e12;
    g.nvlink_generation = 3;
    g.nvlink_links = 12;
    g.nvlink_bytes_per_s = 300e9;
    g.tdp_watts = 400;  // [A100-DS] max TDP 400 W
    g.power_limit_watts = g.tdp_watts;
    catalog.push_back(g);
  }
  {
    // [H100-DS] H100 PCIe column, [H100-WP] (114 SMs, 1755 MHz max clock; tensor peaks quoted
    // at 1620 MHz: 114 x 4096 x 1.62 GHz = 756 TF), [CUDA-PG] cc 9.0. 80 GB HBM2e at 2.0 TB/s,
    // 5120-bit; NVLink bridge 600 GB/s bidirectional (pairs of cards), PCIe Gen5 x16.
    GpuSpec g;
    g.name = "H100-PCIe-80GB";
    g.marketing_name = "NVIDIA H100 PCIe";
    g.cc_major = 9;
    g.cc_minor = 0;
    g.sm_count = 114;
    g.clock_khz = 1755000;
    g.memory_clock_khz = 1562500;  // 2.0 TB/s / (2 x 640 bytes)
    g.memory_bus_width = 5120;
    g.memory_bytes = 80 * kGiB;
    g.context_reserve_bytes = 512 * kMiB;
    g.l2_bytes = 50 * kMiBInt;
    g.max_threads_per_sm = 2048;
    g.max_blocks_per_sm = 32;
    g.shared_mem_per_sm = 228 * 1024;
    g.shared_mem_per_block_optin = 227 * 1024;
    g.hbm_bytes_per_s = 2.0e12;
    g.copy_efficiency = 0.9;
    g.fp64_flops = 26e12;
    g.fp64_tensor_flops = 51e12;
    g.fp32_flops = 51.2e12;  // 114 SMs x 256 FLOP/clk x 1.755 GHz
    g.tf32_dense_flops = 378e12;
    g.fp16_dense_flops = 756e12;
    g.bf16_dense_flops = 756e12;
    g.fp8_dense_flops = 1513e12;
    g.int8_dense_ops = 1513e12;
    g.nvlink_generation = 4;
    g.nvlink_links = 12;
    g.nvlink_bytes_per_s = 300e9;  // 600 GB/s total bidirectional over the bridges
    g.tdp_watts = 350;             // [H100-DS] PCIe max TDP 300-350 W
    g.power_limit_watts = g.tdp_watts;
    catalog.push_back(g);
  }
  {
    // [B200-DS] (NVLink5 1.8 TB/s total = 900 GB/s per direction over 18 links), [MLE] same
    // tensor peaks. 148 SMs (2 dies x 74 enabled; Chips and Cheese, "Nvidia's B200: Keeping the
    // CUDA Juggernaut Rolling"), L2 126 MB as reported there. nvidia-smi reports 183359 MiB;
    // 8 HBM3e stacks = 8192-bit bus. Max SM clock 1965 MHz as measured on B200 systems (the
    // datasheet gives none; the tensor peaks imply 2.25e15 / (148 x 8192 FLOP/clk) = 1.86 GHz).
    // [CUDA-PG] cc 10.0: same per-SM limits as cc 9.0.
    GpuSpec g;
    g.name = "B200-SXM-180GB";
    g.marketing_name = "NVIDIA B200";
    g.cc_major = 10;
    g.cc_minor = 0;
    g.sm_count = 148;
    g.clock_khz = 1965000;
    g.memory_clock_khz = 3906250;  // 8 TB/s / (2 x 1024 bytes)
    g.memory_bus_width = 8192;
    g.memory_bytes = 183359 * kMiB;
    g.context_reserve_bytes = 512 * kMiB;
    g.l2_bytes = 126 * kMiBInt;
    g.max_threads_per_sm = 2048;
    g.max_blocks_per_sm = 32;
    g.shared_mem_per_sm = 228 * 1024;
    g.shared_mem_per_block_optin = 227 * 1024;
    g.hbm_bytes_per_s = 8.0e12;
    g.copy_efficiency = 0.9;
    g.fp64_flops = 37e12;
    g.fp64_tensor_flops = 37e12;
    g.fp32_flops = 75e12;
    g.tf32_dense_flops = 1125e12;
    g.fp16_dense_flops = 2250e12;
    g.bf16_dense_flops = 2250e12;
    g.fp8_dense_flops = 4500e12;
    g.int8_dense_ops = 4500e12;
    g.nvlink_generation = 5;
    g.nvlink_links = 18;
    g.nvlink_bytes_per_s = 900e9;  // 1.8 TB/s total bidirectional
    g.tdp_watts = 1000;            // [B200-DS] up to 1,000 W per GPU
    g.power_limit_watts = g.tdp_watts;
    catalog.push_back(g);
  }
  {
    // [L40S-DS] (dense: FP32 91.6 TF, TF32 183 TF, BF16/FP16 362.05 TF, FP8 733 TF, INT8
    // 733 TOPS; 48 GB GDDR6 with ECC, nvidia-smi reports 46068 MiB; 864 GB/s = 18 Gbps x 384
    // bits / 8; 96 MB L2; 2520 MHz boost; PCIe Gen4 x16; no NVLink), [MLE] same peaks.
    // [CUDA-PG] cc 8.9: 1536 threads, 24 blocks, 100 KB shared memory per SM (99 KB per block);
    // FP64 on the CUDA cores at 1/64 of FP32 (91.6 / 64 = 1.43 TF), no FP64 tensor cores.
    GpuSpec g;
    g.name = "L40S-PCIe-48GB";
    g.marketing_name = "NVIDIA L40S";
    g.cc_major = 8;
    g.cc_minor = 9;
    g.sm_count = 142;
    g.clock_khz = 2520000;
    g.memory_clock_khz = 9001000;
    g.memory_bus_width = 384;
    g.memory_bytes = 46068 * kMiB;
    g.context_reserve_bytes = 512 * kMiB;
    g.l2_bytes = 96 * kMiBInt;
    g.max_threads_per_sm = 1536;
    g.max_blocks_per_sm = 24;
    g.shared_mem_per_sm = 100 * 1024;
    g.shared_mem_per_block_optin = 99 * 1024;
    g.hbm_bytes_per_s = 864e9;
    g.copy_efficiency = 0.9;
    g.fp64_flops = 1.43e12;
    g.fp64_tensor_flops = 0;
    g.fp32_flops = 91.6e12;
    g.tf32_dense_flops = 183e12;
    g.fp16_dense_flops = 362.05e12;
    g.bf16_dense_flops = 362.05e12;
    g.fp8_dense_flops = 733e12;
    g.int8_dense_ops = 733e12;
    g.nvlink_generation = 0;
    g.nvlink_links = 0;
    g.nvlink_bytes_per_s = 0;
    g.tdp_watts = 350;  // [L40S-DS] max power 350 W
    g.power_limit_watts = g.tdp_watts;
    catalog.push_back(g);
  }
  {
    // The H100 of Meta's Grand Teton hosts on which TorchTitan's published figures were measured
    // (shared/reference/ground-truth.md): 96 GB HBM2e at 2.4 TB/s, 500 W power limit.
    GpuVariant v;
    v.name = "H100-SXM-96GB-500W";
    v.marketing_name = "NVIDIA H100 96GB HBM2e";
    v.memory_bytes = 96 * kGiB;
    v.hbm_bytes_per_s = 2.4e12;
    v.power_limit_watts = 500;
    catalog.push_back(apply_variant(catalog.front(), v));
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
  const std::string key = lower(name);
  for (const GpuSpec& g : catalog()) {
    if (lower(g.name) == key) return g;
  }
  return std::nullopt;
}

std::vector<std::string> gpu_catalog_names() {
  std::vector<std::string> names;
  for (const GpuSpec& g : catalog()) names.push_back(g.name);
  return names;
}

}  // namespace seer::sim

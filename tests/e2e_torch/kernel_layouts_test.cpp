// Seer reads the sizes its kernel-family models need from fixed places in PyTorch's launch
// arguments (interposer/client/kernel_args.cpp), chosen by kernel name. Each kernel's image
// says where its parameters really are (EIATTR_KPARAM_INFO, in the zstd-compressed fat binaries
// of the wheel): every PyTorch 2.15 kernel that has such a spec must fit it, or Seer would read
// other bytes than the sizes it wants.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "kernel_args.h"
#include "kernel_image.h"
#include "torch_util.h"

namespace seer::e2e::torch {
namespace {

namespace fs = std::filesystem;

// <venv>/lib/python3.X/site-packages/torch/lib/libtorch_cuda.so beside SEER_PYTHON.
fs::path libtorch_cuda() {
  const fs::path venv = fs::path(python()).parent_path().parent_path();
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(venv / "lib", ec)) {
    const fs::path lib = entry.path() / "site-packages/torch/lib/libtorch_cuda.so";
    if (fs::exists(lib)) return lib;
  }
  return {};
}

// The sort-based chains, cub and the two-pass layer norm (simcore/src/aten_sort.cpp): every
// kernel these models read arguments of.
constexpr const char* kSortFamilies[] = {"RowwiseMomentsCUDAKernel",
                                         "LayerNormForwardCUDAKernel",
                                         "DeviceRadixSortOnesweepKernel",
                                         "DeviceRadixSortHistogramKernel",
                                         "DeviceRadixSortUpsweepKernel",
                                         "DeviceRadixSortDownsweepKernel",
                                         "DeviceRadixSortSingleTileKernel",
                                         "DeviceScanKernel",
                                         "DeviceUniqueByKeySweepKernel",
                                         "compute_grad_weight",
                                         "sum_and_scatter",
                                         "indexing_backward_kernel"};

// The spec's family, for counting: the first pattern of the kernel name that tells it.
std::string family(const std::string& name) {
  for (const char* f : kSortFamilies) {
    if (name.find(f) != std::string::npos) return f;
  }
  for (const char* f : {"pytorch_flash", "fmha_cutlass", "reduce_kernel", "CatArrayBatchedCopy",
                        "softmax_warp", "cunn_SoftMax", "layer_norm", "elementwise_kernel"}) {
    if (name.find(f) != std::string::npos) return f;
  }
  return "other";
}

TEST(KernelLayouts, EveryPyTorchKernelWithASizeSpecFitsItsParameterLayout) {
  if (const std::string why = missing_python(); !why.empty()) GTEST_SKIP() << why;
  const fs::path lib = libtorch_cuda();
  ASSERT_FALSE(lib.empty()) << "libtorch_cuda.so not found beside " << python();
  std::ifstream in(lib, std::ios::binary);
  const std::vector<char> bytes{std::istreambuf_iterator<char>(in),
                                std::istreambuf_iterator<char>()};
  constexpr uint32_t kFatbinMagic = 0xBA55ED50u;
  int fatbins = 0;
  int checked = 0;
  std::map<std::string, int> by_family;
  std::vector<std::string> misfits;
  for (std::size_t at = 0; at + 16 <= bytes.size(); at += 8) {  // fat binaries are 8-aligned
    uint32_t magic = 0;
    std::memcpy(&magic, &bytes[at], 4);
    client::ImageInfo image;
    if (magic != kFatbinMagic ||
        !client::parse_kernel_image(&bytes[at], bytes.size() - at, 90, image)) {
      continue;
    }
    ++fatbins;
    for (const client::KernelInfo& kernel : image.kernels) {
      const client::ArgSpec* spec = client::arg_spec_for_name(kernel.name.c_str());
      if (!spec) continue;
      ASSERT_FALSE(kernel.params.empty()) << kernel.name << ": no parameter layout read";
      ++checked;
      ++by_family[family(kernel.name)];
      if (!client::arg_spec_fits(*spec, kernel.params)) misfits.push_back(kernel.name);
    }
  }
  std::printf("%d fat binaries, %d kernels with a size spec checked\n", fatbins, checked);
  for (const auto& [name, count] : by_family) std::printf("  %-22s %6d\n", name.c_str(), count);
  EXPECT_GT(fatbins, 100);
  EXPECT_GT(checked, 1000);
  for (const char* f : {"pytorch_flash", "fmha_cutlass", "reduce_kernel", "CatArrayBatchedCopy",
                        "softmax_warp", "layer_norm", "elementwise_kernel"}) {
    EXPECT_GT(by_family[f], 0) << "no " << f << " kernel with a spec was found";
  }
  for (const char* f : kSortFamilies) {
    EXPECT_GT(by_family[f], 0) << "no " << f << " kernel with a spec was found";
  }
  EXPECT_TRUE(misfits.empty()) << misfits.size() << " kernels do not fit, e.g. " << misfits[0];
}

}  // namespace
}  // namespace seer::e2e::torch

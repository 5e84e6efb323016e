// Kernel-family models (simcore/src/ATEN_KERNELS.md): any demangled name classifies without
// crashing, and any launch geometry and size arguments give a finite, positive time or none; the
// client's argument reading (interposer/client/kernel_args.h) stays inside the parameters it is
// given for any mangled name.

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "kernel_args.h"
#include "seer/simcore/aten_kernels.h"
#include "seer/simcore/gpu_spec.h"

namespace {

// Input: 40 bytes of geometry and sizes, then the name.
constexpr size_t kHeader = 40;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < kHeader) return 0;
  uint32_t dims[4];
  uint64_t sizes[3];
  std::memcpy(dims, data, sizeof dims);
  std::memcpy(sizes, data + 16, sizeof sizes);
  const std::string name(reinterpret_cast<const char*>(data + kHeader), size - kHeader);

  seer::sim::LaunchGeometry g;
  g.gx = dims[0] % 100000 + 1;
  g.gy = dims[1] % 65536 + 1;
  g.gz = dims[2] % 65536 + 1;
  g.bx = dims[3] % 1024 + 1;
  const uint64_t all[4] = {sizes[0], sizes[1], sizes[2], sizes[0] ^ sizes[1]};
  const seer::sim::AtenKernel k = seer::sim::classify_aten_kernel(name);
  static const seer::sim::GpuSpec h100 = *seer::sim::find_gpu("H100-SXM-80GB");
  static const seer::sim::GpuSpec a100 = *seer::sim::find_gpu("A100-SXM-80GB");
  for (const seer::sim::GpuSpec* gpu : {&h100, &a100}) {
    for (int n = 0; n <= 4; ++n) {
      if (const auto t = seer::sim::aten_kernel_time(*gpu, k, g, all, n); t && *t <= 0) {
        std::abort();
      }
    }
  }

  // The client: whatever spec a name selects reads only inside 512-byte parameters.
  if (const seer::client::ArgSpec* spec = seer::client::arg_spec_for_name(name.c_str())) {
    alignas(8) unsigned char params[16][512];
    for (auto& p : params) std::memset(p, static_cast<int>(size & 0xff), sizeof p);
    std::memcpy(params[0], data, kHeader);
    void* args[16];
    for (int i = 0; i < 16; ++i) args[i] = params[i];
    for (int i = 0; i < spec->n; ++i) {
      if (spec->fields[i].param >= 16 || spec->fields[i].offset + 8 > 512) std::abort();
    }
    uint64_t out[4];
    if (seer::client::read_launch_args(*spec, args, out) > 4) std::abort();
  }
  return 0;
}

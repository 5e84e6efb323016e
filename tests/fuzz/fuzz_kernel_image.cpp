// GPU code images as the client reads them (interposer/client/kernel_image.h): cubins, fat
// binaries with plain and zstd-compressed entries, PTX. Any bytes parse or are refused, never
// crash, and parse the same way twice. Inputs that start with the registration wrapper's magic
// are skipped: the wrapper holds a pointer.
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "kernel_image.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  constexpr uint32_t kWrapperMagic = 0x466243B1u;
  uint32_t magic = 0;
  if (size >= 4) std::memcpy(&magic, data, 4);
  if (size == 0 || magic == kWrapperMagic) return 0;
  for (const int sm : {0, 80, 90}) {
    seer::client::ImageInfo first, second;
    const bool ok = seer::client::parse_kernel_image(data, size, sm, first);
    if (seer::client::parse_kernel_image(data, size, sm, second) != ok ||
        first.kernels.size() != second.kernels.size() || first.sm != second.sm) {
      std::abort();
    }
  }
  return 0;
}

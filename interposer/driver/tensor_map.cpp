// TMA descriptors (cuTensorMapEncode*): arguments are checked like the driver does (rank 1..5,
// 16-byte aligned global address and strides) and the 128-byte descriptor is zero-filled with
// the global address in its first 8 bytes. Kernels compute nothing here, so nothing reads it.

#include <cstring>

#include "api.h"

namespace {

CUresult encode(CUtensorMap* map, cuuint32_t rank, void* global, const cuuint64_t* dims,
                const cuuint64_t* strides, const cuuint32_t* element_strides) {
  if (!map || !global || !dims || rank < 1 || rank > 5) return CUDA_ERROR_INVALID_VALUE;
  if (reinterpret_cast<uintptr_t>(global) % 16 != 0) return CUDA_ERROR_INVALID_VALUE;
  for (cuuint32_t i = 0; i < rank; ++i) {
    if (dims[i] == 0 || dims[i] > (1ull << 32)) return CUDA_ERROR_INVALID_VALUE;
    if (element_strides && (element_strides[i] == 0 || element_strides[i] > 8)) {
      return CUDA_ERROR_INVALID_VALUE;
    }
  }
  for (cuuint32_t i = 0; i + 1 < rank; ++i) {
    if (!strides || strides[i] % 16 != 0 || strides[i] >= (1ull << 40)) {
      return CUDA_ERROR_INVALID_VALUE;
    }
  }
  std::memset(map, 0, sizeof *map);
  const auto address = reinterpret_cast<uint64_t>(global);
  std::memcpy(map, &address, sizeof address);
  return CUDA_SUCCESS;
}

}  // namespace

SEER_CU_API CUresult cuTensorMapEncodeTiled(CUtensorMap* map, CUtensorMapDataType /*type*/,
                                            cuuint32_t rank, void* global, const cuuint64_t* dims,
                                            const cuuint64_t* strides, const cuuint32_t* box,
                                            const cuuint32_t* elem_strides, CUtensorMapInterleave,
                                            CUtensorMapSwizzle, CUtensorMapL2promotion,
                                            CUtensorMapFloatOOBfill) {
  // The rank first: the arrays hold `rank` entries, so an out-of-range rank must not be read with.
  if (!box || rank == 0 || rank > 5) return CUDA_ERROR_INVALID_VALUE;
  for (cuuint32_t i = 0; i < rank; ++i) {
    if (box[i] == 0 || box[i] > 256) return CUDA_ERROR_INVALID_VALUE;
  }
  return encode(map, rank, global, dims, strides, elem_strides);
}

SEER_CU_API CUresult cuTensorMapEncodeIm2col(CUtensorMap* map, CUtensorMapDataType /*type*/,
                                             cuuint32_t rank, void* global, const cuuint64_t* dims,
                                             const cuuint64_t* strides, const int* lower,
                                             const int* upper, cuuint32_t channels,
                                             cuuint32_t pixels, const cuuint32_t* elem_strides,
                                             CUtensorMapInterleave, CUtensorMapSwizzle,
                                             CUtensorMapL2promotion, CUtensorMapFloatOOBfill) {
  if (rank < 3 || !lower || !upper || channels == 0 || pixels == 0) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  return encode(map, rank, global, dims, strides, elem_strides);
}

SEER_CU_API CUresult cuTensorMapReplaceAddress(CUtensorMap* map, void* global) {
  if (!map || !global || reinterpret_cast<uintptr_t>(global) % 16 != 0) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  const auto address = reinterpret_cast<uint64_t>(global);
  std::memcpy(map, &address, sizeof address);
  return CUDA_SUCCESS;
}

#pragma once

// What Seer's libcudnn.so.9 hands the session: one timed op per cuDNN kernel it stands for, and
// the small pieces of cuDNN vocabulary the rest of the library shares (element types, status
// texts).

#include <cudnn.h>

#include <cstdint>
#include <string>

#define SEER_CUDNN_API extern "C" __attribute__((visibility("default")))

namespace seer::cudnn {

// The element types of wire::LibraryCall (simcore's gemm DType).
enum DType : int { kF64 = 0, kF32 = 1, kTF32 = 2, kF16 = 3, kBF16 = 4, kF8 = 5, kI8 = 6 };

// One call to time, as wire::LibraryCall carries it.
struct LibraryOp {
  std::string api;  // the readable name: "cudnn conv fwd", "cudnn sdpa bwd", a legacy function
  int64_t m = 0, n = 0, k = 0, batch = 1;
  int dtype = kF32;
  int compute = kF32;  // math pipe
  bool gemm = true;
  double bytes = 0;  // memory-bound ops: bytes read + written
};

// The DType of a cudnnDataType_t (integer and boolean types count as i8), and its size in bytes
// (0 for types cuDNN does not store element-wise, such as the packed vector types).
int dtype_of(cudnnDataType_t t);
int64_t element_bytes(cudnnDataType_t t);

// FP32 data multiplied on tensor cores runs as TF32 (PyTorch's default for cuDNN convolutions);
// such a convolution is recorded as TF32 (element type and math pipe), like cuBLAS GEMMs.
inline int conv_math_pipe(int dtype, bool allow_tf32) {
  return dtype == kF32 && allow_tf32 ? kTF32 : dtype;
}

const char* status_name(cudnnStatus_t s);

// The version this library stands in for (the cuDNN 9.26 wheel PyTorch 2.15 ships with).
inline constexpr size_t kVersion = 92600;
inline constexpr int kMajor = 9, kMinor = 26, kPatch = 0;
inline constexpr size_t kCudartVersion = 13000;

}  // namespace seer::cudnn

#pragma once

// A GEMM's element types as Seer times them: pure functions of the call's arguments, shared by
// Seer's cuBLAS/cuBLASLt and by seer profile's recorder (interposer/profiler), which must name
// a real cuBLAS call exactly as Seer's cuBLAS names it in the session.

#include <cublasLt.h>
#include <cublas_api.h>
#include <library_types.h>

#include <cstdint>
#include <string>

namespace seer::cublas {

// The element types of wire::LibraryCall (simcore's gemm DType).
enum DType : int { kF64 = 0, kF32 = 1, kTF32 = 2, kF16 = 3, kBF16 = 4, kF8 = 5, kI8 = 6 };

// What a cudaDataType is made of.
struct TypeInfo {
  bool valid = false;
  bool complex = false;
  int dtype = kF32;  // of the real part
  int bytes = 0;     // of one element (both parts for complex types)
};
TypeInfo type_info(cudaDataType t);

// cuBLAS accepts a cublasComputeType_t, and (binaries built against CUDA 10 headers) a
// cudaDataType in its place. False for anything else.
bool normalize_compute(int raw, cublasComputeType_t* out);
// A GEMM's types as wire::LibraryCall carries them (simcore GemmShape's a_type and
// compute_type). `tf32_math`: the cuBLAS handle's math mode allows TF32 for FP32 routines.
//   element type: A's type; FP32 inputs that may run on TF32 tensor cores (compute type
//     CUBLAS_COMPUTE_32F_FAST_TF32, or CUBLAS_COMPUTE_32F with `tf32_math`) count as TF32.
//   math pipe: the tensor cores (or FP32/FP64 units) the kernel runs on: the element type, or
//     for FP32 inputs what a _FAST compute type converts them to.
int element_dtype(cudaDataType a, cublasComputeType_t c, bool tf32_math);
int math_pipe(cudaDataType a, cublasComputeType_t c, bool tf32_math);

// A cuBLASLt epilogue's name in the call's label ("cublasLtMatmul+bias"): "" for the default,
// nullptr for values cuBLASLt does not define.
const char* epilogue_name(uint32_t e);

// How the session labels a library call in its kernel table and the kernel database:
// "API [dtype]", e.g. "cublasGemmEx [bf16]" (runtime/src/session_server.cpp library_label).
std::string library_label(const std::string& api, int dtype);

}  // namespace seer::cublas

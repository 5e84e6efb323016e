#include "gemm_types.h"

namespace seer::cublas {

TypeInfo type_info(cudaDataType t) {
  auto real = [](int dtype, int bytes) { return TypeInfo{true, false, dtype, bytes}; };
  auto cplx = [](int dtype, int bytes) { return TypeInfo{true, true, dtype, 2 * bytes}; };
  switch (t) {
    case CUDA_R_64F:
      return real(kF64, 8);
    case CUDA_C_64F:
      return cplx(kF64, 8);
    case CUDA_R_32F:
      return real(kF32, 4);
    case CUDA_C_32F:
      return cplx(kF32, 4);
    case CUDA_R_16F:
      return real(kF16, 2);
    case CUDA_C_16F:
      return cplx(kF16, 2);
    case CUDA_R_16BF:
      return real(kBF16, 2);
    case CUDA_C_16BF:
      return cplx(kBF16, 2);
    case CUDA_R_8F_E4M3:
    case CUDA_R_8F_E5M2:
    case CUDA_R_8F_UE8M0:
    case CUDA_R_6F_E2M3:  // FP6 and FP4 run on the FP8 (or faster) tensor-core path
    case CUDA_R_6F_E3M2:
    case CUDA_R_4F_E2M1:
      return real(kF8, 1);
    case CUDA_R_8I:
    case CUDA_R_8U:
      return real(kI8, 1);
    case CUDA_C_8I:
    case CUDA_C_8U:
      return cplx(kI8, 1);
    case CUDA_R_32I:
    case CUDA_R_32U:
      return real(kI8, 4);  // only ever an output/accumulator type of int8 GEMMs
    case CUDA_C_32I:
    case CUDA_C_32U:
      return cplx(kI8, 4);
    default:
      return TypeInfo{};
  }
}

bool normalize_compute(int raw, cublasComputeType_t* out) {
  switch (raw) {
    case CUBLAS_COMPUTE_16F:
    case CUBLAS_COMPUTE_16F_PEDANTIC:
    case CUBLAS_COMPUTE_32F:
    case CUBLAS_COMPUTE_32F_PEDANTIC:
    case CUBLAS_COMPUTE_32F_FAST_16F:
    case CUBLAS_COMPUTE_32F_FAST_16BF:
    case CUBLAS_COMPUTE_32F_FAST_TF32:
    case CUBLAS_COMPUTE_32F_EMULATED_16BFX9:
    case CUBLAS_COMPUTE_64F:
    case CUBLAS_COMPUTE_64F_PEDANTIC:
    case CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT:
    case CUBLAS_COMPUTE_32I:
    case CUBLAS_COMPUTE_32I_PEDANTIC:
      *out = static_cast<cublasComputeType_t>(raw);
      return true;
    // The pre-CUDA 11 convention: the accumulator's cudaDataType.
    case CUDA_R_16F:
    case CUDA_C_16F:
      *out = CUBLAS_COMPUTE_16F;
      return true;
    case CUDA_R_32F:
    case CUDA_C_32F:
      *out = CUBLAS_COMPUTE_32F;
      return true;
    case CUDA_R_64F:
    case CUDA_C_64F:
      *out = CUBLAS_COMPUTE_64F;
      return true;
    case CUDA_R_32I:
    case CUDA_C_32I:
      *out = CUBLAS_COMPUTE_32I;
      return true;
    default:
      return false;
  }
}

int element_dtype(cudaDataType a, cublasComputeType_t c, bool tf32_math) {
  const TypeInfo t = type_info(a);
  if (t.dtype != kF32) return t.dtype;
  const bool tf32 = c == CUBLAS_COMPUTE_32F_FAST_TF32 || (c == CUBLAS_COMPUTE_32F && tf32_math);
  return tf32 ? kTF32 : kF32;
}

int math_pipe(cudaDataType a, cublasComputeType_t c, bool tf32_math) {
  const TypeInfo t = type_info(a);
  if (t.dtype != kF32) return t.dtype;
  switch (c) {
    case CUBLAS_COMPUTE_32F_FAST_TF32:
      return kTF32;
    case CUBLAS_COMPUTE_32F_FAST_16F:
      return kF16;
    case CUBLAS_COMPUTE_32F_FAST_16BF:
    case CUBLAS_COMPUTE_32F_EMULATED_16BFX9:
      return kBF16;
    case CUBLAS_COMPUTE_32F:
      return tf32_math ? kTF32 : kF32;
    default:
      return kF32;
  }
}

const char* epilogue_name(uint32_t e) {
  switch (e) {
    case CUBLASLT_EPILOGUE_DEFAULT:
      return "";
    case CUBLASLT_EPILOGUE_RELU:
      return "relu";
    case CUBLASLT_EPILOGUE_RELU_AUX:
      return "relu_aux";
    case CUBLASLT_EPILOGUE_BIAS:
      return "bias";
    case CUBLASLT_EPILOGUE_RELU_BIAS:
      return "relu_bias";
    case CUBLASLT_EPILOGUE_RELU_AUX_BIAS:
      return "relu_aux_bias";
    case CUBLASLT_EPILOGUE_DRELU:
      return "drelu";
    case CUBLASLT_EPILOGUE_DRELU_BGRAD:
      return "drelu_bgrad";
    case CUBLASLT_EPILOGUE_GELU:
      return "gelu";
    case CUBLASLT_EPILOGUE_GELU_AUX:
      return "gelu_aux";
    case CUBLASLT_EPILOGUE_GELU_BIAS:
      return "gelu_bias";
    case CUBLASLT_EPILOGUE_GELU_AUX_BIAS:
      return "gelu_aux_bias";
    case CUBLASLT_EPILOGUE_DGELU:
      return "dgelu";
    case CUBLASLT_EPILOGUE_DGELU_BGRAD:
      return "dgelu_bgrad";
    case CUBLASLT_EPILOGUE_BGRADA:
      return "bgrada";
    case CUBLASLT_EPILOGUE_BGRADB:
      return "bgradb";
    default:
      return nullptr;
  }
}

std::string library_label(const std::string& api, int dtype) {
  static const char* const kNames[] = {"f64", "f32", "tf32", "f16", "bf16", "f8", "i8"};
  return api + " [" + (dtype >= 0 && dtype < 7 ? kNames[dtype] : "?") + "]";
}

}  // namespace seer::cublas

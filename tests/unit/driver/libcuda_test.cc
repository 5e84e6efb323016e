// Seer's libcuda.so.1 loaded in-process the way PyTorch's LazyNVRTC does (dlopen RTLD_LOCAL,
// then dlsym on the handle). Without a session (no SEER_SOCKET) the functions that need none
// still answer: versions, error strings, cuGetProcAddress.

#include <dlfcn.h>
#include <gtest/gtest.h>

#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda.h>

#include <cstring>

namespace {

void* library() {
  static void* handle = dlopen(SEER_LIBCUDA, RTLD_LOCAL | RTLD_NOW);
  return handle;
}

template <typename F>
F fn(const char* name) {
  return reinterpret_cast<F>(dlsym(library(), name));
}

TEST(Libcuda, LoadsLikeLazyNvrtcAndExportsTheDriverApi) {
  ASSERT_NE(library(), nullptr) << dlerror();
  for (const char* name : {"cuDevicePrimaryCtxGetState", "cuModuleLoadData", "cuLaunchKernel",
                           "cuLaunchKernelEx", "cuTensorMapEncodeTiled", "cuMemCreate",
                           "cuOccupancyMaxActiveClusters", "cuGetProcAddress_v2"}) {
    EXPECT_NE(dlsym(library(), name), nullptr) << name;
  }
}

TEST(Libcuda, VersionAndErrorsNeedNoSession) {
  int version = 0;
  ASSERT_EQ(fn<CUresult (*)(int*)>("cuDriverGetVersion")(&version), CUDA_SUCCESS);
  EXPECT_GE(version, 13020);
  const char* text = nullptr;
  auto name = fn<CUresult (*)(CUresult, const char**)>("cuGetErrorName");
  ASSERT_EQ(name(CUDA_ERROR_OUT_OF_MEMORY, &text), CUDA_SUCCESS);
  EXPECT_STREQ(text, "CUDA_ERROR_OUT_OF_MEMORY");
  ASSERT_EQ(name(CUDA_ERROR_NOT_FOUND, &text), CUDA_SUCCESS);
  EXPECT_STREQ(text, "CUDA_ERROR_NOT_FOUND");
  EXPECT_EQ(name(static_cast<CUresult>(12345), &text), CUDA_ERROR_INVALID_VALUE);
  auto string = fn<CUresult (*)(CUresult, const char**)>("cuGetErrorString");
  ASSERT_EQ(string(CUDA_ERROR_INVALID_VALUE, &text), CUDA_SUCCESS);
  EXPECT_STREQ(text, "invalid argument");
}

TEST(Libcuda, InitWithoutSessionReportsNoDevice) {
  EXPECT_EQ(fn<CUresult (*)(unsigned)>("cuInit")(0), CUDA_ERROR_NO_DEVICE);
}

TEST(Libcuda, GetProcAddressGivesThisLibrarysEntryPoints) {
  auto get =
      fn<CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*)>(
          "cuGetProcAddress_v2");
  ASSERT_NE(get, nullptr);
  void* p = nullptr;
  CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  ASSERT_EQ(get("cuMemAlloc", &p, 12000, 0, &status), CUDA_SUCCESS);
  EXPECT_EQ(status, CU_GET_PROC_ADDRESS_SUCCESS);
  EXPECT_EQ(p, dlsym(library(), "cuMemAlloc_v2"));
  ASSERT_EQ(
      get("cuLaunchKernel", &p, 12000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &status),
      CUDA_SUCCESS);
  EXPECT_EQ(p, dlsym(library(), "cuLaunchKernel_ptsz"));
  // An unimplemented function is still found (its stub answers CUDA_ERROR_NOT_SUPPORTED).
  ASSERT_EQ(get("cuGraphCreate", &p, 12000, 0, &status), CUDA_SUCCESS);
  EXPECT_NE(p, nullptr);
  p = reinterpret_cast<void*>(1);
  EXPECT_EQ(get("cuNoSuchFunction", &p, 13000, 0, &status), CUDA_ERROR_NOT_FOUND);
  EXPECT_EQ(p, nullptr);
  EXPECT_EQ(status, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
  EXPECT_EQ(get("cuLogsRegisterCallback", &p, 12000, 0, &status), CUDA_ERROR_NOT_FOUND);
  EXPECT_EQ(status, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
  // Symbols of other libraries (the client core it links) are not driver entry points.
  EXPECT_EQ(get("clock_gettime", &p, 13000, 0, &status), CUDA_ERROR_NOT_FOUND);
}

TEST(Libcuda, TensorMapChecksArgumentsAndStoresTheAddress) {
  using Encode =
      CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                   const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                   CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
  auto encode = fn<Encode>("cuTensorMapEncodeTiled");
  alignas(64) static float data[64 * 64];
  CUtensorMap map;
  std::memset(&map, 0xff, sizeof map);
  const cuuint64_t dims[2] = {64, 64}, strides[1] = {64 * sizeof(float)};
  const cuuint32_t box[2] = {16, 16}, elem[2] = {1, 1};
  ASSERT_EQ(encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, data, dims, strides, box, elem,
                   CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                   CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
            CUDA_SUCCESS);
  void* stored = nullptr;
  std::memcpy(&stored, &map, sizeof stored);
  EXPECT_EQ(stored, data);
  EXPECT_EQ(reinterpret_cast<const unsigned char*>(&map)[64], 0);
  EXPECT_EQ(encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 6, data, dims, strides, box, elem,
                   CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                   CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(
      encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, reinterpret_cast<char*>(data) + 4, dims,
             strides, box, elem, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
             CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
      CUDA_ERROR_INVALID_VALUE);
}

}  // namespace

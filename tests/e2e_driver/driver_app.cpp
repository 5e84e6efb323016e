// A program written against the CUDA driver API only (like Triton's launcher or PyTorch's
// LazyNVRTC users): loads a cubin, launches it with cuLaunchKernel and cuLaunchKernelEx, times
// it with events, uses virtual memory management, and checks the errors real CUDA returns.
// Prints "RESULT name value" lines for the test. Usage: driver_app KERNELS.cubin

#include <cuda.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#define CHECK(call)                                                             \
  do {                                                                          \
    const CUresult r_ = (call);                                                 \
    if (r_ != CUDA_SUCCESS) {                                                   \
      const char* s_ = nullptr;                                                 \
      cuGetErrorName(r_, &s_);                                                  \
      std::fprintf(stderr, "%s:%d: %s -> %s\n", __FILE__, __LINE__, #call, s_); \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  std::ifstream in(argv[1], std::ios::binary);
  const std::vector<char> cubin{std::istreambuf_iterator<char>(in),
                                std::istreambuf_iterator<char>()};
  CHECK(cuInit(0));
  int version = 0;
  CHECK(cuDriverGetVersion(&version));
  std::printf("RESULT driver_version %d\n", version);
  CUdevice dev;
  CHECK(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CHECK(cuCtxSetCurrent(ctx));
  int sms = 0;
  CHECK(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
  std::printf("RESULT sms %d\n", sms);
  int vmm = 0;
  CHECK(cuDeviceGetAttribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, dev));
  std::printf("RESULT vmm_supported %d\n", vmm);

  CUmodule module;
  CHECK(cuModuleLoadData(&module, cubin.data()));
  CUfunction add_one, reverse;
  CHECK(cuModuleGetFunction(&add_one, module, "add_one"));
  CHECK(cuModuleGetFunction(&reverse, module, "_Z14reverse_scaledPff"));
  CUfunction missing;
  std::printf("RESULT missing_kernel %d\n", cuModuleGetFunction(&missing, module, "nope"));
  int regs = 0, max_threads = 0;
  CHECK(cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, add_one));
  CHECK(cuFuncGetAttribute(&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, reverse));
  std::printf("RESULT add_one_regs %d\nRESULT reverse_max_threads %d\n", regs, max_threads);
  CUdeviceptr table;
  size_t table_bytes = 0;
  CHECK(cuModuleGetGlobal(&table, &table_bytes, module, "g_table"));
  std::printf("RESULT g_table_bytes %zu\n", table_bytes);

  const int n = 1024 * 256;
  CUdeviceptr x;
  CHECK(cuMemAlloc(&x, n * sizeof(float)));
  CUstream stream;
  CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  CUevent start, stop;
  CHECK(cuEventCreate(&start, 0));
  CHECK(cuEventCreate(&stop, 0));
  void* args[] = {&x, const_cast<int*>(&n)};
  CHECK(cuEventRecord(start, stream));
  for (int i = 0; i < 3; ++i) {
    CHECK(cuLaunchKernel(add_one, 1024, 1, 1, 256, 1, 1, 0, stream, args, nullptr));
  }
  CHECK(cuEventRecord(stop, stream));
  CHECK(cuEventSynchronize(stop));
  float ms = 0;
  CHECK(cuEventElapsedTime(&ms, start, stop));
  std::printf("RESULT three_launches_ms %.6f\n", ms);

  // cuLaunchKernelEx with a cluster dimension (Triton's launcher on sm90).
  CUlaunchAttribute attr{};
  attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attr.value.clusterDim.x = 2;
  attr.value.clusterDim.y = 1;
  attr.value.clusterDim.z = 1;
  CUlaunchConfig config{};
  config.gridDimX = 132;
  config.gridDimY = config.gridDimZ = 1;
  config.blockDimX = 256;
  config.blockDimY = config.blockDimZ = 1;
  config.hStream = stream;
  config.attrs = &attr;
  config.numAttrs = 1;
  float a = 2.0f;
  void* rargs[] = {&x, &a};
  CHECK(cuLaunchKernelEx(&config, reverse, rargs, nullptr));
  config.gridDimX = 133;  // not a multiple of the cluster width
  std::printf("RESULT bad_cluster %d\n", cuLaunchKernelEx(&config, reverse, rargs, nullptr));
  int clusters = 0;
  config.gridDimX = 132;
  CHECK(cuOccupancyMaxActiveClusters(&clusters, reverse, &config));
  std::printf("RESULT max_clusters %d\n", clusters);
  CHECK(cuStreamSynchronize(stream));

  // Bytes go where copies and memsets put them.
  std::vector<unsigned> host(256, 0);
  CHECK(cuMemsetD32(x, 0xabcd1234u, 256));
  CHECK(cuMemcpyDtoH(host.data(), x, 256 * sizeof(unsigned)));
  std::printf("RESULT memset_value %u\n", host[255]);

  // Host memory is not device memory: Triton's "is this a CPU tensor?" check.
  CUdeviceptr dp = 0;
  std::printf("RESULT host_pointer_attribute %d\n",
              cuPointerGetAttribute(&dp, CU_POINTER_ATTRIBUTE_DEVICE_POINTER,
                                    reinterpret_cast<CUdeviceptr>(host.data())));
  CHECK(cuPointerGetAttribute(&dp, CU_POINTER_ATTRIBUTE_DEVICE_POINTER, x + 64));
  std::printf("RESULT device_pointer_same %d\n", dp == x + 64 ? 1 : 0);

  // Virtual memory management, as PyTorch's expandable segments use it.
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = dev;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  size_t granularity = 0;
  CHECK(cuMemGetAllocationGranularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  std::printf("RESULT granularity %zu\n", granularity);
  const size_t page = 20u << 20;
  CUdeviceptr va;
  CHECK(cuMemAddressReserve(&va, 4 * page, 0, 0, 0));
  CUmemGenericAllocationHandle pages[2];
  for (int i = 0; i < 2; ++i) {
    CHECK(cuMemCreate(&pages[i], page, &prop, 0));
    CHECK(cuMemMap(va + i * page, page, 0, pages[i], 0));
  }
  CUmemAccessDesc access{};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CHECK(cuMemSetAccess(va, 2 * page, &access, 1));
  // A copy straddling the two mapped pages.
  const unsigned pattern[4] = {1, 2, 3, 4};
  unsigned back[4] = {};
  CHECK(cuMemcpyHtoD(va + page - 8, pattern, sizeof pattern));
  CHECK(cuMemcpyDtoH(back, va + page - 8, sizeof back));
  std::printf("RESULT vmm_roundtrip %d\n", std::memcmp(pattern, back, sizeof back) == 0 ? 1 : 0);
  CUmemGenericAllocationHandle again;
  CHECK(cuMemRetainAllocationHandle(&again, reinterpret_cast<void*>(va + page + 4096)));
  std::printf("RESULT retained_second_page %d\n", again == pages[1] ? 1 : 0);
  CUmemGenericAllocationHandle huge;
  std::printf("RESULT create_beyond_capacity %d\n", cuMemCreate(&huge, 100ull << 30, &prop, 0));
  size_t free_bytes = 0, total_bytes = 0;
  CHECK(cuMemGetInfo(&free_bytes, &total_bytes));
  std::printf("RESULT total_gib %.1f\n", static_cast<double>(total_bytes) / (1 << 30));
  for (int i = 0; i < 2; ++i) {
    CHECK(cuMemUnmap(va + i * page, page));
    CHECK(cuMemRelease(pages[i]));
  }
  CHECK(cuMemAddressFree(va, 4 * page));

  CHECK(cuMemFree(x));
  CHECK(cuModuleUnload(module));
  CHECK(cuDevicePrimaryCtxRelease(dev));
  std::printf("RESULT done 1\n");
  return 0;
}

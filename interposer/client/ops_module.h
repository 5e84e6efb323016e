#pragma once

// Code modules loaded through the driver (cuModuleLoad*, cuLibraryLoad*) or the runtime
// (cudaLibraryLoad*): the kernels they hold are named from the image (kernel_image.h), and each
// kernel handle (CUfunction, CUkernel, cudaKernel_t) is registered with CudaState so a launch
// through it carries its name like a <<<>>> launch does.

#include <cuda_runtime_api.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "core.h"
#include "kernel_image.h"
#include "triton_ir.h"

namespace seer::client {

struct ModuleObj;

// A kernel of a module. Never freed (launch records and the session refer to it by address).
struct FunctionObj {
  ModuleObj* module = nullptr;
  std::string name;
  KernelInfo info;  // registers, local and shared bytes when the image said
  int max_dynamic_shared = 48 * 1024;
  int preferred_carveout = -1;
  int cache_config = 0;
  int required_cluster[3] = {0, 0, 0};
  int non_portable_cluster = 0;
  const TritonIr* triton = nullptr;  // a Triton kernel whose IR was found in Triton's cache
};

struct ModuleObj {
  int device = 0;
  ImageInfo image;
  bool parsed = false;  // false: the image was not understood, any kernel name is accepted
  std::unordered_map<std::string, const TritonIr*> triton;  // by kernel name, found at load
  std::unordered_map<std::string, FunctionObj*> functions;
  std::unordered_map<std::string, std::pair<uint64_t, uint64_t>> globals;  // address, size
};

class Modules {
 public:
  static Modules& instance();

  // `size` 0: unknown (cuModuleLoadData); the image's headers bound it.
  // `path`: the file the image came from, when it came from one.
  cudaError_t load(const void* image, size_t size, int device, ModuleObj** out,
                   const std::string& path = {});
  cudaError_t load_file(const char* path, int device, ModuleObj** out);
  cudaError_t unload(ThreadState& ts, const void* module);
  // cudaErrorSymbolNotFound for a kernel the image does not hold.
  cudaError_t function(const void* module, const char* name, FunctionObj** out);
  // Device memory of the symbol's size, allocated on first use.
  cudaError_t global(ThreadState& ts, const void* module, const char* name, uint64_t* address,
                     uint64_t* size);
  // Every kernel of a module, for cuModuleEnumerateFunctions / cuLibraryEnumerateKernels.
  unsigned count_functions(const void* module);

  ModuleObj* find_module(const void* handle);
  FunctionObj* find_function(const void* handle);

 private:
  std::mutex mu_;
  std::unordered_set<const void*> modules_;
  std::unordered_set<const void*> functions_;
};

}  // namespace seer::client

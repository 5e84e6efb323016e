#include "ops_module.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tuple>

#include "cuda_state.h"
#include "ops.h"

namespace seer::client {
namespace {

int target_sm(int device) {
  if (!ops::valid_device(device)) return 0;
  const auto& g = ops::gpu(device);
  return g.cc_major() * 10 + g.cc_minor();
}

}  // namespace

Modules& Modules::instance() {
  static Modules* m = new Modules();
  return *m;
}

cudaError_t Modules::load(const void* image, size_t size, int device, ModuleObj** out,
                          const std::string& path) {
  if (!image || !out) return cudaErrorInvalidValue;
  auto* m = new ModuleObj();
  m->device = device;
  m->parsed =
      parse_kernel_image(image, size, target_sm(device), m->image) && !m->image.kernels.empty();
  // Triton modules are single-kernel cubins; their IR sits beside the cubin in Triton's cache.
  if (m->parsed && m->image.format == ImageInfo::Format::kCubin && m->image.kernels.size() == 1) {
    const std::string& name = m->image.kernels[0].name;
    if (const TritonIr* ir = find_triton_ir(name, path, image, m->image.bytes)) {
      m->triton[name] = ir;
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  modules_.insert(m);
  *out = m;
  return cudaSuccess;
}

cudaError_t Modules::load_file(const char* path, int device, ModuleObj** out) {
  if (!path || !out) return cudaErrorInvalidValue;
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return cudaErrorFileNotFound;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || st.st_size <= 0) {
    ::close(fd);
    return cudaErrorInvalidKernelImage;
  }
  const size_t size = static_cast<size_t>(st.st_size);
  void* data = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (data == MAP_FAILED) return cudaErrorInvalidKernelImage;
  const cudaError_t err = load(data, size, device, out, path);
  ::munmap(data, size);
  return err;
}

cudaError_t Modules::unload(ThreadState& ts, const void* module) {
  ModuleObj* m = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!modules_.erase(module)) return cudaErrorInvalidResourceHandle;
    m = static_cast<ModuleObj*>(const_cast<void*>(module));
    for (auto& [name, f] : m->functions) functions_.erase(f);
  }
  for (auto& [name, g] : m->globals) {
    void* p = reinterpret_cast<void*>(g.first);
    ops::free_device(ts, p);
  }
  // Function objects stay allocated: submitted launches and the session's kernel table refer
  // to their addresses. The module keeps only its names.
  m->globals.clear();
  return cudaSuccess;
}

ModuleObj* Modules::find_module(const void* handle) {
  std::lock_guard<std::mutex> lock(mu_);
  return modules_.count(handle) ? static_cast<ModuleObj*>(const_cast<void*>(handle)) : nullptr;
}

FunctionObj* Modules::find_function(const void* handle) {
  std::lock_guard<std::mutex> lock(mu_);
  return functions_.count(handle) ? static_cast<FunctionObj*>(const_cast<void*>(handle)) : nullptr;
}

cudaError_t Modules::function(const void* module, const char* name, FunctionObj** out) {
  if (!name || !out) return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(mu_);
  if (!modules_.count(module)) return cudaErrorInvalidResourceHandle;
  auto* m = static_cast<ModuleObj*>(const_cast<void*>(module));
  if (auto it = m->functions.find(name); it != m->functions.end()) {
    *out = it->second;
    return cudaSuccess;
  }
  const KernelInfo* info = m->image.kernel(name);
  if (m->parsed && !info) return cudaErrorSymbolNotFound;
  auto* f = new FunctionObj();
  f->module = m;
  f->name = name;
  if (info) f->info = *info;
  if (auto t = m->triton.find(f->name); t != m->triton.end()) f->triton = t->second;
  m->functions.emplace(f->name, f);
  functions_.insert(f);
  CudaState::instance().register_function(f, f->name.c_str(),
                                          f->triton ? &f->triton->model : nullptr);
  *out = f;
  return cudaSuccess;
}

unsigned Modules::count_functions(const void* module) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!modules_.count(module)) return 0;
  return static_cast<unsigned>(static_cast<const ModuleObj*>(module)->image.kernels.size());
}

cudaError_t Modules::global(ThreadState& ts, const void* module, const char* name,
                            uint64_t* address, uint64_t* size) {
  if (!name) return cudaErrorInvalidValue;
  ModuleObj* m = find_module(module);
  if (!m) return cudaErrorInvalidResourceHandle;
  std::unique_lock<std::mutex> lock(mu_);
  auto it = m->globals.find(name);
  if (it == m->globals.end()) {
    const GlobalInfo* g = m->image.global(name);
    if (!g) return cudaErrorSymbolNotFound;
    const uint64_t bytes = g->size ? g->size : 1;
    lock.unlock();
    void* p = nullptr;
    if (cudaError_t err = ops::malloc_device(ts, &p, bytes, m->device); err != cudaSuccess) {
      return err;
    }
    lock.lock();
    bool inserted = false;
    std::tie(it, inserted) =
        m->globals.emplace(name, std::make_pair(reinterpret_cast<uint64_t>(p), g->size));
    if (!inserted) {  // another thread placed it meanwhile
      const auto placed = it->second;
      lock.unlock();
      ops::free_device(ts, p);
      if (address) *address = placed.first;
      if (size) *size = placed.second;
      return cudaSuccess;
    }
  }
  if (address) *address = it->second.first;
  if (size) *size = it->second.second;
  return cudaSuccess;
}

}  // namespace seer::client

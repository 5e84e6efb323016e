#include "injection.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace seer::client {

void load_injected_tool() {
  static std::once_flag once;
  std::call_once(once, [] {
    const char* path = std::getenv("CUDA_INJECTION64_PATH");
    if (!path || !*path) return;
    void* lib = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
    auto init = lib ? reinterpret_cast<int (*)()>(dlsym(lib, "InitializeInjection")) : nullptr;
    if (!init) {
      std::fprintf(stderr, "seer: CUDA_INJECTION64_PATH=%s: %s\n", path,
                   lib ? "no InitializeInjection" : dlerror());
      return;
    }
    init();
  });
}

}  // namespace seer::client

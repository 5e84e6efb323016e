#pragma once

// The real cuDNN entry point `name`, for the recorder's cuDNN wrappers (cudnn_calls.cpp,
// cudnn_legacy_calls.cpp): the next definition (dlsym RTLD_NEXT), else the one in the loaded
// libcudnn.so.9 itself (a library a framework opened with RTLD_LOCAL is not "next").

#include <dlfcn.h>

namespace seer::profiler {

template <typename Fn>
Fn real_cudnn(const char* name) {
  if (void* f = dlsym(RTLD_NEXT, name)) return reinterpret_cast<Fn>(f);
  void* lib = dlopen("libcudnn.so.9", RTLD_NOW | RTLD_NOLOAD);
  return lib ? reinterpret_cast<Fn>(dlsym(lib, name)) : nullptr;
}

}  // namespace seer::profiler

#pragma once

#include <dlfcn.h>

namespace seer::client {

// libc's own definition of a function this library interposes. RTLD_NEXT would miss it when this
// library is loaded after libc (as a dependency rather than a preload).
template <typename Fn>
Fn libc_next(const char* name) {
  static void* libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
  void* f = libc ? dlsym(libc, name) : nullptr;
  return reinterpret_cast<Fn>(f ? f : dlsym(RTLD_NEXT, name));
}

// The next definition after this library (a sanitizer's interceptor loaded after it keeps
// working), else libc's.
template <typename Fn>
Fn next_definition(const char* name) {
  void* f = dlsym(RTLD_NEXT, name);
  return f ? reinterpret_cast<Fn>(f) : libc_next<Fn>(name);
}

}  // namespace seer::client

#pragma once

#include <cstddef>
#include <new>

namespace seer::client {

// Memory straight from mmap, never from malloc, for the bookkeeping done inside the
// pthread_mutex_* and pthread_cond_* wrappers (WaitTable). Those wrappers also run for the
// mutexes of a malloc the program preloads (jemalloc, tcmalloc) while that malloc holds them: a
// call back into it from there would wait on the very mutex it holds.
void* raw_allocate(size_t bytes);
void raw_deallocate(void* p, size_t bytes);

template <class T>
struct RawAllocator {
  using value_type = T;
  RawAllocator() = default;
  template <class U>
  RawAllocator(const RawAllocator<U>&) {}  // NOLINT(google-explicit-constructor): rebinding
  T* allocate(size_t n) { return static_cast<T*>(raw_allocate(n * sizeof(T))); }
  void deallocate(T* p, size_t n) { raw_deallocate(p, n * sizeof(T)); }
  template <class U>
  bool operator==(const RawAllocator<U>&) const {
    return true;
  }
};

}  // namespace seer::client

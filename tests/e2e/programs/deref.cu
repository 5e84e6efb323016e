// Host code that dereferences a device pointer: under Seer the process dies with SIGSEGV and a
// message naming the simulated pointer.
#include "common.h"

int main() {
  CHECK(cudaSetDevice(0));
  void* d = nullptr;
  CHECK(cudaMalloc(&d, 1 << 20));
  volatile char* p = static_cast<volatile char*>(d) + 4099;
  std::printf("RESULT address %p\n", const_cast<char*>(p));
  std::fflush(stdout);
  const char c = *p;  // faults
  std::printf("RESULT survived %d\n", c);
  return 0;
}

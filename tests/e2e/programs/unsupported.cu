// A function Seer does not implement (graphics interop) returns cudaErrorNotSupported; Seer says so
// once per process, naming the function.
#include "common.h"

int main() {
  CHECK(cudaSetDevice(0));
  result_int("unsupported_rc", cudaGraphicsUnregisterResource(nullptr));
  result_int("unsupported_again_rc", cudaGraphicsUnregisterResource(nullptr));
  // Like any runtime call that fails, it leaves its error for cudaGetLastError.
  result_int("last_error_rc", cudaGetLastError());
  std::fflush(stdout);
  // The program goes on working after the unsupported calls.
  void* d = nullptr;
  CHECK(cudaMalloc(&d, 1024));
  CHECK(cudaFree(d));
  result_int("done", 1);
  return 0;
}

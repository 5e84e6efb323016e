// Device memory capacity: cudaMalloc succeeds exactly up to the target GPU's usable memory and
// fails with cudaErrorMemoryAllocation one allocation granule past it; cudaMemGetInfo.
#include "common.h"

namespace {

void print_info(const char* prefix) {
  size_t free_bytes = 0, total_bytes = 0;
  CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  char name[64];
  std::snprintf(name, sizeof name, "%s_free", prefix);
  result_int(name, static_cast<long long>(free_bytes));
  std::snprintf(name, sizeof name, "%s_total", prefix);
  result_int(name, static_cast<long long>(total_bytes));
}

}  // namespace

int main() {
  CHECK(cudaSetDevice(0));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  result_int("total_global_mem", static_cast<long long>(prop.totalGlobalMem));
  print_info("start");

  void* small = nullptr;
  CHECK(cudaMalloc(&small, (1 << 20) + 1));  // rounded up to the 512-byte granule
  print_info("after_small");

  size_t free_bytes = 0, total_bytes = 0;
  CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  void* big = nullptr;
  result_int("one_past_rc", cudaMalloc(&big, free_bytes + 1));
  result_int("last_error_rc", cudaGetLastError());
  result_int("last_error_again_rc", cudaGetLastError());
  result_int("exact_rc", cudaMalloc(&big, free_bytes));
  print_info("full");
  void* one = nullptr;
  result_int("full_one_byte_rc", cudaMalloc(&one, 1));
  void* zero = reinterpret_cast<void*>(0x1);
  result_int("zero_bytes_rc", cudaMalloc(&zero, 0));
  result_int("zero_bytes_null", zero == nullptr);
  result_int("huge_rc", cudaMalloc(&one, size_t{1} << 62));
  result_int("free_big_rc", cudaFree(big));
  print_info("after_free");
  // The space is reusable.
  result_int("again_rc", cudaMalloc(&big, free_bytes));
  CHECK(cudaFree(big));

  // Every GPU has its own capacity.
  CHECK(cudaSetDevice(1));
  print_info("gpu1_start");
  void* on1 = nullptr;
  CHECK(cudaMalloc(&on1, 1));
  print_info("gpu1_after_one_byte");
  CHECK(cudaFree(on1));
  CHECK(cudaSetDevice(0));
  CHECK(cudaFree(small));
  print_info("end");
  return 0;
}

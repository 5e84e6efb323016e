// Copies: host<->device with pinned and pageable host memory, device-to-device, memset and peer
// copies, each timed alone by CUDA events (the GPU runs behind a blocker kernel, so an event pair
// brackets exactly one op), then blocking calls timed by std::chrono with the GPU idle.
//
//   copies [PEER_DEVICE...]   peer copies go from GPU 0 to each listed device (default: 1)
#include <cstring>
#include <vector>

#include "common.h"

namespace {

constexpr size_t kBytes = size_t{64} << 20;

// Times `op` (blocking calls) with std::chrono and the GPU idle before it.
template <typename Op>
int64_t chrono_of(Op op) {
  CHECK(cudaDeviceSynchronize());
  const int64_t t0 = now_ns();
  op();
  const int64_t t1 = now_ns();
  return t1 - t0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> peers;
  for (int i = 1; i < argc; ++i) peers.push_back(std::atoi(argv[i]));
  if (peers.empty()) peers.push_back(1);

  CHECK(cudaSetDevice(0));
  void *d0a = nullptr, *d0b = nullptr;
  CHECK(cudaMalloc(&d0a, kBytes));
  CHECK(cudaMalloc(&d0b, kBytes));
  std::vector<void*> dpeer(peers.size());
  for (size_t i = 0; i < peers.size(); ++i) {
    CHECK(cudaSetDevice(peers[i]));
    CHECK(cudaMalloc(&dpeer[i], kBytes));
  }
  CHECK(cudaSetDevice(0));
  char* pinned = nullptr;
  CHECK(cudaMallocHost(reinterpret_cast<void**>(&pinned), kBytes));
  char* pageable = static_cast<char*>(std::malloc(kBytes));
  char* pageable2 = static_cast<char*>(std::malloc(kBytes));
  std::memset(pageable, 1, kBytes);
  std::memset(pageable2, 2, kBytes);

  // Events: all ops on the legacy default stream of GPU 0, behind the blocker.
  const int kEvents = 8 + static_cast<int>(peers.size());
  std::vector<cudaEvent_t> ev(kEvents);
  for (auto& e : ev) CHECK(cudaEventCreate(&e));
  CHECK(cudaDeviceSynchronize());
  blocker<<<kBlockerBlocks, kBlockerThreads>>>();
  int n = 0;
  CHECK(cudaEventRecord(ev[n++], 0));
  CHECK(cudaMemcpyAsync(d0a, pinned, kBytes, cudaMemcpyHostToDevice, 0));
  CHECK(cudaEventRecord(ev[n++], 0));
  CHECK(cudaMemcpyAsync(d0a, pageable, kBytes, cudaMemcpyHostToDevice, 0));
  CHECK(cudaEventRecord(ev[n++], 0));
  CHECK(cudaMemcpyAsync(pinned, d0a, kBytes, cudaMemcpyDeviceToHost, 0));
  CHECK(cudaEventRecord(ev[n++], 0));
  CHECK(cudaMemcpyAsync(pageable, d0a, kBytes, cudaMemcpyDeviceToHost, 0));
  CHECK(cudaEventRecord(ev[n++], 0));
  CHECK(cudaMemcpyAsync(d0b, d0a, kBytes, cudaMemcpyDeviceToDevice, 0));
  CHECK(cudaEventRecord(ev[n++], 0));
  CHECK(cudaMemsetAsync(d0b, 0, kBytes, 0));
  CHECK(cudaEventRecord(ev[n++], 0));
  CHECK(cudaMemcpyAsync(d0b, d0a, kBytes, cudaMemcpyDefault, 0));  // inferred: D2D
  CHECK(cudaEventRecord(ev[n++], 0));
  for (size_t i = 0; i < peers.size(); ++i) {
    CHECK(cudaMemcpyPeerAsync(dpeer[i], peers[i], d0a, 0, kBytes, 0));
    CHECK(cudaEventRecord(ev[n++], 0));
  }
  CHECK(cudaEventSynchronize(ev[n - 1]));
  const char* names[] = {"h2d_pinned_ms", "h2d_pageable_ms", "d2h_pinned_ms", "d2h_pageable_ms",
                         "d2d_ms",        "memset_ms",       "default_d2d_ms"};
  for (int i = 0; i < 7; ++i) result_ms(names[i], elapsed_ms(ev[i], ev[i + 1]));
  for (size_t i = 0; i < peers.size(); ++i) {
    char name[64];
    std::snprintf(name, sizeof name, "peer_%d_ms", peers[i]);
    result_ms(name, elapsed_ms(ev[7 + i], ev[8 + i]));
  }

  // Blocking copies with the GPU idle, timed by std::chrono.
  result_int("sync_h2d_pinned_ns",
             chrono_of([&] { CHECK(cudaMemcpy(d0a, pinned, kBytes, cudaMemcpyHostToDevice)); }));
  result_int("sync_h2d_pageable_ns",
             chrono_of([&] { CHECK(cudaMemcpy(d0a, pageable, kBytes, cudaMemcpyHostToDevice)); }));
  result_int("sync_d2h_pinned_ns",
             chrono_of([&] { CHECK(cudaMemcpy(pinned, d0a, kBytes, cudaMemcpyDeviceToHost)); }));
  result_int("sync_d2h_pageable_ns",
             chrono_of([&] { CHECK(cudaMemcpy(pageable, d0a, kBytes, cudaMemcpyDeviceToHost)); }));
  result_int("sync_h2d_default_pinned_ns",
             chrono_of([&] { CHECK(cudaMemcpy(d0a, pinned, kBytes, cudaMemcpyDefault)); }));
  result_int("sync_h2d_1byte_ns",
             chrono_of([&] { CHECK(cudaMemcpy(d0a, pinned, 1, cudaMemcpyHostToDevice)); }));
  result_int("sync_h2d_55e6_ns",
             chrono_of([&] { CHECK(cudaMemcpy(d0a, pinned, 55000000, cudaMemcpyHostToDevice)); }));
  result_int("sync_h2h_1mib_ns", chrono_of([&] {
               CHECK(cudaMemcpy(pageable2, pageable, 1 << 20, cudaMemcpyHostToHost));
             }));
  // Pageable memory registered with cudaHostRegister is pinned.
  CHECK(cudaHostRegister(pageable2, kBytes, cudaHostRegisterDefault));
  result_int("sync_h2d_registered_ns",
             chrono_of([&] { CHECK(cudaMemcpy(d0a, pageable2, kBytes, cudaMemcpyHostToDevice)); }));
  CHECK(cudaHostUnregister(pageable2));
  result_int("sync_h2d_unregistered_ns",
             chrono_of([&] { CHECK(cudaMemcpy(d0a, pageable2, kBytes, cudaMemcpyHostToDevice)); }));
  // Device-to-device and peer cudaMemcpy and cudaMemset return without waiting for the GPU;
  // the second figure includes the cudaDeviceSynchronize that waits for them.
  int64_t returned = 0;
  result_int("sync_d2d_total_ns", chrono_of([&] {
               const int64_t a = now_ns();
               CHECK(cudaMemcpy(d0b, d0a, kBytes, cudaMemcpyDeviceToDevice));
               returned = now_ns() - a;
               CHECK(cudaDeviceSynchronize());
             }));
  result_int("sync_d2d_return_ns", returned);
  result_int("sync_memset_total_ns", chrono_of([&] {
               const int64_t a = now_ns();
               CHECK(cudaMemset(d0b, 0, kBytes));
               returned = now_ns() - a;
               CHECK(cudaDeviceSynchronize());
             }));
  result_int("sync_memset_return_ns", returned);
  result_int("sync_peer_total_ns", chrono_of([&] {
               const int64_t a = now_ns();
               CHECK(cudaMemcpyPeer(dpeer[0], peers[0], d0a, 0, kBytes));
               returned = now_ns() - a;
               CHECK(cudaDeviceSynchronize());
             }));
  result_int("sync_peer_return_ns", returned);
  // Zero bytes: nothing to do, but still a call.
  result_int("sync_zero_bytes_ns",
             chrono_of([&] { CHECK(cudaMemcpy(d0a, pinned, 0, cudaMemcpyHostToDevice)); }));
  // Device-to-host copies write zeros (device memory has no contents).
  std::memset(pinned, 7, 16);
  CHECK(cudaMemcpy(pinned, d0a, 16, cudaMemcpyDeviceToHost));
  int nonzero = 0;
  for (int i = 0; i < 16; ++i) nonzero += pinned[i] != 0;
  result_int("d2h_nonzero_bytes", nonzero);

  for (auto& e : ev) CHECK(cudaEventDestroy(e));
  for (void* p : dpeer) CHECK(cudaFree(p));
  CHECK(cudaFree(d0a));
  CHECK(cudaFree(d0b));
  CHECK(cudaFreeHost(pinned));
  std::free(pageable);
  std::free(pageable2);
  return 0;
}

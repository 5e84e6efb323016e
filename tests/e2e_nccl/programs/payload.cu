// Reads back what copies, memsets and small collectives produce (interposer/client/PAYLOAD.md):
// every rank fills device buffers from distinct host values, runs collectives, copies the results
// back and checks them, collectives of zeros included. Grouped send/recv carries bytes only while
// the group's sends (receives) stay within the limit in all. A large buffer stays payload-free
// (zeros, no resident memory). With "late", rank 0 first waits for 5 ms of its own GPU work, so the
// others wait for its data while simulated time must move past them. usage: mpirun -np 4 payload
// [late]   (prints "RESULT errors_rank<r> N", "RESULT rss_growth_kib_rank<r> K")
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "world_comm.h"

namespace {

int g_rank = 0;
int g_errors = 0;

template <typename T>
void expect_eq(const char* what, const std::vector<T>& got, const std::vector<T>& want) {
  for (size_t i = 0; i < want.size(); ++i) {
    if (std::memcmp(&got[i], &want[i], sizeof(T)) != 0) {
      std::fprintf(stderr, "rank %d: %s[%zu] = %g, expected %g\n", g_rank, what, i,
                   static_cast<double>(got[i]), static_cast<double>(want[i]));
      ++g_errors;
      return;
    }
  }
}

template <typename T>
T* to_device(const std::vector<T>& host) {
  T* d = nullptr;
  cudaMalloc(&d, host.size() * sizeof(T));
  cudaMemcpy(d, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice);
  return d;
}

template <typename T>
std::vector<T> to_host(const T* d, size_t n) {
  std::vector<T> host(n);
  cudaMemcpy(host.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost);
  return host;
}

// A host-to-device copy in pieces within the payload limit, so that every byte is real.
template <typename T>
void in_pieces(T* d, const std::vector<T>& host) {
  const size_t piece = (size_t{512} << 10) / sizeof(T);
  for (size_t at = 0; at < host.size(); at += piece)
    cudaMemcpy(d + at, host.data() + at, std::min(piece, host.size() - at) * sizeof(T),
               cudaMemcpyHostToDevice);
}

long rss_kib() {
  FILE* f = std::fopen("/proc/self/status", "r");
  char line[256];
  long kib = 0;
  while (f && std::fgets(line, sizeof line, f)) {
    if (std::strncmp(line, "VmRSS:", 6) == 0) kib = std::atol(line + 6);
  }
  if (f) std::fclose(f);
  return kib;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int n = 0;
  ncclComm_t comm = world_comm(g_rank, n);
  const int r = g_rank;
  cudaStream_t s;
  cudaStreamCreate(&s);
  constexpr int kCount = 256;

  // Copies and memsets.
  std::vector<int> ints(kCount);
  for (int i = 0; i < kCount; ++i) ints[i] = r * 1000 + i;
  int* a = to_device(ints);
  int* b = nullptr;
  cudaMalloc(&b, kCount * sizeof(int));
  cudaMemcpy(b, a, kCount * sizeof(int), cudaMemcpyDeviceToDevice);
  expect_eq("d2d", to_host(b, kCount), ints);
  cudaMemset(b, 0x5a, 8 * sizeof(int));
  std::vector<int> filled = ints;
  for (int i = 0; i < 8; ++i) filled[i] = 0x5a5a5a5a;
  expect_eq("memset", to_host(b, kCount), filled);

  if (argc > 1 && std::strcmp(argv[1], "late") == 0 && r == 0) {
    void* slow = nullptr;
    const size_t bytes = size_t{16} << 30;
    cudaMalloc(&slow, bytes);
    cudaMemset(slow, 0, bytes);
    cudaDeviceSynchronize();
    cudaFree(slow);
  }

  // All-reduce (sum of int32, average of float), in place and out of place.
  int* sum = nullptr;
  cudaMalloc(&sum, kCount * sizeof(int));
  ncclAllReduce(a, sum, kCount, ncclInt32, ncclSum, comm, s);
  std::vector<int> want_sum(kCount);
  for (int i = 0; i < kCount; ++i) want_sum[i] = 1000 * n * (n - 1) / 2 + n * i;
  expect_eq("allreduce_sum", to_host(sum, kCount), want_sum);
  std::vector<float> floats(kCount);
  for (int i = 0; i < kCount; ++i) floats[i] = static_cast<float>(r + 1) * 0.5f + i;
  float* f = to_device(floats);
  ncclAllReduce(f, f, kCount, ncclFloat32, ncclAvg, comm, s);
  std::vector<float> want_avg(kCount);
  for (int i = 0; i < kCount; ++i) {
    float acc = 0;
    for (int q = 0; q < n; ++q) acc += (static_cast<float>(q + 1) * 0.5f + i) * (1.0f / n);
    want_avg[i] = acc;
  }
  expect_eq("allreduce_avg", to_host(f, kCount), want_avg);
  int* mx = to_device(ints);
  ncclAllReduce(mx, mx, kCount, ncclInt32, ncclMax, comm, s);
  std::vector<int> want_max(kCount);
  for (int i = 0; i < kCount; ++i) want_max[i] = (n - 1) * 1000 + i;
  expect_eq("allreduce_max", to_host(mx, kCount), want_max);

  // All-gather, broadcast (root 1), reduce-scatter.
  int* gathered = nullptr;
  cudaMalloc(&gathered, n * kCount * sizeof(int));
  ncclAllGather(a, gathered, kCount, ncclInt32, comm, s);
  std::vector<int> want_gather(n * kCount);
  for (int q = 0; q < n; ++q)
    for (int i = 0; i < kCount; ++i) want_gather[q * kCount + i] = q * 1000 + i;
  expect_eq("allgather", to_host(gathered, n * kCount), want_gather);
  int* bc = to_device(ints);
  ncclBcast(bc, kCount, ncclInt32, 1, comm, s);
  std::vector<int> want_bc(kCount);
  for (int i = 0; i < kCount; ++i) want_bc[i] = 1000 + i;
  expect_eq("broadcast", to_host(bc, kCount), want_bc);
  std::vector<int> blocks(n * kCount);
  for (int i = 0; i < n * kCount; ++i) blocks[i] = r + i;
  int* rs_in = to_device(blocks);
  int* rs_out = nullptr;
  cudaMalloc(&rs_out, kCount * sizeof(int));
  ncclReduceScatter(rs_in, rs_out, kCount, ncclInt32, ncclSum, comm, s);
  std::vector<int> want_rs(kCount);
  for (int i = 0; i < kCount; ++i) want_rs[i] = n * (n - 1) / 2 + n * (r * kCount + i);
  expect_eq("reducescatter", to_host(rs_out, kCount), want_rs);

  // Send/recv ring in a group.
  int* recv = nullptr;
  cudaMalloc(&recv, kCount * sizeof(int));
  ncclGroupStart();
  ncclSend(a, kCount, ncclInt32, (r + 1) % n, comm, s);
  ncclRecv(recv, kCount, ncclInt32, (r + n - 1) % n, comm, s);
  ncclGroupEnd();
  std::vector<int> want_recv(kCount);
  for (int i = 0; i < kCount; ++i) want_recv[i] = ((r + n - 1) % n) * 1000 + i;
  expect_eq("sendrecv", to_host(recv, kCount), want_recv);

  // Grouped send/recv all-to-all as nccl-tests builds it: every part is judged with the rank's
  // other parts of the group (the sends together, the receives together, PAYLOAD.md). Below
  // the limit in all, the bytes arrive.
  std::vector<int> a2a(n * kCount);
  for (int q = 0; q < n; ++q)
    for (int i = 0; i < kCount; ++i) a2a[q * kCount + i] = r * 100000 + q * 1000 + i;
  int* a2a_in = to_device(a2a);
  int* a2a_out = nullptr;
  cudaMalloc(&a2a_out, n * kCount * sizeof(int));
  ncclGroupStart();
  for (int q = 0; q < n; ++q) {
    ncclSend(a2a_in + q * kCount, kCount, ncclInt32, q, comm, s);
    ncclRecv(a2a_out + q * kCount, kCount, ncclInt32, q, comm, s);
  }
  ncclGroupEnd();
  std::vector<int> want_a2a(n * kCount);
  for (int q = 0; q < n; ++q)
    for (int i = 0; i < kCount; ++i) want_a2a[q * kCount + i] = q * 100000 + r * 1000 + i;
  expect_eq("grouped_alltoall", to_host(a2a_out, n * kCount), want_a2a);

  // Each part within the 1 MiB limit, but every rank sends (and receives) 768 KiB x n in all:
  // nothing is carried, the receive buffers keep their bytes (-1) as after a payload-free
  // ncclAllToAll of that size.
  const int block = 768 * 1024 / 4;
  std::vector<int> big_blocks(static_cast<size_t>(n) * block);
  for (size_t i = 0; i < big_blocks.size(); ++i)
    big_blocks[i] = r * 100000 + static_cast<int>(i % 1000);
  const std::vector<int> sentinel(static_cast<size_t>(n) * block, -1);
  int* big_in = nullptr;
  int* big_out = nullptr;
  cudaMalloc(&big_in, big_blocks.size() * sizeof(int));
  cudaMalloc(&big_out, big_blocks.size() * sizeof(int));
  in_pieces(big_in, big_blocks);
  in_pieces(big_out, sentinel);
  ncclGroupStart();
  for (int q = 0; q < n; ++q) {
    ncclSend(big_in + static_cast<size_t>(q) * block, block, ncclInt32, q, comm, s);
    ncclRecv(big_out + static_cast<size_t>(q) * block, block, ncclInt32, q, comm, s);
  }
  ncclGroupEnd();
  expect_eq("grouped_alltoall_over_limit", to_host(big_out, sentinel.size()), sentinel);

  // The two sides of a pair disagree (n >= 3): rank 0 sends a block to every other rank and
  // receives one from each (over the limit in all, so withheld), while each other rank sends and
  // receives one block (within the limit). Neither direction carries bytes, nobody waits for
  // ever, and the next small exchange between the same ranks is matched to itself.
  in_pieces(big_out, sentinel);
  ncclGroupStart();
  if (r == 0) {
    for (int q = 1; q < n; ++q) {
      ncclSend(big_in, block, ncclInt32, q, comm, s);
      ncclRecv(big_out + static_cast<size_t>(q) * block, block, ncclInt32, q, comm, s);
    }
  } else {
    ncclSend(big_in, block, ncclInt32, 0, comm, s);
    ncclRecv(big_out, block, ncclInt32, 0, comm, s);
  }
  ncclGroupEnd();
  expect_eq("one_side_over_limit", to_host(big_out, sentinel.size()), sentinel);
  cudaMemset(a2a_out, 0, n * kCount * sizeof(int));
  ncclGroupStart();
  for (int q = 0; q < n; ++q) {
    if ((r == 0) == (q == 0)) continue;  // rank 0 with every other rank
    ncclSend(a2a_in + q * kCount, kCount, ncclInt32, q, comm, s);
    ncclRecv(a2a_out + q * kCount, kCount, ncclInt32, q, comm, s);
  }
  ncclGroupEnd();
  std::vector<int> want_after = want_a2a;
  for (int q = 0; q < n; ++q) {
    if ((r == 0) == (q == 0))
      std::fill(want_after.begin() + q * kCount, want_after.begin() + (q + 1) * kCount, 0);
  }
  expect_eq("after_one_side_over_limit", to_host(a2a_out, n * kCount), want_after);

  // Inputs of zeros travel as a size: an output that held data reads zeros afterwards, a rank
  // with data among ranks of zeros still gives its data, and PreMulSum by -1 gives -0.
  int* zeros_in = nullptr;
  cudaMalloc(&zeros_in, kCount * sizeof(int));
  cudaMemset(zeros_in, 0, kCount * sizeof(int));
  int* zeros_out = to_device(ints);
  ncclAllReduce(zeros_in, zeros_out, kCount, ncclInt32, ncclSum, comm, s);
  expect_eq("allreduce_of_zeros", to_host(zeros_out, kCount), std::vector<int>(kCount, 0));
  int* one_rank = r == n - 1 ? to_device(ints) : zeros_in;
  ncclAllReduce(one_rank, zeros_out, kCount, ncclInt32, ncclSum, comm, s);
  std::vector<int> want_last(kCount);
  for (int i = 0; i < kCount; ++i) want_last[i] = (n - 1) * 1000 + i;
  expect_eq("allreduce_one_rank_of_data", to_host(zeros_out, kCount), want_last);
  float* fz = to_device(std::vector<float>(kCount, 0.0f));
  float* fout = to_device(std::vector<float>(kCount, 3.0f));
  const float minus_one = -1.0f;
  ncclRedOp_t premul;
  ncclRedOpCreatePreMulSum(&premul, const_cast<float*>(&minus_one), ncclFloat32,
                           ncclScalarHostImmediate, comm);
  ncclAllReduce(fz, fout, kCount, ncclFloat32, premul, comm, s);
  expect_eq("premulsum_of_zeros", to_host(fout, kCount), std::vector<float>(kCount, -0.0f));
  ncclRedOpDestroy(premul, comm);

  // A large buffer stays payload-free: it reads back zeros and costs no resident memory.
  const long rss_before = rss_kib();
  const size_t big_count = size_t{32} << 20;  // 128 MiB of floats
  float* big = nullptr;
  cudaMalloc(&big, big_count * sizeof(float));
  cudaMemset(big, 0x3f, big_count * sizeof(float));
  ncclAllReduce(big, big, big_count, ncclFloat32, ncclSum, comm, s);
  expect_eq("large", to_host(big, 16), std::vector<float>(16, 0.0f));
  const long rss_growth = rss_kib() - rss_before;

  cudaStreamSynchronize(s);
  std::printf("RESULT errors_rank%d %d\n", r, g_errors);
  std::printf("RESULT rss_growth_kib_rank%d %ld\n", r, rss_growth);
  ncclCommDestroy(comm);
  MPI_Finalize();
  return 0;
}

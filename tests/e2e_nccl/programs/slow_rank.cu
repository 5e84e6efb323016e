#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>
#include <poll.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "world_comm.h"

namespace {

__global__ void touch(float* p) { p[threadIdx.x] += 1.0f; }

double cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

}  // namespace

// usage: slow_rank SPIN_MS
// Rank 0 clears 1 GiB, then waits in an AllReduce that needs rank 1. Rank 1 first waits for the
// world outside the process (a 1 ms poll), then computes for SPIN_MS of CPU time without any call,
// then launches a kernel and joins the AllReduce. Each rank prints the GPU time from its first
// event to the end of its last work before the AllReduce (RESULT rankN_before_allreduce_ms).
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const double spin_ms = argc > 1 ? std::atof(argv[1]) : 0;
  int rank = 0, size = 0;
  ncclComm_t comm = world_comm(rank, size);
  cudaStream_t s;
  cudaStreamCreate(&s);
  float* buf;
  cudaMalloc(&buf, size_t{1} << 30);
  cudaEvent_t begin, end;
  cudaEventCreate(&begin);
  cudaEventCreate(&end);
  cudaEventRecord(begin, s);
  if (rank == 0) {
    cudaMemsetAsync(buf, 0, size_t{1} << 30, s);
  } else {
    poll(nullptr, 0, 1);
    volatile double sink = 0;
    for (const double start = cpu_ms(); cpu_ms() - start < spin_ms;) sink = sink + 1;
    touch<<<1, 32, 0, s>>>(buf);
  }
  cudaEventRecord(end, s);
  ncclAllReduce(buf, buf, 1024, ncclFloat, ncclSum, comm, s);
  cudaStreamSynchronize(s);
  float ms = 0;
  cudaEventElapsedTime(&ms, begin, end);
  std::printf("RESULT rank%d_before_allreduce_ms %.6f\n", rank, ms);
  ncclCommDestroy(comm);
  MPI_Finalize();
  return 0;
}

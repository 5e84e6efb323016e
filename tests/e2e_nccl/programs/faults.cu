#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>
#include <signal.h>

#include <cstdio>
#include <cstring>

#include "world_comm.h"

// usage: faults mismatch|skip|recv|kill
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  ncclComm_t comm = world_comm(rank, size);
  cudaStream_t s;
  cudaStreamCreate(&s);
  float* buf;
  cudaMalloc(&buf, 1 << 20);
  const char* mode = argv[1];
  ncclAllReduce(buf, buf, 1024, ncclFloat, ncclSum, comm, s);
  if (!strcmp(mode, "mismatch")) {
    if (rank == 1)
      ncclAllGather(buf, buf, 16, ncclFloat, comm, s);
    else
      ncclAllReduce(buf, buf, 1024, ncclFloat, ncclSum, comm, s);
  } else if (!strcmp(mode, "skip")) {
    if (rank != 1) ncclAllReduce(buf, buf, 1024, ncclFloat, ncclSum, comm, s);
  } else if (!strcmp(mode, "recv")) {
    if (rank == 0) ncclRecv(buf, 16, ncclFloat, 1, comm, s);
  } else if (!strcmp(mode, "kill")) {
    if (rank == 1) raise(SIGKILL);
  }
  cudaStreamSynchronize(s);
  printf("rank %d done\n", rank);
  MPI_Finalize();
  return 0;
}

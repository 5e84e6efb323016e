// The start of every test program here: after MPI_Init, each rank takes GPU `rank` and joins one
// NCCL communicator over MPI_COMM_WORLD.
#pragma once

#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>

inline ncclComm_t world_comm(int& rank, int& size) {
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ncclUniqueId id;
  if (rank == 0) ncclGetUniqueId(&id);
  MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
  cudaSetDevice(rank);
  ncclComm_t comm;
  ncclCommInitRank(&comm, size, id, rank);
  return comm;
}

// One rank of a data-parallel job, as `seer profile --nccl-standin`'s end-to-end test runs it
// (tests/e2e_db/nccl_standin_profile_test.cpp): the rank and the job's size come from the
// arguments (RANK WORLD_SIZE) or else those variables, and the program waits for its peers in
// every NCCL call. Each of 3 steps fills a
// buffer of 1 Mi floats (4096 blocks of 256 threads), scales it, then all-reduces it in place,
// all-gathers and reduce-scatters it and exchanges a block with its ring neighbours in a group.
// It then checks what a stand-in must give: the communicator's size and rank, this rank's slot of
// an all-gather of 256 known values (7) holding them, and a split communicator.
#include <cuda_runtime.h>
#include <nccl.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK_CUDA(call)                                               \
  do {                                                                 \
    cudaError_t e_ = (call);                                           \
    if (e_ != cudaSuccess) {                                           \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_)); \
      return 1;                                                        \
    }                                                                  \
  } while (0)
#define CHECK_NCCL(call)                                               \
  do {                                                                 \
    ncclResult_t r_ = (call);                                          \
    if (r_ != ncclSuccess) {                                           \
      std::fprintf(stderr, "%s: %s\n", #call, ncclGetErrorString(r_)); \
      return 1;                                                        \
    }                                                                  \
  } while (0)

__global__ void fill(float* x, size_t n, float v) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n) x[i] = v;
}

__global__ void scale(float* x, size_t n, float f) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n) x[i] *= f;
}

// The rank and the job's size: the arguments when given, else RANK and WORLD_SIZE.
int main(int argc, char** argv) {
  const char* rank_text = argc > 2 ? argv[1] : std::getenv("RANK");
  const char* size_text = argc > 2 ? argv[2] : std::getenv("WORLD_SIZE");
  const int rank = rank_text ? std::atoi(rank_text) : 0;
  const int world = size_text ? std::atoi(size_text) : 1;
  constexpr size_t kN = size_t{1} << 20;
  const unsigned blocks = kN / 256;

  CHECK_CUDA(cudaSetDevice(0));
  ncclUniqueId id;
  CHECK_NCCL(ncclGetUniqueId(&id));  // rank 0's, which the others would receive
  ncclComm_t comm;
  CHECK_NCCL(ncclCommInitRank(&comm, world, id, rank));
  int count = 0, me = -1;
  CHECK_NCCL(ncclCommCount(comm, &count));
  CHECK_NCCL(ncclCommUserRank(comm, &me));

  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));
  float *x, *gathered, *part;
  CHECK_CUDA(cudaMalloc(&x, kN * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&gathered, kN * world * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&part, kN / world * sizeof(float)));
  CHECK_CUDA(cudaMemset(gathered, 0, kN * world * sizeof(float)));
  const size_t block = kN / world;
  for (int step = 0; step < 3; ++step) {
    fill<<<blocks, 256, 0, stream>>>(x, kN, static_cast<float>(rank + 1));
    scale<<<blocks, 256, 0, stream>>>(x, kN, 2.0f);
    CHECK_NCCL(ncclAllReduce(x, x, kN, ncclFloat32, ncclSum, comm, stream));
    CHECK_NCCL(ncclAllGather(x, gathered, kN, ncclFloat32, comm, stream));
    CHECK_NCCL(ncclReduceScatter(x, part, block, ncclFloat32, ncclSum, comm, stream));
    CHECK_NCCL(ncclGroupStart());
    CHECK_NCCL(ncclSend(x, block, ncclFloat32, (rank + 1) % world, comm, stream));
    CHECK_NCCL(ncclRecv(part, block, ncclFloat32, (rank + world - 1) % world, comm, stream));
    CHECK_NCCL(ncclGroupEnd());
  }
  CHECK_CUDA(cudaStreamSynchronize(stream));
  constexpr size_t kSmall = 256;
  std::vector<float> sevens(kSmall, 7.0f), back(kSmall * world, -1.0f);
  float *small, *small_gathered;
  CHECK_CUDA(cudaMalloc(&small, kSmall * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&small_gathered, kSmall * world * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(small, sevens.data(), kSmall * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemset(small_gathered, 0, kSmall * world * sizeof(float)));
  CHECK_NCCL(ncclAllGather(small, small_gathered, kSmall, ncclFloat32, comm, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  CHECK_CUDA(cudaMemcpy(back.data(), small_gathered, kSmall * world * sizeof(float),
                        cudaMemcpyDeviceToHost));
  float others = 0;
  for (int r = 0; r < world; ++r) {
    if (r != rank) others += back[kSmall * r];
  }

  ncclComm_t half;
  CHECK_NCCL(ncclCommSplit(comm, rank % 2, rank, &half, nullptr));
  int version = 0;
  CHECK_NCCL(ncclGetVersion(&version));
  std::printf("communicator: %d ranks, rank %d\n", count, me);
  std::printf("all-gather slot %d: %g, other slots: %g\n", rank, back[kSmall * rank + kSmall / 2],
              others);
  std::printf("split: %s\n", half ? "ok" : "none");
  CHECK_NCCL(ncclCommDestroy(half));
  CHECK_NCCL(ncclCommDestroy(comm));
  return 0;
}

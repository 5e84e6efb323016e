// A training-shaped loop annotated with NVTX the way people annotate real ones: each step is a
// range "step <i>" holding "forward" and "backward" ranges, a mark at the end of each step, and
// the main thread named through NVTX. Rank r's kernels are (r + 1) times longer, so the slowest
// rank sets every step's time; step 0 also runs a one-off "warm-up" kernel.
//
// Build (MPI is linked; it is only initialised under mpirun):
//   nvcc -ccbin mpicxx -cudart shared -O2 -o nvtx_steps nvtx_steps.cu
// or, for programs linked against the classic NVTX library (libnvToolsExt.so.1):
//   nvcc -ccbin mpicxx -cudart shared -O2 -DCLASSIC_NVTX -o nvtx_steps nvtx_steps.cu -lnvToolsExt
// Run:  mpirun -np 2 ./nvtx_steps [--steps N] [--waves W]
//
// Output (each rank): "RESULT rank<r>_step<i>_event_ms <ms>" — the GPU time of the step's
// kernels from CUDA events — and "RESULT rank<r>_step<i>_ns <ns>", the step's std::chrono time.

#include <cuda_runtime.h>
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>

#ifdef CLASSIC_NVTX
// The classic NVTX 2 C API, as libnvToolsExt.so.1 exports it.
extern "C" {
int nvtxRangePushA(const char* message);
int nvtxRangePop(void);
void nvtxMarkA(const char* message);
void nvtxNameOsThreadA(uint32_t threadId, const char* name);
}
#else
#include <nvtx3/nvToolsExt.h>  // NVTX v3, header-only
#endif

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#define CHECK(call)                                                      \
  do {                                                                   \
    cudaError_t err_ = (call);                                           \
    if (err_ != cudaSuccess) {                                           \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
                   cudaGetErrorString(err_));                            \
      std::exit(1);                                                      \
    }                                                                    \
  } while (0)

__global__ void layer(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * 0.5f + 1.0f;
}

// `waves` full waves of 256-thread blocks on this GPU.
static void run_layer(float* x, int waves, int blocks_per_wave, cudaStream_t s) {
  const int blocks = waves * blocks_per_wave;
  layer<<<blocks, 256, 0, s>>>(x, blocks * 256);
}

int main(int argc, char** argv) {
  int steps = 6, waves = 40;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--steps")) {
      steps = std::atoi(argv[i + 1]);
    } else if (!std::strcmp(argv[i], "--waves")) {
      waves = std::atoi(argv[i + 1]);
    } else {
      std::fprintf(stderr, "usage: nvtx_steps [--steps N] [--waves W]\n");
      return 2;
    }
  }
  int rank = 0;
  const bool mpi = std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr;
  if (mpi) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  }
  nvtxNameOsThreadA(static_cast<uint32_t>(::syscall(SYS_gettid)), "trainer");
  int ndev = 0;
  CHECK(cudaGetDeviceCount(&ndev));
  CHECK(cudaSetDevice(rank % ndev));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, rank % ndev));
  const int blocks_per_wave = prop.multiProcessorCount * (prop.maxThreadsPerMultiProcessor / 256);
  const int my_waves = waves * (rank + 1);
  float* x = nullptr;
  CHECK(cudaMalloc(&x, sizeof(float) * 256 * static_cast<size_t>(blocks_per_wave) * 4 * my_waves));
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  cudaEvent_t begin, end;
  CHECK(cudaEventCreate(&begin));
  CHECK(cudaEventCreate(&end));
  for (int step = 0; step < steps; ++step) {
    const auto t0 = std::chrono::steady_clock::now();
    nvtxRangePushA(("step " + std::to_string(step)).c_str());
    CHECK(cudaEventRecord(begin, s));
    if (step == 0) {
      nvtxRangePushA("warm-up");
      run_layer(x, my_waves, blocks_per_wave, s);
      nvtxRangePop();
    }
    nvtxRangePushA("forward");
    run_layer(x, my_waves, blocks_per_wave, s);
    nvtxRangePop();
    nvtxRangePushA("backward");
    run_layer(x, 2 * my_waves, blocks_per_wave, s);
    nvtxRangePop();
    CHECK(cudaEventRecord(end, s));
    CHECK(cudaStreamSynchronize(s));
    nvtxMarkA("step done");
    nvtxRangePop();
    const auto t1 = std::chrono::steady_clock::now();
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, begin, end));
    std::printf("RESULT rank%d_step%d_event_ms %.6f\n", rank, step, ms);
    std::printf("RESULT rank%d_step%d_ns %lld\n", rank, step,
                static_cast<long long>(
                    std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count()));
  }
  CHECK(cudaFree(x));
  if (mpi) MPI_Finalize();
  return 0;
}

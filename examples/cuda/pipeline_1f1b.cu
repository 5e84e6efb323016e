// Pipeline-parallel training with the 1F1B schedule (as in Megatron-LM) over NCCL send/recv: every
// NCCL rank is one pipeline stage. Each step runs warm-up forwards, the steady one-forward-one-
// backward phase and the cool-down backwards; activations go to the next stage and gradients to
// the previous one, as bf16 tensors, on a communication stream beside the compute stream. Where a
// stage both sends and receives, the pair is issued inside one ncclGroupStart/ncclGroupEnd. Every
// step is timed with CUDA events and std::chrono. The numbers computed are meaningless; the kernels
// and messages have the sizes and the order of a real pipeline.
//
// Build (MPI is always linked; it is only initialized when launched by mpirun):
//   nvcc -ccbin mpicxx -cudart shared -O2 -o pipeline_1f1b pipeline_1f1b.cu -lnccl
// Run, one process per stage:
//   mpirun -np 8 ./pipeline_1f1b [--microbatches 8] [--activation-mib 1] [--steps 10]
// or one process driving G stages from one thread (no MPI runtime needed):
//   ./pipeline_1f1b -g 8 [options]
//
// Options: --microbatches M     microbatches per step
//          --activation-mib A   size of one microbatch's activation (and gradient) message, MiB
//          --steps N            training steps
//          --hidden H           hidden size; a microbatch has A MiB / (2 H) tokens
//          --layers L           MLP blocks per stage (H x 4H and 4H x H GEMMs each)
//          -g G                 stages driven by each process (only without mpirun)
//
// Output (rank 0, the first stage, which finishes each step last): comment lines starting with
// '#', then one line per step
//   step <i> <ms_events> ms (chrono <ms_chrono> ms)
// and at the end
//   mean step time (steps 2..N): <ms> ms
//   mean chrono step time (steps 2..N): <ms> ms

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#define OMPI_SKIP_MPICXX 1  // the MPI C API is all these programs use
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#define CHECK(call)                                                      \
  do {                                                                   \
    cudaError_t err_ = (call);                                           \
    if (err_ != cudaSuccess) {                                           \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
                   cudaGetErrorString(err_));                            \
      std::exit(1);                                                      \
    }                                                                    \
  } while (0)

#define NCCLCHECK(call)                                                  \
  do {                                                                   \
    ncclResult_t res_ = (call);                                          \
    if (res_ != ncclSuccess) {                                           \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
                   ncclGetErrorString(res_));                            \
      std::exit(1);                                                      \
    }                                                                    \
  } while (0)

#define MPICHECK(call)                                                                    \
  do {                                                                                    \
    int res_ = (call);                                                                    \
    if (res_ != MPI_SUCCESS) {                                                            \
      std::fprintf(stderr, "%s:%d: %s: MPI error %d\n", __FILE__, __LINE__, #call, res_); \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                       \
    }                                                                                     \
  } while (0)

// ------------------------------------------------------------------------------------------------
// Launch: one process per GPU under mpirun, or one process driving -g GPUs from one thread.

struct Launch {
  bool mpi = false;         // started by mpirun (OMPI_COMM_WORLD_SIZE set)
  int nprocs = 1;           // processes
  int proc = 0;             // this process
  int local_proc = 0;       // this process's index on its node
  int gpus = 1;             // GPUs driven by this process
  int nranks = 1;           // NCCL ranks: nprocs * gpus
  std::vector<int> device;  // CUDA device of each local GPU
  std::vector<int> rank;    // NCCL rank of each local GPU
  std::vector<ncclComm_t> comm;
};

static void launch_start(Launch& l, int* argc, char*** argv) {
  l.mpi = std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr;
  if (l.mpi) {
    MPICHECK(MPI_Init(argc, argv));
    MPICHECK(MPI_Comm_rank(MPI_COMM_WORLD, &l.proc));
    MPICHECK(MPI_Comm_size(MPI_COMM_WORLD, &l.nprocs));
  }
}

[[noreturn]] static void fail(const Launch& l, const std::string& message) {
  if (l.proc == 0) std::fprintf(stderr, "%s\n", message.c_str());
  if (l.mpi) MPI_Abort(MPI_COMM_WORLD, 2);
  std::exit(2);
}

// Picks the devices and creates one communicator per local GPU (grouped, as NCCL requires when one
// thread creates several).
static void launch_comms(Launch& l, int gpus) {
  int ndev = 0;
  CHECK(cudaGetDeviceCount(&ndev));
  l.gpus = gpus;
  l.nranks = l.nprocs * gpus;
  const char* local = std::getenv("OMPI_COMM_WORLD_LOCAL_RANK");
  l.local_proc = local ? std::atoi(local) : l.proc % std::max(1, ndev / gpus);
  const int first = l.local_proc * gpus;
  if (first + gpus > ndev) {
    std::fprintf(stderr, "process %d needs devices %d..%d but sees %d\n", l.proc, first,
                 first + gpus - 1, ndev);
    if (l.mpi) MPI_Abort(MPI_COMM_WORLD, 1);
    std::exit(1);
  }
  for (int i = 0; i < gpus; ++i) {
    l.device.push_back(first + i);
    l.rank.push_back(l.proc * gpus + i);
  }
  ncclUniqueId id;
  if (l.proc == 0) NCCLCHECK(ncclGetUniqueId(&id));
  if (l.mpi) MPICHECK(MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD));
  l.comm.resize(gpus);
  NCCLCHECK(ncclGroupStart());
  for (int i = 0; i < gpus; ++i) {
    CHECK(cudaSetDevice(l.device[i]));
    NCCLCHECK(ncclCommInitRank(&l.comm[i], l.nranks, id, l.rank[i]));
  }
  NCCLCHECK(ncclGroupEnd());
}

static void launch_finish(Launch& l) {
  for (int i = 0; i < l.gpus; ++i) {
    CHECK(cudaSetDevice(l.device[i]));
    NCCLCHECK(ncclCommDestroy(l.comm[i]));
  }
  if (l.mpi) MPICHECK(MPI_Finalize());
}

// ------------------------------------------------------------------------------------------------
// Kernels

__device__ __forceinline__ float to_f(float x) { return x; }
__device__ __forceinline__ float to_f(__nv_bfloat16 x) { return __bfloat162float(x); }
template <typename T>
__device__ __forceinline__ T from_f(float x);
template <>
__device__ __forceinline__ float from_f<float>(float x) {
  return x;
}
template <>
__device__ __forceinline__ __nv_bfloat16 from_f<__nv_bfloat16>(float x) {
  return __float2bfloat16(x);
}

constexpr int kTile = 64;  // output tile of a GEMM block (64x64, 4x4 per thread)
constexpr int kTileK = 16;

// C[M,N] = op(A)[M,K] * op(B)[K,N] (+ beta * C) (+ residual). op(A) = A^T when TA (A stored K x M),
// op(B) = B^T when TB (B stored N x K). Row-major. 16x16 threads.
template <bool TA, bool TB, typename TC>
__global__ void __launch_bounds__(256)
    gemm_kernel(int M, int N, int K, const float* __restrict__ A, const float* __restrict__ B,
                TC* C, float beta, const float* __restrict__ residual) {
  __shared__ float as[kTileK][kTile];
  __shared__ float bs[kTileK][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * 16 + tx;
  const int m0 = blockIdx.y * kTile, n0 = blockIdx.x * kTile;
  float acc[4][4] = {};
  for (int k0 = 0; k0 < K; k0 += kTileK) {
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int idx = tid + e * 256;
      int m, k;
      if constexpr (TA) {
        k = idx / kTile;
        m = idx % kTile;
      } else {
        m = idx / kTileK;
        k = idx % kTileK;
      }
      float a = 0.f;
      if (m0 + m < M && k0 + k < K)
        a = TA ? A[size_t(k0 + k) * M + m0 + m] : A[size_t(m0 + m) * K + k0 + k];
      as[k][m] = a;
      int n;
      if constexpr (TB) {
        n = idx / kTileK;
        k = idx % kTileK;
      } else {
        k = idx / kTile;
        n = idx % kTile;
      }
      float b = 0.f;
      if (n0 + n < N && k0 + k < K)
        b = TB ? B[size_t(n0 + n) * K + k0 + k] : B[size_t(k0 + k) * N + n0 + n];
      bs[k][n] = b;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kTileK; ++k) {
      float a[4], b[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        a[i] = as[k][ty + 16 * i];
        b[i] = bs[k][tx + 16 * i];
      }
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 4; ++i) {
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int m = m0 + ty + 16 * i, n = n0 + tx + 16 * j;
      if (m < M && n < N) {
        const size_t o = size_t(m) * N + n;
        float v = acc[i][j];
        if (residual) v += residual[o];
        if (beta != 0.f) v += beta * to_f(C[o]);
        C[o] = from_f<TC>(v);
      }
    }
  }
}

__device__ __forceinline__ float gelu(float x) {
  return 0.5f * x * (1.f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
}

__global__ void gelu_fwd(const float* __restrict__ x, float* __restrict__ y, size_t n) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n;
       i += size_t{gridDim.x} * blockDim.x)
    y[i] = gelu(x[i]);
}

__global__ void gelu_bwd(const float* dy, const float* __restrict__ x, float* dx, size_t n) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n;
       i += size_t{gridDim.x} * blockDim.x) {
    const float v = x[i];
    const float t = tanhf(0.7978845608f * (v + 0.044715f * v * v * v));
    const float dt = (1.f - t * t) * 0.7978845608f * (1.f + 3.f * 0.044715f * v * v);
    dx[i] = dy[i] * (0.5f * (1.f + t) + 0.5f * v * dt);
  }
}

// Gradient of a mean-squared loss against zero targets.
__global__ void loss_grad(const float* __restrict__ y, float* __restrict__ dy, size_t n,
                          float scale) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n;
       i += size_t{gridDim.x} * blockDim.x)
    dy[i] = y[i] * scale;
}

__global__ void init_uniform(float* p, size_t n, uint32_t seed, float scale) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n;
       i += size_t{gridDim.x} * blockDim.x) {
    uint32_t h = uint32_t(i) * 2654435761u ^ seed;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    p[i] = scale * (float(h & 0xffffff) / float(0x800000) - 1.f);
  }
}

__global__ void to_bf16(const float* __restrict__ x, __nv_bfloat16* __restrict__ y, size_t n) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n;
       i += size_t{gridDim.x} * blockDim.x)
    y[i] = __float2bfloat16(x[i]);
}

__global__ void from_bf16(const __nv_bfloat16* __restrict__ x, float* __restrict__ y, size_t n) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n;
       i += size_t{gridDim.x} * blockDim.x)
    y[i] = __bfloat162float(x[i]);
}

__global__ void sgd_step(float* __restrict__ w, const float* __restrict__ g, size_t n, float lr) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n;
       i += size_t{gridDim.x} * blockDim.x)
    w[i] -= lr * g[i];
}

static unsigned blocks_for(size_t n) {
  return static_cast<unsigned>(std::min<size_t>((n + 255) / 256, 16384));
}

template <bool TA, bool TB, typename TC>
static void gemm(cudaStream_t s, int m, int n, int k, const float* a, const float* b, TC* c,
                 float beta = 0.f, const float* residual = nullptr) {
  const dim3 grid((n + kTile - 1) / kTile, (m + kTile - 1) / kTile);
  gemm_kernel<TA, TB, TC><<<grid, dim3(16, 16), 0, s>>>(m, n, k, a, b, c, beta, residual);
}

// ------------------------------------------------------------------------------------------------
// The 1F1B schedule of one stage: computations and groups of point-to-point messages, in order.

struct P2p {
  bool send;        // send, or receive
  int peer;         // the neighbouring stage
  bool activation;  // activation (forward) or gradient (backward)
  int microbatch;
};

struct Item {
  enum Kind { kForward, kBackward, kComm } kind;
  int microbatch;
  std::vector<P2p> ops;  // kComm: issued together in one NCCL group
};

static std::vector<Item> schedule_1f1b(int stage, int stages, int microbatches) {
  const bool first = stage == 0, last = stage == stages - 1;
  std::vector<Item> items;
  auto comm = [&](std::vector<P2p> ops) {
    if (!ops.empty()) items.push_back({Item::kComm, -1, std::move(ops)});
  };
  auto recv_forward = [&](int mb) {
    return first ? std::vector<P2p>{} : std::vector<P2p>{{false, stage - 1, true, mb}};
  };
  auto send_forward = [&](int mb) {
    return last ? std::vector<P2p>{} : std::vector<P2p>{{true, stage + 1, true, mb}};
  };
  auto recv_backward = [&](int mb) {
    return last ? std::vector<P2p>{} : std::vector<P2p>{{false, stage + 1, false, mb}};
  };
  auto send_backward = [&](int mb) {
    return first ? std::vector<P2p>{} : std::vector<P2p>{{true, stage - 1, false, mb}};
  };
  auto join = [](std::vector<P2p> a, const std::vector<P2p>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  };
  const int warmup = std::min(stages - stage - 1, microbatches);
  const int steady = microbatches - warmup;
  for (int mb = 0; mb < warmup; ++mb) {
    comm(recv_forward(mb));
    items.push_back({Item::kForward, mb, {}});
    comm(send_forward(mb));
  }
  if (steady > 0) comm(recv_forward(warmup));
  for (int i = 0; i < steady; ++i) {
    const int fwd = warmup + i, bwd = i;
    items.push_back({Item::kForward, fwd, {}});
    comm(join(send_forward(fwd), recv_backward(bwd)));
    items.push_back({Item::kBackward, bwd, {}});
    if (i == steady - 1)
      comm(send_backward(bwd));
    else
      comm(join(send_backward(bwd), recv_forward(fwd + 1)));
  }
  for (int i = 0; i < warmup; ++i) {
    const int bwd = steady + i;
    comm(recv_backward(bwd));
    items.push_back({Item::kBackward, bwd, {}});
    comm(send_backward(bwd));
  }
  return items;
}

// ------------------------------------------------------------------------------------------------
// One pipeline stage on one GPU

struct Options {
  int microbatches = 8;
  double activation_mib = 1.0;
  int steps = 10;
  int hidden = 1024;
  int layers = 1;
  int gpus = 1;
};

struct Stage {
  int index = 0;  // stage = NCCL rank
  int device = 0;
  ncclComm_t comm = nullptr;
  cudaStream_t compute = nullptr, comm_stream = nullptr;
  float *w = nullptr, *dw = nullptr;         // per layer: W1 (H x 4H), then W2 (4H x H)
  int slots = 1;                             // microbatches in flight: min(M, stages - index)
  std::vector<std::vector<float*>> x;        // [slot][0..L]: input of each layer and output
  std::vector<std::vector<float*>> up, act;  // [slot][layer]: before and after GELU
  std::vector<__nv_bfloat16*> act_in, act_out, grad_in, grad_out;  // [microbatch], messages
  float *dy = nullptr, *dx = nullptr, *dbig = nullptr;
  std::vector<cudaEvent_t> act_ready, grad_ready;  // [microbatch]: message received
  cudaEvent_t computed = nullptr, comm_done = nullptr, start = nullptr, stop = nullptr;
  std::vector<Item> items;
  size_t next = 0;
};

static float* alloc_floats(size_t n) {
  float* p = nullptr;
  CHECK(cudaMalloc(&p, n * sizeof(float)));
  return p;
}

static __nv_bfloat16* alloc_bf16(size_t n) {
  __nv_bfloat16* p = nullptr;
  CHECK(cudaMalloc(&p, n * sizeof(__nv_bfloat16)));
  return p;
}

static size_t weights_per_layer(size_t h) { return 8 * h * h; }

static void setup(Stage& s, const Options& o, int stages, size_t tokens) {
  const size_t h = o.hidden, m = o.microbatches, nw = o.layers * weights_per_layer(h);
  const bool first = s.index == 0, last = s.index == stages - 1;
  CHECK(cudaSetDevice(s.device));
  CHECK(cudaStreamCreateWithFlags(&s.compute, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&s.comm_stream, cudaStreamNonBlocking));
  s.w = alloc_floats(nw);
  s.dw = alloc_floats(nw);
  init_uniform<<<blocks_for(nw), 256, 0, s.compute>>>(s.w, nw, 99u + s.index, 0.02f);
  s.slots = std::min(o.microbatches, stages - s.index);
  s.x.resize(s.slots);
  s.up.resize(s.slots);
  s.act.resize(s.slots);
  for (int k = 0; k < s.slots; ++k) {
    for (int l = 0; l <= o.layers; ++l) s.x[k].push_back(alloc_floats(tokens * h));
    for (int l = 0; l < o.layers; ++l) {
      s.up[k].push_back(alloc_floats(tokens * 4 * h));
      s.act[k].push_back(alloc_floats(tokens * 4 * h));
    }
  }
  s.act_in.assign(m, nullptr);
  s.act_out.assign(m, nullptr);
  s.grad_in.assign(m, nullptr);
  s.grad_out.assign(m, nullptr);
  s.act_ready.assign(m, nullptr);
  s.grad_ready.assign(m, nullptr);
  for (size_t mb = 0; mb < m; ++mb) {
    if (!first) {
      s.act_in[mb] = alloc_bf16(tokens * h);
      s.grad_out[mb] = alloc_bf16(tokens * h);
      CHECK(cudaEventCreateWithFlags(&s.act_ready[mb], cudaEventDisableTiming));
    }
    if (!last) {
      s.act_out[mb] = alloc_bf16(tokens * h);
      s.grad_in[mb] = alloc_bf16(tokens * h);
      CHECK(cudaEventCreateWithFlags(&s.grad_ready[mb], cudaEventDisableTiming));
    }
  }
  s.dy = alloc_floats(tokens * h);
  s.dx = alloc_floats(tokens * h);
  s.dbig = alloc_floats(tokens * 4 * h);
  CHECK(cudaEventCreateWithFlags(&s.computed, cudaEventDisableTiming));
  CHECK(cudaEventCreateWithFlags(&s.comm_done, cudaEventDisableTiming));
  CHECK(cudaEventCreate(&s.start));
  CHECK(cudaEventCreate(&s.stop));
  s.items = schedule_1f1b(s.index, stages, o.microbatches);
  CHECK(cudaGetLastError());
}

static void teardown(Stage& s) {
  CHECK(cudaSetDevice(s.device));
  CHECK(cudaDeviceSynchronize());
  std::vector<void*> buffers = {s.w, s.dw, s.dy, s.dx, s.dbig};
  for (int k = 0; k < s.slots; ++k) {
    buffers.insert(buffers.end(), s.x[k].begin(), s.x[k].end());
    buffers.insert(buffers.end(), s.up[k].begin(), s.up[k].end());
    buffers.insert(buffers.end(), s.act[k].begin(), s.act[k].end());
  }
  const std::vector<__nv_bfloat16*>* messages[] = {&s.act_in, &s.act_out, &s.grad_in, &s.grad_out};
  for (const auto* v : messages) buffers.insert(buffers.end(), v->begin(), v->end());
  for (void* p : buffers)
    if (p) CHECK(cudaFree(p));
  std::vector<cudaEvent_t> events = {s.computed, s.comm_done, s.start, s.stop};
  events.insert(events.end(), s.act_ready.begin(), s.act_ready.end());
  events.insert(events.end(), s.grad_ready.begin(), s.grad_ready.end());
  for (cudaEvent_t e : events)
    if (e) CHECK(cudaEventDestroy(e));
  CHECK(cudaStreamDestroy(s.compute));
  CHECK(cudaStreamDestroy(s.comm_stream));
}

// Forward of one microbatch through the stage's MLP blocks: x[l+1] = x[l] + gelu(x[l] W1) W2.
static void forward(Stage& s, const Options& o, int stages, size_t tokens, int mb) {
  const int t = static_cast<int>(tokens), h = o.hidden;
  const size_t n = tokens * h;
  const int k = mb % s.slots;
  cudaStream_t st = s.compute;
  if (s.index == 0) {
    init_uniform<<<blocks_for(n), 256, 0, st>>>(s.x[k][0], n, 1000u + mb, 1.f);  // the input
  } else {
    CHECK(cudaStreamWaitEvent(st, s.act_ready[mb], 0));
    from_bf16<<<blocks_for(n), 256, 0, st>>>(s.act_in[mb], s.x[k][0], n);
  }
  for (int l = 0; l < o.layers; ++l) {
    const float* w1 = s.w + l * weights_per_layer(h);
    const float* w2 = w1 + 4 * size_t(h) * h;
    gemm<false, false>(st, t, 4 * h, h, s.x[k][l], w1, s.up[k][l]);
    gelu_fwd<<<blocks_for(4 * n), 256, 0, st>>>(s.up[k][l], s.act[k][l], 4 * n);
    gemm<false, false>(st, t, h, 4 * h, s.act[k][l], w2, s.x[k][l + 1], 0.f, s.x[k][l]);
  }
  if (s.index < stages - 1)
    to_bf16<<<blocks_for(n), 256, 0, st>>>(s.x[k][o.layers], s.act_out[mb], n);
}

// Backward of one microbatch; weight gradients accumulate over the step's microbatches.
static void backward(Stage& s, const Options& o, int stages, size_t tokens, int mb) {
  const int t = static_cast<int>(tokens), h = o.hidden;
  const size_t n = tokens * h;
  const int k = mb % s.slots;
  cudaStream_t st = s.compute;
  if (s.index == stages - 1) {
    loss_grad<<<blocks_for(n), 256, 0, st>>>(s.x[k][o.layers], s.dy, n, 1.f / float(n));
  } else {
    CHECK(cudaStreamWaitEvent(st, s.grad_ready[mb], 0));
    from_bf16<<<blocks_for(n), 256, 0, st>>>(s.grad_in[mb], s.dy, n);
  }
  for (int l = o.layers - 1; l >= 0; --l) {
    const float* w1 = s.w + l * weights_per_layer(h);
    const float* w2 = w1 + 4 * size_t(h) * h;
    float* dw1 = s.dw + l * weights_per_layer(h);
    float* dw2 = dw1 + 4 * size_t(h) * h;
    gemm<true, false>(st, 4 * h, h, t, s.act[k][l], s.dy, dw2, 1.f);  // dW2 += act^T dy
    gemm<false, true>(st, t, 4 * h, h, s.dy, w2, s.dbig);             // dact = dy W2^T
    gelu_bwd<<<blocks_for(4 * n), 256, 0, st>>>(s.dbig, s.up[k][l], s.dbig, 4 * n);
    gemm<true, false>(st, h, 4 * h, t, s.x[k][l], s.dbig, dw1, 1.f);  // dW1 += x^T dup
    gemm<false, true>(st, t, h, 4 * h, s.dbig, w1, s.dx, 0.f, s.dy);  // dx = dup W1^T + dy
    std::swap(s.dy, s.dx);
  }
  if (s.index > 0) to_bf16<<<blocks_for(n), 256, 0, st>>>(s.dy, s.grad_out[mb], n);
}

static bool is_counterpart(const P2p& mine, int my_stage, const P2p& theirs) {
  return theirs.peer == my_stage && theirs.send != mine.send &&
         theirs.activation == mine.activation && theirs.microbatch == mine.microbatch;
}

// Runs one step of every local stage. With one stage per process each message group is issued as
// soon as the stage reaches it. With several stages in this thread, a message group is issued only
// together with its counterparts on the other local stages, in one NCCL group (a thread that
// drives several communicators must not wait on one of them alone).
static void run_step(Launch& launch, std::vector<Stage>& stages, const Options& o, size_t tokens) {
  const int first_local = launch.rank[0];
  const int nlocal = static_cast<int>(stages.size());
  const size_t count = tokens * o.hidden;
  const size_t nw = o.layers * weights_per_layer(o.hidden);
  for (auto& s : stages) {
    CHECK(cudaSetDevice(s.device));
    CHECK(cudaEventRecord(s.start, s.compute));
    CHECK(cudaMemsetAsync(s.dw, 0, nw * sizeof(float), s.compute));
    s.next = 0;
  }
  for (;;) {
    bool pending = false;
    for (auto& s : stages) {
      CHECK(cudaSetDevice(s.device));
      for (; s.next < s.items.size() && s.items[s.next].kind != Item::kComm; ++s.next) {
        const Item& it = s.items[s.next];
        if (it.kind == Item::kForward)
          forward(s, o, launch.nranks, tokens, it.microbatch);
        else
          backward(s, o, launch.nranks, tokens, it.microbatch);
      }
      pending = pending || s.next < s.items.size();
    }
    if (!pending) break;

    // Which stages' next message groups can go now: those whose local peers are ready to match.
    std::vector<char> ready(nlocal);
    for (int i = 0; i < nlocal; ++i) ready[i] = stages[i].next < stages[i].items.size();
    for (bool changed = true; changed;) {
      changed = false;
      for (int i = 0; i < nlocal; ++i) {
        if (!ready[i]) continue;
        for (const P2p& op : stages[i].items[stages[i].next].ops) {
          const int j = op.peer - first_local;
          if (j < 0 || j >= nlocal) continue;  // another process issues the other side
          bool matched = false;
          if (ready[j])
            for (const P2p& theirs : stages[j].items[stages[j].next].ops)
              matched = matched || is_counterpart(op, stages[i].index, theirs);
          if (!matched) {
            ready[i] = 0;
            changed = true;
            break;
          }
        }
      }
    }
    if (std::find(ready.begin(), ready.end(), 1) == ready.end()) {
      std::fprintf(stderr, "pipeline_1f1b: local stages cannot agree on the next messages\n");
      std::exit(1);
    }

    for (int i = 0; i < nlocal; ++i) {
      if (!ready[i]) continue;
      Stage& s = stages[i];
      CHECK(cudaSetDevice(s.device));
      CHECK(cudaEventRecord(s.computed, s.compute));  // what is sent has been computed
      CHECK(cudaStreamWaitEvent(s.comm_stream, s.computed, 0));
    }
    NCCLCHECK(ncclGroupStart());
    for (int i = 0; i < nlocal; ++i) {
      if (!ready[i]) continue;
      Stage& s = stages[i];
      CHECK(cudaSetDevice(s.device));
      for (const P2p& op : s.items[s.next].ops) {
        if (op.send) {
          const __nv_bfloat16* buf =
              op.activation ? s.act_out[op.microbatch] : s.grad_out[op.microbatch];
          NCCLCHECK(ncclSend(buf, count, ncclBfloat16, op.peer, s.comm, s.comm_stream));
        } else {
          __nv_bfloat16* buf = op.activation ? s.act_in[op.microbatch] : s.grad_in[op.microbatch];
          NCCLCHECK(ncclRecv(buf, count, ncclBfloat16, op.peer, s.comm, s.comm_stream));
        }
      }
    }
    NCCLCHECK(ncclGroupEnd());
    for (int i = 0; i < nlocal; ++i) {
      if (!ready[i]) continue;
      Stage& s = stages[i];
      CHECK(cudaSetDevice(s.device));
      for (const P2p& op : s.items[s.next].ops)
        if (!op.send)
          CHECK(cudaEventRecord(
              op.activation ? s.act_ready[op.microbatch] : s.grad_ready[op.microbatch],
              s.comm_stream));
      ++s.next;
    }
  }

  for (auto& s : stages) {
    CHECK(cudaSetDevice(s.device));
    CHECK(cudaEventRecord(s.comm_done, s.comm_stream));  // all messages of the step are out
    CHECK(cudaStreamWaitEvent(s.compute, s.comm_done, 0));
    sgd_step<<<blocks_for(nw), 256, 0, s.compute>>>(s.w, s.dw, nw, 1e-3f);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(s.stop, s.compute));
  }
  for (auto& s : stages) CHECK(cudaEventSynchronize(s.stop));
}

static void usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s [--microbatches M] [--activation-mib MIB] [--steps N] [--hidden H] "
               "[--layers L] [-g STAGES_PER_PROCESS]\n"
               "  one process per stage under mpirun, or one process driving -g stages\n",
               argv0);
}

// Accepts "--name value", "--name=value" and, for short names, "-n value".
static bool take(int& i, int argc, char** argv, const char* name, const char** value) {
  const size_t len = std::strlen(name);
  if (std::strncmp(argv[i], name, len) != 0) return false;
  if (argv[i][len] == '=') {
    *value = argv[i] + len + 1;
    return true;
  }
  if (argv[i][len] != '\0') return false;
  if (i + 1 >= argc) return false;
  *value = argv[++i];
  return true;
}

static bool parse_int(const char* s, int* out, int min) {
  char* end = nullptr;
  const long v = std::strtol(s, &end, 10);
  if (end == s || *end != '\0' || v < min || v > (1L << 30)) return false;
  *out = static_cast<int>(v);
  return true;
}

static bool parse_mib(const char* s, double* out) {
  char* end = nullptr;
  const double v = std::strtod(s, &end);
  if (end == s || *end != '\0' || !(v > 0) || v > 65536) return false;
  *out = v;
  return true;
}

int main(int argc, char** argv) {
  Launch launch;
  launch_start(launch, &argc, &argv);

  Options o;
  for (int i = 1; i < argc; ++i) {
    const char* opt = argv[i];
    const char* v = nullptr;
    bool ok = true;
    if (take(i, argc, argv, "--microbatches", &v))
      ok = parse_int(v, &o.microbatches, 1);
    else if (take(i, argc, argv, "--activation-mib", &v))
      ok = parse_mib(v, &o.activation_mib);
    else if (take(i, argc, argv, "--steps", &v))
      ok = parse_int(v, &o.steps, 1);
    else if (take(i, argc, argv, "--hidden", &v))
      ok = parse_int(v, &o.hidden, 1);
    else if (take(i, argc, argv, "--layers", &v))
      ok = parse_int(v, &o.layers, 1);
    else if (take(i, argc, argv, "-g", &v) || take(i, argc, argv, "--gpus", &v))
      ok = parse_int(v, &o.gpus, 1);
    else {
      if (launch.proc == 0) usage(argv[0]);
      fail(launch, std::string("unknown or incomplete option: ") + opt);
    }
    if (!ok) {
      if (launch.proc == 0) usage(argv[0]);
      fail(launch, std::string("bad value for ") + opt + ": " + v);
    }
  }
  if (launch.mpi && o.gpus > 1)
    fail(launch,
         "pipeline_1f1b: -g > 1 is for one process driving all stages; under mpirun "
         "run one process per stage");
  const size_t tokens =
      static_cast<size_t>(o.activation_mib * 1048576.0 / (sizeof(__nv_bfloat16) * o.hidden));
  if (tokens == 0) fail(launch, "pipeline_1f1b: --activation-mib is smaller than one token");

  launch_comms(launch, o.gpus);
  const int nstages = launch.nranks;
  std::vector<Stage> stages(launch.gpus);
  for (int i = 0; i < launch.gpus; ++i) {
    stages[i].index = launch.rank[i];
    stages[i].device = launch.device[i];
    stages[i].comm = launch.comm[i];
    setup(stages[i], o, nstages, tokens);
  }
  for (auto& s : stages) {
    CHECK(cudaSetDevice(s.device));
    CHECK(cudaDeviceSynchronize());
  }

  const bool report = launch.proc == 0;  // rank 0 is the first stage
  if (report) {
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, launch.device[0]));
    std::printf("# pipeline_1f1b: %d stages (%d processes x %d GPUs), device %s\n", nstages,
                launch.nprocs, launch.gpus, prop.name);
    std::printf(
        "# %d microbatches of %zu tokens x hidden %d; %.3f MiB bf16 activation per "
        "microbatch; %d MLP blocks per stage\n",
        o.microbatches, tokens, o.hidden, tokens * o.hidden * sizeof(__nv_bfloat16) / 1048576.0,
        o.layers);
    std::printf("# 1F1B bubble fraction (P-1)/(M+P-1): %.3f\n",
                (nstages - 1) / double(o.microbatches + nstages - 1));
    std::fflush(stdout);
  }

  double sum_events = 0, sum_chrono = 0;
  int counted = 0;
  const int first_counted = o.steps >= 2 ? 2 : 1;
  for (int step = 1; step <= o.steps; ++step) {
    const auto t0 = std::chrono::steady_clock::now();
    run_step(launch, stages, o, tokens);
    const auto t1 = std::chrono::steady_clock::now();
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, stages[0].start, stages[0].stop));
    const double chrono_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    if (step >= first_counted) {
      sum_events += ms;
      sum_chrono += chrono_ms;
      ++counted;
    }
    if (report) {
      std::printf("step %d %.3f ms (chrono %.3f ms)\n", step, ms, chrono_ms);
      std::fflush(stdout);
    }
  }
  if (report && counted > 0) {
    std::printf("mean step time (steps %d..%d): %.3f ms\n", first_counted, o.steps,
                sum_events / counted);
    std::printf("mean chrono step time (steps %d..%d): %.3f ms\n", first_counted, o.steps,
                sum_chrono / counted);
  }
  for (auto& s : stages) teardown(s);
  launch_finish(launch);
  return 0;
}

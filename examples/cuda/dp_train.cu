// Data-parallel training loop of a toy transformer-like model with NCCL, the way DDP does it:
// forward and backward kernels on a compute stream, gradients all-reduced in buckets on a second
// stream that overlaps the rest of the backward pass, then an Adam step that waits for all buckets.
// It times every step with CUDA events and std::chrono, and marks it with NVTX ranges
// ("train_step N" holding "forward", "backward" and "optimizer"). The model's numbers are
// meaningless; the kernels and the communication have the sizes and the order of a real training
// step.
//
// Build (MPI is always linked; it is only initialized when launched by mpirun):
//   nvcc -ccbin mpicxx -cudart shared -O2 -o dp_train dp_train.cu -lnccl
// Run, one process per GPU:
//   mpirun -np 16 ./dp_train [--layers 8] [--hidden 1024] [--batch 512] [--steps 10] [--buckets 4]
// or one process driving G GPUs (no MPI runtime needed):
//   ./dp_train -g 8 [options]
//
// Options: --layers L       transformer blocks (12*H*H parameters each)
//          --hidden H       hidden size (MLP width 4H)
//          --batch B        tokens per GPU per step (rows of the activations)
//          --steps N        training steps
//          --buckets K      gradient buckets (contiguous groups of layers, all-reduced last-first)
//          --dtype float|bf16   gradient and all-reduce datatype
//          -g G             GPUs driven by each process
//
// Output (rank 0): comment lines starting with '#', then one line per step
//   step <i> <ms_events> ms (chrono <ms_chrono> ms)
// and at the end
//   mean step time (steps 2..N): <ms> ms
//   mean chrono step time (steps 2..N): <ms> ms

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#define OMPI_SKIP_MPICXX 1  // the MPI C API is all these programs use
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#include <nccl.h>
#include <nvtx3/nvToolsExt.h>  // step ranges: `seer run` reports per-step times from them

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
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

// Sum over a block of 256 threads; every thread gets the total.
__device__ float block_sum(float v) {
  __shared__ float partial[32];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
  __syncthreads();
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  v = lane < warps ? partial[lane] : 0.f;
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// One block per row: y = (x - mean) / sqrt(var + eps).
__global__ void layernorm_fwd(const float* __restrict__ x, float* __restrict__ y, int h) {
  const float* row = x + size_t(blockIdx.x) * h;
  float s = 0.f;
  for (int i = threadIdx.x; i < h; i += blockDim.x) s += row[i];
  const float mean = block_sum(s) / h;
  float q = 0.f;
  for (int i = threadIdx.x; i < h; i += blockDim.x) q += (row[i] - mean) * (row[i] - mean);
  const float rstd = rsqrtf(block_sum(q) / h + 1e-5f);
  for (int i = threadIdx.x; i < h; i += blockDim.x)
    y[size_t(blockIdx.x) * h + i] = (row[i] - mean) * rstd;
}

// dx = layernorm'(x) dy + residual_grad.
__global__ void layernorm_bwd(const float* __restrict__ dy, const float* __restrict__ x,
                              const float* __restrict__ residual_grad, float* __restrict__ dx,
                              int h) {
  const size_t base = size_t(blockIdx.x) * h;
  float s = 0.f;
  for (int i = threadIdx.x; i < h; i += blockDim.x) s += x[base + i];
  const float mean = block_sum(s) / h;
  float q = 0.f;
  for (int i = threadIdx.x; i < h; i += blockDim.x) {
    const float d = x[base + i] - mean;
    q += d * d;
  }
  const float rstd = rsqrtf(block_sum(q) / h + 1e-5f);
  float a = 0.f, b = 0.f;
  for (int i = threadIdx.x; i < h; i += blockDim.x) {
    a += dy[base + i];
    b += dy[base + i] * (x[base + i] - mean) * rstd;
  }
  a = block_sum(a) / h;
  b = block_sum(b) / h;
  for (int i = threadIdx.x; i < h; i += blockDim.x) {
    const float xhat = (x[base + i] - mean) * rstd;
    dx[base + i] = (dy[base + i] - a - xhat * b) * rstd + residual_grad[base + i];
  }
}

// Toy token-local "attention": out = q * sigmoid(k) + v, with each row of qkv = [q | k | v].
__global__ void attention_mix_fwd(const float* __restrict__ qkv, float* __restrict__ out,
                                  size_t rows, int h) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < rows * h;
       i += size_t{gridDim.x} * blockDim.x) {
    const size_t r = i / h, c = i % h;
    const float* row = qkv + r * 3 * h;
    const float sig = 1.f / (1.f + __expf(-row[h + c]));
    out[i] = row[c] * sig + row[2 * h + c];
  }
}

__global__ void attention_mix_bwd(const float* __restrict__ d, const float* __restrict__ qkv,
                                  float* __restrict__ dqkv, size_t rows, int h) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < rows * h;
       i += size_t{gridDim.x} * blockDim.x) {
    const size_t r = i / h, c = i % h;
    const float* row = qkv + r * 3 * h;
    float* drow = dqkv + r * 3 * h;
    const float sig = 1.f / (1.f + __expf(-row[h + c]));
    drow[c] = d[i] * sig;
    drow[h + c] = d[i] * row[c] * sig * (1.f - sig);
    drow[2 * h + c] = d[i];
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

template <typename T>
__global__ void adam_step(float* __restrict__ p, float* __restrict__ m, float* __restrict__ v,
                          const T* __restrict__ g, size_t n, float lr, float c1, float c2) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n;
       i += size_t{gridDim.x} * blockDim.x) {
    const float gi = to_f(g[i]);
    m[i] = 0.9f * m[i] + 0.1f * gi;
    v[i] = 0.999f * v[i] + 0.001f * gi * gi;
    p[i] -= lr * (m[i] * c1) / (sqrtf(v[i] * c2) + 1e-8f);
  }
}

static unsigned blocks_for(size_t n) {
  return static_cast<unsigned>(std::min<size_t>((n + 255) / 256, 16384));
}

// The layers' matrix products go through cuBLAS (TF32 tensor cores, FP32 data), as a framework's
// would: C[m x n] = op(A) op(B) in row-major storage, i.e. C^T = op(B)^T op(A)^T for cuBLAS'
// column-major view. The fused residual of the hand-written kernel becomes beta = 1 on C.
static cublasHandle_t blas_handle() {
  // Indexed by device ordinal: a process of a 128-rank run on one host may drive device 127.
  static thread_local std::vector<cublasHandle_t> handles;
  int device = 0;
  CHECK(cudaGetDevice(&device));
  if (static_cast<size_t>(device) >= handles.size()) handles.resize(device + 1, nullptr);
  if (!handles[device]) {
    if (cublasCreate(&handles[device]) != CUBLAS_STATUS_SUCCESS) {
      std::fprintf(stderr, "cublasCreate failed\n");
      std::exit(1);
    }
  }
  return handles[device];
}

template <bool TA, bool TB, typename TC>
static void gemm(cudaStream_t s, int m, int n, int k, const float* a, const float* b, TC* c,
                 float beta = 0.f, const float* residual = nullptr) {
  (void)residual;
  cublasHandle_t h = blas_handle();
  cublasSetStream(h, s);
  const float alpha = 1.f;
  const cudaDataType c_type = std::is_same<TC, float>::value ? CUDA_R_32F : CUDA_R_16BF;
  const cublasStatus_t st =
      cublasGemmEx(h, TB ? CUBLAS_OP_T : CUBLAS_OP_N, TA ? CUBLAS_OP_T : CUBLAS_OP_N, n, m, k,
                   &alpha, b, CUDA_R_32F, TB ? k : n, a, CUDA_R_32F, TA ? m : k, &beta, c, c_type,
                   n, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT);
  if (st != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "cublasGemmEx failed: %d\n", static_cast<int>(st));
    std::exit(1);
  }
}

// ------------------------------------------------------------------------------------------------
// The model on one GPU

struct Options {
  int layers = 8;
  int hidden = 1024;
  int batch = 512;
  int steps = 10;
  int buckets = 4;
  std::string dtype = "float";
  int gpus = 1;
};

template <typename T>
struct Replica {
  int device = 0;
  ncclComm_t comm = nullptr;
  cudaStream_t compute = nullptr, comm_stream = nullptr;
  float *params = nullptr, *adam_m = nullptr, *adam_v = nullptr;
  T* grads = nullptr;
  std::vector<float*> x;  // input of each layer, plus the model output
  struct Saved {
    float *ln1, *qkv, *attn, *xmid, *ln2, *up, *h;
  };
  std::vector<Saved> saved;
  float *dy = nullptr, *dx = nullptr, *dbig = nullptr, *dln = nullptr, *dxmid = nullptr,
        *dattn = nullptr, *dqkv = nullptr;
  std::vector<cudaEvent_t> bucket_ready;
  cudaEvent_t grads_reduced = nullptr, start = nullptr, stop = nullptr;
};

static float* alloc_floats(size_t n) {
  float* p = nullptr;
  CHECK(cudaMalloc(&p, n * sizeof(float)));
  return p;
}

template <typename T>
static void setup(Replica<T>& r, const Options& o, size_t nparams, int nbuckets) {
  const size_t b = o.batch, h = o.hidden;
  CHECK(cudaSetDevice(r.device));
  CHECK(cudaStreamCreateWithFlags(&r.compute, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&r.comm_stream, cudaStreamNonBlocking));
  r.params = alloc_floats(nparams);
  r.adam_m = alloc_floats(nparams);
  r.adam_v = alloc_floats(nparams);
  CHECK(cudaMalloc(&r.grads, nparams * sizeof(T)));
  CHECK(cudaMemsetAsync(r.adam_m, 0, nparams * sizeof(float), r.compute));
  CHECK(cudaMemsetAsync(r.adam_v, 0, nparams * sizeof(float), r.compute));
  init_uniform<<<blocks_for(nparams), 256, 0, r.compute>>>(r.params, nparams, 1234u, 0.02f);
  for (int l = 0; l <= o.layers; ++l) r.x.push_back(alloc_floats(b * h));
  init_uniform<<<blocks_for(b * h), 256, 0, r.compute>>>(r.x[0], b * h, 77u + r.device, 1.f);
  for (int l = 0; l < o.layers; ++l) {
    typename Replica<T>::Saved s;
    s.ln1 = alloc_floats(b * h);
    s.qkv = alloc_floats(b * 3 * h);
    s.attn = alloc_floats(b * h);
    s.xmid = alloc_floats(b * h);
    s.ln2 = alloc_floats(b * h);
    s.up = alloc_floats(b * 4 * h);
    s.h = alloc_floats(b * 4 * h);
    r.saved.push_back(s);
  }
  r.dy = alloc_floats(b * h);
  r.dx = alloc_floats(b * h);
  r.dbig = alloc_floats(b * 4 * h);
  r.dln = alloc_floats(b * h);
  r.dxmid = alloc_floats(b * h);
  r.dattn = alloc_floats(b * h);
  r.dqkv = alloc_floats(b * 3 * h);
  r.bucket_ready.resize(nbuckets);
  for (auto& e : r.bucket_ready) CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  CHECK(cudaEventCreateWithFlags(&r.grads_reduced, cudaEventDisableTiming));
  CHECK(cudaEventCreate(&r.start));
  CHECK(cudaEventCreate(&r.stop));
  CHECK(cudaGetLastError());
}

template <typename T>
static void teardown(Replica<T>& r) {
  CHECK(cudaSetDevice(r.device));
  CHECK(cudaDeviceSynchronize());
  for (float* p : r.x) CHECK(cudaFree(p));
  std::vector<float*> buffers = {r.dy,    r.dx,   r.dbig,   r.dln,    r.dxmid,
                                 r.dattn, r.dqkv, r.params, r.adam_m, r.adam_v};
  for (auto& s : r.saved) {
    float* saved[] = {s.ln1, s.qkv, s.attn, s.xmid, s.ln2, s.up, s.h};
    buffers.insert(buffers.end(), saved, saved + 7);
  }
  for (float* p : buffers) CHECK(cudaFree(p));
  CHECK(cudaFree(r.grads));
  for (auto& e : r.bucket_ready) CHECK(cudaEventDestroy(e));
  CHECK(cudaEventDestroy(r.grads_reduced));
  CHECK(cudaEventDestroy(r.start));
  CHECK(cudaEventDestroy(r.stop));
  CHECK(cudaStreamDestroy(r.compute));
  CHECK(cudaStreamDestroy(r.comm_stream));
}

// Parameters of layer l: Wqkv (H x 3H), Wo (H x H), W1 (H x 4H), W2 (4H x H).
static size_t layer_params(size_t h) { return 12 * h * h; }

template <typename T>
static void forward_layer(Replica<T>& r, const Options& o, int l) {
  const int b = o.batch, h = o.hidden;
  const float* w = r.params + l * layer_params(h);
  const float *wqkv = w, *wo = w + 3 * size_t(h) * h, *w1 = w + 4 * size_t(h) * h,
              *w2 = w + 8 * size_t(h) * h;
  auto& s = r.saved[l];
  cudaStream_t st = r.compute;
  layernorm_fwd<<<b, 256, 0, st>>>(r.x[l], s.ln1, h);
  gemm<false, false>(st, b, 3 * h, h, s.ln1, wqkv, s.qkv);
  attention_mix_fwd<<<blocks_for(size_t(b) * h), 256, 0, st>>>(s.qkv, s.attn, b, h);
  gemm<false, false>(st, b, h, h, s.attn, wo, s.xmid, 0.f, r.x[l]);
  layernorm_fwd<<<b, 256, 0, st>>>(s.xmid, s.ln2, h);
  gemm<false, false>(st, b, 4 * h, h, s.ln2, w1, s.up);
  gelu_fwd<<<blocks_for(size_t(b) * 4 * h), 256, 0, st>>>(s.up, s.h, size_t(b) * 4 * h);
  gemm<false, false>(st, b, h, 4 * h, s.h, w2, r.x[l + 1], 0.f, s.xmid);
}

// Consumes r.dy (gradient of the layer's output), leaves the gradient of its input in r.dy and
// writes the layer's weight gradients.
template <typename T>
static void backward_layer(Replica<T>& r, const Options& o, int l) {
  const int b = o.batch, h = o.hidden;
  const size_t off = l * layer_params(h);
  const float* w = r.params + off;
  const float *wqkv = w, *wo = w + 3 * size_t(h) * h, *w1 = w + 4 * size_t(h) * h,
              *w2 = w + 8 * size_t(h) * h;
  T* g = r.grads + off;
  T *gqkv = g, *go = g + 3 * size_t(h) * h, *g1 = g + 4 * size_t(h) * h,
    *g2 = g + 8 * size_t(h) * h;
  auto& s = r.saved[l];
  cudaStream_t st = r.compute;
  gemm<true, false>(st, 4 * h, h, b, s.h, r.dy, g2);     // dW2 = h^T dy
  gemm<false, true>(st, b, 4 * h, h, r.dy, w2, r.dbig);  // dh = dy W2^T
  gelu_bwd<<<blocks_for(size_t(b) * 4 * h), 256, 0, st>>>(r.dbig, s.up, r.dbig, size_t(b) * 4 * h);
  gemm<true, false>(st, h, 4 * h, b, s.ln2, r.dbig, g1);  // dW1 = ln2^T dup
  gemm<false, true>(st, b, h, 4 * h, r.dbig, w1, r.dln);  // dln2 = dup W1^T
  layernorm_bwd<<<b, 256, 0, st>>>(r.dln, s.xmid, r.dy, r.dxmid, h);
  gemm<true, false>(st, h, h, b, s.attn, r.dxmid, go);   // dWo = attn^T dxmid
  gemm<false, true>(st, b, h, h, r.dxmid, wo, r.dattn);  // dattn = dxmid Wo^T
  attention_mix_bwd<<<blocks_for(size_t(b) * h), 256, 0, st>>>(r.dattn, s.qkv, r.dqkv, b, h);
  gemm<true, false>(st, h, 3 * h, b, s.ln1, r.dqkv, gqkv);  // dWqkv = ln1^T dqkv
  gemm<false, true>(st, b, h, 3 * h, r.dqkv, wqkv, r.dln);  // dln1 = dqkv Wqkv^T
  layernorm_bwd<<<b, 256, 0, st>>>(r.dln, r.x[l], r.dxmid, r.dx, h);
  std::swap(r.dy, r.dx);
}

template <typename T>
ncclDataType_t nccl_type();
template <>
ncclDataType_t nccl_type<float>() {
  return ncclFloat32;
}
template <>
ncclDataType_t nccl_type<__nv_bfloat16>() {
  return ncclBfloat16;
}

template <typename T>
static void train(Launch& launch, const Options& o) {
  const size_t h = o.hidden, b = o.batch;
  const size_t nparams = o.layers * layer_params(h);
  const int nbuckets = std::min(o.buckets, o.layers);
  // Bucket k holds layers [first[k], first[k+1]); buckets are reduced from the last one down.
  std::vector<int> bucket_of(o.layers), first(nbuckets + 1, o.layers);
  for (int l = o.layers - 1; l >= 0; --l) {
    bucket_of[l] = static_cast<int>(int64_t(l) * nbuckets / o.layers);
    first[bucket_of[l]] = l;
  }

  std::vector<Replica<T>> reps(launch.gpus);
  for (int i = 0; i < launch.gpus; ++i) {
    reps[i].device = launch.device[i];
    reps[i].comm = launch.comm[i];
    setup(reps[i], o, nparams, nbuckets);
  }
  for (auto& r : reps) {
    CHECK(cudaSetDevice(r.device));
    CHECK(cudaDeviceSynchronize());
  }

  const bool report = launch.proc == 0;
  if (report) {
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, launch.device[0]));
    std::printf("# dp_train: %d ranks (%d processes x %d GPUs), device %s\n", launch.nranks,
                launch.nprocs, launch.gpus, prop.name);
    std::printf("# model: %d layers, hidden %zu, %zu tokens per GPU, %.1f M parameters\n", o.layers,
                h, b, nparams / 1e6);
    std::printf("# gradients: %.1f MiB %s in %d buckets, all-reduced on a second stream\n",
                nparams * sizeof(T) / 1048576.0, o.dtype.c_str(), nbuckets);
    std::fflush(stdout);
  }

  double sum_events = 0, sum_chrono = 0;
  int counted = 0;
  const int first_counted = o.steps >= 2 ? 2 : 1;
  for (int step = 1; step <= o.steps; ++step) {
    const auto t0 = std::chrono::steady_clock::now();
    nvtxRangePushA(("train_step " + std::to_string(step)).c_str());
    for (auto& r : reps) {
      CHECK(cudaSetDevice(r.device));
      CHECK(cudaEventRecord(r.start, r.compute));
    }
    nvtxRangePushA("forward");
    for (int l = 0; l < o.layers; ++l)
      for (auto& r : reps) {
        CHECK(cudaSetDevice(r.device));
        forward_layer(r, o, l);
      }
    for (auto& r : reps) {
      CHECK(cudaSetDevice(r.device));
      loss_grad<<<blocks_for(b * h), 256, 0, r.compute>>>(r.x[o.layers], r.dy, b * h,
                                                          1.f / float(b * h));
    }
    nvtxRangePop();
    nvtxRangePushA("backward");
    for (int l = o.layers - 1; l >= 0; --l) {
      for (auto& r : reps) {
        CHECK(cudaSetDevice(r.device));
        backward_layer(r, o, l);
      }
      const int k = bucket_of[l];
      if (l != first[k]) continue;
      // Bucket k is complete: the communication stream waits for it, then all-reduces it while
      // the compute stream goes on with the layers below.
      const size_t off = first[k] * layer_params(h);
      const size_t count = (first[k + 1] - first[k]) * layer_params(h);
      for (auto& r : reps) {
        CHECK(cudaSetDevice(r.device));
        CHECK(cudaEventRecord(r.bucket_ready[k], r.compute));
        CHECK(cudaStreamWaitEvent(r.comm_stream, r.bucket_ready[k], 0));
      }
      NCCLCHECK(ncclGroupStart());
      for (auto& r : reps) {
        CHECK(cudaSetDevice(r.device));
        NCCLCHECK(ncclAllReduce(r.grads + off, r.grads + off, count, nccl_type<T>(), ncclAvg,
                                r.comm, r.comm_stream));
      }
      NCCLCHECK(ncclGroupEnd());
    }
    nvtxRangePop();
    nvtxRangePushA("optimizer");
    const float c1 = 1.f / (1.f - std::pow(0.9f, float(step)));
    const float c2 = 1.f / (1.f - std::pow(0.999f, float(step)));
    for (auto& r : reps) {
      CHECK(cudaSetDevice(r.device));
      CHECK(cudaEventRecord(r.grads_reduced, r.comm_stream));
      CHECK(cudaStreamWaitEvent(r.compute, r.grads_reduced, 0));
      adam_step<T><<<blocks_for(nparams), 256, 0, r.compute>>>(r.params, r.adam_m, r.adam_v,
                                                               r.grads, nparams, 1e-4f, c1, c2);
      CHECK(cudaGetLastError());
      CHECK(cudaEventRecord(r.stop, r.compute));
    }
    for (auto& r : reps) CHECK(cudaEventSynchronize(r.stop));
    nvtxRangePop();
    nvtxRangePop();
    const auto t1 = std::chrono::steady_clock::now();
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, reps[0].start, reps[0].stop));
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
  for (auto& r : reps) teardown(r);
}

static void usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s [--layers L] [--hidden H] [--batch TOKENS] [--steps N] "
               "[--buckets K] [--dtype float|bf16] [-g GPUS_PER_PROCESS]\n"
               "  one process per GPU under mpirun, or one process driving -g GPUs\n",
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

int main(int argc, char** argv) {
  Launch launch;
  launch_start(launch, &argc, &argv);

  Options o;
  for (int i = 1; i < argc; ++i) {
    const char* opt = argv[i];
    const char* v = nullptr;
    bool ok = true;
    if (take(i, argc, argv, "--layers", &v))
      ok = parse_int(v, &o.layers, 1);
    else if (take(i, argc, argv, "--hidden", &v))
      ok = parse_int(v, &o.hidden, 1);
    else if (take(i, argc, argv, "--batch", &v))
      ok = parse_int(v, &o.batch, 1);
    else if (take(i, argc, argv, "--steps", &v))
      ok = parse_int(v, &o.steps, 1);
    else if (take(i, argc, argv, "--buckets", &v))
      ok = parse_int(v, &o.buckets, 1);
    else if (take(i, argc, argv, "--dtype", &v)) {
      o.dtype = v;
      ok = o.dtype == "float" || o.dtype == "bf16";
    } else if (take(i, argc, argv, "-g", &v) || take(i, argc, argv, "--gpus", &v))
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

  launch_comms(launch, o.gpus);
  if (o.dtype == "bf16")
    train<__nv_bfloat16>(launch, o);
  else
    train<float>(launch, o);
  launch_finish(launch);
  return 0;
}

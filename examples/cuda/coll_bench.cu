// A collective benchmark in the manner of nccl-tests: for every operation (AllReduce, AllGather,
// ReduceScatter, Broadcast, Reduce, AlltoAll, SendRecv) and every message size it runs warm-up
// iterations, then times n iterations with CUDA events and std::chrono and prints one table row.
// With -G N the n timed iterations are captured into one CUDA graph per GPU (stream capture) and
// the graphs are launched N times: one host launch per GPU stands for n iterations' calls.
//
// Build (MPI is always linked; it is only initialized when launched by mpirun):
//   nvcc -ccbin mpicxx -cudart shared -O2 -o coll_bench coll_bench.cu -lnccl
// Run, one process per GPU:
//   mpirun -np 16 ./coll_bench -b 8 -e 128M -f 2
// or one process driving G GPUs (no MPI runtime needed):
//   ./coll_bench -g 8 -b 8 -e 128M -f 2
// and with the timed iterations replayed from CUDA graphs (nccl-tests' -G):
//   ./coll_bench -g 8 -b 8 -e 128M -f 2 -o allreduce -G 10
//
// Options: -b BYTES   smallest size (K, M, G suffixes are powers of 1024)      default 8
//          -e BYTES   largest size                                             default 128M
//          -f FACTOR  size multiplier between rows                             default 2
//          -i BYTES   size increment between rows, used when -f is 1           default 1M
//          -n ITERS   timed iterations per size                                default 20
//          -w ITERS   warm-up iterations per size                              default 5
//          -o OPS     all, or a comma-separated list of allreduce, allgather, reducescatter,
//                     broadcast, reduce, alltoall, sendrecv                    default all
//          -d TYPE    float, half or bf16                                      default float
//          -r ROOT    root rank of Broadcast and Reduce                        default 0
//          -a 0|1     AlltoAll as ncclAlltoAll (1) or as grouped ncclSend/ncclRecv (0, like
//                     nccl-tests)                                              default 0
//          -g G       GPUs driven by each process                              default 1
//          -G N       CUDA graph mode: capture the n timed iterations into a graph
//                     per GPU and launch it N times (0: no graphs)             default 0
//
// Sizes follow nccl-tests: for AllGather, ReduceScatter and AlltoAll the size is the whole buffer
// (nranks x the per-rank piece) and the count is rounded down to a multiple of nranks.
// algbw = size / time; busbw = algbw x 2(n-1)/n for AllReduce, (n-1)/n for AllGather,
// ReduceScatter and AlltoAll, 1 for Broadcast, Reduce and SendRecv (a ring shift: rank r sends to
// r+1 and receives from r-1).
//
// Output (rank 0): comment lines start with '#'. Each operation has a section headed
//   # op: <Name> nranks: <N>
// followed by a column header (a comment) and one row per size:
//   size(B) count type redop root time(us) algbw(GB/s) busbw(GB/s) host(us)
// time(us) is CUDA-event time per iteration on rank 0's stream; host(us) is std::chrono time per
// iteration on rank 0 (from before the first launch to after the stream synchronize). Under -G N
// both are divided by N x n iterations, and the capture and instantiation are outside them. type
// and redop are words (float, sum, none), root is -1 for operations without one.

#include <cuda_runtime.h>
#define OMPI_SKIP_MPICXX 1  // the MPI C API is all these programs use
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
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
// The benchmark

enum Op { kAllReduce, kAllGather, kReduceScatter, kBroadcast, kReduce, kAlltoAll, kSendRecv, kOps };
const char* const kOpName[kOps] = {"AllReduce", "AllGather", "ReduceScatter", "Broadcast",
                                   "Reduce",    "AlltoAll",  "SendRecv"};
const char* const kOpArg[kOps] = {"allreduce", "allgather", "reducescatter", "broadcast",
                                  "reduce",    "alltoall",  "sendrecv"};

static bool reduces(Op op) { return op == kAllReduce || op == kReduceScatter || op == kReduce; }
static bool rooted(Op op) { return op == kBroadcast || op == kReduce; }
// Operations whose buffer is split into nranks pieces.
static bool split(Op op) { return op == kAllGather || op == kReduceScatter || op == kAlltoAll; }

static double bus_factor(Op op, int n) {
  switch (op) {
    case kAllReduce:
      return 2.0 * (n - 1) / n;
    case kAllGather:
    case kReduceScatter:
    case kAlltoAll:
      return double(n - 1) / n;
    default:
      return 1.0;
  }
}

struct Options {
  size_t min_bytes = 8;
  size_t max_bytes = size_t{128} << 20;
  double factor = 2;
  size_t step_bytes = size_t{1} << 20;
  int iters = 20;
  int warmup = 5;
  std::vector<Op> ops;
  std::string dtype = "float";
  int root = 0;
  int native_alltoall = 0;
  int gpus = 1;
  int graph_launches = 0;
};

struct Gpu {
  int device = 0;
  int rank = 0;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  char* send = nullptr;
  char* recv = nullptr;
};

// One iteration of an operation on every local GPU; several GPUs of one thread form one group.
// count is the whole buffer in elements (see the sizes note at the top).
static void issue(Op op, std::vector<Gpu>& gpus, int nranks, size_t count, ncclDataType_t type,
                  size_t type_size, const Options& o) {
  const size_t piece = count / nranks;
  NCCLCHECK(ncclGroupStart());
  for (Gpu& g : gpus) {
    CHECK(cudaSetDevice(g.device));
    switch (op) {
      case kAllReduce:
        NCCLCHECK(ncclAllReduce(g.send, g.recv, count, type, ncclSum, g.comm, g.stream));
        break;
      case kAllGather:
        NCCLCHECK(ncclAllGather(g.send, g.recv, piece, type, g.comm, g.stream));
        break;
      case kReduceScatter:
        NCCLCHECK(ncclReduceScatter(g.send, g.recv, piece, type, ncclSum, g.comm, g.stream));
        break;
      case kBroadcast:
        NCCLCHECK(ncclBroadcast(g.send, g.recv, count, type, o.root, g.comm, g.stream));
        break;
      case kReduce:
        NCCLCHECK(ncclReduce(g.send, g.recv, count, type, ncclSum, o.root, g.comm, g.stream));
        break;
      case kAlltoAll:
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 3)
        if (o.native_alltoall) {
          NCCLCHECK(ncclAlltoAll(g.send, g.recv, piece, type, g.comm, g.stream));
          break;
        }
#endif
        NCCLCHECK(ncclGroupStart());
        for (int peer = 0; peer < nranks; ++peer) {
          NCCLCHECK(
              ncclSend(g.send + peer * piece * type_size, piece, type, peer, g.comm, g.stream));
          NCCLCHECK(
              ncclRecv(g.recv + peer * piece * type_size, piece, type, peer, g.comm, g.stream));
        }
        NCCLCHECK(ncclGroupEnd());
        break;
      case kSendRecv:
        NCCLCHECK(ncclGroupStart());
        NCCLCHECK(ncclSend(g.send, count, type, (g.rank + 1) % nranks, g.comm, g.stream));
        NCCLCHECK(ncclRecv(g.recv, count, type, (g.rank + nranks - 1) % nranks, g.comm, g.stream));
        NCCLCHECK(ncclGroupEnd());
        break;
      default:
        break;
    }
  }
  NCCLCHECK(ncclGroupEnd());
}

static void synchronize(std::vector<Gpu>& gpus) {
  for (Gpu& g : gpus) {
    CHECK(cudaSetDevice(g.device));
    CHECK(cudaStreamSynchronize(g.stream));
  }
}

// -G: the timed iterations captured into one graph per local GPU. The GPUs of one thread are
// captured together, as their calls form NCCL groups across them.
static std::vector<cudaGraphExec_t> capture(Op op, std::vector<Gpu>& gpus, int nranks, size_t count,
                                            ncclDataType_t type, size_t type_size,
                                            const Options& o) {
  for (Gpu& g : gpus) {
    CHECK(cudaSetDevice(g.device));
    CHECK(cudaStreamBeginCapture(g.stream, cudaStreamCaptureModeThreadLocal));
  }
  for (int it = 0; it < o.iters; ++it) issue(op, gpus, nranks, count, type, type_size, o);
  std::vector<cudaGraphExec_t> execs(gpus.size());
  for (size_t i = 0; i < gpus.size(); ++i) {
    CHECK(cudaSetDevice(gpus[i].device));
    cudaGraph_t graph = nullptr;
    CHECK(cudaStreamEndCapture(gpus[i].stream, &graph));
    CHECK(cudaGraphInstantiate(&execs[i], graph, 0));
    CHECK(cudaGraphDestroy(graph));
  }
  return execs;
}

struct Timing {
  double time_us = 0;  // CUDA-event time per iteration
  double host_us = 0;  // std::chrono time per iteration
};

// The timed iterations, issued one by one or (-G N) as N launches of the captured graphs.
static Timing time_iterations(Op op, std::vector<Gpu>& gpus, int nranks, size_t count,
                              ncclDataType_t type, size_t type_size, const Options& o,
                              cudaEvent_t start, cudaEvent_t stop) {
  std::vector<cudaGraphExec_t> execs;
  if (o.graph_launches > 0) execs = capture(op, gpus, nranks, count, type, type_size, o);

  CHECK(cudaSetDevice(gpus[0].device));
  const auto t0 = std::chrono::steady_clock::now();
  CHECK(cudaEventRecord(start, gpus[0].stream));
  if (execs.empty()) {
    for (int it = 0; it < o.iters; ++it) issue(op, gpus, nranks, count, type, type_size, o);
  } else {
    for (int launch = 0; launch < o.graph_launches; ++launch) {
      for (size_t i = 0; i < gpus.size(); ++i) {
        CHECK(cudaSetDevice(gpus[i].device));
        CHECK(cudaGraphLaunch(execs[i], gpus[i].stream));
      }
    }
  }
  CHECK(cudaSetDevice(gpus[0].device));
  CHECK(cudaEventRecord(stop, gpus[0].stream));
  synchronize(gpus);
  const auto t1 = std::chrono::steady_clock::now();

  for (size_t i = 0; i < execs.size(); ++i) {
    CHECK(cudaSetDevice(gpus[i].device));
    CHECK(cudaGraphExecDestroy(execs[i]));
  }
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  const double iterations = double(o.iters) * std::max(1, o.graph_launches);
  Timing t;
  t.time_us = 1000.0 * ms / iterations;
  t.host_us = std::chrono::duration<double, std::micro>(t1 - t0).count() / iterations;
  return t;
}

static void usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s [-b MINBYTES] [-e MAXBYTES] [-f FACTOR] [-i STEPBYTES] [-n ITERS] "
               "[-w WARMUP] [-o all|allreduce,allgather,reducescatter,broadcast,reduce,"
               "alltoall,sendrecv] [-d float|half|bf16] [-r ROOT] [-a 0|1] [-g GPUS] "
               "[-G GRAPH_LAUNCHES]\n"
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

// "8", "64K", "128M", "1G" (powers of 1024, an optional trailing B).
static bool parse_bytes(const char* s, size_t* out) {
  char* end = nullptr;
  const double v = std::strtod(s, &end);
  if (end == s || !(v >= 0)) return false;
  double scale = 1;
  switch (*end) {
    case 'k':
    case 'K':
      scale = 1024.0;
      ++end;
      break;
    case 'm':
    case 'M':
      scale = 1048576.0;
      ++end;
      break;
    case 'g':
    case 'G':
      scale = 1073741824.0;
      ++end;
      break;
    default:
      break;
  }
  if (*end == 'b' || *end == 'B') ++end;
  if (*end != '\0' || v * scale > 1e15) return false;
  *out = static_cast<size_t>(v * scale);
  return true;
}

static bool parse_ops(const char* s, std::vector<Op>* ops) {
  ops->clear();
  std::string list = s;
  if (list == "all") {
    for (int k = 0; k < kOps; ++k) ops->push_back(Op(k));
    return true;
  }
  size_t pos = 0;
  while (pos <= list.size()) {
    const size_t comma = std::min(list.find(',', pos), list.size());
    const std::string name = list.substr(pos, comma - pos);
    int k = 0;
    while (k < kOps && name != kOpArg[k]) ++k;
    if (k == kOps) return false;
    ops->push_back(Op(k));
    pos = comma + 1;
  }
  return !ops->empty();
}

int main(int argc, char** argv) {
  Launch launch;
  launch_start(launch, &argc, &argv);

  Options o;
  parse_ops("all", &o.ops);
  for (int i = 1; i < argc; ++i) {
    const char* opt = argv[i];
    const char* v = nullptr;
    bool ok = true;
    if (take(i, argc, argv, "-b", &v) || take(i, argc, argv, "--minbytes", &v))
      ok = parse_bytes(v, &o.min_bytes);
    else if (take(i, argc, argv, "-e", &v) || take(i, argc, argv, "--maxbytes", &v))
      ok = parse_bytes(v, &o.max_bytes);
    else if (take(i, argc, argv, "-f", &v) || take(i, argc, argv, "--stepfactor", &v)) {
      char* end = nullptr;
      o.factor = std::strtod(v, &end);
      ok = end != v && *end == '\0' && o.factor >= 1 && o.factor <= 1024;
    } else if (take(i, argc, argv, "-i", &v) || take(i, argc, argv, "--stepbytes", &v))
      ok = parse_bytes(v, &o.step_bytes) && o.step_bytes > 0;
    else if (take(i, argc, argv, "-n", &v) || take(i, argc, argv, "--iters", &v))
      ok = parse_int(v, &o.iters, 1);
    else if (take(i, argc, argv, "-w", &v) || take(i, argc, argv, "--warmup_iters", &v))
      ok = parse_int(v, &o.warmup, 0);
    else if (take(i, argc, argv, "-o", &v) || take(i, argc, argv, "--ops", &v))
      ok = parse_ops(v, &o.ops);
    else if (take(i, argc, argv, "-d", &v) || take(i, argc, argv, "--datatype", &v)) {
      o.dtype = v;
      if (o.dtype == "fp32" || o.dtype == "float32") o.dtype = "float";
      if (o.dtype == "fp16" || o.dtype == "float16") o.dtype = "half";
      if (o.dtype == "bfloat16") o.dtype = "bf16";
      ok = o.dtype == "float" || o.dtype == "half" || o.dtype == "bf16";
    } else if (take(i, argc, argv, "-r", &v) || take(i, argc, argv, "--root", &v))
      ok = parse_int(v, &o.root, 0);
    else if (take(i, argc, argv, "-a", &v) || take(i, argc, argv, "--native_alltoall", &v))
      ok = parse_int(v, &o.native_alltoall, 0) && o.native_alltoall <= 1;
    else if (take(i, argc, argv, "-g", &v) || take(i, argc, argv, "--ngpus", &v))
      ok = parse_int(v, &o.gpus, 1);
    else if (take(i, argc, argv, "-G", &v) || take(i, argc, argv, "--cudagraph", &v))
      ok = parse_int(v, &o.graph_launches, 0);
    else {
      if (launch.proc == 0) usage(argv[0]);
      fail(launch, std::string("unknown or incomplete option: ") + opt);
    }
    if (!ok) {
      if (launch.proc == 0) usage(argv[0]);
      fail(launch, std::string("bad value for ") + opt + ": " + v);
    }
  }
  if (o.min_bytes > o.max_bytes) fail(launch, "coll_bench: -b is larger than -e");
  if (o.factor > 1 && o.min_bytes == 0) fail(launch, "coll_bench: -b 0 needs -f 1 and -i");
#if NCCL_VERSION_CODE < NCCL_VERSION(2, 28, 3)
  if (o.native_alltoall) fail(launch, "coll_bench: this NCCL has no ncclAlltoAll; use -a 0");
#endif

  launch_comms(launch, o.gpus);
  const int nranks = launch.nranks;
  if (o.root >= nranks) fail(launch, "coll_bench: -r must be below the number of ranks");
  const ncclDataType_t type = o.dtype == "float"  ? ncclFloat32
                              : o.dtype == "half" ? ncclFloat16
                                                  : ncclBfloat16;
  const size_t type_size = o.dtype == "float" ? 4 : 2;

  std::vector<Gpu> gpus(launch.gpus);
  const size_t buffer_bytes = std::max<size_t>(o.max_bytes, type_size);
  for (int i = 0; i < launch.gpus; ++i) {
    Gpu& g = gpus[i];
    g.device = launch.device[i];
    g.rank = launch.rank[i];
    g.comm = launch.comm[i];
    CHECK(cudaSetDevice(g.device));
    CHECK(cudaStreamCreateWithFlags(&g.stream, cudaStreamNonBlocking));
    CHECK(cudaMalloc(&g.send, buffer_bytes));
    CHECK(cudaMalloc(&g.recv, buffer_bytes));
    CHECK(cudaMemsetAsync(g.send, 1, buffer_bytes, g.stream));
    CHECK(cudaMemsetAsync(g.recv, 0, buffer_bytes, g.stream));
  }
  synchronize(gpus);
  CHECK(cudaSetDevice(gpus[0].device));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));

  const bool report = launch.proc == 0;
  if (report) {
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, gpus[0].device));
    std::printf("# coll_bench: nranks %d (%d processes x %d GPUs), device %s\n", nranks,
                launch.nprocs, launch.gpus, prop.name);
    std::printf("# dtype %s, iters %d, warmup %d, root %d, AlltoAll as %s\n", o.dtype.c_str(),
                o.iters, o.warmup, o.root,
                o.native_alltoall ? "ncclAlltoAll" : "grouped ncclSend/ncclRecv");
    if (o.graph_launches > 0) {
      std::printf("# CUDA graphs: %d launches of a graph of %d iterations per GPU\n",
                  o.graph_launches, o.iters);
    }
    std::fflush(stdout);
  }

  double busbw_sum = 0;
  int rows = 0;
  for (Op op : o.ops) {
    if (report) {
      std::printf("#\n# op: %s nranks: %d\n", kOpName[op], nranks);
      std::printf("# %10s %12s %8s %6s %6s %10s %11s %11s %10s\n", "size(B)", "count", "type",
                  "redop", "root", "time(us)", "algbw(GB/s)", "busbw(GB/s)", "host(us)");
      std::fflush(stdout);
    }
    for (size_t size = o.min_bytes; size <= o.max_bytes;) {
      size_t count = size / type_size;
      if (split(op)) count = count / nranks * nranks;
      const size_t bytes = count * type_size;

      for (int it = 0; it < o.warmup; ++it) issue(op, gpus, nranks, count, type, type_size, o);
      synchronize(gpus);

      const Timing t = time_iterations(op, gpus, nranks, count, type, type_size, o, start, stop);
      const double time_us = t.time_us;
      const double host_us = t.host_us;
      const double algbw = time_us > 0 ? bytes / 1e3 / time_us : 0.0;  // GB/s
      const double busbw = algbw * bus_factor(op, nranks);
      busbw_sum += busbw;
      ++rows;
      if (report) {
        std::printf("%12zu %12zu %8s %6s %6d %10.2f %11.2f %11.2f %10.2f\n", bytes, count,
                    o.dtype.c_str(), reduces(op) ? "sum" : "none", rooted(op) ? o.root : -1,
                    time_us, algbw, busbw, host_us);
        std::fflush(stdout);
      }

      const size_t next = o.factor > 1 ? static_cast<size_t>(size * o.factor) : size + o.step_bytes;
      if (next <= size) break;
      size = next;
    }
  }
  if (report && rows > 0)
    std::printf("#\n# avg busbw: %.2f GB/s over %d rows\n", busbw_sum / rows, rows);

  CHECK(cudaSetDevice(gpus[0].device));
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  for (Gpu& g : gpus) {
    CHECK(cudaSetDevice(g.device));
    CHECK(cudaFree(g.send));
    CHECK(cudaFree(g.recv));
    CHECK(cudaStreamDestroy(g.stream));
  }
  launch_finish(launch);
  return 0;
}

// CUDA graphs under Seer: a captured graph of kernels, a copy and a memset replayed K times
// (timed with events, host time per launch with std::chrono), the bytes of its copies moving
// at replay, a host node, a fork/join capture across two streams, and capture misuse.

#include <atomic>
#include <thread>
#include <vector>

#include "../../e2e/programs/common.h"

__global__ void work() {}

namespace {

constexpr int kKernels = 8;
constexpr int kReplays = 5;
constexpr unsigned kGrid = 65536, kBlock = 256;
constexpr size_t kCopyBytes = size_t{64} << 20;
constexpr size_t kSmall = 256;
constexpr size_t kForkCopyBytes = size_t{1} << 20;

int g_host_calls = 0;
void count_call(void *) { ++g_host_calls; }

void result_err(const char *name, cudaError_t e) { result_int(name, static_cast<long long>(e)); }

void timed_replay() {
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  void *a, *b, *small_a, *small_b;
  CHECK(cudaMalloc(&a, kCopyBytes));
  CHECK(cudaMalloc(&b, kCopyBytes));
  CHECK(cudaMalloc(&small_a, kSmall));
  CHECK(cudaMalloc(&small_b, kSmall));
  CHECK(cudaMemset(small_a, 0, kSmall));
  CHECK(cudaMemset(small_b, 0, kSmall));

  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
  CHECK(cudaStreamIsCapturing(s, &st));
  result_int("capturing_status", st);
  for (int i = 0; i < kKernels; ++i) work<<<kGrid, kBlock, 0, s>>>();
  CHECK(cudaMemcpyAsync(b, a, kCopyBytes, cudaMemcpyDeviceToDevice, s));
  CHECK(cudaMemsetAsync(a, 0, kCopyBytes, s));
  // The bytes: a small memset then a copy, effective at replay only.
  CHECK(cudaMemsetAsync(small_a, 7, kSmall, s));
  CHECK(cudaMemcpyAsync(small_b, small_a, kSmall, cudaMemcpyDeviceToDevice, s));
  unsigned long long id = 0;
  size_t ndeps = 0;
  CHECK(cudaStreamGetCaptureInfo(s, &st, &id, nullptr, nullptr, nullptr, &ndeps));
  result_int("capture_deps", static_cast<long long>(ndeps));
  cudaGraph_t g;
  CHECK(cudaStreamEndCapture(s, &g));
  CHECK(cudaStreamIsCapturing(s, &st));
  result_int("after_status", st);
  size_t nodes = 0;
  CHECK(cudaGraphGetNodes(g, nullptr, &nodes));
  result_int("nodes", static_cast<long long>(nodes));
  cudaGraphExec_t x;
  CHECK(cudaGraphInstantiate(&x, g, 0));

  unsigned char bytes[kSmall];
  CHECK(cudaMemcpy(bytes, small_b, kSmall, cudaMemcpyDeviceToHost));
  result_int("byte_before_replay", bytes[0]);

  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  // The blocker keeps the GPU busy: the replays run back to back behind it.
  blocker<<<kBlockerBlocks, kBlockerThreads, 0, s>>>();
  CHECK(cudaEventRecord(e0, s));
  const int64_t t0 = now_ns();
  for (int i = 0; i < kReplays; ++i) CHECK(cudaGraphLaunch(x, s));
  const int64_t t1 = now_ns();
  CHECK(cudaEventRecord(e1, s));
  CHECK(cudaStreamSynchronize(s));
  result_ms("replays_ms", elapsed_ms(e0, e1));
  result_int("graph_launches_host_ns", t1 - t0);
  CHECK(cudaMemcpy(bytes, small_b, kSmall, cudaMemcpyDeviceToHost));
  result_int("byte_after_replay", bytes[0]);

  // The same ops launched one by one, for the host time.
  const int64_t t2 = now_ns();
  for (int i = 0; i < kKernels; ++i) work<<<kGrid, kBlock, 0, s>>>();
  const int64_t t3 = now_ns();
  result_int("kernel_launches_host_ns", t3 - t2);
  CHECK(cudaStreamSynchronize(s));

  CHECK(cudaGraphExecDestroy(x));
  CHECK(cudaGraphDestroy(g));

  // A host node runs at each replay, not at capture.
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CHECK(cudaLaunchHostFunc(s, count_call, nullptr));
  CHECK(cudaStreamEndCapture(s, &g));
  CHECK(cudaGraphInstantiate(&x, g, 0));
  result_int("host_calls_before_replay", g_host_calls);
  for (int i = 0; i < 3; ++i) CHECK(cudaGraphLaunch(x, s));
  CHECK(cudaStreamSynchronize(s));
  result_int("host_calls_after_replay", g_host_calls);
  CHECK(cudaGraphExecDestroy(x));
  CHECK(cudaGraphDestroy(g));
  CHECK(cudaEventDestroy(e0));
  CHECK(cudaEventDestroy(e1));
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  CHECK(cudaStreamDestroy(s));
}

void fork_join() {
  cudaStream_t s1, s2;
  CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  cudaEvent_t fork, join;
  CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));

  void *host, *dev;
  CHECK(cudaMallocHost(&host, kForkCopyBytes));
  CHECK(cudaMalloc(&dev, kForkCopyBytes));

  // A kernel, then a copy on s2 beside a kernel on s1, then a kernel after both.
  CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  work<<<1, 32, 0, s1>>>();
  CHECK(cudaEventRecord(fork, s1));
  CHECK(cudaStreamWaitEvent(s2, fork, 0));
  cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
  CHECK(cudaStreamIsCapturing(s2, &st));
  result_int("fork_joined_status", st);
  result_err("fork_event_query", cudaEventQuery(fork));
  CHECK(cudaMemcpyAsync(dev, host, kForkCopyBytes, cudaMemcpyHostToDevice, s2));
  work<<<1, 32, 0, s1>>>();
  CHECK(cudaEventRecord(join, s2));
  CHECK(cudaStreamWaitEvent(s1, join, 0));
  work<<<1, 32, 0, s1>>>();
  cudaGraph_t g;
  result_err("fork_end", cudaStreamEndCapture(s1, &g));
  size_t n = 0;
  CHECK(cudaGraphGetNodes(g, nullptr, &n));
  result_int("fork_nodes", static_cast<long long>(n));
  std::vector<cudaGraphNode_t> nodes(n);
  CHECK(cudaGraphGetNodes(g, nodes.data(), &n));
  size_t last_deps = 0;
  CHECK(cudaGraphNodeGetDependencies(nodes[n - 1], nullptr, nullptr, &last_deps));
  result_int("fork_last_node_deps", static_cast<long long>(last_deps));
  CHECK(cudaStreamIsCapturing(s2, &st));
  result_int("fork_s2_after_status", st);
  cudaGraphExec_t x;
  CHECK(cudaGraphInstantiateWithFlags(&x, g, 0));
  // The two branches replay side by side: the copy overlaps the kernel beside it.
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  for (int i = 0; i < 2; ++i) {
    blocker<<<kBlockerBlocks, kBlockerThreads, 0, s1>>>();
    CHECK(cudaEventRecord(e0, s1));
    CHECK(cudaGraphLaunch(x, s1));
    CHECK(cudaEventRecord(e1, s1));
    CHECK(cudaStreamSynchronize(s1));
    result_ms(i == 0 ? "fork_replay_ms" : "fork_replay_again_ms", elapsed_ms(e0, e1));
  }
  CHECK(cudaGraphExecDestroy(x));
  CHECK(cudaGraphDestroy(g));

  // A fork that never joins back.
  CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  CHECK(cudaEventRecord(fork, s1));
  CHECK(cudaStreamWaitEvent(s2, fork, 0));
  work<<<1, 32, 0, s2>>>();
  result_err("unjoined_end", cudaStreamEndCapture(s1, &g));
}

void misuse() {
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  cudaGraph_t g = nullptr;
  result_err("end_not_capturing", cudaStreamEndCapture(s, &g));
  result_err("capture_legacy", cudaStreamBeginCapture(0, cudaStreamCaptureModeGlobal));

  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  result_err("begin_twice", cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  result_err("sync_capturing", cudaStreamSynchronize(s));
  result_err("launch_after_invalidation", (work<<<1, 1, 0, s>>>(), cudaGetLastError()));
  result_err("end_invalidated", cudaStreamEndCapture(s, &g));
  result_int("end_invalidated_graph_null", g == nullptr);

  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  result_err("query_capturing", cudaStreamQuery(s));
  result_err("end_after_query", cudaStreamEndCapture(s, &g));

  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  work<<<1, 1>>>();  // the legacy stream would wait for the capturing (blocking) stream
  result_err("legacy_launch", cudaGetLastError());
  result_err("end_after_legacy", cudaStreamEndCapture(s, &g));

  // The thread's capture interaction mode.
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  CHECK(cudaThreadExchangeStreamCaptureMode(&mode));
  result_int("previous_mode", mode);
  CHECK(cudaThreadExchangeStreamCaptureMode(&mode));
  result_int("restored_mode", mode);
  CHECK(cudaStreamDestroy(s));
}

}  // namespace

// A user object's destructor runs after its graph is gone, not inside the destroy call, and
// once the program synchronizes (CUDA runs it later, on a thread of its own).
std::atomic<int> g_destroyed{0};
void destroy_user_object(void *p) { g_destroyed.fetch_add(*static_cast<int *>(p)); }

void user_object() {
  static int one = 1;
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  cudaGraph_t g;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  work<<<1, 32, 0, s>>>();
  CHECK(cudaStreamEndCapture(s, &g));
  cudaUserObject_t o;
  CHECK(cudaUserObjectCreate(&o, &one, destroy_user_object, 1, cudaUserObjectNoDestructorSync));
  CHECK(cudaGraphRetainUserObject(g, o, 1, cudaGraphUserObjectMove));
  cudaGraphExec_t x;
  CHECK(cudaGraphInstantiate(&x, g, 0));
  CHECK(cudaGraphDestroy(g));
  CHECK(cudaGraphExecDestroy(x));
  result_int("user_object_destroyed_at_destroy", g_destroyed.load());
  CHECK(cudaStreamSynchronize(s));
  for (int i = 0; i < 2000 && g_destroyed.load() == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  result_int("user_object_destroyed_after_sync", g_destroyed.load());
  CHECK(cudaStreamDestroy(s));
}

int main() {
  timed_replay();
  fork_join();
  misuse();
  user_object();
  result_int("done", 1);
  return 0;
}

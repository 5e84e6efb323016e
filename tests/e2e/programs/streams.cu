// Streams: cross-stream dependencies with cudaStreamWaitEvent, overlap of a kernel and a copy on
// independent streams, legacy default stream semantics (blocking and non-blocking streams),
// which record of an event a wait refers to, FIFO service of a copy engine, and polling with
// cudaStreamQuery / cudaEventQuery. The kernel is the blocker (1000 waves) and the copies move
// 64 MiB from pinned memory.
#include "common.h"

namespace {

constexpr size_t kBytes = size_t{64} << 20;

cudaEvent_t make_event() {
  cudaEvent_t e;
  CHECK(cudaEventCreate(&e));
  return e;
}

void kernel_on(cudaStream_t s) { blocker<<<kBlockerBlocks, kBlockerThreads, 0, s>>>(); }

}  // namespace

int main() {
  CHECK(cudaSetDevice(0));
  cudaStream_t s1, s2, s3;
  CHECK(cudaStreamCreate(&s1));
  CHECK(cudaStreamCreate(&s2));
  CHECK(cudaStreamCreateWithFlags(&s3, cudaStreamNonBlocking));
  void *da = nullptr, *db = nullptr, *host = nullptr;
  CHECK(cudaMalloc(&da, kBytes));
  CHECK(cudaMalloc(&db, kBytes));
  CHECK(cudaMallocHost(&host, kBytes));
  cudaEvent_t e0 = make_event(), e1 = make_event(), e2 = make_event(), ev = make_event();

  // S1: s2 waits for the kernel on s1 before its copy.
  CHECK(cudaDeviceSynchronize());
  {
    const int64_t t0 = now_ns();
    CHECK(cudaEventRecord(e0, s1));
    kernel_on(s1);
    CHECK(cudaEventRecord(ev, s1));
    CHECK(cudaStreamWaitEvent(s2, ev, 0));
    CHECK(cudaMemcpyAsync(da, host, kBytes, cudaMemcpyHostToDevice, s2));
    CHECK(cudaEventRecord(e2, s2));
    CHECK(cudaStreamSynchronize(s2));
    const int64_t t1 = now_ns();
    result_int("s1_chrono_ns", t1 - t0);
    result_ms("s1_ms", elapsed_ms(e0, e2));
  }

  // S2: the same without the wait: the copy overlaps the kernel.
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaEventRecord(e0, s1));
  kernel_on(s1);
  CHECK(cudaMemcpyAsync(da, host, kBytes, cudaMemcpyHostToDevice, s2));
  CHECK(cudaEventRecord(e1, s1));
  CHECK(cudaEventRecord(e2, s2));
  CHECK(cudaDeviceSynchronize());
  result_ms("s2_kernel_ms", elapsed_ms(e0, e1));
  result_ms("s2_copy_ms", elapsed_ms(e0, e2));

  // S3: the legacy default stream waits for blocking streams, and they wait for it.
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaEventRecord(e0, s1));
  kernel_on(s1);
  CHECK(cudaMemcpyAsync(da, host, kBytes, cudaMemcpyHostToDevice, 0));
  CHECK(cudaEventRecord(e1, 0));
  CHECK(cudaMemcpyAsync(host, db, kBytes, cudaMemcpyDeviceToHost, s2));
  CHECK(cudaEventRecord(e2, s2));
  CHECK(cudaDeviceSynchronize());
  result_ms("s3_legacy_ms", elapsed_ms(e0, e1));
  result_ms("s3_after_legacy_ms", elapsed_ms(e0, e2));

  // S4: a non-blocking stream does not synchronize with the legacy default stream.
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaEventRecord(e0, s3));
  kernel_on(s3);
  CHECK(cudaMemcpyAsync(da, host, kBytes, cudaMemcpyHostToDevice, 0));
  CHECK(cudaEventRecord(e1, 0));
  CHECK(cudaDeviceSynchronize());
  result_ms("s4_nonblocking_ms", elapsed_ms(e0, e1));

  // S5: a wait refers to the event's latest record at the time of the call, not a later one.
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaEventRecord(e0, s3));
  CHECK(cudaEventRecord(ev, s2));
  CHECK(cudaStreamWaitEvent(s3, ev, 0));
  kernel_on(s1);
  CHECK(cudaEventRecord(ev, s1));
  CHECK(cudaMemcpyAsync(da, host, kBytes, cudaMemcpyHostToDevice, s3));
  CHECK(cudaEventRecord(e1, s3));
  CHECK(cudaDeviceSynchronize());
  result_ms("s5_earlier_record_ms", elapsed_ms(e0, e1));

  // S6: two copies become ready at the same time on one engine: served in submission order.
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaEventRecord(e0, s1));
  kernel_on(s1);
  CHECK(cudaEventRecord(ev, s1));
  CHECK(cudaStreamWaitEvent(s3, ev, 0));
  CHECK(cudaStreamWaitEvent(s2, ev, 0));
  CHECK(cudaMemcpyAsync(da, host, kBytes, cudaMemcpyHostToDevice, s3));
  CHECK(cudaMemcpyAsync(db, host, kBytes, cudaMemcpyHostToDevice, s2));
  CHECK(cudaEventRecord(e1, s3));
  CHECK(cudaEventRecord(e2, s2));
  CHECK(cudaDeviceSynchronize());
  result_ms("s6_first_ms", elapsed_ms(e0, e1));
  result_ms("s6_second_ms", elapsed_ms(e0, e2));

  // S7: polling a stream until its kernel is done.
  CHECK(cudaDeviceSynchronize());
  {
    const int64_t t0 = now_ns();
    kernel_on(s1);
    long long not_ready = 0;
    cudaError_t rc;
    while ((rc = cudaStreamQuery(s1)) == cudaErrorNotReady) ++not_ready;
    const int64_t t1 = now_ns();
    result_int("s7_rc", rc);
    result_int("s7_not_ready", not_ready);
    result_int("s7_chrono_ns", t1 - t0);
  }

  // S8: polling an event recorded after the kernel.
  CHECK(cudaDeviceSynchronize());
  {
    const int64_t t0 = now_ns();
    kernel_on(s1);
    CHECK(cudaEventRecord(ev, s1));
    long long not_ready = 0;
    cudaError_t rc;
    while ((rc = cudaEventQuery(ev)) == cudaErrorNotReady) ++not_ready;
    const int64_t t1 = now_ns();
    result_int("s8_rc", rc);
    result_int("s8_not_ready", not_ready);
    result_int("s8_chrono_ns", t1 - t0);
  }

  // S9: waiting for an event that was never recorded is a no-op.
  CHECK(cudaDeviceSynchronize());
  {
    cudaEvent_t never = make_event();
    CHECK(cudaEventRecord(e0, s3));
    CHECK(cudaStreamWaitEvent(s3, never, 0));
    CHECK(cudaMemcpyAsync(da, host, kBytes, cudaMemcpyHostToDevice, s3));
    CHECK(cudaEventRecord(e1, s3));
    CHECK(cudaDeviceSynchronize());
    result_ms("s9_unrecorded_wait_ms", elapsed_ms(e0, e1));
    CHECK(cudaEventDestroy(never));
  }

  // S10: GPUs run concurrently, and cudaDeviceSynchronize waits for the current device only.
  CHECK(cudaDeviceSynchronize());
  {
    const int64_t t0 = now_ns();
    kernel_on(0);
    CHECK(cudaSetDevice(1));
    kernel_on(0);
    CHECK(cudaDeviceSynchronize());
    const int64_t t1 = now_ns();
    result_int("s10_two_gpus_ns", t1 - t0);
    CHECK(cudaSetDevice(0));
    CHECK(cudaDeviceSynchronize());
    const int64_t t2 = now_ns();
    CHECK(cudaSetDevice(1));
    kernel_on(0);
    CHECK(cudaSetDevice(0));
    CHECK(cudaDeviceSynchronize());
    const int64_t t3 = now_ns();
    CHECK(cudaSetDevice(1));
    CHECK(cudaDeviceSynchronize());
    const int64_t t4 = now_ns();
    CHECK(cudaSetDevice(0));
    result_int("s10_other_device_sync_ns", t3 - t2);
    result_int("s10_device1_sync_ns", t4 - t2);
  }

  // S11: cudaFree waits for the device.
  CHECK(cudaDeviceSynchronize());
  {
    void* scratch = nullptr;
    CHECK(cudaMalloc(&scratch, 4096));
    const int64_t t0 = now_ns();
    kernel_on(s1);
    CHECK(cudaFree(scratch));
    const int64_t t1 = now_ns();
    result_int("s11_free_ns", t1 - t0);
  }

  for (cudaEvent_t e : {e0, e1, e2, ev}) CHECK(cudaEventDestroy(e));
  for (cudaStream_t s : {s1, s2, s3}) CHECK(cudaStreamDestroy(s));
  CHECK(cudaFree(da));
  CHECK(cudaFree(db));
  CHECK(cudaFreeHost(host));
  return 0;
}

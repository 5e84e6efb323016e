// The discrete-event engine (simcore/README.md "Engine semantics"; DESIGN.md "Virtual time and
// synchronization"). Durations used below (H100, links of the test-fabric preset):
//   K35 = kernel of 1 block of 256 threads        = 2000 + 1*1500 = 3500 ns
//   K50 = kernel of 1057 blocks of 256 threads    = 2000 + 2*1500 = 5000 ns (1056 per wave)
//   K65 = kernel of 2113 blocks of 256 threads    = 2000 + 3*1500 = 6500 ns
//   H2D / D2H of 1 MiB pinned at 50 GB/s + 2 us   = 2000 + ceil(20971.52) = 22972 ns
//   H2D of 1 MiB pageable (25 GB/s)               = 2000 + ceil(41943.04) = 43944 ns
//   D2D of 1 MiB on H100 (3.015e12 B/s)           = 1000 + ceil(695.57)   = 1696 ns
//   memset of 1 MiB on H100                       = 1000 + ceil(347.79)   = 1348 ns
//   peer copy of 1 MiB, same node (400 GB/s+1us)  = 1000 + ceil(2621.44)  = 3622 ns
//   peer copy of 1 MiB, other node                = 4000 + 20972          = 24972 ns
//   H2H of 1 MiB at 10 GB/s                       = ceil(104857.6)        = 104858 ns

#include "seer/simcore/engine.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <tuple>
#include <utility>
#include <vector>

namespace seer::sim {
namespace {

constexpr Time kK35 = 3500;
constexpr Time kK50 = 5000;
constexpr Time kK65 = 6500;
constexpr Time kCopy1MiB = 22972;
constexpr Time kPageable1MiB = 43944;
constexpr Time kD2D1MiB = 1696;
constexpr Time kMemset1MiB = 1348;
constexpr Time kPeerSame1MiB = 3622;
constexpr Time kPeerOther1MiB = 24972;
constexpr Time kH2H1MiB = 104858;
constexpr uint64_t kMiB = 1 << 20;

struct Listener : WaitListener {
  std::vector<std::pair<uint64_t, Time>> done;
  void on_wait_done(uint64_t token, Time completion) override {
    done.emplace_back(token, completion);
  }
};

NodeLinks TestLinks() {
  NodeLinks l;
  l.pcie_bytes_per_s = 50e9;
  l.pcie_latency = 2000;
  l.pageable_factor = 0.5;
  l.nvlink_bytes_per_s = 400e9;
  l.nvlink_latency = 1000;
  l.host_memcpy_bytes_per_s = 10e9;
  return l;
}

OpDesc Kernel(uint32_t blocks, uint32_t kernel = 0) {
  OpDesc op;
  op.kind = OpKind::kKernel;
  op.kernel = kernel;
  op.geometry.gx = blocks;
  op.geometry.bx = 256;
  return op;
}
OpDesc K35() { return Kernel(1); }
OpDesc K50() { return Kernel(1057); }
OpDesc K65() { return Kernel(2113); }

OpDesc Copy(OpKind kind, uint64_t bytes = kMiB, bool pinned = true, int peer = -1) {
  OpDesc op;
  op.kind = kind;
  op.bytes = bytes;
  op.pinned = pinned;
  op.peer_gpu = peer;
  return op;
}

class EngineTest : public ::testing::Test {
 protected:
  EngineTest() : engine(listener) {
    const GpuSpec h100 = *find_gpu("H100-SXM-80GB");
    gpu0 = engine.add_gpu(h100, 0, TestLinks());
    gpu1 = engine.add_gpu(h100, 0, TestLinks());
    gpu2 = engine.add_gpu(h100, 1, TestLinks());
  }

  void RunAll() {
    int guard = 0;
    while (engine.next_event_time()) {
      engine.step();
      ASSERT_LT(++guard, 100000) << "engine does not terminate";
    }
  }

  void Stream(int process, uint64_t id, int gpu = 0, bool blocking = false, bool legacy = false) {
    ASSERT_TRUE(engine.create_stream(process, id, gpu, blocking, legacy));
  }
  void Submit(int process, uint64_t stream, Time t, const OpDesc& op) {
    ASSERT_TRUE(engine.submit(process, stream, t, op));
  }

  // Records of (process, client stream), in submission (= start) order.
  std::vector<OpRecord> On(int process, uint64_t client_stream) const {
    std::vector<OpRecord> out;
    for (const OpRecord& r : engine.records()) {
      const auto& info = engine.streams().at(r.stream);
      if (info.process == process && info.client_id == client_stream) out.push_back(r);
    }
    return out;
  }
  // The single record of (process, client stream).
  OpRecord Only(int process, uint64_t client_stream) const {
    auto v = On(process, client_stream);
    EXPECT_EQ(v.size(), 1u) << "process " << process << " stream " << client_stream;
    return v.empty() ? OpRecord{} : v.front();
  }

  Listener listener;
  Engine engine;
  int gpu0 = 0, gpu1 = 0, gpu2 = 0;
};

// --- bookkeeping --------------------------------------------------------------------------

TEST_F(EngineTest, GpusStreamsAndKernelNames) {
  EXPECT_EQ(engine.gpu_count(), 3);
  EXPECT_EQ(engine.gpu_node(gpu0), 0);
  EXPECT_EQ(engine.gpu_node(gpu2), 1);
  EXPECT_EQ(engine.gpu_spec(gpu1).name, "H100-SXM-80GB");

  EXPECT_EQ(engine.intern_kernel("gemm"), 0u);
  EXPECT_EQ(engine.intern_kernel("softmax"), 1u);
  EXPECT_EQ(engine.intern_kernel("gemm"), 0u);
  EXPECT_EQ(engine.kernel_name(1), "softmax");

  EXPECT_TRUE(engine.create_stream(0, 7, gpu1, true, false));
  EXPECT_FALSE(engine.create_stream(0, 7, gpu0, true, false)) << "duplicate (process, id)";
  EXPECT_TRUE(engine.create_stream(1, 7, gpu0, false, true)) << "same id, other process";
  EXPECT_FALSE(engine.create_stream(0, 8, -1, true, false));
  EXPECT_FALSE(engine.create_stream(0, 8, 3, true, false));
  ASSERT_EQ(engine.streams().size(), 2u);
  EXPECT_EQ(engine.streams()[0].process, 0);
  EXPECT_EQ(engine.streams()[0].client_id, 7u);
  EXPECT_EQ(engine.streams()[0].gpu, gpu1);
  EXPECT_FALSE(engine.streams()[0].legacy_default);
  EXPECT_EQ(engine.streams()[1].process, 1);
  EXPECT_TRUE(engine.streams()[1].legacy_default);
}

TEST_F(EngineTest, UnknownStreamsAreRejected) {
  Stream(0, 1);
  EXPECT_FALSE(engine.submit(0, 2, 0, K35()));
  EXPECT_FALSE(engine.submit(1, 1, 0, K35()));
  EXPECT_FALSE(engine.record_event(0, 5, 2, 0));
  EXPECT_FALSE(engine.stream_wait_event(0, 2, 5, 0));
  EXPECT_FALSE(engine.wait_stream(0, 2, 1));
  EXPECT_TRUE(listener.done.empty()) << "a rejected wait must not fire";
  EXPECT_EQ(engine.pending_ops(), 0u);
  EXPECT_FALSE(engine.next_event_time());
}

TEST_F(EngineTest, EmptyEngine) {
  EXPECT_FALSE(engine.next_event_time());
  engine.step();  // no-op
  EXPECT_EQ(engine.now(), 0);
  EXPECT_TRUE(engine.records().empty());
  EXPECT_EQ(engine.pending_ops(), 0u);
}

// --- single ops ---------------------------------------------------------------------------

TEST_F(EngineTest, SingleKernelReadyAtSubmitEndIsStartPlusDuration) {
  Stream(0, 1);
  Submit(0, 1, 100, K35());
  EXPECT_EQ(engine.pending_ops(), 1u);
  EXPECT_TRUE(engine.records().empty()) << "nothing runs before step() reaches it";
  ASSERT_EQ(engine.next_event_time(), std::optional<Time>(100));

  engine.step();
  EXPECT_EQ(engine.now(), 100);
  ASSERT_EQ(engine.records().size(), 1u);
  const OpRecord& r = engine.records()[0];
  EXPECT_EQ(r.process, 0);
  EXPECT_EQ(r.gpu, gpu0);
  EXPECT_EQ(engine.streams().at(r.stream).client_id, 1u);
  EXPECT_EQ(r.desc.kind, OpKind::kKernel);
  EXPECT_EQ(r.source, TimeSource::kGenericKernel);
  EXPECT_EQ(r.submit, 100);
  EXPECT_EQ(r.start, 100);
  EXPECT_EQ(r.end, 100 + kK35);
  EXPECT_EQ(engine.pending_ops(), 1u) << "running, not done";
  ASSERT_EQ(engine.next_event_time(), std::optional<Time>(3600));

  engine.step();
  EXPECT_EQ(engine.now(), 3600);
  EXPECT_EQ(engine.pending_ops(), 0u);
  EXPECT_FALSE(engine.next_event_time());
}

TEST_F(EngineTest, CopiesUseTheCopyModel) {
  Stream(0, 1);
  Stream(0, 2);
  Stream(0, 3);
  Stream(0, 4);
  Stream(0, 5, gpu2);
  Submit(0, 1, 0, Copy(OpKind::kCopyH2D, kMiB, false));
  Submit(0, 2, 0, Copy(OpKind::kCopyPeer, kMiB, true, gpu1));  // same node
  Submit(0, 3, 0, Copy(OpKind::kCopyH2H));
  Submit(0, 4, 0, Copy(OpKind::kCopyPeer, kMiB, true, gpu2));  // gpu0 -> node 1
  Submit(0, 5, 0, Copy(OpKind::kCopyPeer, kMiB, true, gpu0));  // gpu2 -> node 0
  RunAll();
  EXPECT_EQ(Only(0, 1).end, kPageable1MiB);
  EXPECT_EQ(Only(0, 1).source, TimeSource::kCopyModel);
  EXPECT_EQ(Only(0, 2).end, kPeerSame1MiB);
  EXPECT_EQ(Only(0, 3).end, kH2H1MiB);
  // Peer copies share gpu0's peer engine: the second starts when the first ends.
  EXPECT_EQ(Only(0, 4).start, kPeerSame1MiB);
  EXPECT_EQ(Only(0, 4).end, kPeerSame1MiB + kPeerOther1MiB);
  EXPECT_EQ(Only(0, 5).start, 0) << "gpu2 has its own peer engine";
  EXPECT_EQ(Only(0, 5).end, kPeerOther1MiB);
}

// --- streams and engines ------------------------------------------------------------------

TEST_F(EngineTest, StreamIsFifo) {
  Stream(0, 1);
  Submit(0, 1, 0, K35());
  Submit(0, 1, 10, K50());
  Submit(0, 1, 20, Copy(OpKind::kCopyH2D));  // other engine, still waits for the stream
  Submit(0, 1, 100000, K35());               // submitted after the stream drained
  RunAll();
  const auto r = On(0, 1);
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0].start, 0);
  EXPECT_EQ(r[0].end, 3500);
  EXPECT_EQ(r[1].submit, 10);
  EXPECT_EQ(r[1].start, 3500);
  EXPECT_EQ(r[1].end, 8500);
  EXPECT_EQ(r[2].start, 8500);
  EXPECT_EQ(r[2].end, 8500 + kCopy1MiB);
  EXPECT_EQ(r[3].start, 100000);
  EXPECT_EQ(r[3].end, 100000 + kK35);
}

TEST_F(EngineTest, KernelsOnTwoStreamsSerializeWhileACopyOverlaps) {
  Stream(0, 1);
  Stream(0, 2);
  Stream(0, 3);
  Stream(0, 4);
  Stream(0, 5);
  Submit(0, 1, 0, K50());
  Submit(0, 2, 0, K35());
  Submit(0, 3, 0, Copy(OpKind::kCopyH2D));
  Submit(0, 4, 0, Copy(OpKind::kCopyD2D));  // D2D and memset use the compute engine too
  Submit(0, 5, 0, Copy(OpKind::kMemset));
  RunAll();
  // Compute engine, all ready at 0, served in submission order.
  EXPECT_EQ(Only(0, 1).start, 0);
  EXPECT_EQ(Only(0, 1).end, 5000);
  EXPECT_EQ(Only(0, 2).start, 5000);
  EXPECT_EQ(Only(0, 2).end, 8500);
  EXPECT_EQ(Only(0, 4).start, 8500);
  EXPECT_EQ(Only(0, 4).end, 8500 + kD2D1MiB);
  EXPECT_EQ(Only(0, 5).start, 8500 + kD2D1MiB);
  EXPECT_EQ(Only(0, 5).end, 8500 + kD2D1MiB + kMemset1MiB);
  // The H2D copy overlaps all of them.
  EXPECT_EQ(Only(0, 3).start, 0);
  EXPECT_EQ(Only(0, 3).end, kCopy1MiB);
}

TEST_F(EngineTest, EngineServesFirstReadyFirstNotFirstSubmitted) {
  Stream(0, 1);
  Stream(0, 2);
  Stream(0, 3);
  Submit(0, 1, 0, K50());     // 0..5000
  Submit(0, 2, 2000, K35());  // submitted first, ready at 2000
  Submit(0, 3, 1000, K65());  // submitted second, ready at 1000: served first
  RunAll();
  EXPECT_EQ(Only(0, 3).start, 5000);
  EXPECT_EQ(Only(0, 3).end, 11500);
  EXPECT_EQ(Only(0, 2).start, 11500);
  EXPECT_EQ(Only(0, 2).end, 15000);
}

TEST_F(EngineTest, CopyDirectionsOverlapSameDirectionSerializes) {
  Stream(0, 1);
  Stream(0, 2);
  Stream(0, 3);
  Stream(0, 4);
  Stream(0, 5);
  Submit(0, 1, 0, Copy(OpKind::kCopyH2D));
  Submit(0, 2, 0, Copy(OpKind::kCopyD2H));
  Submit(0, 3, 0, Copy(OpKind::kCopyH2D));
  Submit(0, 4, 0, Copy(OpKind::kCopyH2H));  // no engine: overlaps everything
  Submit(0, 5, 0, Copy(OpKind::kCopyH2H));
  RunAll();
  EXPECT_EQ(Only(0, 1).start, 0);
  EXPECT_EQ(Only(0, 2).start, 0);
  EXPECT_EQ(Only(0, 2).end, kCopy1MiB);
  EXPECT_EQ(Only(0, 3).start, kCopy1MiB);
  EXPECT_EQ(Only(0, 3).end, 2 * kCopy1MiB);
  EXPECT_EQ(Only(0, 4).start, 0);
  EXPECT_EQ(Only(0, 4).end, kH2H1MiB);
  EXPECT_EQ(Only(0, 5).start, 0);
  EXPECT_EQ(Only(0, 5).end, kH2H1MiB);
}

TEST_F(EngineTest, EachGpuHasItsOwnEngines) {
  Stream(0, 1, gpu0);
  Stream(0, 2, gpu1);
  Stream(1, 1, gpu1);
  Submit(0, 1, 0, K35());
  Submit(0, 2, 0, K35());
  Submit(1, 1, 0, K35());  // same GPU as (0, 2): serializes with it
  RunAll();
  EXPECT_EQ(Only(0, 1).start, 0);
  EXPECT_EQ(Only(0, 2).start, 0);
  EXPECT_EQ(Only(1, 1).start, kK35);
  EXPECT_EQ(Only(1, 1).gpu, gpu1);
}

// --- events -------------------------------------------------------------------------------

TEST_F(EngineTest, StreamWaitEventAddsADependency) {
  Stream(0, 1);
  Stream(0, 2);
  Submit(0, 1, 0, Copy(OpKind::kCopyH2D));  // 0..22972
  ASSERT_TRUE(engine.record_event(0, 42, 1, 0));
  ASSERT_TRUE(engine.stream_wait_event(0, 2, 42, 0));
  Submit(0, 2, 0, K35());
  RunAll();
  EXPECT_EQ(Only(0, 2).submit, 0);
  EXPECT_EQ(Only(0, 2).start, kCopy1MiB);
  EXPECT_EQ(Only(0, 2).end, kCopy1MiB + kK35);
  EXPECT_EQ(engine.records().size(), 2u) << "event records and stream waits are not records";
  for (const OpRecord& r : engine.records()) {
    EXPECT_NE(r.desc.kind, OpKind::kEventRecord);
    EXPECT_NE(r.desc.kind, OpKind::kStreamWait);
  }
}

TEST_F(EngineTest, StreamWaitEventUsesTheRecordAtTheTimeOfTheCall) {
  Stream(0, 1);
  Stream(0, 2);
  Stream(0, 3);
  // Waiting before the event is ever recorded: no dependency.
  ASSERT_TRUE(engine.stream_wait_event(0, 3, 42, 0));
  Submit(0, 3, 0, Copy(OpKind::kCopyD2H));
  Submit(0, 1, 0, Copy(OpKind::kCopyH2D));  // 0..22972
  ASSERT_TRUE(engine.record_event(0, 42, 1, 0));
  ASSERT_TRUE(engine.stream_wait_event(0, 2, 42, 0));
  Submit(0, 1, 0, Copy(OpKind::kCopyH2D));        // 22972..45944
  ASSERT_TRUE(engine.record_event(0, 42, 1, 0));  // re-recorded after the wait call
  Submit(0, 2, 0, K35());
  RunAll();
  EXPECT_EQ(Only(0, 3).start, 0);
  EXPECT_EQ(Only(0, 2).start, kCopy1MiB) << "waits for the first record only";
}

TEST_F(EngineTest, StreamWaitEventAcrossGpusAndProcessesIsPerProcess) {
  Stream(0, 1, gpu1);
  Stream(0, 2, gpu0);
  Stream(1, 2, gpu0);
  Submit(0, 1, 0, Copy(OpKind::kCopyH2D));
  ASSERT_TRUE(engine.record_event(0, 9, 1, 0));
  ASSERT_TRUE(engine.stream_wait_event(0, 2, 9, 0));  // cross-GPU wait
  ASSERT_TRUE(engine.stream_wait_event(1, 2, 9, 0));  // process 1 has no event 9
  Submit(0, 2, 0, Copy(OpKind::kCopyD2H));
  Submit(1, 2, 0, Copy(OpKind::kCopyH2H));
  RunAll();
  EXPECT_EQ(Only(0, 2).start, kCopy1MiB);
  EXPECT_EQ(Only(1, 2).start, 0);
}

TEST_F(EngineTest, WaitOnACompletedEventIsReadyAtSubmit) {
  Stream(0, 1);
  Stream(0, 2);
  Submit(0, 1, 0, K35());
  ASSERT_TRUE(engine.record_event(0, 1, 1, 0));
  RunAll();
  ASSERT_TRUE(engine.stream_wait_event(0, 2, 1, 5000));
  Submit(0, 2, 5000, Copy(OpKind::kCopyH2D));
  RunAll();
  EXPECT_EQ(Only(0, 2).start, 5000);
}

TEST_F(EngineTest, EventNeverRecordedCompletesImmediatelyAtZero) {
  Stream(0, 1);
  engine.wait_event(0, 99, 5);
  ASSERT_EQ(listener.done.size(), 1u) << "answered from inside the wait call";
  EXPECT_EQ(listener.done[0], (std::pair<uint64_t, Time>(5, 0)));
  // And a stream waiting on it does not wait.
  ASSERT_TRUE(engine.stream_wait_event(0, 1, 99, 100));
  Submit(0, 1, 100, K35());
  RunAll();
  EXPECT_EQ(Only(0, 1).start, 100);
  EXPECT_EQ(listener.done.size(), 1u);
}

// --- legacy default stream ----------------------------------------------------------------

class LegacyStreamTest : public EngineTest {
 protected:
  void SetUp() override {
    Stream(0, 0, gpu0, /*blocking=*/false, /*legacy=*/true);
    Stream(0, 1, gpu0, /*blocking=*/true);
    Stream(0, 2, gpu0, /*blocking=*/false);
    Stream(0, 3, gpu0, /*blocking=*/true);
  }
};

TEST_F(LegacyStreamTest, LegacyWaitsForBlockingStreams) {
  Submit(0, 1, 0, Copy(OpKind::kCopyH2D));  // blocking: 0..22972
  Submit(0, 0, 0, K35());
  RunAll();
  EXPECT_EQ(Only(0, 0).start, kCopy1MiB);
}

TEST_F(LegacyStreamTest, LegacyWaitsForEveryBlockingStream) {
  Submit(0, 1, 0, Copy(OpKind::kCopyH2D));            // 0..22972
  Submit(0, 3, 0, Copy(OpKind::kCopyD2H, 2 * kMiB));  // 0..2000+41944 = 43944
  Submit(0, 0, 0, K35());
  RunAll();
  EXPECT_EQ(Only(0, 3).end, 43944);
  EXPECT_EQ(Only(0, 0).start, 43944);
}

TEST_F(LegacyStreamTest, NonBlockingStreamDoesNotWaitForLegacy) {
  Submit(0, 0, 0, Copy(OpKind::kCopyH2D));
  Submit(0, 2, 0, K35());
  RunAll();
  EXPECT_EQ(Only(0, 2).start, 0);
}

TEST_F(LegacyStreamTest, LegacyDoesNotWaitForNonBlockingStream) {
  Submit(0, 2, 0, Copy(OpKind::kCopyH2D));
  Submit(0, 0, 0, K35());
  RunAll();
  EXPECT_EQ(Only(0, 0).start, 0);
}

TEST_F(LegacyStreamTest, BlockingStreamWaitsForLegacy) {
  Submit(0, 0, 0, Copy(OpKind::kCopyH2D));
  Submit(0, 1, 0, K35());
  RunAll();
  EXPECT_EQ(Only(0, 1).start, kCopy1MiB);
}

TEST_F(LegacyStreamTest, BlockingStreamsDoNotWaitForEachOther) {
  Submit(0, 1, 0, Copy(OpKind::kCopyH2D));
  Submit(0, 3, 0, K35());
  RunAll();
  EXPECT_EQ(Only(0, 3).start, 0);
}

TEST_F(LegacyStreamTest, ChainThroughLegacy) {
  // blocking 1 -> legacy -> blocking 3: the op on stream 3 waits for the legacy op, which waits
  // for stream 1.
  Submit(0, 1, 0, Copy(OpKind::kCopyH2D));  // 0..22972
  Submit(0, 0, 0, K35());                   // 22972..26472
  Submit(0, 3, 0, Copy(OpKind::kCopyD2H));  // 26472..49444
  RunAll();
  EXPECT_EQ(Only(0, 0).start, kCopy1MiB);
  EXPECT_EQ(Only(0, 3).start, kCopy1MiB + kK35);
  EXPECT_EQ(Only(0, 3).end, kCopy1MiB + kK35 + kCopy1MiB);
}

TEST_F(LegacyStreamTest, OnlySameProcessAndSameGpu) {
  Stream(1, 1, gpu0, /*blocking=*/true);
  Stream(0, 4, gpu1, /*blocking=*/true);
  Submit(1, 1, 0, Copy(OpKind::kCopyH2D));  // other process' blocking stream
  Submit(0, 4, 0, Copy(OpKind::kCopyD2H));  // same process, other GPU
  Submit(0, 0, 0, K35());
  RunAll();
  EXPECT_EQ(Only(0, 0).start, 0);
}

TEST_F(LegacyStreamTest, CompletedWorkAddsNoDelay) {
  Submit(0, 1, 0, Copy(OpKind::kCopyH2D));
  RunAll();
  Submit(0, 0, 30000, K35());
  RunAll();
  EXPECT_EQ(Only(0, 0).start, 30000);
}

// --- blocking waits -----------------------------------------------------------------------

TEST_F(EngineTest, WaitStreamFiresOnceWhenStepReachesCompletion) {
  Stream(0, 1);
  Submit(0, 1, 0, K35());
  Submit(0, 1, 0, K35());  // 3500..7000
  ASSERT_TRUE(engine.wait_stream(0, 1, 7));
  EXPECT_TRUE(listener.done.empty());
  engine.step();  // t = 0
  EXPECT_TRUE(listener.done.empty());
  engine.step();  // t = 3500
  EXPECT_EQ(engine.now(), 3500);
  EXPECT_TRUE(listener.done.empty());
  engine.step();  // t = 7000
  EXPECT_EQ(engine.now(), 7000);
  ASSERT_EQ(listener.done.size(), 1u);
  EXPECT_EQ(listener.done[0], (std::pair<uint64_t, Time>(7, 7000)));
  RunAll();
  EXPECT_EQ(listener.done.size(), 1u);
}

TEST_F(EngineTest, WaitStreamOnIdleOrFinishedStreamAnswersAtOnce) {
  Stream(0, 1);
  ASSERT_TRUE(engine.wait_stream(0, 1, 1));
  ASSERT_EQ(listener.done.size(), 1u);
  EXPECT_EQ(listener.done[0], (std::pair<uint64_t, Time>(1, 0)));
  Submit(0, 1, 0, K35());
  RunAll();
  ASSERT_TRUE(engine.wait_stream(0, 1, 2));
  ASSERT_EQ(listener.done.size(), 2u);
  EXPECT_EQ(listener.done[1], (std::pair<uint64_t, Time>(2, kK35)));
}

TEST_F(EngineTest, WaitStreamIncludesItsEventDependencies) {
  Stream(0, 1);
  Stream(0, 2);
  Submit(0, 1, 0, Copy(OpKind::kCopyH2D));
  ASSERT_TRUE(engine.record_event(0, 3, 1, 0));
  ASSERT_TRUE(engine.stream_wait_event(0, 2, 3, 0));
  ASSERT_TRUE(engine.wait_stream(0, 2, 11));
  RunAll();
  ASSERT_EQ(listener.done.size(), 1u);
  EXPECT_EQ(listener.done[0], (std::pair<uint64_t, Time>(11, kCopy1MiB)));
}

TEST_F(EngineTest, WaitEventFiresWithTheRecordTime) {
  Stream(0, 1);
  Stream(0, 2);
  Submit(0, 1, 0, K35());
  Submit(0, 2, 0, Copy(OpKind::kCopyH2D));
  ASSERT_TRUE(engine.record_event(0, 4, 2, 0));
  engine.wait_event(0, 4, 11);
  engine.step();  // 0: both start
  engine.step();  // 3500: kernel ends
  EXPECT_EQ(engine.now(), 3500);
  EXPECT_TRUE(listener.done.empty());
  engine.step();  // 22972: copy ends, the record becomes ready and completes in the same step
  EXPECT_EQ(engine.now(), kCopy1MiB);
  ASSERT_EQ(listener.done.size(), 1u);
  EXPECT_EQ(listener.done[0], (std::pair<uint64_t, Time>(11, kCopy1MiB)));
  EXPECT_FALSE(engine.next_event_time());
  // Waiting on it again: answered at once with the same completion.
  engine.wait_event(0, 4, 12);
  ASSERT_EQ(listener.done.size(), 2u);
  EXPECT_EQ(listener.done[1], (std::pair<uint64_t, Time>(12, kCopy1MiB)));
}

TEST_F(EngineTest, WaitGpuCoversEveryStreamOfTheProcessOnThatGpu) {
  Stream(0, 1);
  Stream(0, 2);
  Stream(0, 3, gpu1);
  Stream(1, 1);
  Submit(0, 1, 0, K35());
  Submit(0, 2, 0, Copy(OpKind::kCopyH2D));               // 0..22972
  Submit(0, 3, 0, Copy(OpKind::kCopyH2H));               // other GPU: not waited for
  Submit(1, 1, 0, Copy(OpKind::kCopyH2D, kMiB, false));  // after process 0's copy: ..66916
  engine.wait_gpu(0, gpu0, 21);
  engine.wait_gpu(1, gpu0, 22);
  engine.wait_gpu(0, gpu2, 23);  // no streams there
  engine.wait_gpu(0, 17, 24);    // no such GPU
  ASSERT_EQ(listener.done.size(), 2u);
  EXPECT_EQ(listener.done[0], (std::pair<uint64_t, Time>(23, 0)));
  EXPECT_EQ(listener.done[1], (std::pair<uint64_t, Time>(24, 0)));
  listener.done.clear();
  while (engine.next_event_time() && engine.next_event_time() < kCopy1MiB) engine.step();
  EXPECT_TRUE(listener.done.empty());
  engine.step();
  ASSERT_EQ(listener.done.size(), 1u);
  EXPECT_EQ(listener.done[0], (std::pair<uint64_t, Time>(21, kCopy1MiB)));
  RunAll();
  ASSERT_EQ(listener.done.size(), 2u);
  EXPECT_EQ(listener.done[1], (std::pair<uint64_t, Time>(22, kCopy1MiB + kPageable1MiB)));
}

// --- step semantics -----------------------------------------------------------------------

TEST_F(EngineTest, StepProcessesEveryEventAtTheEarliestTime) {
  Stream(0, 1);
  Stream(0, 2);
  Stream(0, 3);
  Stream(0, 4);
  Submit(0, 1, 50, Copy(OpKind::kCopyH2D));
  Submit(0, 2, 50, Copy(OpKind::kCopyD2H));
  Submit(0, 3, 50, Copy(OpKind::kCopyH2H));
  Submit(0, 4, 60, K35());
  ASSERT_EQ(engine.next_event_time(), std::optional<Time>(50));
  engine.step();
  EXPECT_EQ(engine.now(), 50);
  EXPECT_EQ(engine.records().size(), 3u);
  ASSERT_EQ(engine.next_event_time(), std::optional<Time>(60));
  engine.step();
  EXPECT_EQ(engine.records().size(), 4u);
  EXPECT_EQ(engine.next_event_time(), std::optional<Time>(60 + kK35));
}

TEST_F(EngineTest, ZeroDurationCascadeCompletesInOneStep) {
  Stream(0, 1);
  Submit(0, 1, 10, Copy(OpKind::kCopyH2H, 0));
  ASSERT_TRUE(engine.record_event(0, 1, 1, 10));
  Submit(0, 1, 10, Copy(OpKind::kCopyH2H, 0));
  engine.wait_event(0, 1, 3);
  ASSERT_TRUE(engine.wait_stream(0, 1, 4));
  engine.step();
  EXPECT_EQ(engine.now(), 10);
  EXPECT_FALSE(engine.next_event_time());
  EXPECT_EQ(engine.pending_ops(), 0u);
  EXPECT_EQ(listener.done, (std::vector<std::pair<uint64_t, Time>>{{3, 10}, {4, 10}}));
  EXPECT_EQ(engine.records().size(), 2u);
}

// --- determinism --------------------------------------------------------------------------

using Row = std::tuple<int, uint64_t, OpKind, Time, Time, Time>;  // process, stream, kind, ...

// Two processes on GPU 0, each with three streams. `order` says which process' calls reach the
// engine first: 0 = process 0 first, 1 = process 1 first, 2 = interleaved starting with 1.
// Each process' own calls keep their order.
std::vector<Row> RunTwoProcesses(int order) {
  Listener listener;
  Engine engine(listener);
  const GpuSpec h100 = *find_gpu("H100-SXM-80GB");
  engine.add_gpu(h100, 0, TestLinks());
  using Call = std::function<void()>;
  std::vector<Call> p0 = {
      [&] { engine.create_stream(0, 1, 0, false, false); },
      [&] { engine.create_stream(0, 2, 0, false, false); },
      [&] { engine.submit(0, 1, 0, K35()); },
      [&] { engine.submit(0, 2, 0, Copy(OpKind::kCopyH2D)); },
      [&] { engine.submit(0, 1, 100, K50()); },
      [&] { engine.record_event(0, 1, 2, 100); },
  };
  std::vector<Call> p1 = {
      [&] { engine.create_stream(1, 3, 0, false, false); },
      [&] { engine.create_stream(1, 1, 0, false, false); },
      [&] { engine.create_stream(1, 2, 0, false, false); },
      [&] { engine.submit(1, 1, 0, K35()); },
      [&] { engine.submit(1, 2, 0, Copy(OpKind::kCopyH2D)); },
      [&] { engine.submit(1, 3, 0, Copy(OpKind::kCopyD2H)); },
      [&] { engine.stream_wait_event(1, 3, 7, 50); },
      [&] { engine.submit(1, 3, 50, K35()); },
  };
  std::vector<Call> all;
  if (order == 0) {
    all = p0;
    all.insert(all.end(), p1.begin(), p1.end());
  } else if (order == 1) {
    all = p1;
    all.insert(all.end(), p0.begin(), p0.end());
  } else {
    for (size_t i = 0; i < std::max(p0.size(), p1.size()); ++i) {
      if (i < p1.size()) all.push_back(p1[i]);
      if (i < p0.size()) all.push_back(p0[i]);
    }
  }
  for (auto& c : all) c();
  while (engine.next_event_time()) engine.step();
  std::vector<Row> rows;
  for (const OpRecord& r : engine.records()) {
    rows.emplace_back(r.process, engine.streams().at(r.stream).client_id, r.desc.kind, r.submit,
                      r.start, r.end);
  }
  return rows;
}

TEST(EngineDeterminism, EqualTimeTiesResolvedByProcessAndSeqNotArrivalOrder) {
  const std::vector<Row> a = RunTwoProcesses(0);
  const std::vector<Row> b = RunTwoProcesses(1);
  const std::vector<Row> c = RunTwoProcesses(2);
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, c);
  // Hand-computed: compute engine at t=0 serves process 0 first, then process 1; process 0's K50
  // becomes ready at 3500 (FIFO) behind process 1's waiting kernel. Copy-in: process 0 first.
  // Copy-out: process 1's D2H alone; the wait on the never-recorded event 7 adds nothing, so
  // process 1's last kernel follows its D2H on stream 3 (FIFO) at 22972. At 22972 process 0's
  // copy end is handled before process 1's: the second H2D starts before that kernel.
  // Record order = start order.
  const std::vector<Row> expected = {
      {0, 1, OpKind::kKernel, 0, 0, 3500},
      {0, 2, OpKind::kCopyH2D, 0, 0, kCopy1MiB},
      {1, 3, OpKind::kCopyD2H, 0, 0, kCopy1MiB},
      {1, 1, OpKind::kKernel, 0, 3500, 7000},
      {0, 1, OpKind::kKernel, 100, 7000, 12000},
      {1, 2, OpKind::kCopyH2D, 0, kCopy1MiB, 2 * kCopy1MiB},
      {1, 3, OpKind::kKernel, 50, kCopy1MiB, kCopy1MiB + kK35},
  };
  EXPECT_EQ(a, expected);
}

TEST(EngineDeterminism, TiesWhileTheEngineIsBusyKeepProcessOrder) {
  // Process 0 occupies the compute engine until 3500; at t=100 both processes' kernels become
  // ready. Whatever order they arrive in, process 0's runs first.
  for (bool p1_first : {false, true}) {
    Listener listener;
    Engine engine(listener);
    engine.add_gpu(*find_gpu("H100-SXM-80GB"), 0, TestLinks());
    engine.create_stream(0, 1, 0, false, false);
    engine.create_stream(0, 2, 0, false, false);
    engine.create_stream(1, 1, 0, false, false);
    engine.submit(0, 1, 0, K35());
    if (p1_first) engine.submit(1, 1, 100, K50());
    engine.submit(0, 2, 100, K65());
    if (!p1_first) engine.submit(1, 1, 100, K50());
    while (engine.next_event_time()) engine.step();
    ASSERT_EQ(engine.records().size(), 3u);
    const OpRecord& second = engine.records()[1];
    const OpRecord& third = engine.records()[2];
    EXPECT_EQ(second.process, 0) << "p1_first=" << p1_first;
    EXPECT_EQ(second.start, 3500);
    EXPECT_EQ(second.end, 10000);
    EXPECT_EQ(third.process, 1);
    EXPECT_EQ(third.start, 10000);
    EXPECT_EQ(third.end, 15000);
  }
}

// --- memory accounting --------------------------------------------------------------------

TEST_F(EngineTest, AllocFreePeakAccounting) {
  EXPECT_EQ(engine.peak_bytes(gpu0), 0u);
  engine.note_alloc(gpu0, 100);
  engine.note_alloc(gpu0, 200);
  EXPECT_EQ(engine.live_bytes(gpu0), 300u);
  EXPECT_EQ(engine.peak_bytes(gpu0), 300u);
  engine.note_free(gpu0, 100);
  EXPECT_EQ(engine.live_bytes(gpu0), 200u);
  EXPECT_EQ(engine.peak_bytes(gpu0), 300u);
  engine.note_alloc(gpu0, 50);
  EXPECT_EQ(engine.live_bytes(gpu0), 250u);
  EXPECT_EQ(engine.peak_bytes(gpu0), 300u);
  engine.note_alloc(gpu0, 200);
  EXPECT_EQ(engine.live_bytes(gpu0), 450u);
  EXPECT_EQ(engine.peak_bytes(gpu0), 450u);
  engine.note_free(gpu0, 1000);  // more than live: clamps at zero
  EXPECT_EQ(engine.live_bytes(gpu0), 0u);
  EXPECT_EQ(engine.peak_bytes(gpu0), 450u);
  // Per GPU; invalid GPUs are ignored.
  engine.note_alloc(gpu1, uint64_t{80} << 30);
  EXPECT_EQ(engine.peak_bytes(gpu1), uint64_t{80} << 30);
  EXPECT_EQ(engine.peak_bytes(gpu0), 450u);
  EXPECT_EQ(engine.peak_bytes(gpu2), 0u);
  engine.note_alloc(-1, 5);
  engine.note_alloc(3, 5);
  engine.note_free(3, 5);
  EXPECT_EQ(engine.live_bytes(gpu2), 0u);
}

// --- send/recv --------------------------------------------------------------------------

// The n-th send of an ordered rank pair meets the n-th recv even when the sends reach the GPU out
// of order (send #0 waits behind a kernel on another stream while send #1 is ready at once);
// a send that is never received is described with its number.
TEST_F(EngineTest, SendRecvMatchByNumberAcrossStreams) {
  engine.add_comm(7, {gpu0, gpu1});
  Stream(0, 1, gpu0);
  Stream(0, 2, gpu0);
  Stream(1, 1, gpu1);
  Submit(0, 1, 0, K50());
  const auto part = [](CollKind kind, uint64_t bytes, int peer) {
    CollPart p;
    p.kind = kind;
    p.count = bytes;
    p.type_bytes = 1;
    p.root = peer;
    return p;
  };
  ASSERT_TRUE(engine.submit_collective(0, 1, 0, 7, 0, {part(CollKind::kSend, kMiB, 1)}));
  ASSERT_TRUE(engine.submit_collective(0, 2, 0, 7, 0, {part(CollKind::kSend, 2 * kMiB, 1)}));
  ASSERT_TRUE(engine.submit_collective(1, 1, 0, 7, 1, {part(CollKind::kRecv, kMiB, 0)}));
  ASSERT_TRUE(engine.submit_collective(1, 1, 0, 7, 1, {part(CollKind::kRecv, 2 * kMiB, 0)}));
  RunAll();
  EXPECT_TRUE(engine.take_errors().empty());
  EXPECT_TRUE(engine.describe_waiting_collectives().empty());
  const std::vector<OpRecord> recvs = On(1, 1);
  ASSERT_EQ(recvs.size(), 2u);
  EXPECT_EQ(recvs[0].desc.bytes, kMiB);
  EXPECT_GE(recvs[0].end, kK50);  // its send waited for the kernel
  EXPECT_EQ(recvs[1].desc.bytes, 2 * kMiB);
  EXPECT_GE(recvs[1].start, recvs[0].end);  // one stream

  ASSERT_TRUE(engine.submit_collective(0, 2, kK50, 7, 0, {part(CollKind::kSend, kMiB, 1)}));
  RunAll();
  const std::vector<std::string> waiting = engine.describe_waiting_collectives();
  ASSERT_EQ(waiting.size(), 1u);
  EXPECT_NE(
      waiting[0].find("rank 0 sends to rank 1 (send #2), which never posts the matching recv"),
      std::string::npos)
      << waiting[0];
}

}  // namespace
}  // namespace seer::sim

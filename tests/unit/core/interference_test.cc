// Compute/communication interference (simcore/src/INTERFERENCE.md): the GPU a kernel sees beside
// NCCL's CTAs, a collective's HBM traffic, and the engine timing both on a 2-GPU NVSwitch node.

#include "seer/simcore/interference.h"

#include <gtest/gtest.h>

#include "seer/simcore/engine.h"
#include "seer/simcore/gemm_model.h"

namespace seer::sim {
namespace {

const GpuSpec& h100() {
  static const GpuSpec spec = *find_gpu("H100-SXM-80GB");
  return spec;
}

TEST(Interference, ContendedGpuLosesTheChannelsSmsAndTheCollectivesHbm) {
  CommLoad load;
  load.channels = 24;
  load.hbm_bytes_per_s = 1e12;
  const GpuSpec s = contended_spec(h100(), load);
  EXPECT_EQ(s.sm_count, 132 - 24);
  EXPECT_DOUBLE_EQ(s.bf16_dense_flops, h100().bf16_dense_flops * 108 / 132);
  EXPECT_DOUBLE_EQ(s.fp32_flops, h100().fp32_flops * 108 / 132);
  EXPECT_DOUBLE_EQ(s.hbm_bytes_per_s, h100().hbm_bytes_per_s - 1e12);
  // Never below one SM or a tenth of the bandwidth.
  load.channels = 500;
  load.hbm_bytes_per_s = 1e15;
  const GpuSpec floor = contended_spec(h100(), load);
  EXPECT_EQ(floor.sm_count, 1);
  EXPECT_DOUBLE_EQ(floor.hbm_bytes_per_s, h100().hbm_bytes_per_s * 0.1);
  EXPECT_FALSE(CommLoad{}.any());
}

// NVIDIA developer forum, "Compute-Communication Overlap Causes Severe GEMM Performance
// Degradation because of Tail Effect" (H100): a GEMM of exactly 132 blocks beside an all-gather of
// 24 blocks needs a second wave and "nearly doubles".
TEST(Interference, AOneWaveGemmBesideTwentyFourChannelsNeedsTwoWaves) {
  GemmShape shape;
  shape.m = 1408;
  shape.n = 1536;
  shape.k = 8192;
  const GemmEstimate alone = gemm_time(h100(), shape);
  ASSERT_EQ(alone.ctas, 132);
  ASSERT_EQ(alone.waves, 1);
  CommLoad load;
  load.channels = 24;
  const GemmEstimate beside = gemm_time(contended_spec(h100(), load), shape);
  EXPECT_EQ(beside.waves, 2);
  const double ratio = static_cast<double>(beside.ns) / static_cast<double>(alone.ns);
  EXPECT_GT(ratio, 1.9);
  EXPECT_LT(ratio, 2.0);
}

TEST(Interference, CollectiveHbmTrafficPerLinkByte) {
  CollPart p;
  p.kind = CollKind::kAllGather;
  p.count = 1 << 20;  // per rank
  p.type_bytes = 4;
  // 8 ranks gather 32 MiB: 7/8 of it crosses each rank's links, written once and read once.
  const double gathered = 8.0 * (4 << 20);
  EXPECT_DOUBLE_EQ(collective_hbm_rate(p, 8, 1000000), gathered * 7 / 8 * 2 / 1e-3);
  p.kind = CollKind::kAllReduce;
  // Ring all-reduce of 4 MiB: 2 x 7/8 of it per rank; read, reduced with the local operand,
  // written.
  EXPECT_DOUBLE_EQ(collective_hbm_rate(p, 8, 1000000), (4 << 20) * 2.0 * 7 / 8 * 3 / 1e-3);
  p.kind = CollKind::kSend;
  EXPECT_EQ(collective_hbm_rate(p, 8, 1000000), 0);
  EXPECT_EQ(collective_hbm_rate(p, 1, 1000000), 0);
}

TEST(Interference, CollectiveStretchOnlyWhenBothNeedMoreThanTheBandwidth) {
  const double bw = h100().hbm_bytes_per_s;
  EXPECT_DOUBLE_EQ(collective_stretch(h100(), 0.3 * bw, 0.5 * bw), 1.0);
  EXPECT_DOUBLE_EQ(collective_stretch(h100(), 0.3 * bw, 0.9 * bw), 1.2);
  EXPECT_DOUBLE_EQ(collective_stretch(h100(), 0.3 * bw, 0), 1.0);
}

struct Listener : WaitListener {
  void on_wait_done(uint64_t, Time) override {}
};

// Two GPUs of an NVSwitch node, one process each; stream 1 computes, stream 2 communicates.
class InterferenceEngine : public ::testing::Test {
 protected:
  void SetUp() override {
    NetworkConfig net;
    net.shape.nodes = 1;
    net.shape.gpus_per_node = 2;
    net.shape.nvswitch = true;
    net.shape.nvlink_bw_per_gpu = 450e9;
    net.shape.nvswitch_latency = 700;
    net.shape.pcie_bw = 64e9;
    net.shape.pcie_latency = 500;
    net.shape.nics_per_node = 2;
    net.shape.nic_bw = 50e9;
    net.shape.nic_latency = 1000;
    net.shape.switch_hop_latency = 200;
    net.gpu = h100();
    for (int g = 0; g < 2; ++g) engine.add_gpu(h100(), 0, NodeLinks{});
    engine.set_network(net);
    engine.add_comm(5, {0, 1});
    for (int p = 0; p < 2; ++p) {
      EXPECT_TRUE(engine.create_stream(p, 1, p, false, false));
      EXPECT_TRUE(engine.create_stream(p, 2, p, false, false));
    }
  }
  void all_gather(Time t, uint64_t bytes_per_rank) {
    CollPart part;
    part.kind = CollKind::kAllGather;
    part.count = bytes_per_rank / 2;
    part.type_bytes = 2;
    part.datatype = 9;
    for (int p = 0; p < 2; ++p) ASSERT_TRUE(engine.submit_collective(p, 2, t, 5, p, {part}));
  }
  OpDesc gemm() {
    OpDesc op;
    op.kind = OpKind::kLibrary;
    op.kernel = engine.intern_kernel("cublasGemmEx [bf16]");
    op.gemm = true;
    op.m = 1408;
    op.n = 1536;
    op.k = 8192;
    op.dtype = static_cast<int>(DType::kBF16);
    return op;
  }
  std::vector<OpRecord> records_of(OpKind kind) {
    while (engine.next_event_time()) engine.step();
    std::vector<OpRecord> out;
    for (const OpRecord& r : engine.records()) {
      if (r.process == 0 && r.desc.kind == kind) out.push_back(r);
    }
    return out;
  }
  Listener listener;
  Engine engine{listener};
};

TEST_F(InterferenceEngine, AGemmBesideAnAllGatherRunsOnTheSmsLeft) {
  all_gather(0, 1 << 30);                              // 1 GiB per rank: milliseconds of NVLink
  ASSERT_TRUE(engine.submit(0, 1, 50000, gemm()));     // starts while it runs
  ASSERT_TRUE(engine.submit(0, 1, 50000000, gemm()));  // long after it ended
  const std::vector<OpRecord> coll = records_of(OpKind::kCollective);
  ASSERT_EQ(coll.size(), 1u);
  const std::vector<OpRecord> gemms = records_of(OpKind::kLibrary);
  ASSERT_EQ(gemms.size(), 2u);
  ASSERT_LT(gemms[0].end, coll[0].end);
  ASSERT_GT(gemms[1].start, coll[0].end);
  GemmShape shape;
  shape.m = 1408;
  shape.n = 1536;
  shape.k = 8192;
  const Time alone = gemm_time(h100(), shape).ns;
  EXPECT_EQ(gemms[1].end - gemms[1].start, alone);
  EXPECT_EQ(gemms[1].interference, 0);
  CommLoad load;
  load.channels = coll[0].desc.nchannels;
  ASSERT_GT(load.channels, 0);
  // The collective's traffic at its idle-network time: the GEMM is compute-bound, so only the
  // SMs matter here.
  load.hbm_bytes_per_s = 1;
  const Time beside = gemm_time(contended_spec(h100(), load), shape).ns;
  EXPECT_GT(beside, alone);
  EXPECT_EQ(gemms[0].end - gemms[0].start, beside);
  EXPECT_EQ(gemms[0].interference, beside - alone);
}

TEST_F(InterferenceEngine, AnAllGatherBesideAMemoryBoundOpIsStretched) {
  // The same all-gather alone, then beside a 64 GiB memset (HBM-bound for ~20 ms).
  all_gather(0, 1 << 30);
  const std::vector<OpRecord> alone = records_of(OpKind::kCollective);
  ASSERT_EQ(alone.size(), 1u);
  OpDesc memset;
  memset.kind = OpKind::kMemset;
  memset.bytes = uint64_t{64} << 30;
  const Time t = alone[0].end + 1000;
  ASSERT_TRUE(engine.submit(0, 1, t, memset));
  all_gather(t + 1000, 1 << 30);
  const std::vector<OpRecord> both = records_of(OpKind::kCollective);
  ASSERT_EQ(both.size(), 2u);
  const Time d_alone = alone[0].end - alone[0].start;
  const Time d_beside = both[1].end - both[1].start;
  // The memset streams at the copy efficiency of the bandwidth; the gather needs 2 x 1/2 of
  // 2 GiB over its time: together more than the GPU has.
  const double memset_rate = h100().hbm_bytes_per_s * h100().copy_efficiency;
  CollPart part;
  part.kind = CollKind::kAllGather;
  part.count = (1 << 30) / 2;
  part.type_bytes = 2;
  const double stretch =
      (memset_rate + collective_hbm_rate(part, 2, d_alone)) / h100().hbm_bytes_per_s;
  ASSERT_GT(stretch, 1.0);
  EXPECT_NEAR(static_cast<double>(d_beside), static_cast<double>(d_alone) * stretch,
              0.02 * static_cast<double>(d_alone));
}

}  // namespace
}  // namespace seer::sim

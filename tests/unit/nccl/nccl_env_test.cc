// NCCL environment parsing (NCCL 2.28 grammar of NCCL_ALGO / NCCL_PROTO, integer parameters).

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "seer/simcore/nccl/env.h"

namespace seer::sim::nccl {
namespace {

Env parse(const std::map<std::string, std::string>& vars) {
  return parse_env([&](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  });
}

TEST(NcclEnv, DefaultsEnableEverythingAndLl128IsAutomatic) {
  const Env env = parse({});
  EXPECT_TRUE(env.ok());
  EXPECT_FALSE(env.algo_set);
  EXPECT_FALSE(env.proto_set);
  for (int f = 0; f < kNumFuncs; ++f) {
    for (int a = 0; a < kNumAlgos; ++a) EXPECT_EQ(env.algo_enable[f][a], 1);
    EXPECT_EQ(env.proto_enable[f][idx(Proto::kLL)], 1);
    EXPECT_EQ(env.proto_enable[f][idx(Proto::kLL128)], 2);
    EXPECT_EQ(env.proto_enable[f][idx(Proto::kSimple)], 1);
  }
  EXPECT_EQ(env.min_nchannels, -1);
  EXPECT_EQ(env.max_nchannels, -1);
}

TEST(NcclEnv, AlgoListEnablesOnlyTheListedAlgorithms) {
  const Env env = parse({{"NCCL_ALGO", "ring,Tree"}});
  ASSERT_TRUE(env.ok()) << env.error();
  EXPECT_TRUE(env.algo_set);
  for (int f = 0; f < kNumFuncs; ++f) {
    const Func fn = static_cast<Func>(f);
    EXPECT_TRUE(env.algo_enabled(fn, Algo::kRing));
    EXPECT_TRUE(env.algo_enabled(fn, Algo::kTree));
    EXPECT_FALSE(env.algo_enabled(fn, Algo::kNvls));
    EXPECT_FALSE(env.algo_enabled(fn, Algo::kPat));
  }
}

TEST(NcclEnv, CaretExcludes) {
  const Env env = parse({{"NCCL_ALGO", "^nvls"}, {"NCCL_PROTO", "^LL128"}});
  ASSERT_TRUE(env.ok()) << env.error();
  EXPECT_FALSE(env.algo_enabled(Func::kAllReduce, Algo::kNvls));
  EXPECT_TRUE(env.algo_enabled(Func::kAllReduce, Algo::kRing));
  EXPECT_TRUE(env.algo_enabled(Func::kAllReduce, Algo::kNvlsTree));
  EXPECT_EQ(env.proto_enabled(Func::kAllReduce, Proto::kLL128), 0);
  EXPECT_EQ(env.proto_enabled(Func::kAllReduce, Proto::kLL), 1);
  EXPECT_EQ(env.proto_enabled(Func::kAllReduce, Proto::kSimple), 1);
}

TEST(NcclEnv, PerCollectivePrefixes) {
  // NCCL 2.28 tuning.cc documents this form.
  const Env env = parse({{"NCCL_ALGO", "allreduce:tree;allgather:ring"}});
  ASSERT_TRUE(env.ok()) << env.error();
  EXPECT_TRUE(env.algo_enabled(Func::kAllReduce, Algo::kTree));
  EXPECT_FALSE(env.algo_enabled(Func::kAllReduce, Algo::kRing));
  EXPECT_TRUE(env.algo_enabled(Func::kAllGather, Algo::kRing));
  EXPECT_FALSE(env.algo_enabled(Func::kAllGather, Algo::kPat));
  // Collectives without an entry keep the default.
  EXPECT_TRUE(env.algo_enabled(Func::kBroadcast, Algo::kRing));
  EXPECT_TRUE(env.algo_enabled(Func::kReduceScatter, Algo::kNvls));

  const Env p = parse({{"NCCL_PROTO", "^LL128;allreduce:LL128"}});
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(p.proto_enabled(Func::kAllGather, Proto::kLL128), 0);
  EXPECT_EQ(p.proto_enabled(Func::kAllGather, Proto::kSimple), 1);
  EXPECT_EQ(p.proto_enabled(Func::kAllReduce, Proto::kLL128), 1);
  EXPECT_EQ(p.proto_enabled(Func::kAllReduce, Proto::kSimple), 0);
}

TEST(NcclEnv, FirstEntryAppliesToAllThenPrefixedOverride) {
  const Env env = parse({{"NCCL_PROTO", "LL,Simple;allreduce:^LL"}});
  ASSERT_TRUE(env.ok()) << env.error();
  EXPECT_EQ(env.proto_enabled(Func::kBroadcast, Proto::kLL), 1);
  EXPECT_EQ(env.proto_enabled(Func::kBroadcast, Proto::kLL128), 0);
  EXPECT_EQ(env.proto_enabled(Func::kAllReduce, Proto::kLL), 0);
  EXPECT_EQ(env.proto_enabled(Func::kAllReduce, Proto::kLL128), 1);
}

TEST(NcclEnv, InvalidValuesGiveErrorsAndKeepDefaults) {
  const Env env = parse({{"NCCL_ALGO", "ring,warp"},
                         {"NCCL_PROTO", "simple;tree"},
                         {"NCCL_MIN_NCHANNELS", "many"},
                         {"NCCL_MAX_NCHANNELS", "8x"}});
  EXPECT_FALSE(env.ok());
  ASSERT_EQ(env.errors.size(), 4u);
  EXPECT_NE(env.error().find("unknown element \"warp\""), std::string::npos) << env.error();
  EXPECT_NE(env.error().find("NCCL_PROTO"), std::string::npos);
  EXPECT_NE(env.error().find("NCCL_MIN_NCHANNELS"), std::string::npos);
  EXPECT_NE(env.error().find("NCCL_MAX_NCHANNELS"), std::string::npos);
  // Nothing half-applied.
  EXPECT_FALSE(env.algo_set);
  EXPECT_TRUE(env.algo_enabled(Func::kAllReduce, Algo::kNvls));
  EXPECT_EQ(env.proto_enabled(Func::kAllReduce, Proto::kLL), 1);
  EXPECT_EQ(env.min_nchannels, -1);
  EXPECT_EQ(env.max_nchannels, -1);

  const Env bad_prefix = parse({{"NCCL_ALGO", "allreduces:ring"}});
  EXPECT_NE(bad_prefix.error().find("unknown collective"), std::string::npos);
  const Env missing_prefix = parse({{"NCCL_ALGO", "allreduce:ring;tree"}});
  EXPECT_NE(missing_prefix.error().find("prefix"), std::string::npos);
}

TEST(NcclEnv, ChannelLimitsAreParsedAndClamped) {
  const Env env = parse({{"NCCL_MIN_NCHANNELS", "0x10"}, {"NCCL_MAX_NCHANNELS", "0"}});
  ASSERT_TRUE(env.ok()) << env.error();
  EXPECT_EQ(env.min_nchannels, 16);
  EXPECT_EQ(env.max_nchannels, 1);  // NCCL: "setting it to 1"

  // New names win over the legacy ones.
  const Env legacy = parse({{"NCCL_MAX_NRINGS", "4"}, {"NCCL_MAX_NCHANNELS", "2"}});
  EXPECT_EQ(legacy.max_nchannels, 2);
  const Env only_legacy = parse({{"NCCL_MIN_NRINGS", "6"}});
  EXPECT_EQ(only_legacy.min_nchannels, 6);
}

TEST(NcclEnv, OtherSwitches) {
  const Env env = parse(
      {{"NCCL_NVLS_ENABLE", "0"}, {"NCCL_COLLNET_ENABLE", "1"}, {"NCCL_NET_OVERHEAD", "1500"}});
  ASSERT_TRUE(env.ok()) << env.error();
  EXPECT_EQ(env.nvls_enable, 0);
  EXPECT_EQ(env.collnet_enable, 1);
  EXPECT_DOUBLE_EQ(env.net_overhead_us, 1.5);
}

TEST(NcclEnv, NullGetenvIsHarmless) {
  const Env env = parse_env(nullptr);
  EXPECT_TRUE(env.ok());
}

}  // namespace
}  // namespace seer::sim::nccl

// The session's matching of collective payloads and the outputs it computes for every rank.

#include "payload_exchange.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "payload_reduce.h"

namespace seer::rt {
namespace {

std::string ints(const std::vector<int32_t>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * 4);
}

wire::CollPart part(wire::CollKind kind, uint64_t count, int root, const std::string& input,
                    uint64_t result_id) {
  wire::CollPart p;
  p.set_kind(kind);
  p.set_count(count);
  p.set_datatype(payload::kInt32);
  p.set_type_bytes(4);
  p.set_redop(payload::kSum);
  p.set_root(root);
  p.set_payload(true);
  p.set_input(input);
  p.set_result_id(result_id);
  return p;
}

// Submits one part per rank (rank r as client r, result id 100 + r); returns outputs by rank.
std::map<int, std::string> run(PayloadExchange& x, wire::CollKind kind, uint64_t count, int root,
                               const std::vector<std::string>& inputs) {
  std::map<int, std::string> out;
  const int n = static_cast<int>(inputs.size());
  for (int r = 0; r < n; ++r) {
    std::string error;
    for (const PayloadResult& res :
         x.submit(r, 7, n, r, part(kind, count, root, inputs[r], 100 + r), error)) {
      EXPECT_EQ(res.id, static_cast<uint64_t>(100 + res.client));
      out[res.client] = res.bytes;
    }
    EXPECT_EQ(error, "");
    if (r + 1 < n) {
      EXPECT_TRUE(out.empty());
    }
  }
  return out;
}

TEST(PayloadExchange, EveryCollectiveKind) {
  PayloadExchange x;
  const std::vector<std::string> one{ints({1, 2}), ints({10, 20}), ints({100, 200})};
  auto out = run(x, wire::COLL_ALL_REDUCE, 2, 0, one);
  for (int r = 0; r < 3; ++r) EXPECT_EQ(out[r], ints({111, 222}));
  out = run(x, wire::COLL_REDUCE, 2, 1, one);
  EXPECT_EQ(out[1], ints({111, 222}));
  EXPECT_EQ(out[0], "");
  out = run(x, wire::COLL_BROADCAST, 2, 2, {"", "", ints({5, 6})});
  for (int r = 0; r < 3; ++r) EXPECT_EQ(out[r], ints({5, 6}));
  out = run(x, wire::COLL_ALL_GATHER, 2, 0, one);
  for (int r = 0; r < 3; ++r) EXPECT_EQ(out[r], ints({1, 2, 10, 20, 100, 200}));
  out = run(x, wire::COLL_GATHER, 2, 2, one);
  EXPECT_EQ(out[2], ints({1, 2, 10, 20, 100, 200}));
  const std::vector<std::string> blocks{ints({1, 2, 3}), ints({10, 20, 30}), ints({100, 200, 300})};
  out = run(x, wire::COLL_REDUCE_SCATTER, 1, 0, blocks);
  EXPECT_EQ(out[0], ints({111}));
  EXPECT_EQ(out[2], ints({333}));
  out = run(x, wire::COLL_ALL_TO_ALL, 1, 0, blocks);
  EXPECT_EQ(out[0], ints({1, 10, 100}));
  EXPECT_EQ(out[1], ints({2, 20, 200}));
  out = run(x, wire::COLL_SCATTER, 1, 1, {"", ints({7, 8, 9}), ""});
  EXPECT_EQ(out[0], ints({7}));
  EXPECT_EQ(out[2], ints({9}));
  EXPECT_TRUE(x.describe_waiting().empty());
}

TEST(PayloadExchange, SendRecvPairsPerOrderedRankPair) {
  PayloadExchange x;
  std::string error;
  // Rank 1 receives twice from rank 0 before rank 0 sends: matched in call order.
  EXPECT_TRUE(x.submit(1, 3, 2, 1, part(wire::COLL_RECV, 1, 0, "", 51), error).empty());
  EXPECT_TRUE(x.submit(1, 3, 2, 1, part(wire::COLL_RECV, 1, 0, "", 52), error).empty());
  EXPECT_EQ(x.describe_waiting().size(), 2u);
  auto r = x.submit(0, 3, 2, 0, part(wire::COLL_SEND, 1, 1, ints({41}), 0), error);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].client, 1);
  EXPECT_EQ(r[0].id, 51u);
  EXPECT_EQ(r[0].bytes, ints({41}));
  r = x.submit(0, 3, 2, 0, part(wire::COLL_SEND, 1, 1, ints({42}), 0), error);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].id, 52u);
  EXPECT_EQ(r[0].bytes, ints({42}));
  EXPECT_EQ(error, "");
}

// Pairs of a small and of a very large communicator (kept in a table and in a hash map) match
// per ordered pair and communicator, and what waits is listed by communicator, sender, receiver.
TEST(PayloadExchange, SmallAndLargeCommunicatorsKeepTheirPairsApart) {
  PayloadExchange x;
  std::string error;
  for (const auto& [comm, nranks] : std::vector<std::pair<uint64_t, int>>{{9, 4}, {5, 5000}}) {
    const int last = nranks - 1;
    EXPECT_TRUE(
        x.submit(0, comm, nranks, last, part(wire::COLL_SEND, 1, 0, ints({7}), 0), error).empty());
    EXPECT_TRUE(
        x.submit(1, comm, nranks, 0, part(wire::COLL_SEND, 1, last, ints({8}), 0), error).empty());
  }
  const std::vector<std::string> waiting = x.describe_waiting();
  ASSERT_EQ(waiting.size(), 4u);
  EXPECT_NE(waiting[0].find("from rank 0 to rank 4999 on communicator 5 "), std::string::npos);
  EXPECT_NE(waiting[1].find("from rank 4999 to rank 0 on communicator 5 "), std::string::npos);
  EXPECT_NE(waiting[2].find("from rank 0 to rank 3 on communicator 9 "), std::string::npos);
  EXPECT_NE(waiting[3].find("from rank 3 to rank 0 on communicator 9 "), std::string::npos);
  for (const auto& [comm, nranks] : std::vector<std::pair<uint64_t, int>>{{9, 4}, {5, 5000}}) {
    const int last = nranks - 1;
    auto r = x.submit(2, comm, nranks, 0, part(wire::COLL_RECV, 1, last, "", 60 + comm), error);
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0].id, 60 + comm);
    EXPECT_EQ(r[0].bytes, ints({7}));
    r = x.submit(3, comm, nranks, last, part(wire::COLL_RECV, 1, 0, "", 70 + comm), error);
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0].client, 3);
    EXPECT_EQ(r[0].bytes, ints({8}));
  }
  EXPECT_TRUE(x.describe_waiting().empty());
  EXPECT_EQ(error, "");
}

// A sender that stays ahead of its receiver by a few hundred calls, then more: every pair still
// meets the send of its own number (the channel drops completed pairs as it goes).
TEST(PayloadExchange, SenderFarAheadStillPairsInOrder) {
  PayloadExchange x;
  std::string error;
  int sent = 0, received = 0;
  const auto recv = [&] {
    const uint64_t id = 1000 + static_cast<uint64_t>(received);
    auto r = x.submit(1, 3, 2, 1, part(wire::COLL_RECV, 1, 0, "", id), error);
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0].id, id);
    EXPECT_EQ(r[0].bytes, ints({received + 1}));  // zeros would travel as a size
    ++received;
  };
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 300; ++i) {
      EXPECT_TRUE(
          x.submit(0, 3, 2, 0, part(wire::COLL_SEND, 1, 1, ints({sent + 1}), 0), error).empty());
      ++sent;
    }
    for (int i = 0; i < 200; ++i) recv();
    EXPECT_EQ(x.describe_waiting().size(), static_cast<size_t>(sent - received));
  }
  while (received < sent) recv();
  EXPECT_TRUE(x.describe_waiting().empty());
  EXPECT_EQ(error, "");
}

// Send/recv parts of a group over the limit are withheld (PAYLOAD.md): still matched, so that
// only one side carrying bytes never shifts later pairs, and never leaving a receiver waiting.
TEST(PayloadExchange, WithheldSendGivesTheReceiverAnEmptyResult) {
  PayloadExchange x;
  std::string error;
  EXPECT_TRUE(x.submit(1, 3, 2, 1, part(wire::COLL_RECV, 1, 0, "", 51), error).empty());
  wire::CollPart withheld = part(wire::COLL_SEND, 1, 1, "", 0);
  withheld.set_withheld(true);
  auto r = x.submit(0, 3, 2, 0, std::move(withheld), error);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].client, 1);
  EXPECT_EQ(r[0].id, 51u);
  EXPECT_EQ(r[0].bytes, "");  // the receiver keeps what its buffer held
  // The next pair of the same ranks carries bytes on both sides and is matched to itself.
  EXPECT_TRUE(x.submit(0, 3, 2, 0, part(wire::COLL_SEND, 1, 1, ints({7}), 0), error).empty());
  r = x.submit(1, 3, 2, 1, part(wire::COLL_RECV, 1, 0, "", 52), error);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].id, 52u);
  EXPECT_EQ(r[0].bytes, ints({7}));
  EXPECT_EQ(error, "");
  EXPECT_TRUE(x.describe_waiting().empty());
}

TEST(PayloadExchange, WithheldRecvDropsWhatItsSendCarried) {
  PayloadExchange x;
  std::string error;
  EXPECT_TRUE(x.submit(0, 3, 2, 0, part(wire::COLL_SEND, 1, 1, ints({5}), 0), error).empty());
  EXPECT_TRUE(x.submit(0, 3, 2, 0, part(wire::COLL_SEND, 1, 1, ints({6}), 0), error).empty());
  wire::CollPart withheld = part(wire::COLL_RECV, 1, 0, "", 0);
  withheld.set_withheld(true);
  EXPECT_TRUE(x.submit(1, 3, 2, 1, std::move(withheld), error).empty());
  const auto r = x.submit(1, 3, 2, 1, part(wire::COLL_RECV, 1, 0, "", 61), error);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].id, 61u);
  EXPECT_EQ(r[0].bytes, ints({6}));
  EXPECT_EQ(error, "");
  EXPECT_TRUE(x.describe_waiting().empty());
}

TEST(PayloadExchange, DisagreementAndMissingRanksAreDescribed) {
  PayloadExchange x;
  std::string error;
  x.submit(0, 9, 2, 0, part(wire::COLL_ALL_REDUCE, 2, 0, ints({1, 2}), 1), error);
  ASSERT_EQ(x.describe_waiting().size(), 1u);
  EXPECT_NE(x.describe_waiting()[0].find("ranks 1"), std::string::npos);
  const auto r = x.submit(1, 9, 2, 1, part(wire::COLL_ALL_REDUCE, 3, 0, ints({1, 2, 3}), 2), error);
  EXPECT_EQ(r.size(), 2u);
  EXPECT_NE(error.find("disagree"), std::string::npos);
}

}  // namespace
}  // namespace seer::rt

// The external correlation stacks behind cuptiActivityPush/PopExternalCorrelationId: per thread
// and per kind, last in first out.

#include <gtest/gtest.h>

#include <thread>

#include "activity.h"

namespace seer::client::activity {
namespace {

TEST(CorrelationStack, PerKindLastInFirstOut) {
  push_external(3, 10);
  push_external(3, 11);
  push_external(4, 99);
  uint64_t id = 0;
  ASSERT_TRUE(pop_external(3, &id));
  EXPECT_EQ(id, 11u);
  ASSERT_TRUE(pop_external(4, &id));
  EXPECT_EQ(id, 99u);
  ASSERT_TRUE(pop_external(3, &id));
  EXPECT_EQ(id, 10u);
  EXPECT_FALSE(pop_external(3, &id));
  EXPECT_FALSE(pop_external(5, nullptr));
}

TEST(CorrelationStack, ThreadsHaveTheirOwn) {
  push_external(3, 1);
  bool other_empty = false;
  std::thread t([&] { other_empty = !pop_external(3, nullptr); });
  t.join();
  EXPECT_TRUE(other_empty);
  uint64_t id = 0;
  ASSERT_TRUE(pop_external(3, &id));
  EXPECT_EQ(id, 1u);
}

TEST(CorrelationIds, Increase) {
  const uint32_t a = next_correlation();
  const uint32_t b = next_correlation();
  EXPECT_GT(a, 0u);
  EXPECT_EQ(b, a + 1);
}

}  // namespace
}  // namespace seer::client::activity

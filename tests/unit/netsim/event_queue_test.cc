// The flow model's event heap against an ordered set: random queues, moves, removals and pops
// must give the same earliest entry after every call and pop in (time, flow id) order.
#include "event_queue.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <tuple>

namespace seer::net::detail {
namespace {

using Key = std::tuple<Time, FlowId, std::uint32_t>;  // (time, id, slot)

TEST(EventQueue, MatchesAnOrderedSetUnderRandomCalls) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    std::mt19937_64 random(seed);
    EventQueue queue;
    std::set<Key> expected;
    std::map<std::uint32_t, Key> queued;  // by slot
    const std::uint32_t slots = seed % 2 == 0 ? 16 : 600;
    const Time times = seed % 3 == 0 ? 4 : 1'000'000;  // few distinct times: ties broken by id
    for (int call = 0; call < 20'000; ++call) {
      const std::uint32_t slot = static_cast<std::uint32_t>(random() % slots);
      const Time time = static_cast<Time>(random() % times);
      switch (random() % 4) {
        case 0:
        case 1: {  // queue, or move (a slot keeps its flow id while queued)
          auto it = queued.find(slot);
          const FlowId id =
              it == queued.end() ? slot + 1000 * (random() % 50) : std::get<1>(it->second);
          if (it != queued.end()) expected.erase(it->second);
          queue.set(slot, time, id);
          queued[slot] = Key{time, id, slot};
          expected.insert(queued[slot]);
          break;
        }
        case 2:
          queue.remove(slot);
          if (auto it = queued.find(slot); it != queued.end()) {
            expected.erase(it->second);
            queued.erase(it);
          }
          break;
        default:
          if (expected.empty()) break;
          const EventQueue::Entry popped = queue.pop();
          ASSERT_EQ(Key(popped.time, popped.id, popped.slot), *expected.begin()) << "seed " << seed;
          queued.erase(popped.slot);
          expected.erase(expected.begin());
      }
      ASSERT_EQ(queue.size(), expected.size());
      ASSERT_EQ(queue.contains(slot), queued.contains(slot));
      if (!expected.empty()) {
        const EventQueue::Entry& top = queue.top();
        ASSERT_EQ(Key(top.time, top.id, top.slot), *expected.begin()) << "seed " << seed;
      }
    }
    while (!expected.empty()) {
      const EventQueue::Entry popped = queue.pop();
      ASSERT_EQ(Key(popped.time, popped.id, popped.slot), *expected.begin());
      expected.erase(expected.begin());
    }
    EXPECT_TRUE(queue.empty());
  }
}

}  // namespace
}  // namespace seer::net::detail

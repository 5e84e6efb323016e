#pragma once

#include <cstdint>
#include <vector>

namespace seer::net::detail {

// Min-heap of (level, index) pairs, ties by index: the solver's queues of link shares and of flow
// limits. Four children per node and branch-free comparisons keep it cheap when keys are random.
// The top entry can be raised in place, which is how stale shares are refreshed.
class LevelQueue {
 public:
  struct Entry {
    double level;
    std::uint32_t index;
  };

  void clear() { heap_.clear(); }
  bool empty() const { return heap_.empty(); }
  const Entry& top() const { return heap_.front(); }

  void push(double level, std::uint32_t index) {
    const Entry moving{level, index};
    std::size_t at = heap_.size();
    heap_.push_back(moving);
    while (at > 0) {
      const std::size_t parent = (at - 1) / 4;
      if (!before(moving, heap_[parent])) break;
      heap_[at] = heap_[parent];
      at = parent;
    }
    heap_[at] = moving;
  }

  void pop() {
    const Entry last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down(last);
  }

  // Gives the top entry a level at least as large as its current one.
  void raise_top(double level) { sift_down(Entry{level, heap_.front().index}); }

 private:
  static bool before(const Entry& a, const Entry& b) {
    return (a.level < b.level) | ((a.level == b.level) & (a.index < b.index));
  }

  void sift_down(const Entry& moving) {
    const std::size_t size = heap_.size();
    std::size_t at = 0;
    while (true) {
      const std::size_t first = 4 * at + 1;
      if (first >= size) break;
      const std::size_t end = first + 4 < size ? first + 4 : size;
      std::size_t best = first;
      for (std::size_t child = first + 1; child < end; ++child) {
        best = before(heap_[child], heap_[best]) ? child : best;
      }
      if (!before(heap_[best], moving)) break;
      heap_[at] = heap_[best];
      at = best;
    }
    heap_[at] = moving;
  }

  std::vector<Entry> heap_;
};

}  // namespace seer::net::detail

#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "seer/netsim/types.h"

namespace seer::net::detail {

// Links ordered by fair share (ties by LinkId) for progressive filling: a binary min-heap that can
// also raise the share of its top entry in place, which is how stale entries are refreshed.
class ShareQueue {
 public:
  void clear() { heap_.clear(); }
  bool empty() const { return heap_.empty(); }
  std::pair<double, LinkId> top() const { return {heap_.front().share, heap_.front().link}; }

  void push(double share, LinkId link) {
    heap_.push_back(Entry{share, link});
    std::size_t at = heap_.size() - 1;
    const Entry moving = heap_[at];
    while (at > 0) {
      const std::size_t parent = (at - 1) / 2;
      if (!before(moving, heap_[parent])) break;
      heap_[at] = heap_[parent];
      at = parent;
    }
    heap_[at] = moving;
  }

  void pop() {
    const Entry last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down_from_top(last);
  }

  // Gives the top entry a share at least as large as its current one.
  void raise_top(double share) { sift_down_from_top(Entry{share, heap_.front().link}); }

 private:
  struct Entry {
    double share;
    LinkId link;
  };

  static bool before(const Entry& a, const Entry& b) {
    return a.share != b.share ? a.share < b.share : a.link < b.link;
  }

  void sift_down_from_top(const Entry& moving) {
    const std::size_t size = heap_.size();
    std::size_t at = 0;
    while (true) {
      std::size_t child = 2 * at + 1;
      if (child >= size) break;
      if (child + 1 < size && before(heap_[child + 1], heap_[child])) ++child;
      if (!before(heap_[child], moving)) break;
      heap_[at] = heap_[child];
      at = child;
    }
    heap_[at] = moving;
  }

  std::vector<Entry> heap_;
};

}  // namespace seer::net::detail

#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "seer/netsim/types.h"

namespace seer::net::detail {

// Min-heap of flow slots ordered by (time, flow id), so equal times pop in id order. Each slot is
// queued at most once and can be moved or removed in O(log n) through its remembered position.
class EventQueue {
 public:
  struct Entry {
    Time time;
    FlowId id;
    std::uint32_t slot;
  };

  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  const Entry& top() const { return heap_.front(); }
  bool contains(std::uint32_t slot) const {
    return slot < position_.size() && position_[slot] != kAbsent;
  }

  // Queues `slot`, or moves it when already queued.
  void set(std::uint32_t slot, Time time, FlowId id) {
    if (slot >= position_.size()) position_.resize(slot + 1, kAbsent);
    if (position_[slot] == kAbsent) {
      heap_.emplace_back();
      sift_up(heap_.size() - 1, Entry{time, id, slot});
      return;
    }
    const std::size_t at = position_[slot];
    const Entry moved{time, heap_[at].id, slot};
    time < heap_[at].time ? sift_up(at, moved) : sift_down(at, moved);
  }

  void remove(std::uint32_t slot) {
    if (!contains(slot)) return;
    const std::size_t at = position_[slot];
    position_[slot] = kAbsent;
    const Entry last = heap_.back();
    heap_.pop_back();
    if (at == heap_.size()) return;
    if (at > 0 && before(last, heap_[(at - 1) / 2])) {
      sift_up(at, last);
    } else {
      sift_down(at, last);
    }
  }

  Entry pop() {
    const Entry first = heap_.front();
    position_[first.slot] = kAbsent;
    const Entry last = heap_.back();
    heap_.pop_back();
    if (heap_.empty()) return first;
    // The hole goes down to a leaf along the earlier children, then the last entry rises from
    // there: it came from the bottom, so it rarely rises far, and a level costs one comparison.
    std::size_t at = 0;
    const std::size_t size = heap_.size();
    for (std::size_t child = 1; child < size; child = 2 * at + 1) {
      if (child + 1 < size && before(heap_[child + 1], heap_[child])) ++child;
      place(at, heap_[child]);
      at = child;
    }
    sift_up(at, last);
    return first;
  }

 private:
  static constexpr std::uint32_t kAbsent = 0xffffffffu;

  static bool before(const Entry& a, const Entry& b) {
    return a.time != b.time ? a.time < b.time : a.id < b.id;
  }

  void place(std::size_t at, const Entry& entry) {
    heap_[at] = entry;
    position_[entry.slot] = static_cast<std::uint32_t>(at);
  }

  // Moves the hole at `at` up until `moving` fits there.
  void sift_up(std::size_t at, const Entry& moving) {
    while (at > 0) {
      const std::size_t parent = (at - 1) / 2;
      if (!before(moving, heap_[parent])) break;
      place(at, heap_[parent]);
      at = parent;
    }
    place(at, moving);
  }

  // Moves the hole at `at` down until `moving` fits there.
  void sift_down(std::size_t at, const Entry& moving) {
    const std::size_t size = heap_.size();
    while (true) {
      std::size_t child = 2 * at + 1;
      if (child >= size) break;
      if (child + 1 < size && before(heap_[child + 1], heap_[child])) ++child;
      if (!before(heap_[child], moving)) break;
      place(at, heap_[child]);
      at = child;
    }
    place(at, moving);
  }

  std::vector<Entry> heap_;
  std::vector<std::uint32_t> position_;  // by slot
};

}  // namespace seer::net::detail

#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace seer::rt {

using Interval = std::pair<int64_t, int64_t>;

// Sorts and merges overlapping or touching intervals.
inline std::vector<Interval> merged(std::vector<Interval> v) {
  std::sort(v.begin(), v.end());
  std::vector<Interval> out;
  for (const Interval& i : v) {
    if (i.second <= i.first) continue;
    if (!out.empty() && i.first <= out.back().second) {
      out.back().second = std::max(out.back().second, i.second);
    } else {
      out.push_back(i);
    }
  }
  return out;
}

inline int64_t total_length(const std::vector<Interval>& merged_intervals) {
  int64_t sum = 0;
  for (const Interval& i : merged_intervals) sum += i.second - i.first;
  return sum;
}

// Length of the intersection of two merged interval lists.
inline int64_t overlap_length(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  int64_t sum = 0;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const int64_t lo = std::max(a[i].first, b[j].first);
    const int64_t hi = std::min(a[i].second, b[j].second);
    if (hi > lo) sum += hi - lo;
    if (a[i].second < b[j].second) {
      ++i;
    } else {
      ++j;
    }
  }
  return sum;
}

}  // namespace seer::rt

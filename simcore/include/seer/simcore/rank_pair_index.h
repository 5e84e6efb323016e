#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace seer::sim {

// Where the state of each ordered rank pair (sender, receiver) of one communicator lives in its
// owner's pool: a slot holding pool index + 1, 0 until the pair is first used. Up to kDenseRanks
// ranks the slots are a sender x receiver table, which an all-to-all walks row by row without a
// hash lookup per peer; above, a hash map, so that a ring over thousands of ranks does not pay
// for pairs that never talk.
class RankPairIndex {
 public:
  static constexpr int kDenseRanks = 1024;

  explicit RankPairIndex(int nranks = 0) : nranks_(nranks) {}

  int nranks() const { return nranks_; }

  // The slot of (sender, receiver), ranks from 0 (a rank past nranks is kept by hash).
  uint32_t& slot(int sender, int receiver) {
    if (nranks_ <= kDenseRanks && sender < nranks_ && receiver < nranks_) {
      const auto n = static_cast<size_t>(nranks_);
      if (dense_.empty()) dense_.assign(n * n, 0);
      return dense_[static_cast<size_t>(sender) * n + static_cast<size_t>(receiver)];
    }
    return sparse_[uint64_t{static_cast<uint32_t>(sender)} << 32 | static_cast<uint32_t>(receiver)];
  }

 private:
  int nranks_;
  std::vector<uint32_t> dense_;
  std::unordered_map<uint64_t, uint32_t> sparse_;
};

}  // namespace seer::sim

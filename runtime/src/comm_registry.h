#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "seer/simcore/time.h"

namespace seer::rt {

// One rank asking to join a communicator (ncclCommInitRank* or ncclCommSplit).
struct CommMember {
  int client = 0;        // session client index
  uint64_t request = 0;  // the blocking request that waits for it
  int slot = 0;          // position of this init/split within the request
  int process = 0;       // engine process key
  int rank = 0;          // requested rank (init) or parent rank (split)
  int gpu = 0;
  int key = 0;  // split key
  sim::Time t = 0;
};

struct CompletedComm {
  uint64_t comm = 0;  // 0 for members that split with NCCL_SPLIT_NOCOLOR
  int nranks = 0;
  std::vector<int> gpus;            // by rank
  std::vector<CommMember> members;  // by new rank (NOCOLOR: any order)
  sim::Time ready = 0;              // when the communicator is usable
};

// Matches the ranks of each communicator being created. Ids are derived from what the ranks
// did (never from arrival order), so they are the same on every run.
class CommRegistry {
 public:
  static constexpr sim::Time kInitNs = 5'000'000;  // modeled ncclCommInitRank / Split cost

  std::vector<CompletedComm> join_init(const std::string& unique_id, int nranks,
                                       uint64_t process_seq, const CommMember& m,
                                       std::string& error);
  // `excluded`: ncclCommShrink, the number of parent ranks that do not take part.
  std::vector<CompletedComm> join_split(uint64_t parent, int color, const CommMember& m,
                                        std::string& error, int excluded = 0);
  int nranks(uint64_t comm) const;
  std::vector<std::string> describe_waiting() const;

 private:
  struct PendingInit {
    int nranks = 0;
    std::vector<CommMember> members;
    std::vector<uint64_t> seqs;
  };
  struct PendingSplit {
    std::vector<CommMember> members;
    std::vector<int> colors;
  };
  std::map<std::string, PendingInit> inits_;
  std::map<std::pair<uint64_t, uint64_t>, PendingSplit> splits_;  // (parent, split number)
  std::map<std::pair<uint64_t, int>, uint64_t> split_counts_;     // (parent, rank) -> calls
  std::map<uint64_t, int> nranks_;
};

}  // namespace seer::rt

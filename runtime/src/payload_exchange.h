#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "seer/simcore/rank_pair_index.h"
#include "wire.pb.h"

namespace seer::rt {

// One rank's output of a collective that carried bytes, for the client that waits for it.
struct PayloadResult {
  int client = 0;
  uint64_t id = 0;  // the CollPart's result_id
  std::string bytes;
  uint64_t zeros = 0;  // when not 0, the result is this many zero bytes (and `bytes` is empty)
};

// Computes what small collectives produce (interposer/client/PAYLOAD.md). Participants are
// matched per communicator by call order (send/recv per ordered rank pair), as NCCL matches them;
// when the last one has submitted, every rank's output is computed from the inputs. A withheld
// send (CollPart.withheld) still matches its recv, which then gets an empty result (its buffer
// keeps its bytes); a recv without a result id drops what its send carried.
class PayloadExchange {
 public:
  // One payload-carrying part of `rank`'s collective on `comm` (of `nranks` ranks). Returns the
  // results that became complete; `error` describes participants that disagree.
  std::vector<PayloadResult> submit(int client, uint64_t comm, int nranks, int rank,
                                    wire::CollPart&& part, std::string& error);
  // Collectives whose bytes wait for ranks that have not called them yet.
  std::vector<std::string> describe_waiting() const;

  struct Contribution {
    bool present = false;
    int client = 0;
    wire::CollPart part;
  };

 private:
  struct PendingCollective {
    std::vector<Contribution> ranks;
    int arrived = 0;
  };
  // What matching a send with its recv needs of each side: a p2p part is kept without the
  // protobuf message (an all-to-all submits one per peer).
  struct P2pSide {
    bool present = false;
    bool withheld = false;
    int client = 0;
    int datatype = 0;
    uint64_t count = 0;
    uint64_t result_id = 0;
    std::string input;
  };
  struct PendingP2p {
    P2pSide send;
    P2pSide recv;
  };
  std::map<std::pair<uint64_t, uint64_t>, PendingCollective> collectives_;  // (comm, call number)
  std::map<std::pair<uint64_t, int>, uint64_t> calls_;                      // (comm, rank)
  // One ordered rank pair of a communicator. Its n-th send pairs with its n-th recv, and as each
  // side submits in order, pairs complete in order: `pending[head..]` holds pairs first,
  // first+1, ... (a vector emptied when all are done keeps its memory: an all-to-all passes
  // through every pair of ranks at every call).
  struct Channel {
    uint64_t comm = 0;
    int sender = 0;
    int receiver = 0;
    uint64_t sends = 0;
    uint64_t recvs = 0;
    uint64_t first = 0;
    size_t head = 0;
    std::vector<PendingP2p> pending;
    size_t waiting() const { return pending.size() - head; }
    PendingP2p& at(uint64_t number) { return pending[head + (number - first)]; }
  };
  Channel& channel(uint64_t comm, int nranks, int sender, int receiver);
  std::unordered_map<uint64_t, sim::RankPairIndex> comm_channels_;  // into channels_
  std::vector<Channel> channels_;
};

// The outputs of a complete collective, one per rank (empty where a rank receives nothing);
// inputs missing bytes read as zeros.
std::vector<std::string> collective_outputs(const std::vector<wire::CollPart>& parts);

// Where every input is zeros and the collective turns zeros into zeros (every reduction but a
// PreMulSum whose scalar is negative or not finite, which gives -0 or NaN), the size of each
// rank's output as collective_outputs would compute it, all zeros; nullopt otherwise.
std::optional<std::vector<uint64_t>> zero_outputs(const std::vector<wire::CollPart>& parts);

// Whether every byte of `s` is zero.
bool all_zero(const std::string& s);

}  // namespace seer::rt

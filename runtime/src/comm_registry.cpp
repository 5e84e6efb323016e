#include "comm_registry.h"

#include <algorithm>

namespace seer::rt {
namespace {

uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  h *= 0xbf58476d1ce4e5b9ull;
  return h ^ (h >> 31);
}

uint64_t nonzero(uint64_t id) { return id ? id : 1; }

sim::Time latest(const std::vector<CommMember>& members) {
  sim::Time t = 0;
  for (const auto& m : members) t = std::max(t, m.t);
  return t + CommRegistry::kInitNs;
}

}  // namespace

std::vector<CompletedComm> CommRegistry::join_init(const std::string& unique_id, int nranks,
                                                   uint64_t process_seq, const CommMember& m,
                                                   std::string& error) {
  if (nranks < 1 || m.rank < 0 || m.rank >= nranks) {
    error = "ncclCommInitRank: rank " + std::to_string(m.rank) + " is not in [0, " +
            std::to_string(nranks) + ")";
    return {};
  }
  PendingInit& p = inits_[unique_id];
  if (p.members.empty()) p.nranks = nranks;
  if (p.nranks != nranks) {
    error = "ncclCommInitRank: ranks of one communicator disagree on its size (" +
            std::to_string(p.nranks) + " vs " + std::to_string(nranks) + ")";
    return {};
  }
  for (const auto& other : p.members) {
    if (other.rank == m.rank) {
      error = "ncclCommInitRank: rank " + std::to_string(m.rank) +
              " joined the same communicator twice";
      return {};
    }
  }
  p.members.push_back(m);
  p.seqs.push_back(process_seq);
  if (static_cast<int>(p.members.size()) < nranks) return {};
  CompletedComm c;
  c.nranks = nranks;
  c.members.resize(nranks);
  uint64_t id = 0x5eedull;
  for (size_t i = 0; i < p.members.size(); ++i) c.members[p.members[i].rank] = p.members[i];
  for (size_t i = 0; i < p.members.size(); ++i) {
    if (p.members[i].rank == 0)
      id = mix(mix(id, static_cast<uint64_t>(p.members[i].process)), p.seqs[i]);
  }
  c.comm = nonzero(mix(id, static_cast<uint64_t>(nranks)));
  for (const auto& mem : c.members) c.gpus.push_back(mem.gpu);
  c.ready = latest(c.members);
  nranks_[c.comm] = nranks;
  inits_.erase(unique_id);
  return {c};
}

std::vector<CompletedComm> CommRegistry::join_split(uint64_t parent, int color, const CommMember& m,
                                                    std::string& error, int excluded) {
  const int n = nranks(parent) - std::max(0, excluded);
  if (n <= 0) {
    error = "ncclCommSplit: unknown parent communicator";
    return {};
  }
  const uint64_t number = split_counts_[{parent, m.rank}]++;
  PendingSplit& p = splits_[{parent, number}];
  p.members.push_back(m);
  p.colors.push_back(color);
  if (static_cast<int>(p.members.size()) < n) return {};
  std::map<int, std::vector<CommMember>> groups;
  for (size_t i = 0; i < p.members.size(); ++i) groups[p.colors[i]].push_back(p.members[i]);
  const sim::Time ready = latest(p.members);
  std::vector<CompletedComm> out;
  for (auto& [c, members] : groups) {
    std::sort(members.begin(), members.end(), [](const CommMember& a, const CommMember& b) {
      return a.key != b.key ? a.key < b.key : a.rank < b.rank;
    });
    CompletedComm cc;
    cc.members = members;
    cc.ready = ready;
    if (c < 0) {
      out.push_back(cc);  // NCCL_SPLIT_NOCOLOR: no communicator
      continue;
    }
    cc.nranks = static_cast<int>(members.size());
    cc.comm = nonzero(mix(mix(mix(parent, number), static_cast<uint64_t>(c)), 0x5b11ull));
    for (const auto& mem : members) cc.gpus.push_back(mem.gpu);
    nranks_[cc.comm] = cc.nranks;
    out.push_back(cc);
  }
  splits_.erase({parent, number});
  return out;
}

int CommRegistry::nranks(uint64_t comm) const {
  auto it = nranks_.find(comm);
  return it == nranks_.end() ? 0 : it->second;
}

std::vector<std::string> CommRegistry::describe_waiting() const {
  std::vector<std::string> out;
  for (const auto& [id, p] : inits_) {
    std::string ranks;
    for (const auto& m : p.members) {
      if (!ranks.empty()) ranks += ',';
      ranks += std::to_string(m.rank);
    }
    out.push_back("a communicator of " + std::to_string(p.nranks) +
                  " ranks is being created; only ranks " + ranks + " called ncclCommInitRank");
  }
  for (const auto& [key, p] : splits_) {
    out.push_back("ncclCommSplit #" + std::to_string(key.second) + " of communicator " +
                  std::to_string(key.first) + ": " + std::to_string(p.members.size()) + " of " +
                  std::to_string(nranks(key.first)) + " ranks called it");
  }
  return out;
}

}  // namespace seer::rt

#include "payload_exchange.h"

#include <algorithm>
#include <tuple>

#include "payload_reduce.h"

namespace seer::rt {
namespace {

// `count` elements starting at element `offset` of `s`, zero-padded.
std::string slice(const std::string& s, uint64_t offset, uint64_t count, int bytes) {
  const uint64_t n = count * static_cast<uint64_t>(bytes);
  const uint64_t at = offset * static_cast<uint64_t>(bytes);
  std::string out(n, '\0');
  if (at < s.size()) s.copy(out.data(), std::min<uint64_t>(n, s.size() - at), at);
  return out;
}

const char* kind_name(wire::CollKind k) {
  static const char* const kNames[] = {"AllReduce",     "Broadcast", "Reduce", "AllGather",
                                       "ReduceScatter", "AllToAll",  "Gather", "Scatter",
                                       "Send",          "Recv"};
  const int i = static_cast<int>(k);
  return i >= 0 && i < 10 ? kNames[i] : "?";
}

bool same_call(const wire::CollPart& a, const wire::CollPart& b) {
  return a.kind() == b.kind() && a.count() == b.count() && a.datatype() == b.datatype() &&
         a.redop() == b.redop() && a.root() == b.root();
}

// The part as the exchange keeps it. Its input bytes are moved, not copied: the session parses
// records in an arena, and moving a message out of one copies it.
PayloadExchange::Contribution contribution(int client, wire::CollPart& part) {
  std::string input = std::move(*part.mutable_input());
  PayloadExchange::Contribution c{true, client, part};
  *c.part.mutable_input() = std::move(input);
  return c;
}

}  // namespace

std::vector<std::string> collective_outputs(const std::vector<wire::CollPart>& parts) {
  const int n = static_cast<int>(parts.size());
  std::vector<std::string> out(static_cast<size_t>(n));
  if (n == 0) return out;
  const wire::CollPart& first = parts[0];
  const uint64_t count = first.count();
  const int bytes = payload::element_bytes(first.datatype());
  if (bytes == 0) return out;
  const int root = first.root() >= 0 && first.root() < n ? first.root() : 0;
  std::vector<const std::string*> inputs;
  for (const auto& p : parts) inputs.push_back(&p.input());
  // PreMulSum scalars are per rank in NCCL too; the root's (or rank 0's) stands for all here.
  const std::string& scalar = first.scalar();
  auto reduced = [&](uint64_t offset) {
    return payload::reduce(inputs, offset, count, first.datatype(), first.redop(), scalar);
  };
  switch (first.kind()) {
    case wire::COLL_ALL_REDUCE: {
      const std::string r = reduced(0);
      for (auto& o : out) o = r;
      break;
    }
    case wire::COLL_REDUCE:
      out[static_cast<size_t>(root)] = reduced(0);
      break;
    case wire::COLL_BROADCAST:
      for (auto& o : out) o = slice(*inputs[static_cast<size_t>(root)], 0, count, bytes);
      break;
    case wire::COLL_REDUCE_SCATTER:
      for (int r = 0; r < n; ++r) out[static_cast<size_t>(r)] = reduced(count * r);
      break;
    case wire::COLL_ALL_GATHER:
    case wire::COLL_GATHER: {
      std::string all;
      for (const auto* in : inputs) all += slice(*in, 0, count, bytes);
      if (first.kind() == wire::COLL_GATHER) {
        out[static_cast<size_t>(root)] = all;
      } else {
        for (auto& o : out) o = all;
      }
      break;
    }
    case wire::COLL_SCATTER:
      for (int r = 0; r < n; ++r)
        out[static_cast<size_t>(r)] =
            slice(*inputs[static_cast<size_t>(root)], count * r, count, bytes);
      break;
    case wire::COLL_ALL_TO_ALL:
      for (int r = 0; r < n; ++r) {
        for (int j = 0; j < n; ++j)
          out[static_cast<size_t>(r)] +=
              slice(*inputs[static_cast<size_t>(j)], count * r, count, bytes);
      }
      break;
    default:
      break;
  }
  return out;
}

bool all_zero(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c == 0; });
}

std::optional<std::vector<uint64_t>> zero_outputs(const std::vector<wire::CollPart>& parts) {
  const int n = static_cast<int>(parts.size());
  if (n == 0) return std::nullopt;
  const wire::CollPart& first = parts[0];
  const int bytes = payload::element_bytes(first.datatype());
  if (bytes == 0) return std::nullopt;
  for (const auto& p : parts) {
    if (!all_zero(p.input())) return std::nullopt;
  }
  const uint64_t one = first.count() * static_cast<uint64_t>(bytes);
  const int root = first.root() >= 0 && first.root() < n ? first.root() : 0;
  std::vector<uint64_t> out(static_cast<size_t>(n), 0);
  switch (first.kind()) {
    case wire::COLL_ALL_REDUCE:
    case wire::COLL_REDUCE:
    case wire::COLL_REDUCE_SCATTER: {
      // Every element reduces the same zeros: one element tells what all of them become.
      const std::vector<const std::string*> none(static_cast<size_t>(n), nullptr);
      if (!all_zero(payload::reduce(none, 0, 1, first.datatype(), first.redop(), first.scalar())))
        return std::nullopt;
      if (first.kind() == wire::COLL_REDUCE) {
        out[static_cast<size_t>(root)] = one;
      } else {
        for (auto& o : out) o = one;
      }
      break;
    }
    case wire::COLL_BROADCAST:
    case wire::COLL_SCATTER:
      for (auto& o : out) o = one;
      break;
    case wire::COLL_ALL_GATHER:
    case wire::COLL_ALL_TO_ALL:
      for (auto& o : out) o = one * static_cast<uint64_t>(n);
      break;
    case wire::COLL_GATHER:
      out[static_cast<size_t>(root)] = one * static_cast<uint64_t>(n);
      break;
    default:
      return std::nullopt;
  }
  return out;
}

std::vector<PayloadResult> PayloadExchange::submit(int client, uint64_t comm, int nranks, int rank,
                                                   wire::CollPart&& part, std::string& error) {
  std::vector<PayloadResult> results;
  if (nranks < 1 || rank < 0 || rank >= nranks) return results;
  const bool send = part.kind() == wire::COLL_SEND;
  if (send || part.kind() == wire::COLL_RECV) {
    const int peer = part.root();
    if (peer < 0 || peer >= nranks) return results;
    const int sender = send ? rank : peer;
    const int receiver = send ? peer : rank;
    Channel& ch = channel(comm, nranks, sender, receiver);
    const uint64_t number = send ? ch.sends++ : ch.recvs++;
    while (ch.waiting() <= number - ch.first) ch.pending.emplace_back();
    PendingP2p& p = ch.at(number);
    P2pSide& side = send ? p.send : p.recv;
    side.present = true;
    side.withheld = part.withheld();
    side.client = client;
    side.datatype = part.datatype();
    side.count = part.count();
    side.result_id = part.result_id();
    side.input = std::move(*part.mutable_input());
    if (!p.send.present || !p.recv.present) return results;
    if (p.send.count != p.recv.count || p.send.datatype != p.recv.datatype) {
      error = "ncclSend/ncclRecv #" + std::to_string(number) + " from rank " +
              std::to_string(sender) + " to rank " + std::to_string(receiver) +
              " disagree on count or datatype";
    }
    // Either side may withhold its bytes (its group is over the limit): a receiver that waits
    // for them gets an empty result and keeps what its buffer held.
    if (p.recv.result_id) {
      const int bytes = payload::element_bytes(p.recv.datatype);
      PayloadResult r{p.recv.client, p.recv.result_id, {}, 0};
      if (p.send.withheld) {
        // empty: the receiver keeps what its buffer held
      } else if (all_zero(p.send.input)) {
        r.zeros = p.recv.count * static_cast<uint64_t>(bytes);
      } else if (p.send.input.size() == p.recv.count * uint64_t(bytes)) {
        r.bytes = std::move(p.send.input);
      } else {
        r.bytes = slice(p.send.input, 0, p.recv.count, bytes);
      }
      results.push_back(std::move(r));
    }
    p = PendingP2p{};  // the pair just completed is the first (see Channel)
    ++ch.first;
    if (++ch.head == ch.pending.size()) {
      ch.pending.clear();
      ch.head = 0;
    } else if (ch.head >= 64 && 2 * ch.head >= ch.pending.size()) {  // one side stays ahead
      ch.pending.erase(ch.pending.begin(), ch.pending.begin() + static_cast<ptrdiff_t>(ch.head));
      ch.head = 0;
    }
    return results;
  }
  const uint64_t number = calls_[{comm, rank}]++;
  PendingCollective& c = collectives_[{comm, number}];
  if (c.ranks.empty()) c.ranks.resize(static_cast<size_t>(nranks));
  Contribution& slot = c.ranks[static_cast<size_t>(rank)];
  if (slot.present) return results;
  slot = contribution(client, part);
  if (++c.arrived < nranks) return results;
  std::vector<wire::CollPart> parts;
  parts.reserve(c.ranks.size());
  for (Contribution& r : c.ranks) {
    if (!parts.empty() && !same_call(r.part, parts[0])) {
      error = std::string("nccl") + kind_name(c.ranks[0].part.kind()) + " #" +
              std::to_string(number) + " on communicator " + std::to_string(comm) +
              ": ranks disagree on the operation, count, datatype, reduction or root";
    }
    parts.push_back(std::move(r.part));
  }
  const std::optional<std::vector<uint64_t>> zeros = zero_outputs(parts);
  std::vector<std::string> outputs;
  if (!zeros) outputs = collective_outputs(parts);
  for (int r = 0; r < nranks; ++r) {
    const auto i = static_cast<size_t>(r);
    const uint64_t id = parts[i].result_id();
    if (!id) continue;
    const int who = c.ranks[i].client;
    results.push_back(zeros ? PayloadResult{who, id, {}, (*zeros)[i]}
                            : PayloadResult{who, id, std::move(outputs[i]), 0});
  }
  collectives_.erase({comm, number});
  return results;
}

PayloadExchange::Channel& PayloadExchange::channel(uint64_t comm, int nranks, int sender,
                                                   int receiver) {
  uint32_t* slot = &comm_channels_.try_emplace(comm, nranks).first->second.slot(sender, receiver);
  if (*slot == 0) {
    Channel ch;
    ch.comm = comm;
    ch.sender = sender;
    ch.receiver = receiver;
    channels_.push_back(std::move(ch));
    *slot = static_cast<uint32_t>(channels_.size());
  }
  return channels_[*slot - 1];
}

std::vector<std::string> PayloadExchange::describe_waiting() const {
  std::vector<std::string> out;
  for (const auto& [key, c] : collectives_) {
    std::string missing;
    for (size_t r = 0; r < c.ranks.size(); ++r) {
      if (c.ranks[r].present) continue;
      if (!missing.empty()) missing += ',';
      missing += std::to_string(r);
    }
    const wire::CollPart* any = nullptr;
    for (const auto& r : c.ranks) {
      if (r.present) any = &r.part;
    }
    out.push_back(std::string("the data of nccl") + (any ? kind_name(any->kind()) : "?") + " #" +
                  std::to_string(key.second) + " on communicator " + std::to_string(key.first) +
                  " waits for ranks " + missing + ", which have not called it");
  }
  std::vector<const Channel*> waiting;
  for (const Channel& ch : channels_) {
    if (ch.waiting() > 0) waiting.push_back(&ch);
  }
  std::sort(waiting.begin(), waiting.end(), [](const Channel* a, const Channel* b) {
    return std::tie(a->comm, a->sender, a->receiver) < std::tie(b->comm, b->sender, b->receiver);
  });
  for (const Channel* ch : waiting) {
    for (size_t i = 0; i < ch->waiting(); ++i) {
      out.push_back("the data of ncclSend/ncclRecv #" + std::to_string(ch->first + i) +
                    " from rank " + std::to_string(ch->sender) + " to rank " +
                    std::to_string(ch->receiver) + " on communicator " + std::to_string(ch->comm) +
                    " waits for the " +
                    (ch->pending[ch->head + i].send.present ? "ncclRecv" : "ncclSend"));
    }
  }
  return out;
}

}  // namespace seer::rt

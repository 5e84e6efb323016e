#include "seer/simcore/collective_model.h"

namespace seer::sim {

const char* coll_kind_name(CollKind kind) {
  switch (kind) {
    case CollKind::kAllReduce:
      return "AllReduce";
    case CollKind::kBroadcast:
      return "Broadcast";
    case CollKind::kReduce:
      return "Reduce";
    case CollKind::kAllGather:
      return "AllGather";
    case CollKind::kReduceScatter:
      return "ReduceScatter";
    case CollKind::kAllToAll:
      return "AlltoAll";
    case CollKind::kGather:
      return "Gather";
    case CollKind::kScatter:
      return "Scatter";
    case CollKind::kSend:
      return "Send";
    case CollKind::kRecv:
      return "Recv";
  }
  return "?";
}

uint64_t collective_bytes(const CollPart& part, int nranks) {
  const uint64_t one = part.count * static_cast<uint64_t>(part.type_bytes);
  switch (part.kind) {
    case CollKind::kAllGather:
    case CollKind::kReduceScatter:
    case CollKind::kAllToAll:
    case CollKind::kGather:
    case CollKind::kScatter:
      return one * static_cast<uint64_t>(nranks);
    default:
      return one;
  }
}

Time p2p_ns(uint64_t bytes, bool same_node, const NodeLinks& links) {
  if (same_node)
    return links.nvlink_latency + transfer_ns(static_cast<double>(bytes), links.nvlink_bytes_per_s);
  return links.scale_out_latency +
         transfer_ns(static_cast<double>(bytes), links.scale_out_bytes_per_s);
}

Time collective_ns(const CollPart& part, const CommShape& shape, const NodeLinks& links) {
  const int n = shape.nranks;
  const bool multi_node = shape.nodes > 1;
  const double bw = multi_node ? links.scale_out_bytes_per_s : links.nvlink_bytes_per_s;
  const Time lat = multi_node ? links.scale_out_latency : links.nvlink_latency;
  if (n <= 1) return lat;
  const double s = static_cast<double>(collective_bytes(part, n));
  const double frac = static_cast<double>(n - 1) / n;
  switch (part.kind) {
    case CollKind::kAllReduce:
      return 2 * (n - 1) * lat + transfer_ns(2 * frac * s, bw);
    case CollKind::kBroadcast:
    case CollKind::kReduce:
      return (n - 1) * lat + transfer_ns(s, bw);
    case CollKind::kAllGather:
    case CollKind::kReduceScatter:
    case CollKind::kAllToAll:
    case CollKind::kGather:
    case CollKind::kScatter:
      return (n - 1) * lat + transfer_ns(frac * s, bw);
    case CollKind::kSend:
    case CollKind::kRecv:
      return lat + transfer_ns(s, bw);
  }
  return lat;
}

}  // namespace seer::sim

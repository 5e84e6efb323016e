#include <memory>

#include "ns3_packet_model.h"
#include "seer/netsim/ns3_model.h"

namespace seer::net {

bool ns3_available() { return true; }

std::unique_ptr<NetworkModel> make_ns3_model(const Topology& topology) {
  return make_ns3_model(topology, Ns3Options{});
}

std::unique_ptr<NetworkModel> make_ns3_model(const Topology& topology, const Ns3Options& options) {
  return std::make_unique<Ns3Model>(topology, options);
}

}  // namespace seer::net

// The ns-3 backend's entry points in a Seer built without ns-3.

#include <memory>
#include <stdexcept>

#include "seer/netsim/ns3_model.h"

namespace seer::net {

namespace {

[[noreturn]] void not_built() {
  throw std::runtime_error(
      "the ns-3 backend is not built: install libns3-dev and libgsl-dev (scripts/setup.sh does) "
      "and rebuild");
}

}  // namespace

bool ns3_available() { return false; }

std::unique_ptr<NetworkModel> make_ns3_model(const Topology&) { not_built(); }

std::unique_ptr<NetworkModel> make_ns3_model(const Topology&, const Ns3Options&) { not_built(); }

}  // namespace seer::net

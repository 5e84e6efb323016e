#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "seer/netsim/ns3_model.h"

namespace seer::net {
namespace {

TEST(Ns3Unavailable, FactorySaysWhatToInstall) {
  EXPECT_FALSE(ns3_available());
  Topology topology;
  try {
    make_ns3_model(topology);
    FAIL() << "make_ns3_model did not throw";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("install libns3-dev and libgsl-dev"), std::string::npos);
  }
}

}  // namespace
}  // namespace seer::net

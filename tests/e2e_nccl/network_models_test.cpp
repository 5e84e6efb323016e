// The two network models on the same collectives (netsim/ns3/README.md): the packet-level ns-3
// backend and the flow model agree within 15 % on an nccl-tests-style all-reduce and all-gather
// across two nodes, and --network ns3 without ns-3 in the build is a clear usage error.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "e2e_util.h"

namespace seer::e2e {
namespace {

// busbw (GB/s) of each row coll_bench printed, in order.
std::vector<double> busbw(const std::string& out) {
  std::vector<double> v;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream row(line);
    std::vector<std::string> f;
    for (std::string w; row >> w;) f.push_back(w);
    if (f.size() >= 9) v.push_back(std::stod(f[7]));
  }
  return v;
}

// ns-3 simulates every packet: a run takes tens of seconds on a fast machine, minutes on a slow
// or loaded one.
Outcome coll_bench(const std::string& network) {
  constexpr int kTimeoutS = 540;
  return seer({"run",         "--quiet",
               "--host-time", "modeled",
               "--network",   network,
               "--cluster",   "dgx-h100:2",
               "--",          example("coll_bench"),
               "-g",          "16",
               "-b",          "16M",
               "-e",          "16M",
               "-n",          "2",
               "-w",          "1",
               "-o",          "allreduce,allgather"},
              {}, kTimeoutS);
}

TEST(NetworkModels, Ns3AgreesWithTheFlowModelAcrossTwoNodes) {
#if SEER_NS3_BUILT
  const Outcome flow = coll_bench("flow");
  const Outcome ns3 = coll_bench("ns3");
  ASSERT_EQ(flow.exit_code, 0) << flow.describe();
  ASSERT_EQ(ns3.exit_code, 0) << ns3.describe();
  const std::vector<double> f = busbw(flow.out), n = busbw(ns3.out);
  ASSERT_EQ(f.size(), 2u) << flow.out;
  ASSERT_EQ(n.size(), 2u) << ns3.out;
  for (size_t i = 0; i < f.size(); ++i) {
    EXPECT_GT(f[i], 50.0) << flow.out;  // inter-node rings at NIC speed, not a degenerate run
    EXPECT_NEAR(n[i], f[i], 0.15 * f[i]) << "row " << i << "\nflow:\n"
                                         << flow.out << "\nns-3:\n"
                                         << ns3.out;
  }
#else
  const Outcome r = coll_bench("ns3");
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_NE(r.err.find("install libns3-dev and libgsl-dev"), std::string::npos) << r.describe();
#endif
}

TEST(NetworkModels, UnknownNetworkIsAUsageError) {
  const Outcome r = seer({"run", "--network", "omnet", "--", "true"});
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_NE(r.err.find("--network"), std::string::npos) << r.describe();
}

}  // namespace
}  // namespace seer::e2e

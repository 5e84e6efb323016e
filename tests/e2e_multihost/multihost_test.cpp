// Ranks on several hosts joining one session: `seer serve` on host 0, `seer run --connect` on
// hosts 0 and 1 (network namespaces joined by a veth pair, or loopback addresses; hosts.h).
// Checked: a two-host PyTorch DDP run gives the one-host run's summary; a host whose ranks are
// killed stops the run everywhere with a partial report; wrong tokens are refused and change
// nothing.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <fstream>
#include <thread>

#include "e2e_util.h"
#include "hosts.h"
#include "torch_util.h"

namespace seer::e2e::multihost {
namespace {

using torch::python;

std::string port(int offset) { return std::to_string(20000 + (::getpid() % 20000) + offset); }

std::vector<std::string> serve_argv(const Hosts& hosts, const std::string& cluster,
                                    const std::string& token, const std::string& out) {
  return hosts.on(
      0, {seer_bin(), "serve", "--cluster", cluster, "--host-time", "modeled", "--listen",
          hosts.address(0) + ":" + port(0), "--token-file", token, "--quiet", "--out", out});
}

std::vector<std::string> connect_argv(const Hosts& hosts, int host, const std::string& token,
                                      const std::vector<std::string>& command) {
  std::vector<std::string> argv{
      seer_bin(),     "run", "--connect", hosts.address(0) + ":" + port(0),
      "--token-file", token, "--"};
  argv.insert(argv.end(), command.begin(), command.end());
  return hosts.on(host, argv);
}

// torchrun's multi-node form for node `node` of `nodes`, rendezvous on host 0.
std::vector<std::string> torchrun_node(const Hosts& hosts, int nodes, int node, int nproc,
                                       const std::vector<std::string>& script_args) {
  std::vector<std::string> argv{python(),
                                "-m",
                                "torch.distributed.run",
                                "--nnodes",
                                std::to_string(nodes),
                                "--node-rank",
                                std::to_string(node),
                                "--nproc_per_node",
                                std::to_string(nproc),
                                "--master-addr",
                                hosts.address(0),
                                "--master-port",
                                port(1)};
  argv.insert(argv.end(), script_args.begin(), script_args.end());
  return argv;
}

// Waits until the serve's stderr shows it is listening.
void wait_until_listening(const Background& serve) {
  for (int i = 0; i < 500 && serve.err().find("serving") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

nlohmann::json comparable(nlohmann::json summary) {
  summary.erase("command");
  nlohmann::json ranks = nlohmann::json::array();
  for (const auto& p : summary["processes"]) {
    if (p["submitted_work"].get<bool>()) ranks.push_back(p);  // launchers differ in number
  }
  summary["processes"] = ranks;
  return summary;
}

// Two summaries agree: the same structure, names, counts and bytes; times within 1e-4 (at least
// 100 ns). Reruns of the same 16-rank job on one host differ by a few tens of ns at times (a
// PyTorch helper thread's mutex hand-offs follow the machine's scheduling:
// interposer/client/THREADS.md, "What still depends on the machine"); which rank is slowest in
// a step may then change too.
void expect_same(const nlohmann::json& a, const nlohmann::json& b, const std::string& path) {
  if (a.is_number() && b.is_number()) {
    const double x = a.get<double>(), y = b.get<double>();
    EXPECT_LE(std::abs(x - y), std::max(100.0, 1e-4 * std::abs(x))) << path;
    return;
  }
  ASSERT_EQ(a.type(), b.type()) << path;
  if (a.is_object()) {
    EXPECT_EQ(a.size(), b.size()) << path;
    for (const auto& [key, value] : a.items()) {
      if (key == "slowest_process") continue;
      ASSERT_TRUE(b.contains(key)) << path << "." << key;
      expect_same(value, b[key], path + "." + key);
    }
  } else if (a.is_array()) {
    ASSERT_EQ(a.size(), b.size()) << path;
    for (size_t i = 0; i < a.size(); ++i) {
      expect_same(a[i], b[i], path + "[" + std::to_string(i) + "]");
    }
  } else {
    EXPECT_EQ(a, b) << path;
  }
}

class MultiHost : public torch::TorchTest {};

TEST_F(MultiHost, TwoHostDdpRunGivesTheOneHostSummary) {
  const Hosts hosts;
  std::fprintf(stderr, "hosts: %s\n", hosts.describe().c_str());
  const TempDir dir;
  const std::vector<std::string> script{torch::example("train_llama.py"),
                                        "--model",
                                        "tiny",
                                        "--ddp",
                                        "--steps",
                                        "3",
                                        "--seq-len",
                                        "512"};

  std::vector<std::string> one_host{
      python(), "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "16"};
  one_host.insert(one_host.end(), script.begin(), script.end());
  const Outcome single = torch::seer_torch("dgx-h100:2", dir.file("one"), one_host);
  ASSERT_EQ(single.exit_code, 0) << single.describe();

  Background serve(serve_argv(hosts, "dgx-h100:2", dir.file("token"), dir.file("two")), {},
                   dir.file("serve"));
  wait_until_listening(serve);
  Background host0(connect_argv(hosts, 0, dir.file("token"), torchrun_node(hosts, 2, 0, 8, script)),
                   {}, dir.file("host0"));
  Background host1(connect_argv(hosts, 1, dir.file("token"), torchrun_node(hosts, 2, 1, 8, script)),
                   {}, dir.file("host1"));
  ASSERT_TRUE(host0.wait(900)) << host0.describe();
  ASSERT_TRUE(host1.wait(120)) << host1.describe();
  ASSERT_TRUE(serve.wait(60)) << serve.describe();
  EXPECT_EQ(host0.exit_code(), 0) << host0.describe();
  EXPECT_EQ(host1.exit_code(), 0) << host1.describe();
  EXPECT_EQ(serve.exit_code(), 0) << serve.describe();
  EXPECT_NE(serve.err().find("joined"), std::string::npos) << serve.describe();

  // Rank 0 (on host 0) prints its steps, timed with CUDA events: the same virtual times.
  const auto steps_one = torch::numbers(single.out, R"(step \d+: .* step ([0-9.]+) ms)");
  const auto steps_two = torch::numbers(host0.out(), R"(step \d+: .* step ([0-9.]+) ms)");
  ASSERT_EQ(steps_one.size(), 3u) << single.out;
  ASSERT_EQ(steps_two.size(), 3u) << host0.out();
  for (size_t i = 0; i < 3; ++i) EXPECT_NEAR(steps_one[i], steps_two[i], 1e-3) << host0.out();

  const nlohmann::json a = comparable(read_json(dir.file("one") + "/summary.json"));
  const nlohmann::json b = comparable(read_json(dir.file("two") + "/summary.json"));
  EXPECT_EQ(a["processes"].size(), 16u);
  expect_same(a, b, "summary");
}

// The `mpirun -H` recipe: mpirun starts one `seer run --connect` per rank; the ranks find their
// identity in Open MPI's variables.
TEST(MultiHostMpi, MpirunStartsOneRelayPerRankAndGetsTheOneHostSummary) {
  const Hosts hosts;
  const TempDir dir;
  const std::vector<std::string> program{example("dp_train"), "--steps", "3"};
  const Outcome single = seer_run("dgx-h100", dir.file("one"), mpirun(4, program));
  ASSERT_EQ(single.exit_code, 0) << single.describe();

  Background serve(serve_argv(hosts, "dgx-h100", dir.file("token"), dir.file("two")), {},
                   dir.file("serve"));
  wait_until_listening(serve);
  std::vector<std::string> relay{
      seer_bin(),        "run", "--connect", hosts.address(0) + ":" + port(0), "--token-file",
      dir.file("token"), "--"};
  relay.insert(relay.end(), program.begin(), program.end());
  const Outcome ranks = run_command(hosts.on(0, mpirun(4, relay)), {}, 300);
  EXPECT_EQ(ranks.exit_code, 0) << ranks.describe();
  ASSERT_TRUE(serve.wait(60)) << serve.describe();
  EXPECT_EQ(serve.exit_code(), 0) << serve.describe();
  size_t joined = 0;
  for (size_t at = 0; (at = serve.err().find(" joined: ", at)) != std::string::npos; ++at) ++joined;
  EXPECT_EQ(joined, 4u) << serve.err();
  // dp_train's own step times (CUDA events), printed by rank 0.
  const auto steps = torch::numbers(single.out, R"(^step \d+ ([0-9.]+) ms)");
  EXPECT_EQ(steps.size(), 3u) << single.out;
  EXPECT_EQ(steps, torch::numbers(ranks.out, R"(^step \d+ ([0-9.]+) ms)")) << ranks.out;
  expect_same(comparable(read_json(dir.file("one") + "/summary.json")),
              comparable(read_json(dir.file("two") + "/summary.json")), "summary");
}

TEST_F(MultiHost, KillingOneHostsRanksStopsEveryHostAndWritesAPartialReport) {
  const Hosts hosts;
  const TempDir dir;
  const std::vector<std::string> script{torch::example("train_llama.py"),
                                        "--model",
                                        "tiny",
                                        "--ddp",
                                        "--steps",
                                        "100000",
                                        "--seq-len",
                                        "256"};
  Background serve(serve_argv(hosts, "dgx-h100", dir.file("token"), dir.file("out")), {},
                   dir.file("serve"));
  wait_until_listening(serve);
  const std::string tag = "victim-" + std::to_string(::getpid());
  Background host0(connect_argv(hosts, 0, dir.file("token"), torchrun_node(hosts, 2, 0, 2, script)),
                   {}, dir.file("host0"));
  Background host1(connect_argv(hosts, 1, dir.file("token"), torchrun_node(hosts, 2, 1, 2, script)),
                   {{"SEER_TEST_HOST", tag}}, dir.file("host1"));
  // Training is under way once rank 0 printed a step.
  for (int i = 0; i < 3000 && host0.out().find("step 1:") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_NE(host0.out().find("step 1:"), std::string::npos) << host0.out() << host0.err();
  int killed = 0;
  for (int pid : processes_with_env("SEER_TEST_HOST", tag)) {
    const std::string cmdline = read_file("/proc/" + std::to_string(pid) + "/cmdline");
    // The ranks, not host 1's seer or its torchrun agent.
    if (cmdline.find("train_llama.py") == std::string::npos ||
        cmdline.find("--nnodes") != std::string::npos) {
      continue;
    }
    killed += ::kill(pid, SIGKILL) == 0 ? 1 : 0;
  }
  EXPECT_EQ(killed, 2);
  ASSERT_TRUE(serve.wait(120)) << serve.describe();
  ASSERT_TRUE(host0.wait(120)) << host0.describe();
  ASSERT_TRUE(host1.wait(120)) << host1.describe();
  EXPECT_NE(serve.exit_code(), 0) << serve.describe();
  EXPECT_NE(host0.exit_code(), 0) << host0.describe();
  EXPECT_NE(host1.exit_code(), 0) << host1.describe();
  EXPECT_NE(serve.err().find("died without exiting normally"), std::string::npos)
      << serve.describe();
  EXPECT_NE(host0.err().find("the session stopped the run"), std::string::npos) << host0.describe();
  // The partial report: the ranks that ran, and the steps they finished.
  const nlohmann::json summary = read_json(dir.file("out") + "/summary.json");
  int ranks = 0;
  for (const auto& p : summary["processes"]) ranks += p["submitted_work"].get<bool>() ? 1 : 0;
  EXPECT_EQ(ranks, 4);
  EXPECT_GE(summary["steps"]["count"].get<int>(), 1);
}

TEST_F(MultiHost, WrongTokensAreRefusedAndChangeNothing) {
  const Hosts hosts;
  const TempDir dir;
  write_file(dir.file("token"), "correct-horse-battery-staple-0123456789\n");
  write_file(dir.file("other"), "a-token-of-another-session-9876543210\n");
  write_file(dir.file("short"), "short\n");
  const std::vector<std::string> program{example("pipeline_demo"), "2", "16"};
  const Outcome single = seer_run("dgx-h100", dir.file("one"), program);
  ASSERT_EQ(single.exit_code, 0) << single.describe();

  Background serve(serve_argv(hosts, "dgx-h100", dir.file("token"), dir.file("two")), {},
                   dir.file("serve"));
  wait_until_listening(serve);
  const Outcome wrong = run_command(connect_argv(hosts, 1, dir.file("other"), program), {}, 60);
  EXPECT_EQ(wrong.exit_code, 2) << wrong.describe();
  EXPECT_NE(wrong.err.find("refused this host: wrong token"), std::string::npos)
      << wrong.describe();
  const Outcome too_short = run_command(connect_argv(hosts, 1, dir.file("short"), program), {}, 60);
  EXPECT_EQ(too_short.exit_code, 2) << too_short.describe();
  EXPECT_NE(too_short.err.find("at least 16"), std::string::npos) << too_short.describe();
  const Outcome missing = run_command(connect_argv(hosts, 1, dir.file("missing"), program), {}, 60);
  EXPECT_EQ(missing.exit_code, 2) << missing.describe();
  EXPECT_NE(missing.err.find("No such file"), std::string::npos) << missing.describe();

  const Outcome right = run_command(connect_argv(hosts, 1, dir.file("token"), program), {}, 120);
  EXPECT_EQ(right.exit_code, 0) << right.describe();
  ASSERT_TRUE(serve.wait(60)) << serve.describe();
  EXPECT_EQ(serve.exit_code(), 0) << serve.describe();
  EXPECT_NE(serve.err().find("refused a connection"), std::string::npos) << serve.describe();
  const nlohmann::json a = comparable(read_json(dir.file("one") + "/summary.json"));
  const nlohmann::json b = comparable(read_json(dir.file("two") + "/summary.json"));
  EXPECT_EQ(a, b);
  EXPECT_TRUE(b["problems"].empty()) << b["problems"];
}

}  // namespace
}  // namespace seer::e2e::multihost

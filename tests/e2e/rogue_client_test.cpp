// Rogue and broken clients (programs/rogue_clients.cpp: malformed frames, a huge length prefix,
// an unknown message, records before hello, a second hello, a client that disconnects in the
// middle of a batch) attack the session of a well-behaved program while it runs: the session
// drops each of them with a message naming the process and the reason, and the program finishes
// with exactly the results it has without them.

#include <string>
#include <vector>

#include "e2e_util.h"

namespace seer::e2e {
namespace {

// The program's own output lines (the rogue's are removed).
std::string program_lines(const std::string& out) {
  std::string kept;
  size_t at = 0;
  while (at < out.size()) {
    size_t end = out.find('\n', at);
    if (end == std::string::npos) end = out.size();
    const std::string line = out.substr(at, end - at);
    if (line.rfind("ROGUE_", 0) != 0) kept += line + "\n";
    at = end + 1;
  }
  return kept;
}

std::string rogue_value(const std::string& out, const std::string& key) {
  const size_t at = out.find(key + " ");
  if (at == std::string::npos) return "";
  const size_t begin = at + key.size() + 1;
  return out.substr(begin, out.find('\n', begin) - begin);
}

TEST(RogueClients, DroppedWhileAWellBehavedProgramRuns) {
  const std::string demo = program("e2e_pipeline_demo");
  TempDir dir;
  const Outcome plain = seer_run("dgx-h100", dir.file("plain"), {demo});
  ASSERT_EQ(plain.exit_code, 0) << plain.describe();

  const std::string script = "\"$1\" & p=$!; \"$2\" $p; wait $p";
  const Outcome o = seer_run("dgx-h100", dir.file("rogue"),
                             {"sh", "-c", script, "sh", demo, std::string(E2E_ROGUE_CLIENTS)});
  ASSERT_FALSE(o.timed_out) << o.describe();
  ASSERT_EQ(o.exit_code, 0) << o.describe();

  // The attacks overlapped the program's run, and each bad connection was closed by the session.
  const std::string pid = rogue_value(o.out, "ROGUE_PID");
  ASSERT_FALSE(pid.empty()) << o.describe();
  EXPECT_GE(std::stoi(rogue_value(o.out, "ROGUE_ROUNDS_WHILE_ALIVE")), 1) << o.describe();
  EXPECT_EQ(o.out.find("ROGUE_NOT_DROPPED"), std::string::npos) << o.describe();
  for (const char* attack : {"malformed_frame", "huge_length", "unknown_message",
                             "batch_before_hello", "second_hello"}) {
    EXPECT_NE(o.out.find(std::string("ROGUE_DROPPED ") + attack), std::string::npos)
        << attack << o.describe();
  }

  // The session names the process and says why.
  const std::string dropped = "seer: dropped the connection of process " + pid + ": ";
  for (const char* why :
       {"sent a message that is not a valid ClientMessage", "sent a malformed frame header",
        "sent a message of no known type", "sent records before hello", "said hello twice",
        "it closed the connection in the middle of a message"}) {
    EXPECT_NE(o.err.find(dropped + why), std::string::npos) << why << o.describe();
  }

  // The well-behaved program saw nothing of it: same output, same simulated time.
  EXPECT_EQ(program_lines(o.out), plain.out);
  // (The rogue's hellos may take the first anonymous process keys: the GPU's process differs.)
  nlohmann::json a = read_json(dir.file("plain/summary.json"));
  nlohmann::json b = read_json(dir.file("rogue/summary.json"));
  EXPECT_EQ(a["simulated_time_ns"], b["simulated_time_ns"]);
  for (nlohmann::json* s : {&a, &b}) {
    for (nlohmann::json& gpu : (*s)["gpus"]) gpu.erase("process");
  }
  EXPECT_EQ(a["gpus"], b["gpus"]);
  EXPECT_EQ(a["kernels"], b["kernels"]);
}

}  // namespace
}  // namespace seer::e2e

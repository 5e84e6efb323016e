// `seer profile [--out DB] [--gpu-model NAME] [--nccl-standin] -- CMD ...`: runs CMD on this
// machine's real GPU with NVIDIA's own libraries, records its kernels, copies and memsets with
// CUPTI (interposer/profiler), and writes or merges the kernel database
// (seer/runtime/kernel_db.h). With --nccl-standin, CMD's NCCL is the stand-in of
// interposer/nccl_standin: one process profiles one rank of a larger job without its peers.
// Exit codes: CMD's own when it failed; 2 a usage error; 1 nothing recorded or the database could
// not be written.
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}  // namespace CLI

namespace seer::cli {

class ProfileCommand {
 public:
  explicit ProfileCommand(CLI::App& app);
  bool parsed() const;
  int run();

 private:
  CLI::App* profile_ = nullptr;
  std::string out_ = "kernels.kdb";
  std::string gpu_model_;
  bool quiet_ = false;
  bool nccl_standin_ = false;
  std::vector<std::string> command_;
};

}  // namespace seer::cli

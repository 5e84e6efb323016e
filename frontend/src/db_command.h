// `seer db`: list, merge, import (CSV) and export the kernel database, and show how well the
// models fit its measurements (fit)
// (seer/runtime/kernel_db.h documents the format, the lookup and the merge rules).
// Exit codes: 0 success, 2 a usage or input error (unreadable or corrupt file, bad CSV).
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}  // namespace CLI

namespace seer::cli {

class DbCommand {
 public:
  // Registers `seer db` and its subcommands on `app`.
  explicit DbCommand(CLI::App& app);
  bool parsed() const;
  int run();

 private:
  CLI::App* db_ = nullptr;
  CLI::App* list_ = nullptr;
  CLI::App* merge_ = nullptr;
  CLI::App* import_ = nullptr;
  CLI::App* export_ = nullptr;
  CLI::App* fit_ = nullptr;
  std::string file_;
  std::string out_;
  std::string gpu_;
  std::string kernel_;
  std::vector<std::string> inputs_;
};

}  // namespace seer::cli

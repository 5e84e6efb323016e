// Helpers of the kernel database e2e tests: a scratch directory, files, and `seer` runs.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace e2e_db {

struct Result {
  int code = -1;
  std::string out;  // stdout and stderr
};

class Dir {
 public:
  Dir() {
    char templ[] = "/tmp/seer-e2e-db-XXXXXX";
    path_ = ::mkdtemp(templ);
  }
  ~Dir() {
    if (!std::getenv("SEER_E2E_KEEP")) std::filesystem::remove_all(path_);
  }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

inline std::string read(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline void write(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << text;
}

inline std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Runs `seer ARGS` through the shell (env assignments in `env_prefix`), output captured.
inline Result seer(const std::vector<std::string>& args, const std::string& env_prefix = "") {
  std::string cmd = env_prefix + " " + quote(SEER_BIN);
  // append, not " " + string: GCC 12 at -O3 reports a false -Wrestrict for the latter.
  for (const auto& a : args) cmd.append(" ").append(quote(a));
  cmd += " 2>&1";
  Result r;
  FILE* p = ::popen(cmd.c_str(), "r");
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int status = ::pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

}  // namespace e2e_db

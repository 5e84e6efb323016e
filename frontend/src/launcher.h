#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace seer::cli {

// Where Seer's libraries live (next to the seer binary: ../lib).
std::string library_dir();

// LD_PRELOAD value: Seer's libraries first, then whatever the user already preloads.
std::string preload_value(const std::string& lib_dir, const char* existing);

// Starts `argv` in its own process group with Seer's environment. Throws on failure to fork.
pid_t launch(const std::vector<std::string>& argv, const std::string& socket_path,
             const std::string& lib_dir);

}  // namespace seer::cli

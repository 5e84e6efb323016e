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
// When seer runs in the terminal's foreground, the command's group takes the foreground, so
// Ctrl-C and reads from the terminal reach the command as they would without seer.
pid_t launch(const std::vector<std::string>& argv, const std::string& socket_path,
             const std::string& lib_dir);

// Passes SIGINT, SIGTERM, SIGHUP and SIGQUIT that seer receives on to the command's group.
void forward_signals_to(pid_t group);
// Gives the terminal's foreground back to seer after the command ended (when launch() took it).
void take_back_terminal();

}  // namespace seer::cli

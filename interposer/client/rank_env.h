#pragma once

#include <string>

namespace seer::client {

struct RankInfo {
  int rank = -1;
  int world_size = 0;
  int local_rank = -1;
  std::string source;  // which launcher variable named the rank
};

// Rank discovery from torchrun, Open MPI, MPICH/Hydra and Slurm variables.
RankInfo discover_rank();

}  // namespace seer::client

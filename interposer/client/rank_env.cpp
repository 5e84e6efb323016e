#include "rank_env.h"

#include <cstdlib>

namespace seer::client {
namespace {

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  const long x = std::strtol(v, &end, 10);
  return (end && *end == 0 && x >= 0 && x < (1 << 30)) ? static_cast<int>(x) : fallback;
}

struct Launcher {
  const char* rank;
  const char* size;
  const char* local;
};

}  // namespace

RankInfo discover_rank() {
  static const Launcher launchers[] = {
      {"RANK", "WORLD_SIZE", "LOCAL_RANK"},
      {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"},
      {"PMIX_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"},
      {"PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID"},
      {"SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"},
  };
  RankInfo info;
  for (const Launcher& l : launchers) {
    const int rank = env_int(l.rank, -1);
    if (rank < 0) continue;
    info.rank = rank;
    info.world_size = env_int(l.size, 0);
    info.local_rank = env_int(l.local, -1);
    info.source = l.rank;
    return info;
  }
  return info;
}

}  // namespace seer::client

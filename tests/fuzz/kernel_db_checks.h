// Properties every kernel database that loads must have, shared by the two kernel-database
// fuzz targets: it survives serialize/parse and export/import unchanged, every entry is found
// by an exact lookup, nearest-geometry lookups stay positive, and merging it into itself keeps
// every entry.
#pragma once

#include <cstdlib>
#include <string>
#include <tuple>

#include "seer/runtime/kernel_db.h"
#include "seer/simcore/gpu_spec.h"

namespace seer::fuzz {

inline auto fields(const rt::KernelDbEntry& e) {
  return std::tie(e.gpu, e.kernel, e.grid_x, e.grid_y, e.grid_z, e.block_x, e.block_y, e.block_z,
                  e.shmem, e.library_params, e.sizes, e.duration_ns, e.samples, e.source);
}

inline bool same_entries(const rt::KernelDb& a, const rt::KernelDb& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (fields(a.entries()[i]) != fields(b.entries()[i])) return false;
  }
  return true;
}

inline void check_loaded(const rt::KernelDb& db) {
  if (!same_entries(rt::KernelDb::parse(db.serialize()), db)) std::abort();
  if (!same_entries(rt::KernelDb::from_csv(db.to_csv()), db)) std::abort();

  static const sim::GpuSpec h100 = *sim::find_gpu("H100-SXM-80GB");
  for (const rt::KernelDbEntry& e : db.entries()) {
    sim::GpuSpec gpu = h100;
    gpu.name = e.gpu;
    sim::LaunchGeometry g{e.grid_x, e.grid_y, e.grid_z, e.block_x, e.block_y, e.block_z, e.shmem};
    const auto exact = db.lookup(gpu, e.kernel, g, e.library_params, e.sizes);
    if (!exact || *exact != e.duration_ns) std::abort();
    g.gx = g.gx > 1 ? g.gx / 2 : 7;
    const auto nearest = db.lookup(gpu, e.kernel, g, e.library_params, e.sizes);
    if (nearest && *nearest < 0) std::abort();
  }

  rt::KernelDb merged = db;
  merged.merge(db);
  if (merged.size() != db.size()) std::abort();
}

}  // namespace seer::fuzz

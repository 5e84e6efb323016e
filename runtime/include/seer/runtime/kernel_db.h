// The kernel database: kernel durations measured on a real GPU, keyed by GPU model, kernel name,
// launch geometry and library-call parameters. The session consults it before any model
// (DESIGN.md "Compute model"). On disk it is one serialized seer.kdb.KernelDb message
// (runtime/proto/kernel_db.proto).
//
// Key: (gpu, kernel, grid, block, shmem, library_params, sizes). A database holds at most one
// entry per key. `sizes` are the launch's size arguments for kernels whose family model reads them
// (interposer/client/kernel_args.h: an elementwise kernel's element count, a norm's rows and
// columns); empty for other kernels and library calls.
//
// Lookup (`lookup`):
//   1. Exact: an entry with the same gpu, kernel, grid, block, shared memory and library_params.
//   2. Other sizes of the same kernel (kernels only), among entries with the same gpu, kernel,
//      block, shared memory and empty library_params ("the family"):
//      a. when the launch has size arguments and two entries with as many bracket its first one
//         (the most below it and the fewest above): linear interpolation of their durations in
//         that size, rounded to nearest, at least 1 ns;
//      otherwise by block count (grid x*y*z):
//      b. between two measured sizes (the entries with the most blocks below the launch's and the
//         fewest above): linear interpolation of their durations in waves, or in blocks when both
//         take the same number of waves; rounded to nearest, at least 1 ns;
//      c. outside the measured range (or the same block count in another grid shape): the entry
//         whose block count is closest (ties: the smaller grid, then the earlier entry), its
//         duration scaled by waves: duration * waves(launch) / waves(entry), rounded to nearest.
//      waves = ceil(blocks / (sm_count * blocks_per_sm)), where blocks_per_sm is what the threads
//      per block (and the shared memory, when the GPU spec gives shared memory per SM) allow, at
//      most max_blocks_per_sm — the occupancy rule of the generic model.
//   3. Otherwise nothing: the caller falls back to its models.
// Kernel names are demangled (as `seer profile` stores them and the report prints them).
//
// Merge (`merge`, `seer db merge OUT IN1 IN2 ...`): entries of later databases win on duplicate
// keys — their source and other metadata replace the earlier entry's. When the two durations differ
// the result is the average weighted by samples (a sample count of 0 counts as 1), rounded to
// nearest, and the sample counts add up; when they are equal the later entry replaces the earlier
// one as it is (the same measurement merged twice is not counted twice).
//
// CSV (`from_csv` / `to_csv`, `seer db import` / `seer db export`): a header line
//   gpu,kernel,grid_x,grid_y,grid_z,block_x,block_y,block_z,shmem,duration_ns
// optionally followed by ,samples ,source ,library_params ,sizes (in that order, any prefix of
// them; sizes are unsigned integers separated by single spaces);
// then one row per entry with exactly as many fields. Fields may be quoted ("..." with "" for a
// quote) so kernel names may contain commas and line ends. Parsing is strict: errors name the line
// and column. Blank lines are skipped. samples defaults to 1; grid and block values are at least 1;
// duration is positive; a key may appear once. Both formats hold the same entries: gpu names a GPU
// of seer's catalog and text is UTF-8, so an exported database imports again unchanged.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "seer/simcore/gpu_spec.h"
#include "seer/simcore/op.h"

namespace seer::rt {

class KernelDbError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct KernelDbEntry {
  static constexpr size_t kMaxSizes = 4;
  std::string gpu;
  std::string kernel;
  uint32_t grid_x = 1, grid_y = 1, grid_z = 1;
  uint32_t block_x = 1, block_y = 1, block_z = 1;
  uint32_t shmem = 0;
  std::string library_params;
  std::vector<uint64_t> sizes;  // size arguments (kernel_args.h), at most kMaxSizes
  int64_t duration_ns = 0;
  uint32_t samples = 1;
  std::string source;

  uint64_t blocks() const { return uint64_t{grid_x} * grid_y * grid_z; }
  bool same_key(const KernelDbEntry& o) const;
};

class KernelDb {
 public:
  static constexpr int kSchemaVersion = 1;

  // Reads a database file; throws KernelDbError naming the file when it cannot be read or is not a
  // valid database (corrupt bytes, wrong schema_version, invalid entries).
  static KernelDb load(const std::string& path);
  static KernelDb parse(const std::string& bytes, const std::string& what = "kernel database");
  void save(const std::string& path) const;
  std::string serialize() const;

  // `name` is used in error messages ("NAME:LINE: column C (FIELD): ...").
  static KernelDb from_csv(const std::string& text, const std::string& name = "csv");
  std::string to_csv() const;

  // Adds an entry; an entry with the same key is replaced.
  void put(KernelDbEntry entry);
  // Merges `later` into this database (rules above).
  void merge(const KernelDb& later);

  // The duration of a kernel launch (library_params empty) or library call, or nothing.
  std::optional<int64_t> lookup(const sim::GpuSpec& gpu, const std::string& kernel,
                                const sim::LaunchGeometry& geometry,
                                const std::string& library_params = "",
                                std::span<const uint64_t> sizes = {}) const;

  const std::vector<KernelDbEntry>& entries() const { return entries_; }
  size_t size() const { return entries_.size(); }

 private:
  // Rule 2a: interpolation in the first size argument, or nothing.
  std::optional<int64_t> between_sizes(const std::vector<size_t>& family,
                                       const sim::LaunchGeometry& g,
                                       std::span<const uint64_t> sizes) const;

  std::vector<KernelDbEntry> entries_;
  std::unordered_map<std::string, size_t> by_key_;                  // key -> entry
  std::unordered_map<std::string, std::vector<size_t>> by_kernel_;  // gpu + kernel -> entries
};

}  // namespace seer::rt

#include "db_command.h"

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "seer/runtime/kernel_db.h"
#include "seer/runtime/kernel_db_fit.h"

namespace seer::cli {
namespace {

constexpr int kExitUsage = 2;

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw rt::KernelDbError("cannot read " + path + ": " + std::strerror(errno));
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string dims(uint32_t x, uint32_t y, uint32_t z) {
  return std::to_string(x) + "," + std::to_string(y) + "," + std::to_string(z);
}

}  // namespace

DbCommand::DbCommand(CLI::App& app) {
  db_ = app.add_subcommand("db", "Kernel database: durations measured on real GPUs");
  db_->require_subcommand(1);
  list_ = db_->add_subcommand("list", "Print the entries of a database as a table");
  list_->add_option("file", file_, "Database file")->required();
  list_->add_option("--gpu", gpu_, "Only entries of this GPU (catalog name)");
  list_->add_option("--kernel", kernel_, "Only kernels whose name contains this text");
  merge_ = db_->add_subcommand(
      "merge",
      "Merge databases into OUT: later files win on duplicate keys; different durations are "
      "averaged weighted by samples");
  merge_->add_option("out", out_, "Output database")->required();
  merge_->add_option("inputs", inputs_, "Input databases, in order")->required();
  import_ = db_->add_subcommand(
      "import",
      "Convert a CSV file (gpu,kernel,grid_x,grid_y,grid_z,block_x,block_y,block_z,shmem,"
      "duration_ns[,samples,source,library_params]) into a database");
  import_->add_option("csv", file_, "CSV file")->required();
  import_->add_option("out", out_, "Output database")->required();
  export_ = db_->add_subcommand("export", "Print a database as CSV (what import reads)");
  export_->add_option("file", file_, "Database file")->required();
  fit_ = db_->add_subcommand(
      "fit", "Per kernel family: how far Seer's models are from the measured durations");
  fit_->add_option("file", file_, "Database file")->required();
  fit_->add_option("--gpu", gpu_, "Only entries of this GPU (catalog name)");
}

bool DbCommand::parsed() const { return db_->parsed(); }

int DbCommand::run() {
  try {
    if (list_->parsed()) {
      const rt::KernelDb db = rt::KernelDb::load(file_);
      std::printf("%-16s %-16s %-12s %7s %14s %8s  %s\n", "gpu", "grid", "block", "shmem",
                  "duration_ns", "samples", "kernel [library params] (source)");
      size_t shown = 0;
      for (const rt::KernelDbEntry& e : db.entries()) {
        if (!gpu_.empty() && e.gpu != gpu_) continue;
        if (!kernel_.empty() && e.kernel.find(kernel_) == std::string::npos) continue;
        std::string name = e.kernel;
        if (!e.library_params.empty()) name += " [" + e.library_params + "]";
        if (!e.sizes.empty()) {
          name += " {sizes";
          for (uint64_t v : e.sizes) name += " " + std::to_string(v);
          name += "}";
        }
        if (!e.source.empty()) name += " (" + e.source + ")";
        std::printf("%-16s %-16s %-12s %7u %14" PRId64 " %8u  %s\n", e.gpu.c_str(),
                    dims(e.grid_x, e.grid_y, e.grid_z).c_str(),
                    dims(e.block_x, e.block_y, e.block_z).c_str(), e.shmem, e.duration_ns,
                    e.samples, name.c_str());
        ++shown;
      }
      std::printf("%zu of %zu entries\n", shown, db.size());
      return 0;
    }
    if (fit_->parsed()) {
      const rt::KernelDb db = rt::KernelDb::load(file_);
      const std::vector<rt::FamilyFit> fits = rt::fit_by_family(db, gpu_);
      std::printf("%-44s %7s %9s %12s %12s %8s %9s  %s\n", "family", "entries", "launches",
                  "measured ms", "model ms", "total", "mean|err|", "worst entry (error)");
      for (const rt::FamilyFit& f : fits) {
        std::printf(
            "%-44s %7zu %9" PRIu64 " %12.3f %12.3f %+7.1f%% %8.1f%%  %s (%+.1f%%)\n",
            f.family.c_str(), f.entries, f.launches, f.measured_ns / 1e6, f.model_ns / 1e6,
            (f.model_ns / f.measured_ns - 1.0) * 100.0, f.mean_abs_error * 100.0,
            (f.worst_kernel.size() > 100 ? f.worst_kernel.substr(0, 97) + "..." : f.worst_kernel)
                .c_str(),
            f.worst_signed * 100.0);
      }
      if (fits.empty()) std::printf("no entries%s\n", gpu_.empty() ? "" : " of that GPU");
      return 0;
    }
    if (merge_->parsed()) {
      rt::KernelDb db;
      for (const std::string& in : inputs_) db.merge(rt::KernelDb::load(in));
      db.save(out_);
      std::fprintf(stderr, "seer db: %zu entries written to %s\n", db.size(), out_.c_str());
      return 0;
    }
    if (import_->parsed()) {
      const rt::KernelDb db = rt::KernelDb::from_csv(read_text(file_), file_);
      db.save(out_);
      std::fprintf(stderr, "seer db: %zu entries written to %s\n", db.size(), out_.c_str());
      return 0;
    }
    if (export_->parsed()) {
      std::cout << rt::KernelDb::load(file_).to_csv();
      return 0;
    }
  } catch (const rt::KernelDbError& e) {
    std::fprintf(stderr, "seer db: %s\n", e.what());
    return kExitUsage;
  }
  return kExitUsage;
}

}  // namespace seer::cli

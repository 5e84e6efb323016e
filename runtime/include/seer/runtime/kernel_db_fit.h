// How well Seer's models match a kernel database: for each entry, what the model Seer would use
// without the database predicts from what the entry holds, grouped by kernel family (`seer db
// fit`).
//
// Families and their model:
//   - library calls ("cublasGemmEx [bf16]" with m,n,k,batch or bytes): the library model
//     (simcore cost_models.h library_ns); family = the call's label;
//   - PyTorch kernels a family model knows (simcore aten_kernels.h): the family model, sized by
//     the entry's size arguments (multi-tensor apply by its grid); entries without the sizes
//     their family needs (imported, or recorded before sizes were) are compared with the generic
//     launch-geometry model, and their family's name says so: "... (generic model)";
//   - Triton kernels (names starting "triton_"): the generic model, as entries lack the IR;
//   - everything else: "other kernels (generic model)".
// An entry whose GPU is not in the catalog is skipped.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "seer/runtime/kernel_db.h"

namespace seer::rt {

struct EntryFit {
  std::string family;
  int64_t model_ns = 0;
};

struct FamilyFit {
  std::string family;
  size_t entries = 0;
  uint64_t launches = 0;      // samples, weighting each entry's time
  double measured_ns = 0;     // sum over entries of duration * samples
  double model_ns = 0;        // sum over entries of model * samples
  double mean_abs_error = 0;  // mean over entries of |model / measured - 1|
  double worst_error = 0;     // the largest |model / measured - 1|
  double worst_signed = 0;    // that error with its sign (model slower: positive)
  std::string worst_kernel;
};

// The entry's family and model time; the family is empty when its GPU is not in the catalog.
EntryFit fit_entry(const KernelDbEntry& e);
// Families of the entries of `gpu` (all GPUs when empty), by measured time, largest first.
std::vector<FamilyFit> fit_by_family(const KernelDb& db, const std::string& gpu);

}  // namespace seer::rt

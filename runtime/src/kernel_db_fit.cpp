#include "seer/runtime/kernel_db_fit.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "seer/simcore/aten_kernels.h"
#include "seer/simcore/cost_models.h"
#include "seer/simcore/gemm_model.h"
#include "seer/simcore/gpu_spec.h"

namespace seer::rt {
namespace {

// "m=..,n=..,k=..,batch=.." or "bytes=..": the engine's library_params.
std::optional<sim::OpDesc> library_op(const std::string& label, const std::string& params) {
  static const char* const kTypes[] = {"f64", "f32", "tf32", "f16", "bf16", "f8", "i8"};
  sim::OpDesc op;
  op.kind = sim::OpKind::kLibrary;
  const size_t open = label.rfind(" [");
  if (open == std::string::npos || label.back() != ']') return std::nullopt;
  const std::string type = label.substr(open + 2, label.size() - open - 3);
  op.dtype = -1;
  for (int i = 0; i < 7; ++i) {
    if (type == kTypes[i]) op.dtype = i;
  }
  if (op.dtype < 0) return std::nullopt;
  std::map<std::string, int64_t> values;
  size_t begin = 0;
  while (begin < params.size()) {
    size_t comma = params.find(',', begin);
    if (comma == std::string::npos) comma = params.size();
    const std::string item = params.substr(begin, comma - begin);
    const size_t eq = item.find('=');
    if (eq == std::string::npos) return std::nullopt;
    try {
      values[item.substr(0, eq)] = std::stoll(item.substr(eq + 1));
    } catch (const std::exception&) {
      return std::nullopt;
    }
    begin = comma + 1;
  }
  if (values.count("bytes")) {
    op.bytes = static_cast<uint64_t>(std::max<int64_t>(0, values["bytes"]));
    return op;
  }
  if (!values.count("m") || !values.count("n") || !values.count("k")) return std::nullopt;
  op.gemm = true;
  op.m = values["m"];
  op.n = values["n"];
  op.k = values["k"];
  op.batch = values.count("batch") ? values["batch"] : 1;
  if (op.m <= 0 || op.n <= 0 || op.k <= 0 || op.batch <= 0) return std::nullopt;
  return op;
}

}  // namespace

EntryFit fit_entry(const KernelDbEntry& e) {
  EntryFit fit;
  const std::optional<sim::GpuSpec> gpu = sim::find_gpu(e.gpu);
  if (!gpu) return fit;
  const sim::LaunchGeometry g{e.grid_x,  e.grid_y,  e.grid_z, e.block_x,
                              e.block_y, e.block_z, e.shmem};
  if (!e.library_params.empty()) {
    if (const std::optional<sim::OpDesc> op = library_op(e.kernel, e.library_params)) {
      fit.family = e.kernel;
      fit.model_ns = sim::library_ns(*gpu, *op);
      return fit;
    }
    fit.family = "unreadable library calls (generic model)";
    fit.model_ns = sim::generic_kernel_ns(*gpu, g);
    return fit;
  }
  const sim::AtenKernel aten = sim::classify_aten_kernel(e.kernel);
  if (aten.family != sim::AtenFamily::kNone) {
    if (const std::optional<sim::Time> t = sim::aten_kernel_time(
            *gpu, aten, g, e.sizes.data(), static_cast<int>(e.sizes.size()))) {
      fit.family = sim::aten_family_name(aten.family);
      fit.model_ns = *t;
      return fit;
    }
  }
  if (e.kernel.rfind("triton_", 0) == 0) {
    fit.family = "Triton kernels (generic model)";
  } else {
    fit.family = std::string(sim::aten_family_name(aten.family)) + " (generic model)";
  }
  fit.model_ns = sim::generic_kernel_ns(*gpu, g);
  return fit;
}

std::vector<FamilyFit> fit_by_family(const KernelDb& db, const std::string& gpu) {
  std::map<std::string, FamilyFit> families;
  for (const KernelDbEntry& e : db.entries()) {
    if (!gpu.empty() && e.gpu != gpu) continue;
    const EntryFit fit = fit_entry(e);
    if (fit.family.empty() || e.duration_ns <= 0) continue;
    FamilyFit& f = families[fit.family];
    f.family = fit.family;
    const double weight = std::max<uint32_t>(1, e.samples);
    const double error =
        static_cast<double>(fit.model_ns) / static_cast<double>(e.duration_ns) - 1.0;
    ++f.entries;
    f.launches += static_cast<uint64_t>(weight);
    f.measured_ns += static_cast<double>(e.duration_ns) * weight;
    f.model_ns += static_cast<double>(fit.model_ns) * weight;
    f.mean_abs_error += std::fabs(error);
    if (f.entries == 1 || std::fabs(error) > f.worst_error) {
      f.worst_error = std::fabs(error);
      f.worst_signed = error;
      f.worst_kernel = e.library_params.empty() ? e.kernel : e.kernel + " " + e.library_params;
    }
  }
  std::vector<FamilyFit> out;
  for (auto& [name, f] : families) {
    f.mean_abs_error /= static_cast<double>(f.entries);
    out.push_back(f);
  }
  std::sort(out.begin(), out.end(), [](const FamilyFit& a, const FamilyFit& b) {
    return a.measured_ns != b.measured_ns ? a.measured_ns > b.measured_ns : a.family < b.family;
  });
  return out;
}

}  // namespace seer::rt

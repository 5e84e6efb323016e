#include "seer/runtime/profile_records.h"

#include <cxxabi.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <tuple>

#include "seer/simcore/cost_models.h"
#include "seer/simcore/gpu_spec.h"

namespace seer::rt {
namespace {

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> fields;
  size_t begin = 0;
  while (true) {
    const size_t tab = line.find('\t', begin);
    fields.push_back(
        line.substr(begin, tab == std::string::npos ? std::string::npos : tab - begin));
    if (tab == std::string::npos) return fields;
    begin = tab + 1;
  }
}

template <typename T>
T number(const std::string& field, const std::string& where, const char* what) {
  T value{};
  const char* end = field.data() + field.size();
  auto [ptr, ec] = std::from_chars(field.data(), end, value);
  if (ec != std::errc() || ptr != end || field.empty()) {
    throw ProfileError(where + ": " + what + " is not a number: '" + field + "'");
  }
  return value;
}

// Seer names kernels as the demangler prints them (and keys the database so); CUPTI gives the
// mangled symbol. Names that are not mangled C++ stay as they are.
std::string demangled(const std::string& name) {
  int status = 0;
  char* text = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  std::string out = status == 0 && text ? text : name;
  std::free(text);
  return out;
}

std::string catalog_gpu_named(const std::string& device_name) {
  for (const std::string& key : sim::gpu_catalog_names()) {
    const std::optional<sim::GpuSpec> spec = sim::find_gpu(key);
    if (spec && spec->marketing_name == device_name) return spec->name;
  }
  return {};
}

// A library op as the session times it, read back from its label ("api [dtype]") and parameters
// ("m=..,n=..,k=..,batch=.." or "bytes=.."); nothing when they are not of that form.
std::optional<sim::OpDesc> library_op(const std::string& label, const std::string& params) {
  static const char* const kTypes[] = {"f64", "f32", "tf32", "f16", "bf16", "f8", "i8"};
  sim::OpDesc op;
  op.kind = sim::OpKind::kLibrary;
  op.dtype = -1;
  for (int d = 0; d < 7; ++d) {
    if (label.ends_with(std::string(" [") + kTypes[d] + "]")) op.dtype = d;
  }
  if (op.dtype < 0) return std::nullopt;
  std::map<std::string, uint64_t> values;
  std::istringstream in(params);
  std::string item;
  while (std::getline(in, item, ',')) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos) return std::nullopt;
    uint64_t v = 0;
    const std::string text = item.substr(eq + 1);
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || ptr != text.data() + text.size() || text.empty()) return std::nullopt;
    values[item.substr(0, eq)] = v;
  }
  if (values.size() == 1 && values.count("bytes")) {
    op.bytes = values["bytes"];
    return op;
  }
  if (values.size() != 4 || !values.count("m") || !values.count("n") || !values.count("k") ||
      !values.count("batch")) {
    return std::nullopt;
  }
  op.gemm = true;
  op.m = static_cast<int64_t>(values["m"]);
  op.n = static_cast<int64_t>(values["n"]);
  op.k = static_cast<int64_t>(values["k"]);
  op.batch = static_cast<int64_t>(values["batch"]);
  return op;
}

}  // namespace

std::vector<int64_t> split_call(const std::vector<ProfileLibraryOp>& ops, const std::string& gpu,
                                int64_t total_ns) {
  if (ops.size() == 1) return {total_ns};
  std::vector<double> weights(ops.size(), 1.0);
  const std::optional<sim::GpuSpec> spec = sim::find_gpu(gpu);
  double sum = 0;
  for (size_t i = 0; i < ops.size() && spec; ++i) {
    const std::optional<sim::OpDesc> op = library_op(ops[i].label, ops[i].params);
    weights[i] = op ? static_cast<double>(sim::library_ns(*spec, *op)) : -1.0;
    if (weights[i] < 0) break;
    sum += weights[i];
  }
  if (!spec || sum <= 0 ||
      std::any_of(weights.begin(), weights.end(), [](double w) { return w < 0; })) {
    std::fill(weights.begin(), weights.end(), 1.0);
    sum = static_cast<double>(ops.size());
  }
  // Cumulative rounding: the shares add up to the total exactly.
  std::vector<int64_t> shares;
  double before = 0;
  int64_t given = 0;
  for (double w : weights) {
    before += w;
    const auto upto =
        static_cast<int64_t>(std::llround(static_cast<double>(total_ns) * before / sum));
    shares.push_back(upto - given);
    given = upto;
  }
  return shares;
}

void ProfileRecords::add(const std::string& text, const std::string& name) {
  const size_t process = processes_++;
  std::istringstream in(text);
  std::string line;
  size_t lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty()) continue;
    const std::string where = name + ":" + std::to_string(lineno);
    const std::vector<std::string> f = split_tabs(line);
    const std::string& tag = f[0];
    auto need = [&](size_t n) {
      if (f.size() != n) {
        throw ProfileError(where + ": a '" + tag + "' line has " + std::to_string(f.size()) +
                           " fields, not " + std::to_string(n));
      }
    };
    if (tag == "kernel") {
      need(12);
      Launch l{};
      l.process = process;
      l.device = number<uint32_t>(f[1], where, "device");
      for (int i = 0; i < 3; ++i) {
        l.grid[i] = number<uint32_t>(f[2 + i], where, "grid");
        l.block[i] = number<uint32_t>(f[5 + i], where, "block");
        if (l.grid[i] == 0 || l.block[i] == 0) throw ProfileError(where + ": a zero dimension");
      }
      l.shmem = number<uint32_t>(f[8], where, "shared memory");
      l.duration_ns = number<int64_t>(f[9], where, "duration");
      if (l.duration_ns < 0) throw ProfileError(where + ": a negative duration");
      l.correlation = number<uint32_t>(f[10], where, "correlation id");
      l.name = demangled(f[11]);
      if (l.name.empty()) throw ProfileError(where + ": a kernel without a name");
      ++kernel_launches_;
      kernel_ns_ += l.duration_ns;
      launches_.push_back(std::move(l));
    } else if (tag == "library") {
      need(4);
      if (f[2].empty()) throw ProfileError(where + ": a library call without a label");
      // A call the session sees as several ops has one line per op, in order.
      library_calls_[{process, number<uint64_t>(f[1], where, "call id")}].push_back({f[2], f[3]});
    } else if (tag == "args") {
      need(3);
      std::vector<uint64_t> sizes;
      size_t begin = 0;
      while (begin <= f[2].size()) {
        const size_t space = f[2].find(' ', begin);
        const std::string v =
            f[2].substr(begin, space == std::string::npos ? std::string::npos : space - begin);
        sizes.push_back(number<uint64_t>(v, where, "size argument"));
        if (space == std::string::npos) break;
        begin = space + 1;
      }
      if (sizes.size() > KernelDbEntry::kMaxSizes) {
        throw ProfileError(where + ": more than 4 size arguments");
      }
      launch_args_[{process, number<uint64_t>(f[1], where, "call id")}] = std::move(sizes);
    } else if (tag == "external") {
      need(3);
      external_[{process, number<uint32_t>(f[2], where, "correlation id")}] =
          number<uint64_t>(f[1], where, "call id");
    } else if (tag == "memcpy") {
      need(5);
      ProfileCopyTotal& c = copies_[f[2]];
      ++c.count;
      c.bytes += number<uint64_t>(f[3], where, "bytes");
      c.total_ns += number<int64_t>(f[4], where, "duration");
    } else if (tag == "memset") {
      need(4);
      ++memsets_.count;
      memsets_.bytes += number<uint64_t>(f[2], where, "bytes");
      memsets_.total_ns += number<int64_t>(f[3], where, "duration");
    } else if (tag == "device") {
      need(3);
      device_names_[{process, number<uint32_t>(f[1], where, "device")}] = f[2];
    } else if (tag == "error") {
      errors_.push_back(name + ": " + (f.size() > 1 ? f[1] : std::string("(no message)")));
    } else if (tag == "end") {
      ++processes_ended_;
    } else {
      throw ProfileError(where + ": unknown record '" + tag + "'");
    }
  }
}

void ProfileRecords::add_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw ProfileError("cannot read " + path + ": " + std::strerror(errno));
  std::ostringstream ss;
  ss << f.rdbuf();
  add(ss.str(), path);
}

std::string ProfileRecords::gpu_of(size_t process, uint32_t device,
                                   const std::optional<std::string>& gpu_override) const {
  if (gpu_override) {
    const std::optional<sim::GpuSpec> spec = sim::find_gpu(*gpu_override);
    if (!spec) throw ProfileError("unknown GPU model '" + *gpu_override + "'");
    return spec->name;
  }
  auto it = device_names_.find({process, device});
  if (it == device_names_.end()) {
    throw ProfileError("the name of device " + std::to_string(device) +
                       " was not recorded (the process did not exit normally); name the GPU "
                       "model with --gpu-model");
  }
  const std::string gpu = catalog_gpu_named(it->second);
  if (gpu.empty()) {
    throw ProfileError("device '" + it->second +
                       "' is not a GPU of Seer's catalog; name the closest with --gpu-model");
  }
  return gpu;
}

KernelDb ProfileRecords::database(const std::optional<std::string>& gpu_override) const {
  struct Sum {
    int64_t total = 0;
    uint32_t count = 0;
  };
  using Key = std::tuple<std::string, std::string, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t,
                         uint32_t, uint32_t, std::vector<uint64_t>>;
  std::map<Key, Sum> sums;
  std::map<std::pair<size_t, uint32_t>, std::string> gpus;
  auto gpu_for = [&](size_t process, uint32_t device) -> const std::string& {
    auto g = gpus.find({process, device});
    if (g == gpus.end()) {
      g = gpus.emplace(std::make_pair(process, device), gpu_of(process, device, gpu_override))
              .first;
    }
    return g->second;
  };
  struct CallTotal {
    int64_t ns = 0;
    std::string gpu;
  };
  std::map<std::pair<size_t, uint64_t>, CallTotal> calls;
  for (const Launch& l : launches_) {
    const std::string& gpu = gpu_for(l.process, l.device);
    std::vector<uint64_t> sizes;
    if (auto x = external_.find({l.process, l.correlation}); x != external_.end()) {
      if (library_calls_.count({l.process, x->second})) {
        CallTotal& c = calls[{l.process, x->second}];
        c.ns += l.duration_ns;
        c.gpu = gpu;
        continue;
      }
      if (auto a = launch_args_.find({l.process, x->second}); a != launch_args_.end()) {
        sizes = a->second;
      }
    }
    Sum& s = sums[Key{gpu, l.name, l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1],
                      l.block[2], l.shmem, std::move(sizes)}];
    s.total += l.duration_ns;
    ++s.count;
  }
  std::map<std::tuple<std::string, std::string, std::string>, Sum> library_sums;
  for (const auto& [id, total] : calls) {
    const std::vector<LibraryCall>& ops = library_calls_.at(id);
    const std::vector<int64_t> shares = split_call(ops, total.gpu, total.ns);
    for (size_t i = 0; i < ops.size(); ++i) {
      Sum& s = library_sums[{total.gpu, ops[i].label, ops[i].params}];
      s.total += shares[i];
      ++s.count;
    }
  }
  KernelDb db;
  for (const auto& [key, sum] : sums) {
    KernelDbEntry e;
    std::tie(e.gpu, e.kernel, e.grid_x, e.grid_y, e.grid_z, e.block_x, e.block_y, e.block_z,
             e.shmem, e.sizes) = key;
    e.duration_ns = std::max<int64_t>(1, (sum.total + sum.count / 2) / sum.count);
    e.samples = sum.count;
    e.source = "seer profile";
    db.put(std::move(e));
  }
  for (const auto& [key, sum] : library_sums) {
    KernelDbEntry e;
    std::tie(e.gpu, e.kernel, e.library_params) = key;
    e.duration_ns = std::max<int64_t>(1, (sum.total + sum.count / 2) / sum.count);
    e.samples = sum.count;
    e.source = "seer profile";
    db.put(std::move(e));
  }
  return db;
}

size_t ProfileRecords::library_calls(const std::string& prefix) const {
  std::set<std::pair<size_t, uint64_t>> calls;
  for (const auto& [launch, id] : external_) {
    auto call = library_calls_.find({launch.first, id});
    if (call != library_calls_.end() && call->second.front().label.starts_with(prefix)) {
      calls.insert({launch.first, id});
    }
  }
  return calls.size();
}

std::vector<std::string> ProfileRecords::device_names() const {
  std::set<std::string> names;
  for (const auto& [where, name] : device_names_) names.insert(name);
  return {names.begin(), names.end()};
}

std::vector<ProfileKernelTotal> ProfileRecords::top_kernels(size_t n) const {
  std::map<std::string, ProfileKernelTotal> by_name;
  for (const Launch& l : launches_) {
    ProfileKernelTotal& t = by_name[l.name];
    t.kernel = l.name;
    ++t.launches;
    t.total_ns += l.duration_ns;
  }
  std::vector<ProfileKernelTotal> out;
  for (const auto& [name, t] : by_name) out.push_back(t);
  std::sort(out.begin(), out.end(), [](const ProfileKernelTotal& a, const ProfileKernelTotal& b) {
    return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.kernel < b.kernel;
  });
  if (out.size() > n) out.resize(n);
  return out;
}

}  // namespace seer::rt

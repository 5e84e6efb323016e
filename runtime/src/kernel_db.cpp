#include "seer/runtime/kernel_db.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "kernel_db.pb.h"

namespace seer::rt {
namespace {

std::string key_of(const KernelDbEntry& e) {
  std::string k = e.gpu;
  k += '\0';
  k += e.kernel;
  k += '\0';
  k += e.library_params;
  for (uint32_t v : {e.grid_x, e.grid_y, e.grid_z, e.block_x, e.block_y, e.block_z, e.shmem}) {
    k += '\0';
    k += std::to_string(v);
  }
  k += '\0';
  for (uint64_t v : e.sizes) k.append(std::to_string(v)).append(" ");
  return k;
}

std::string family_of(const std::string& gpu, const std::string& kernel) {
  return gpu + '\0' + kernel;
}

// The file stores text as protobuf strings, which must be UTF-8: anything else would be saved
// but could not be loaded again.
bool valid_utf8(const std::string& s) {
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const size_t n = c < 0x80           ? 1
                     : (c >> 5) == 0x6  ? 2
                     : (c >> 4) == 0xe  ? 3
                     : (c >> 3) == 0x1e ? 4
                                        : 0;
    if (n == 0 || i + n > s.size()) return false;
    uint32_t cp = n == 1 ? c : c & (0x7f >> n);
    for (size_t k = 1; k < n; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc >> 6) != 0x2) return false;
      cp = cp << 6 | (cc & 0x3f);
    }
    const uint32_t min[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
    i += n;
  }
  return true;
}

// Which text field is not UTF-8, or "".
std::string non_utf8_field(const KernelDbEntry& e) {
  if (!valid_utf8(e.gpu)) return "gpu";
  if (!valid_utf8(e.kernel)) return "kernel";
  if (!valid_utf8(e.source)) return "source";
  if (!valid_utf8(e.library_params)) return "library_params";
  return "";
}

// Why an entry is invalid, or "". Both readers accept exactly the entries this accepts, so that
// what one of them loads the other reads back after an export.
std::string invalid(const KernelDbEntry& e) {
  if (e.gpu.empty()) return "gpu is empty";
  if (!sim::find_gpu(e.gpu)) return "unknown GPU '" + e.gpu + "' (seer's GPU catalog names)";
  if (e.kernel.empty()) return "kernel is empty";
  if (const std::string f = non_utf8_field(e); !f.empty()) return f + " is not valid UTF-8";
  if (!e.grid_x || !e.grid_y || !e.grid_z) return "a grid dimension is 0";
  if (!e.block_x || !e.block_y || !e.block_z) return "a block dimension is 0";
  if (e.duration_ns <= 0) return "duration_ns is not positive";
  if (e.sizes.size() > KernelDbEntry::kMaxSizes) return "more than 4 sizes";
  if (!e.sizes.empty() && !e.library_params.empty()) return "a library call with sizes";
  return "";
}

uint64_t waves(const sim::GpuSpec& gpu, uint64_t blocks, uint64_t threads, uint32_t shmem) {
  threads = std::max<uint64_t>(1, threads);
  uint64_t per_sm = static_cast<uint64_t>(std::max(1, gpu.max_threads_per_sm)) / threads;
  if (shmem > 0 && gpu.shared_mem_per_sm > 0) {
    per_sm = std::min<uint64_t>(per_sm, static_cast<uint64_t>(gpu.shared_mem_per_sm) / shmem);
  }
  per_sm =
      std::clamp<uint64_t>(per_sm, 1, static_cast<uint64_t>(std::max(1, gpu.max_blocks_per_sm)));
  const uint64_t per_wave = static_cast<uint64_t>(std::max(1, gpu.sm_count)) * per_sm;
  return (std::max<uint64_t>(1, blocks) + per_wave - 1) / per_wave;
}

// ---- CSV ----

const std::vector<std::string> kColumns = {
    "gpu",     "kernel", "grid_x",      "grid_y",  "grid_z", "block_x",        "block_y",
    "block_z", "shmem",  "duration_ns", "samples", "source", "library_params", "sizes"};
constexpr size_t kRequiredColumns = 10;

struct CsvError {
  std::string message;
};

// Splits one record (already without its line end) into fields; throws CsvError with the column.
std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> fields;
  std::string cur;
  size_t i = 0;
  while (true) {
    cur.clear();
    if (i < line.size() && line[i] == '"') {
      ++i;
      bool closed = false;
      while (i < line.size()) {
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            cur += '"';
            i += 2;
          } else {
            ++i;
            closed = true;
            break;
          }
        } else {
          cur += line[i++];
        }
      }
      if (!closed) {
        throw CsvError{"column " + std::to_string(fields.size() + 1) + ": unterminated quote"};
      }
      if (i < line.size() && line[i] != ',') {
        throw CsvError{"column " + std::to_string(fields.size() + 1) +
                       ": text after the closing quote"};
      }
    } else {
      while (i < line.size() && line[i] != ',') {
        if (line[i] == '"') {
          throw CsvError{"column " + std::to_string(fields.size() + 1) +
                         ": quote inside an unquoted field"};
        }
        cur += line[i++];
      }
    }
    fields.push_back(cur);
    if (i >= line.size()) break;
    ++i;  // the comma
  }
  return fields;
}

template <typename T>
T parse_number(const std::string& text, size_t col, const char* what) {
  T v{};
  const char* b = text.data();
  const char* e = b + text.size();
  auto [p, ec] = std::from_chars(b, e, v);
  if (text.empty() || ec != std::errc() || p != e) {
    throw CsvError{"column " + std::to_string(col + 1) + " (" + kColumns[col] + "): '" + text +
                   "' is not " + what};
  }
  return v;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace

bool KernelDbEntry::same_key(const KernelDbEntry& o) const { return key_of(*this) == key_of(o); }

KernelDb KernelDb::parse(const std::string& bytes, const std::string& what) {
  seer::kdb::KernelDb msg;
  if (!msg.ParseFromString(bytes)) {
    throw KernelDbError(what + ": not a kernel database (the bytes do not parse)");
  }
  if (msg.schema_version() != kSchemaVersion) {
    throw KernelDbError(what + ": not a kernel database of schema version " +
                        std::to_string(kSchemaVersion) + " (schema_version " +
                        std::to_string(msg.schema_version()) + ")");
  }
  KernelDb db;
  for (int i = 0; i < msg.entries_size(); ++i) {
    const seer::kdb::Entry& m = msg.entries(i);
    KernelDbEntry e;
    e.gpu = m.gpu();
    e.kernel = m.kernel();
    e.grid_x = m.grid_x();
    e.grid_y = m.grid_y();
    e.grid_z = m.grid_z();
    e.block_x = m.block_x();
    e.block_y = m.block_y();
    e.block_z = m.block_z();
    e.shmem = m.shmem();
    e.library_params = m.library_params();
    e.duration_ns = m.duration_ns();
    e.samples = m.samples();
    e.source = m.source();
    e.sizes.assign(m.sizes().begin(), m.sizes().end());
    if (const std::string why = invalid(e); !why.empty()) {
      throw KernelDbError(what + ": entry " + std::to_string(i + 1) + " is invalid: " + why);
    }
    db.put(std::move(e));
  }
  return db;
}

KernelDb KernelDb::load(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw KernelDbError("cannot read " + path + ": " + std::strerror(errno));
  std::ostringstream ss;
  ss << f.rdbuf();
  return parse(ss.str(), path);
}

std::string KernelDb::serialize() const {
  seer::kdb::KernelDb msg;
  msg.set_schema_version(kSchemaVersion);
  for (const KernelDbEntry& e : entries_) {
    seer::kdb::Entry* m = msg.add_entries();
    m->set_gpu(e.gpu);
    m->set_kernel(e.kernel);
    m->set_grid_x(e.grid_x);
    m->set_grid_y(e.grid_y);
    m->set_grid_z(e.grid_z);
    m->set_block_x(e.block_x);
    m->set_block_y(e.block_y);
    m->set_block_z(e.block_z);
    m->set_shmem(e.shmem);
    m->set_library_params(e.library_params);
    m->set_duration_ns(e.duration_ns);
    m->set_samples(e.samples);
    m->set_source(e.source);
    for (uint64_t v : e.sizes) m->add_sizes(v);
  }
  return msg.SerializeAsString();
}

void KernelDb::save(const std::string& path) const {
  const std::string bytes = serialize();
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) throw KernelDbError("cannot write " + path + ": " + std::strerror(errno));
  f << bytes;
  f.close();
  if (!f) throw KernelDbError("cannot write " + path + ": " + std::strerror(errno));
}

void KernelDb::put(KernelDbEntry entry) {
  const std::string key = key_of(entry);
  if (auto it = by_key_.find(key); it != by_key_.end()) {
    entries_[it->second] = std::move(entry);
    return;
  }
  by_kernel_[family_of(entry.gpu, entry.kernel)].push_back(entries_.size());
  by_key_.emplace(key, entries_.size());
  entries_.push_back(std::move(entry));
}

void KernelDb::merge(const KernelDb& later) {
  for (const KernelDbEntry& e : later.entries_) {
    auto it = by_key_.find(key_of(e));
    if (it == by_key_.end() || entries_[it->second].duration_ns == e.duration_ns) {
      put(e);
      continue;
    }
    KernelDbEntry& old = entries_[it->second];
    const int64_t wa = std::max<uint32_t>(1, old.samples);
    const int64_t wb = std::max<uint32_t>(1, e.samples);
    const __int128 sum =
        static_cast<__int128>(old.duration_ns) * wa + static_cast<__int128>(e.duration_ns) * wb;
    const int64_t avg = static_cast<int64_t>((sum + (wa + wb) / 2) / (wa + wb));
    const uint64_t samples = static_cast<uint64_t>(wa + wb);
    old = e;
    old.duration_ns = avg;
    old.samples = static_cast<uint32_t>(std::min<uint64_t>(samples, UINT32_MAX));
  }
}

std::optional<int64_t> KernelDb::lookup(const sim::GpuSpec& gpu, const std::string& kernel,
                                        const sim::LaunchGeometry& g,
                                        const std::string& library_params,
                                        std::span<const uint64_t> sizes) const {
  KernelDbEntry probe;
  probe.gpu = gpu.name;
  probe.kernel = kernel;
  probe.grid_x = g.gx;
  probe.grid_y = g.gy;
  probe.grid_z = g.gz;
  probe.block_x = g.bx;
  probe.block_y = g.by;
  probe.block_z = g.bz;
  probe.shmem = g.shmem;
  probe.library_params = library_params;
  probe.sizes.assign(sizes.begin(), sizes.end());
  if (auto it = by_key_.find(key_of(probe)); it != by_key_.end()) {
    return entries_[it->second].duration_ns;
  }
  if (!library_params.empty()) return std::nullopt;
  auto fam = by_kernel_.find(family_of(gpu.name, kernel));
  if (fam == by_kernel_.end()) return std::nullopt;
  const uint64_t blocks = g.blocks();
  const uint64_t threads = g.threads_per_block();
  const KernelDbEntry* best = nullptr;
  const KernelDbEntry* below = nullptr;  // the most blocks under the launch's
  const KernelDbEntry* above = nullptr;  // the fewest blocks over it
  uint64_t best_dist = 0;
  for (size_t i : fam->second) {
    const KernelDbEntry& e = entries_[i];
    if (e.block_x != g.bx || e.block_y != g.by || e.block_z != g.bz || e.shmem != g.shmem ||
        !e.library_params.empty()) {
      continue;
    }
    const uint64_t dist = e.blocks() > blocks ? e.blocks() - blocks : blocks - e.blocks();
    if (!best || dist < best_dist || (dist == best_dist && e.blocks() < best->blocks())) {
      best = &e;
      best_dist = dist;
    }
    if (e.blocks() < blocks && (!below || e.blocks() > below->blocks())) below = &e;
    if (e.blocks() > blocks && (!above || e.blocks() < above->blocks())) above = &e;
  }
  if (!best) return std::nullopt;
  if (!sizes.empty()) {
    if (std::optional<int64_t> d = between_sizes(fam->second, g, sizes)) return d;
  }
  if (best_dist != 0 && below && above) {
    // Between two measured sizes: linear in waves, or in blocks when both take as many waves.
    double x = static_cast<double>(waves(gpu, blocks, threads, g.shmem));
    double x0 = static_cast<double>(waves(gpu, below->blocks(), threads, g.shmem));
    double x1 = static_cast<double>(waves(gpu, above->blocks(), threads, g.shmem));
    if (x1 == x0) {
      x = static_cast<double>(blocks);
      x0 = static_cast<double>(below->blocks());
      x1 = static_cast<double>(above->blocks());
    }
    const double d0 = static_cast<double>(below->duration_ns);
    const double d1 = static_cast<double>(above->duration_ns);
    const double d =
        std::min(d0 + (d1 - d0) * (x - x0) / (x1 - x0), static_cast<double>(INT64_MAX / 2));
    return std::max<int64_t>(1, std::llround(d));
  }
  const uint64_t w_launch = waves(gpu, blocks, threads, g.shmem);
  const uint64_t w_entry = waves(gpu, best->blocks(), threads, g.shmem);
  const __int128 scaled = (static_cast<__int128>(best->duration_ns) * w_launch + w_entry / 2) /
                          static_cast<__int128>(w_entry);
  return static_cast<int64_t>(std::min<__int128>(scaled, INT64_MAX / 2));
}

std::optional<int64_t> KernelDb::between_sizes(const std::vector<size_t>& family,
                                               const sim::LaunchGeometry& g,
                                               std::span<const uint64_t> sizes) const {
  const KernelDbEntry* below = nullptr;
  const KernelDbEntry* above = nullptr;
  const uint64_t x = sizes[0];
  for (size_t i : family) {
    const KernelDbEntry& e = entries_[i];
    if (e.block_x != g.bx || e.block_y != g.by || e.block_z != g.bz || e.shmem != g.shmem ||
        !e.library_params.empty() || e.sizes.size() != sizes.size()) {
      continue;
    }
    if (e.sizes[0] < x && (!below || e.sizes[0] > below->sizes[0])) below = &e;
    if (e.sizes[0] > x && (!above || e.sizes[0] < above->sizes[0])) above = &e;
  }
  if (!below || !above) return std::nullopt;
  const double d0 = static_cast<double>(below->duration_ns);
  const double d1 = static_cast<double>(above->duration_ns);
  const double x0 = static_cast<double>(below->sizes[0]);
  const double x1 = static_cast<double>(above->sizes[0]);
  const double d = std::min(d0 + (d1 - d0) * (static_cast<double>(x) - x0) / (x1 - x0),
                            static_cast<double>(INT64_MAX / 2));
  return std::max<int64_t>(1, std::llround(d));
}

KernelDb KernelDb::from_csv(const std::string& text, const std::string& name) {
  KernelDb db;
  std::unordered_map<std::string, size_t> line_of_key;
  std::istringstream in(text);
  std::string line;
  size_t lineno = 0;
  size_t columns = 0;
  while (std::getline(in, line)) {
    const size_t first_line = ++lineno;
    const std::string where = name + ":" + std::to_string(first_line) + ": ";
    // A quoted field may hold line ends (to_csv writes them so): while a quote is open, the
    // record goes on on the next line.
    bool in_quote = std::count(line.begin(), line.end(), '"') % 2 == 1;
    std::string more;
    while (in_quote && std::getline(in, more)) {
      ++lineno;
      line += '\n';
      line += more;
      in_quote = in_quote != (std::count(more.begin(), more.end(), '"') % 2 == 1);
    }
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (columns == 0) {
      std::vector<std::string> header;
      try {
        header = split_csv(line);
      } catch (const CsvError& e) {
        throw KernelDbError(where + e.message);
      }
      if (header.size() < kRequiredColumns || header.size() > kColumns.size()) {
        throw KernelDbError(where + "the header has " + std::to_string(header.size()) +
                            " columns; expected gpu,kernel,grid_x,grid_y,grid_z,block_x,block_y,"
                            "block_z,shmem,duration_ns[,samples,source,library_params,sizes]");
      }
      for (size_t c = 0; c < header.size(); ++c) {
        if (header[c] != kColumns[c]) {
          throw KernelDbError(where + "column " + std::to_string(c + 1) + ": header '" + header[c] +
                              "', expected '" + kColumns[c] + "'");
        }
      }
      columns = header.size();
      continue;
    }
    if (line.empty()) continue;
    try {
      const std::vector<std::string> f = split_csv(line);
      if (f.size() != columns) {
        throw CsvError{"column " + std::to_string(std::min(f.size(), columns) + 1) + ": " +
                       std::to_string(f.size()) + " fields, the header has " +
                       std::to_string(columns)};
      }
      KernelDbEntry e;
      e.gpu = f[0];
      if (e.gpu.empty()) throw CsvError{"column 1 (gpu): empty"};
      if (auto spec = sim::find_gpu(e.gpu); !spec) {
        throw CsvError{"column 1 (gpu): unknown GPU '" + e.gpu + "' (seer's GPU catalog names)"};
      }
      e.kernel = f[1];
      if (e.kernel.empty()) throw CsvError{"column 2 (kernel): empty"};
      uint32_t* dims[] = {&e.grid_x,  &e.grid_y,  &e.grid_z, &e.block_x,
                          &e.block_y, &e.block_z, &e.shmem};
      for (size_t c = 2; c <= 8; ++c) {
        *dims[c - 2] = parse_number<uint32_t>(f[c], c, "an unsigned 32-bit integer");
        if (c < 8 && *dims[c - 2] == 0) {
          throw CsvError{"column " + std::to_string(c + 1) + " (" + kColumns[c] +
                         "): must be >= 1"};
        }
      }
      e.duration_ns = parse_number<int64_t>(f[9], 9, "an integer");
      if (e.duration_ns <= 0) throw CsvError{"column 10 (duration_ns): must be > 0"};
      // samples 0 is read as written (merge counts it as 1), as the binary format does.
      if (columns > 10) {
        e.samples = parse_number<uint32_t>(f[10], 10, "an unsigned 32-bit integer");
      }
      if (columns > 11) e.source = f[11];
      if (columns > 12) e.library_params = f[12];
      if (columns > 13 && !f[13].empty()) {
        size_t begin = 0;
        while (true) {
          const size_t space = f[13].find(' ', begin);
          const std::string v =
              f[13].substr(begin, space == std::string::npos ? space : space - begin);
          if (e.sizes.size() == KernelDbEntry::kMaxSizes) {
            throw CsvError{"column 14 (sizes): more than 4 values"};
          }
          e.sizes.push_back(parse_number<uint64_t>(v, 13, "unsigned integers separated by spaces"));
          if (space == std::string::npos) break;
          begin = space + 1;
        }
        if (!e.library_params.empty())
          throw CsvError{"column 14 (sizes): a library call with sizes"};
      }
      if (const std::string field = non_utf8_field(e); !field.empty()) {
        const size_t col = static_cast<size_t>(std::find(kColumns.begin(), kColumns.end(), field) -
                                               kColumns.begin());
        throw CsvError{"column " + std::to_string(col + 1) + " (" + field +
                       "): not valid UTF-8 (a kernel database stores text as UTF-8)"};
      }
      const std::string key = key_of(e);
      if (auto it = line_of_key.find(key); it != line_of_key.end()) {
        throw CsvError{"duplicate of line " + std::to_string(it->second) +
                       " (same gpu, kernel, grid, block, shmem, library_params, sizes)"};
      }
      line_of_key.emplace(key, first_line);
      db.put(std::move(e));
    } catch (const CsvError& e) {
      throw KernelDbError(where + e.message);
    }
  }
  if (columns == 0) throw KernelDbError(name + ": empty (no header line)");
  return db;
}

std::string KernelDb::to_csv() const {
  std::string out;
  for (size_t c = 0; c < kColumns.size(); ++c) out += (c ? "," : "") + kColumns[c];
  out += "\n";
  for (const KernelDbEntry& e : entries_) {
    out += csv_field(e.gpu) + "," + csv_field(e.kernel);
    for (uint32_t v : {e.grid_x, e.grid_y, e.grid_z, e.block_x, e.block_y, e.block_z, e.shmem}) {
      out.append(",").append(std::to_string(v));
    }
    out.append(",").append(std::to_string(e.duration_ns));
    out.append(",").append(std::to_string(e.samples));
    out.append(",").append(csv_field(e.source)).append(",").append(csv_field(e.library_params));
    out.append(",");
    for (size_t i = 0; i < e.sizes.size(); ++i) {
      out.append(i ? " " : "").append(std::to_string(e.sizes[i]));
    }
    out.append("\n");
  }
  return out;
}

}  // namespace seer::rt

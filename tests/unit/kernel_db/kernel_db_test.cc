// The kernel database: file round trip, lookup precedence, CSV parsing and errors, merge rules.
#include "seer/runtime/kernel_db.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "seer/simcore/gpu_spec.h"

namespace seer::rt {
namespace {

constexpr const char* kScale = "scale(float*, unsigned long, float)";

sim::GpuSpec h100() { return *sim::find_gpu("H100-SXM-80GB"); }

KernelDbEntry entry(const std::string& kernel, uint32_t grid, uint32_t block, int64_t ns,
                    uint32_t samples = 1, const std::string& source = "") {
  KernelDbEntry e;
  e.gpu = "H100-SXM-80GB";
  e.kernel = kernel;
  e.grid_x = grid;
  e.block_x = block;
  e.duration_ns = ns;
  e.samples = samples;
  e.source = source;
  return e;
}

sim::LaunchGeometry geo(uint32_t grid, uint32_t block, uint32_t shmem = 0) {
  sim::LaunchGeometry g;
  g.gx = grid;
  g.bx = block;
  g.shmem = shmem;
  return g;
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::path(::testing::TempDir()) /
          ("seer-kdb-" + std::to_string(getpid()) + "-" + name))
      .string();
}

TEST(KernelDb, SaveLoadRoundTrip) {
  KernelDb db;
  db.put(entry(kScale, 65536, 256, 50000, 3, "cupti H100 2026-11-20"));
  KernelDbEntry lib = entry("cublasGemmEx", 1, 1, 1'400'000);
  lib.library_params = "m=8192,n=8192,k=8192,dtype=bf16";
  lib.shmem = 1024;
  lib.grid_y = 2;
  lib.block_z = 4;
  db.put(lib);
  const std::string path = temp_path("roundtrip.kdb");
  db.save(path);
  const KernelDb back = KernelDb::load(path);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back.entries()[0].kernel, kScale);
  EXPECT_EQ(back.entries()[0].samples, 3u);
  EXPECT_EQ(back.entries()[0].source, "cupti H100 2026-11-20");
  const KernelDbEntry& l = back.entries()[1];
  EXPECT_EQ(l.library_params, "m=8192,n=8192,k=8192,dtype=bf16");
  EXPECT_EQ(l.shmem, 1024u);
  EXPECT_EQ(l.grid_y, 2u);
  EXPECT_EQ(l.block_z, 4u);
  EXPECT_EQ(l.duration_ns, 1'400'000);
  EXPECT_EQ(back.serialize(), db.serialize());
  std::filesystem::remove(path);
}

TEST(KernelDb, CorruptOrForeignFilesAreClearErrors) {
  const std::string path = temp_path("corrupt.kdb");
  {
    std::ofstream f(path, std::ios::binary);
    f << "\xff\xff\xff\xff garbage that is not a protobuf";
  }
  try {
    KernelDb::load(path);
    FAIL() << "corrupt file loaded";
  } catch (const KernelDbError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("not a kernel database"), std::string::npos) << e.what();
  }
  {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);  // empty: schema_version 0
  }
  EXPECT_THROW(KernelDb::load(path), KernelDbError);
  std::filesystem::remove(path);
  EXPECT_THROW(KernelDb::load(path), KernelDbError);  // missing
}

TEST(KernelDb, LookupExactFirstThenInterpolatesBetweenSizesElseScalesNearestByWaves) {
  KernelDb db;
  // H100: 132 SMs, 256 threads per block -> 8 blocks per SM, 1056 blocks per wave.
  db.put(entry(kScale, 1056 * 10, 256, 10000));  // 10 waves
  db.put(entry(kScale, 1056 * 40, 256, 50000));  // 40 waves
  db.put(entry(kScale, 1056 * 10, 128, 7777));   // other block size
  const sim::GpuSpec gpu = h100();
  EXPECT_EQ(db.lookup(gpu, kScale, geo(1056 * 10, 256)), 10000);
  EXPECT_EQ(db.lookup(gpu, kScale, geo(1056 * 40, 256)), 50000);
  EXPECT_EQ(db.lookup(gpu, kScale, geo(1056 * 10, 128)), 7777);
  // Between the 10- and 40-wave entries, linear in waves: 20 waves -> 10000 + 40000 * 10 / 30.
  EXPECT_EQ(db.lookup(gpu, kScale, geo(1056 * 20, 256)), 23333);
  // 1056 * 30 + 1 blocks take 31 waves: 10000 + 40000 * 21 / 30.
  EXPECT_EQ(db.lookup(gpu, kScale, geo(1056 * 30 + 1, 256)), 38000);
  // Outside the measured sizes, the nearest entry scaled by waves: 50000 * 50 / 40, 10000 * 5 / 10.
  EXPECT_EQ(db.lookup(gpu, kScale, geo(1056 * 50, 256)), 62500);
  EXPECT_EQ(db.lookup(gpu, kScale, geo(1056 * 5, 256)), 5000);
  // No entry with that block size, shared memory, kernel or GPU: nothing.
  EXPECT_EQ(db.lookup(gpu, kScale, geo(1056, 512)), std::nullopt);
  EXPECT_EQ(db.lookup(gpu, kScale, geo(1056 * 10, 256, 4096)), std::nullopt);
  EXPECT_EQ(db.lookup(gpu, "add_bias(float*, unsigned long, float)", geo(1056 * 10, 256)),
            std::nullopt);
  EXPECT_EQ(db.lookup(*sim::find_gpu("A100-SXM-80GB"), kScale, geo(1056 * 10, 256)), std::nullopt);
  // Library entries match exactly on their parameters only.
  KernelDbEntry lib = entry("cublasGemmEx", 1, 1, 1'400'000);
  lib.library_params = "m=8192,n=8192,k=8192,dtype=bf16";
  db.put(lib);
  EXPECT_EQ(db.lookup(gpu, "cublasGemmEx", geo(1, 1), "m=8192,n=8192,k=8192,dtype=bf16"),
            1'400'000);
  EXPECT_EQ(db.lookup(gpu, "cublasGemmEx", geo(1, 1), "m=4096,n=8192,k=8192,dtype=bf16"),
            std::nullopt);
  EXPECT_EQ(db.lookup(gpu, "cublasGemmEx", geo(1, 1)), std::nullopt);
}

TEST(KernelDb, SizesWithinOneWaveInterpolateInBlocks) {
  KernelDb db;
  // 100 and 1000 blocks of 256 threads both fit in H100's first wave (1056 blocks).
  db.put(entry(kScale, 100, 256, 3000));
  db.put(entry(kScale, 1000, 256, 5000));
  const sim::GpuSpec gpu = h100();
  EXPECT_EQ(db.lookup(gpu, kScale, geo(550, 256)), 4000);
  EXPECT_EQ(db.lookup(gpu, kScale, geo(101, 256)), 3002);  // 3000 + 2000 * 1 / 900, rounded
}

// An elementwise kernel measured at 1M and 4M elements (sizes[0]), with the grid of each.
constexpr const char* kAdd =
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
    "std::array<char*, 3ul>, false>(int, at::native::CUDAFunctor_add<float>, std::array<char*, "
    "3ul>)";

KernelDbEntry sized(uint64_t elements, int64_t ns) {
  KernelDbEntry e = entry(kAdd, static_cast<uint32_t>(elements / 512), 128, ns);
  e.sizes = {elements};
  return e;
}

TEST(KernelDb, SizeArgumentsAreKeysAndInterpolateBetweenMeasuredSizes) {
  KernelDb db;
  db.put(sized(1 << 20, 10000));
  db.put(sized(4 << 20, 34000));
  const sim::GpuSpec gpu = h100();
  const uint64_t one_m[] = {1 << 20};
  const uint64_t two_m[] = {2 << 20};
  // Exact: geometry and sizes.
  EXPECT_EQ(db.lookup(gpu, kAdd, geo(2048, 128), "", one_m), 10000);
  // 2M elements, a third of the way from 1M to 4M: 10000 + 24000 / 3.
  EXPECT_EQ(db.lookup(gpu, kAdd, geo(4096, 128), "", two_m), 18000);
  // The same geometry with other sizes is not an exact match: interpolated as well.
  EXPECT_EQ(db.lookup(gpu, kAdd, geo(2048, 128), "", two_m), 18000);
  // Outside the measured sizes: by geometry, the nearest entry scaled by waves (H100 runs 16
  // blocks of 128 threads per SM, 2112 per wave: 16384 blocks take 8 waves, the 4M entry's 8192
  // take 4): 34000 * 8 / 4.
  const uint64_t eight_m[] = {8 << 20};
  EXPECT_EQ(db.lookup(gpu, kAdd, geo(16384, 128), "", eight_m), 68000);
  // Without sizes (a launch whose arguments were not read): by geometry.
  EXPECT_EQ(db.lookup(gpu, kAdd, geo(2048, 128)), 10000);
}

TEST(KernelDb, SizesRoundTripThroughBothFormatsAndAreValidated) {
  KernelDb db;
  KernelDbEntry e = sized(1 << 20, 10000);
  e.sizes = {1 << 20, 7, 0};
  db.put(e);
  const KernelDb back = KernelDb::parse(db.serialize());
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back.entries()[0].sizes, (std::vector<uint64_t>{1 << 20, 7, 0}));
  const std::string csv = db.to_csv();
  EXPECT_NE(csv.find(",1048576 7 0\n"), std::string::npos) << csv;
  EXPECT_EQ(KernelDb::from_csv(csv).entries()[0].sizes, e.sizes);

  KernelDbEntry five = e;
  five.sizes = {1, 2, 3, 4, 5};
  KernelDb too_many;
  too_many.put(five);
  EXPECT_THROW(KernelDb::parse(too_many.serialize()), KernelDbError);
  KernelDbEntry lib = entry("cublasGemmEx [bf16]", 1, 1, 100);
  lib.library_params = "m=1,n=1,k=1,batch=1";
  lib.sizes = {3};
  KernelDb bad_lib;
  bad_lib.put(lib);
  EXPECT_THROW(KernelDb::parse(bad_lib.serialize()), KernelDbError);
}

TEST(KernelDb, PutReplacesSameKey) {
  KernelDb db;
  db.put(entry(kScale, 100, 256, 1000));
  db.put(entry(kScale, 100, 256, 2000));
  ASSERT_EQ(db.size(), 1u);
  EXPECT_EQ(db.lookup(h100(), kScale, geo(100, 256)), 2000);
}

TEST(KernelDbCsv, ParsesQuotedNamesAndOptionalColumns) {
  const std::string csv =
      "gpu,kernel,grid_x,grid_y,grid_z,block_x,block_y,block_z,shmem,duration_ns,samples,source,"
      "library_params\r\n"
      "H100-SXM-80GB,\"scale(float*, unsigned long, float)\",65536,1,1,256,1,1,0,50000,4,"
      "\"cupti \"\"H100\"\"\",\r\n"
      "\n"
      "H100-SXM-80GB,cublasGemmEx,1,1,1,1,1,1,0,1400000,1,,\"m=8192,n=8192,k=8192,dtype=bf16\"\n";
  const KernelDb db = KernelDb::from_csv(csv);
  ASSERT_EQ(db.size(), 2u);
  EXPECT_EQ(db.entries()[0].kernel, kScale);
  EXPECT_EQ(db.entries()[0].samples, 4u);
  EXPECT_EQ(db.entries()[0].source, "cupti \"H100\"");
  EXPECT_EQ(db.entries()[1].library_params, "m=8192,n=8192,k=8192,dtype=bf16");
  // Export and import again: the same database.
  EXPECT_EQ(KernelDb::from_csv(db.to_csv()).serialize(), db.serialize());
  // Only the required columns: samples 1.
  const KernelDb minimal = KernelDb::from_csv(
      "gpu,kernel,grid_x,grid_y,grid_z,block_x,block_y,block_z,shmem,duration_ns\n"
      "H100-SXM-80GB,k(),2,1,1,32,1,1,0,7\n");
  ASSERT_EQ(minimal.size(), 1u);
  EXPECT_EQ(minimal.entries()[0].samples, 1u);
  EXPECT_EQ(minimal.entries()[0].duration_ns, 7);
}

std::string csv_error(const std::string& text) {
  try {
    KernelDb::from_csv(text, "in.csv");
  } catch (const KernelDbError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(KernelDbCsv, ErrorsNameLineAndColumn) {
  const std::string header =
      "gpu,kernel,grid_x,grid_y,grid_z,block_x,block_y,block_z,shmem,duration_ns\n";
  EXPECT_EQ(csv_error(""), "in.csv: empty (no header line)");
  const std::string sizes_header =
      "gpu,kernel,grid_x,grid_y,grid_z,block_x,block_y,block_z,shmem,duration_ns,samples,source,"
      "library_params,sizes\n";
  EXPECT_EQ(csv_error(sizes_header + "H100-SXM-80GB,k,1,1,1,1,1,1,0,5,1,,,12  3\n"),
            "in.csv:2: column 14 (sizes): '' is not unsigned integers separated by spaces");
  EXPECT_EQ(csv_error(sizes_header + "H100-SXM-80GB,k,1,1,1,1,1,1,0,5,1,,,1 2 3 4 5\n"),
            "in.csv:2: column 14 (sizes): more than 4 values");
  EXPECT_EQ(csv_error(sizes_header + "H100-SXM-80GB,k,1,1,1,1,1,1,0,5,1,,m=1,4\n"),
            "in.csv:2: column 14 (sizes): a library call with sizes");
  EXPECT_NE(csv_error("gpu,kernel,grid_x\n").find("in.csv:1: the header has 3 columns"),
            std::string::npos);
  EXPECT_EQ(csv_error("gpu,kernel,grid_x,grid_y,grid_z,block_x,block_y,block_z,shmem,time\n"),
            "in.csv:1: column 10: header 'time', expected 'duration_ns'");
  EXPECT_EQ(csv_error(header + "H100-SXM-80GB,k,1,x1,1,1,1,1,0,5\n"),
            "in.csv:2: column 4 (grid_y): 'x1' is not an unsigned 32-bit integer");
  EXPECT_EQ(csv_error(header + "H100-SXM-80GB,k,1,1,1,1,1,1,0,5\nH100-SXM-80GB,k,1,1,1,1,1,1,0,\n"),
            "in.csv:3: column 10 (duration_ns): '' is not an integer");
  EXPECT_EQ(csv_error(header + "H100-SXM-80GB,k,1,1,1,1,1,1,0,-5\n"),
            "in.csv:2: column 10 (duration_ns): must be > 0");
  EXPECT_EQ(csv_error(header + "H100-SXM-80GB,k,0,1,1,1,1,1,0,5\n"),
            "in.csv:2: column 3 (grid_x): must be >= 1");
  EXPECT_EQ(csv_error(header + "H100-SXM-80GB,k(float*, int),1,1,1,1,1,1,0,5\n"),
            "in.csv:2: column 11: 11 fields, the header has 10");
  EXPECT_EQ(csv_error(header + "H100-SXM-80GB,\"k(float*, int),1,1,1,1,1,1,0,5\n"),
            "in.csv:2: column 2: unterminated quote");
  EXPECT_EQ(csv_error(header + "H100-SXM-80GB,\"k\"x,1,1,1,1,1,1,0,5\n"),
            "in.csv:2: column 2: text after the closing quote");
  EXPECT_EQ(csv_error(header + "H200-XYZ,k,1,1,1,1,1,1,0,5\n"),
            "in.csv:2: column 1 (gpu): unknown GPU 'H200-XYZ' (seer's GPU catalog names)");
  EXPECT_EQ(
      csv_error(header + "H100-SXM-80GB,k,1,1,1,1,1,1,0,5\n\nH100-SXM-80GB,k,1,1,1,1,1,1,0,6\n"),
      "in.csv:4: duplicate of line 2 (same gpu, kernel, grid, block, shmem, library_params, "
      "sizes)");
}

TEST(KernelDbMerge, LaterWinsDifferentDurationsAveragedBySamples) {
  KernelDb a;
  a.put(entry(kScale, 100, 256, 1000, 3, "first"));
  a.put(entry("only_a()", 1, 32, 10, 1, "a"));
  KernelDb b;
  b.put(entry(kScale, 100, 256, 2000, 1, "second"));
  b.put(entry("only_b()", 1, 32, 20, 1, "b"));
  KernelDb m;
  m.merge(a);
  m.merge(b);
  ASSERT_EQ(m.size(), 3u);
  const KernelDbEntry& s = m.entries()[0];
  EXPECT_EQ(s.duration_ns, 1250);  // (1000 * 3 + 2000 * 1) / 4
  EXPECT_EQ(s.samples, 4u);
  EXPECT_EQ(s.source, "second");  // the later file's metadata
  // Equal durations: the later entry as it is, samples not added up.
  KernelDb c;
  c.put(entry(kScale, 100, 256, 1250, 9, "third"));
  m.merge(c);
  EXPECT_EQ(m.entries()[0].duration_ns, 1250);
  EXPECT_EQ(m.entries()[0].samples, 9u);
  EXPECT_EQ(m.entries()[0].source, "third");
  // Samples 0 count as 1: (100 + 201) / 2 rounds to nearest.
  KernelDb d, e;
  d.put(entry("x()", 1, 1, 100, 0));
  e.put(entry("x()", 1, 1, 201, 0));
  d.merge(e);
  EXPECT_EQ(d.entries()[0].duration_ns, 151);
  EXPECT_EQ(d.entries()[0].samples, 2u);
}

}  // namespace
}  // namespace seer::rt

// Inputs found by the kernel-database fuzz targets (tests/fuzz): what one reader (the binary
// file, CSV import) accepts, the other reads back after an export.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "seer/runtime/kernel_db.h"

namespace seer::rt {
namespace {

constexpr const char* kHeader =
    "gpu,kernel,grid_x,grid_y,grid_z,block_x,block_y,block_z,shmem,duration_ns,samples,source,"
    "library_params\n";

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const KernelDbError& e) {
    return e.what();
  }
  return "";
}

// fuzz_kernel_db: a file naming a GPU that is not in the catalog loaded, but its CSV export
// could not be imported.
TEST(KernelDbFuzzRegressions, FileWithUnknownGpuIsRejected) {
  const unsigned char bytes[] = {0x08, 0x01, 0x12, 0x23, 0x0a, 0x0d, 0x48, 0x31, 0x30, 0x30,
                                 0x2d, 0x32, 0x58, 0x4d, 0x2d, 0x38, 0x30, 0x47, 0x42, 0x12,
                                 0x01, 0x6b, 0x18, 0x01, 0x20, 0x01, 0x28, 0x01, 0x30, 0x20,
                                 0x38, 0x01, 0x40, 0x01, 0x58, 0xe8, 0x07, 0x60, 0x01};
  const std::string file(reinterpret_cast<const char*>(bytes), sizeof bytes);
  EXPECT_EQ(error_of([&] { KernelDb::parse(file, "x.kdb"); }),
            "x.kdb: entry 1 is invalid: unknown GPU 'H100-2XM-80GB' (seer's GPU catalog names)");
  // The same entry on a catalog GPU loads, and survives export and import.
  std::string good = file;
  good[11] = 'S';  // H100-SXM-80GB
  const KernelDb db = KernelDb::parse(good);
  ASSERT_EQ(db.size(), 1u);
  const KernelDb back = KernelDb::from_csv(db.to_csv());
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back.entries()[0].gpu, "H100-SXM-80GB");
  EXPECT_EQ(back.entries()[0].duration_ns, 1000);
}

// fuzz_kernel_db_csv: a kernel name that is not UTF-8 was imported, and the database written
// with it could not be loaded ("the bytes do not parse").
TEST(KernelDbFuzzRegressions, CsvTextThatIsNotUtf8IsRejected) {
  EXPECT_EQ(error_of([] {
              KernelDb::from_csv(std::string(kHeader) +
                                     "H100-SXM-80GB,_\xdaZ6scale,1056,1,1,256,1,1,0,25000,1,b,\n",
                                 "in.csv");
            }),
            "in.csv:2: column 2 (kernel): not valid UTF-8 (a kernel database stores text as "
            "UTF-8)");
  EXPECT_EQ(error_of([] {
              KernelDb::from_csv(
                  std::string(kHeader) + "H100-SXM-80GB,k,1,1,1,1,1,1,0,5,1,src\xff,\n", "in.csv");
            }),
            "in.csv:2: column 12 (source): not valid UTF-8 (a kernel database stores text as "
            "UTF-8)");
  // Multi-byte UTF-8 is text like any other, and round-trips through the file.
  const KernelDb db = KernelDb::from_csv(
      std::string(kHeader) + "H100-SXM-80GB,\xce\xbb_kernel,1,1,1,1,1,1,0,5,1,\xe2\x9c\x93,\n");
  const KernelDb back = KernelDb::parse(db.serialize());
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back.entries()[0].kernel, "\xce\xbb_kernel");
  EXPECT_EQ(back.entries()[0].source, "\xe2\x9c\x93");
}

// fuzz_kernel_db: an entry without a sample count (0, which merge counts as 1) was exported as
// samples 0, which import refused.
TEST(KernelDbFuzzRegressions, ZeroSamplesSurviveExportAndImport) {
  KernelDb db;
  KernelDbEntry e;
  e.gpu = "H100-SXM-80GB";
  e.kernel.push_back('k');  // (not = "k": GCC 12 -O3 reports a false -Wrestrict)
  e.duration_ns = 100;
  e.samples = 0;
  db.put(e);
  const KernelDb back = KernelDb::from_csv(KernelDb::parse(db.serialize()).to_csv());
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back.entries()[0].samples, 0u);
}

// fuzz_kernel_db: a kernel name holding a line end was exported quoted, and import, reading line
// by line, reported an unterminated quote.
TEST(KernelDbFuzzRegressions, LineEndsInQuotedFieldsSurviveExportAndImport) {
  KernelDb db;
  KernelDbEntry e;
  e.gpu = "H100-SXM-80GB";
  e.kernel = "=\n\rA100";
  e.source = "nsys,\r\nrun \"1\"\n";
  e.duration_ns = 100;
  db.put(e);
  e.kernel = "second";
  db.put(e);
  const std::string csv = db.to_csv();
  const KernelDb back = KernelDb::from_csv(csv);
  ASSERT_EQ(back.size(), 2u) << csv;
  EXPECT_EQ(back.entries()[0].kernel, "=\n\rA100");
  EXPECT_EQ(back.entries()[0].source, "nsys,\r\nrun \"1\"\n");
  EXPECT_EQ(back.entries()[1].kernel, "second");
  // Errors name the line a record starts on; a quote left open runs to the end of the text.
  EXPECT_EQ(error_of([] {
              KernelDb::from_csv(
                  std::string(kHeader) + "H100-SXM-80GB,\"a\nb\",1,1,1,1,1,1,0,x,1,,\n", "in.csv");
            }),
            "in.csv:2: column 10 (duration_ns): 'x' is not an integer");
  EXPECT_EQ(error_of([] {
              KernelDb::from_csv(std::string(kHeader) + "H100-SXM-80GB,\"open,1\n\nmore\n",
                                 "in.csv");
            }),
            "in.csv:2: column 2: unterminated quote");
}

}  // namespace
}  // namespace seer::rt

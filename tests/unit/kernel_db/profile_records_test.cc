// seer profile's records (runtime/include/seer/runtime/profile_records.h): parsing, errors that
// name the line, aggregation into database entries, demangling, GPU models.
#include "seer/runtime/profile_records.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "seer/simcore/gpu_spec.h"

namespace seer::rt {
namespace {

// Two launches of scale (mangled, as CUPTI names it) at one geometry, one at another, a kernel
// with shared memory, copies, a memset, and the device's name.
constexpr const char* kProcessA =
    "kernel\t0\t8192\t1\t1\t256\t1\t1\t0\t14000\t7\t_Z5scalePfmf\n"
    "kernel\t0\t8192\t1\t1\t256\t1\t1\t0\t14003\t7\t_Z5scalePfmf\n"
    "kernel\t0\t4096\t1\t1\t256\t1\t1\t0\t9000\t7\t_Z5scalePfmf\n"
    "kernel\t0\t132\t1\t1\t128\t1\t1\t4096\t5000\t7\tmy_c_kernel\n"
    "memcpy\t0\tHtoD\t1048576\t40000\n"
    "memcpy\t0\tHtoD\t1048576\t40000\n"
    "memcpy\t0\tDtoH\t4096\t3000\n"
    "memset\t0\t65536\t1500\n"
    "device\t0\tNVIDIA H100 80GB HBM3\n"
    "end\n";

const KernelDbEntry* find(const KernelDb& db, const std::string& kernel, uint32_t grid) {
  for (const KernelDbEntry& e : db.entries()) {
    if (e.kernel == kernel && e.grid_x == grid) return &e;
  }
  return nullptr;
}

TEST(ProfileRecords, LaunchesOfOneGeometryBecomeOneEntryWithTheirMeanAndCount) {
  ProfileRecords r;
  r.add(kProcessA, "a");
  EXPECT_EQ(r.processes(), 1u);
  EXPECT_EQ(r.processes_ended(), 1u);
  EXPECT_EQ(r.kernel_launches(), 4u);
  EXPECT_EQ(r.kernel_ns(), 14000 + 14003 + 9000 + 5000);
  const KernelDb db = r.database(std::nullopt);
  ASSERT_EQ(db.size(), 3u);
  const KernelDbEntry* big = find(db, "scale(float*, unsigned long, float)", 8192);
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(big->gpu, "H100-SXM-80GB");
  EXPECT_EQ(big->duration_ns, 14002);  // (14000 + 14003) / 2 rounded to nearest
  EXPECT_EQ(big->samples, 2u);
  EXPECT_EQ(big->block_x, 256u);
  EXPECT_EQ(big->source, "seer profile");
  const KernelDbEntry* small = find(db, "scale(float*, unsigned long, float)", 4096);
  ASSERT_NE(small, nullptr);
  EXPECT_EQ(small->duration_ns, 9000);
  const KernelDbEntry* c = find(db, "my_c_kernel", 132);  // not mangled: kept as it is
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->shmem, 4096u);
  EXPECT_EQ(c->block_x, 128u);
}

TEST(ProfileRecords, CopiesAndMemsetsAreCountedByKind) {
  ProfileRecords r;
  r.add(kProcessA, "a");
  ASSERT_EQ(r.copies().size(), 2u);
  EXPECT_EQ(r.copies().at("HtoD").count, 2u);
  EXPECT_EQ(r.copies().at("HtoD").bytes, 2u << 20);
  EXPECT_EQ(r.copies().at("HtoD").total_ns, 80000);
  EXPECT_EQ(r.copies().at("DtoH").bytes, 4096u);
  EXPECT_EQ(r.memsets().count, 1u);
  EXPECT_EQ(r.memsets().bytes, 65536u);
  const auto top = r.top_kernels(1);
  ASSERT_EQ(top.size(), 1u);
  EXPECT_EQ(top[0].kernel, "scale(float*, unsigned long, float)");
  EXPECT_EQ(top[0].launches, 3u);
  EXPECT_EQ(top[0].total_ns, 37003);
}

TEST(ProfileRecords, ProcessesOfOneJobPoolTheirLaunches) {
  ProfileRecords r;
  r.add(kProcessA, "a");
  r.add(
      "kernel\t1\t8192\t1\t1\t256\t1\t1\t0\t14009\t7\t_Z5scalePfmf\n"
      "device\t1\tNVIDIA H100 80GB HBM3\nend\n",
      "b");
  const KernelDb db = r.database(std::nullopt);
  const KernelDbEntry* big = find(db, "scale(float*, unsigned long, float)", 8192);
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(big->samples, 3u);
  EXPECT_EQ(big->duration_ns, 14004);  // 42012 / 3
  EXPECT_EQ(r.device_names(), std::vector<std::string>{"NVIDIA H100 80GB HBM3"});
}

TEST(ProfileRecords, KernelsOfACublasCallBecomeOneLibraryEntry) {
  ProfileRecords r;
  r.add(
      "library\t1\tcublasGemmEx [bf16]\tm=4096,n=4096,k=4096,batch=1\n"
      "library\t2\tcublasGemmEx [bf16]\tm=4096,n=4096,k=4096,batch=1\n"
      "kernel\t0\t128\t1\t1\t256\t1\t1\t0\t100000\t11\tsm90_xmma_gemm_bf16\n"
      "kernel\t0\t8\t1\t1\t256\t1\t1\t0\t2000\t12\tsplitk_reduce\n"  // call 1's second
      "kernel\t0\t128\t1\t1\t256\t1\t1\t0\t104000\t13\tsm90_xmma_gemm_bf16\n"
      "kernel\t0\t8\t1\t1\t32\t1\t1\t0\t3000\t14\t_Z5scalePfmf\n"
      "external\t1\t11\nexternal\t1\t12\nexternal\t2\t13\n"
      "external\t9\t14\n"  // an id no library line names: an ordinary kernel
      "device\t0\tNVIDIA H100 80GB HBM3\nend\n",
      "a");
  EXPECT_EQ(r.library_calls(), 2u);
  const KernelDb db = r.database(std::nullopt);
  ASSERT_EQ(db.size(), 2u);
  const KernelDbEntry* gemm = find(db, "cublasGemmEx [bf16]", 1);
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm->library_params, "m=4096,n=4096,k=4096,batch=1");
  EXPECT_EQ(gemm->duration_ns, 103000);  // (100000 + 2000 + 104000) / 2 calls
  EXPECT_EQ(gemm->samples, 2u);
  EXPECT_EQ(gemm->block_x, 1u);
  // What the session asks for a GEMM of that shape.
  EXPECT_EQ(db.lookup(*sim::find_gpu("H100-SXM-80GB"), "cublasGemmEx [bf16]", sim::LaunchGeometry{},
                      "m=4096,n=4096,k=4096,batch=1"),
            103000);
  EXPECT_NE(find(db, "scale(float*, unsigned long, float)", 8), nullptr);
}

TEST(ProfileRecords, LaunchesMarkedWithSizeArgumentsKeepThem) {
  ProfileRecords r;
  r.add(
      "args\t5\t1048576\n"
      "args\t6\t4194304 3\n"
      "kernel\t0\t2048\t1\t1\t128\t1\t1\t0\t10000\t21\tk\n"
      "kernel\t0\t2048\t1\t1\t128\t1\t1\t0\t10002\t22\tk\n"  // same sizes as 21
      "kernel\t0\t2048\t1\t1\t128\t1\t1\t0\t30000\t23\tk\n"  // other sizes
      "kernel\t0\t2048\t1\t1\t128\t1\t1\t0\t9000\t24\tk\n"   // none recorded
      "external\t5\t21\nexternal\t5\t22\nexternal\t6\t23\n"
      "device\t0\tNVIDIA H100 80GB HBM3\nend\n",
      "a");
  const KernelDb db = r.database(std::nullopt);
  ASSERT_EQ(db.size(), 3u);
  std::map<std::vector<uint64_t>, const KernelDbEntry*> by_sizes;
  for (const KernelDbEntry& e : db.entries()) by_sizes[e.sizes] = &e;
  ASSERT_EQ(by_sizes.size(), 3u);
  EXPECT_EQ(by_sizes.at({1048576})->duration_ns, 10001);
  EXPECT_EQ(by_sizes.at({1048576})->samples, 2u);
  EXPECT_EQ(by_sizes.at({4194304, 3})->duration_ns, 30000);
  EXPECT_EQ(by_sizes.at({})->duration_ns, 9000);
  EXPECT_EQ(r.library_calls(), 0u);

  ProfileRecords bad;
  EXPECT_THROW(bad.add("args\t1\t1 2 3 4 5\n", "b"), ProfileError);
  EXPECT_THROW(bad.add("args\t1\t\n", "c"), ProfileError);
}

TEST(ProfileRecords, TheGpuModelComesFromTheDeviceNameOrTheOverride) {
  ProfileRecords r;
  r.add("kernel\t0\t1\t1\t1\t32\t1\t1\t0\t3000\t7\tk\ndevice\t0\tNVIDIA A100-SXM4-80GB\n", "a");
  EXPECT_EQ(r.database(std::nullopt).entries().at(0).gpu, "A100-SXM-80GB");
  EXPECT_EQ(r.database(std::string("h100-sxm-80gb")).entries().at(0).gpu, "H100-SXM-80GB");
  EXPECT_THROW(r.database(std::string("no-such-gpu")), ProfileError);

  ProfileRecords unknown;
  unknown.add("kernel\t0\t1\t1\t1\t32\t1\t1\t0\t3000\t7\tk\ndevice\t0\tNVIDIA GeForce GT 710\n",
              "u");
  try {
    unknown.database(std::nullopt);
    FAIL() << "an unknown device must be an error";
  } catch (const ProfileError& e) {
    EXPECT_NE(std::string(e.what()).find("--gpu-model"), std::string::npos) << e.what();
  }
  EXPECT_EQ(unknown.database(std::string("A100-SXM-80GB")).size(), 1u);

  ProfileRecords cut_short;  // killed before it wrote the device names
  cut_short.add("kernel\t0\t1\t1\t1\t32\t1\t1\t0\t3000\t7\tk\n", "c");
  EXPECT_EQ(cut_short.processes_ended(), 0u);
  EXPECT_THROW(cut_short.database(std::nullopt), ProfileError);
}

TEST(ProfileRecords, MalformedLinesAreErrorsNamingTheFileAndLine) {
  const char* bad[] = {
      "kernel\t0\t1\t1\t1\t32\t1\t1\t0\t7\t3000\n",     // a field missing
      "kernel\t0\tx\t1\t1\t32\t1\t1\t0\t3000\t7\tk\n",  // not a number
      "kernel\t0\t0\t1\t1\t32\t1\t1\t0\t3000\t7\tk\n",  // a zero grid
      "kernel\t0\t1\t1\t1\t32\t1\t1\t0\t-5\t7\tk\n",    // a negative duration
      "kernel\t0\t1\t1\t1\t32\t1\t1\t0\t3000\t7\t\n",   // no name
      "memcpy\t0\tHtoD\t12\n",                          // a field missing
      "launch\t0\n",
      "library\t1\t\tm=1\n",                                            // no label
      "external\t1\n",                                                  // unknown record
      "kernel\t0\t1\t1\t1\t32\t1\t1\t0\t99999999999999999999\t7\tk\n",  // out of range
  };
  for (const char* text : bad) {
    ProfileRecords r;
    try {
      r.add(std::string("end\n") + text, "rec.tsv");
      FAIL() << "accepted: " << text;
    } catch (const ProfileError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("rec.tsv:2: ", 0), 0u) << e.what();
    }
  }
}

TEST(ProfileRecords, ErrorsTheRecorderWroteAreKept) {
  ProfileRecords r;
  r.add("error\tcannot load CUPTI (libcupti.so.13): not found\n", "p.tsv");
  ASSERT_EQ(r.errors().size(), 1u);
  EXPECT_EQ(r.errors()[0], "p.tsv: cannot load CUPTI (libcupti.so.13): not found");
  EXPECT_EQ(r.database(std::nullopt).size(), 0u);
}

TEST(ProfileRecords, UnreadableFileIsAnError) {
  ProfileRecords r;
  EXPECT_THROW(r.add_file("/nonexistent/records-1.tsv"), ProfileError);
}

}  // namespace
}  // namespace seer::rt

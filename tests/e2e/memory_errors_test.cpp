// Simulated device memory (capacity, cudaMemGetInfo, peak), the error codes real CUDA returns
// for misuse, unsupported functions, host dereferences of device pointers and statically linked
// CUDA runtimes.

#include <filesystem>

#include "e2e_util.h"

namespace seer::e2e {
namespace {

constexpr int64_t kGiB = int64_t{1} << 30;
constexpr int64_t kMiB = int64_t{1} << 20;
constexpr int64_t kContextReserve = 512 * kMiB;
constexpr int64_t kGranule = 512;  // allocations are rounded up to 512 bytes

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

void expect_capacity(const Outcome& o, int64_t total) {
  const int64_t usable = total - kContextReserve;
  EXPECT_EQ(o.integer("total_global_mem"), total);
  EXPECT_EQ(o.integer("start_free"), usable);
  EXPECT_EQ(o.integer("start_total"), total);
  // 1 MiB + 1 byte takes 1 MiB + one granule.
  const int64_t small = kMiB + kGranule;
  EXPECT_EQ(o.integer("after_small_free"), usable - small);
  EXPECT_EQ(o.integer("after_small_total"), total);
  // One byte more than what is free fails with cudaErrorMemoryAllocation (2), which is the last
  // error once; exactly what is free succeeds.
  EXPECT_EQ(o.integer("one_past_rc"), 2);
  EXPECT_EQ(o.integer("last_error_rc"), 2);
  EXPECT_EQ(o.integer("last_error_again_rc"), 0);
  EXPECT_EQ(o.integer("exact_rc"), 0);
  EXPECT_EQ(o.integer("full_free"), 0);
  EXPECT_EQ(o.integer("full_total"), total);
  EXPECT_EQ(o.integer("full_one_byte_rc"), 2);
  EXPECT_EQ(o.integer("zero_bytes_rc"), 0);
  EXPECT_EQ(o.integer("zero_bytes_null"), 1);
  EXPECT_EQ(o.integer("huge_rc"), 2);
  EXPECT_EQ(o.integer("free_big_rc"), 0);
  EXPECT_EQ(o.integer("after_free_free"), usable - small);
  EXPECT_EQ(o.integer("again_rc"), 0);
  // GPU 1 has its own memory.
  EXPECT_EQ(o.integer("gpu1_start_free"), usable);
  EXPECT_EQ(o.integer("gpu1_start_total"), total);
  EXPECT_EQ(o.integer("gpu1_after_one_byte_free"), usable - kGranule);
  EXPECT_EQ(o.integer("end_free"), usable);
}

const nlohmann::json* find_gpu(const nlohmann::json& summary, int gpu) {
  for (const auto& g : summary["gpus"]) {
    if (g["gpu"] == gpu) return &g;
  }
  return nullptr;
}

TEST(DeviceMemory, H100CapacityIsExact) {
  TempDir dir;
  const Outcome o = seer_run("dgx-h100", dir.file("out"), {program("oom")});
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  // H100: 80 GiB, of which 512 MiB are the context reserve.
  expect_capacity(o, 80 * kGiB);
  EXPECT_EQ(o.integer("start_free"), 85'362'475'008);
  // Peak memory per GPU: GPU 0 was full, GPU 1 held one granule.
  const nlohmann::json s = read_json(dir.file("out/summary.json"));
  const nlohmann::json* g0 = find_gpu(s, 0);
  const nlohmann::json* g1 = find_gpu(s, 1);
  ASSERT_TRUE(g0 && g1) << s.dump(2);
  EXPECT_EQ((*g0)["peak_memory_bytes"], 80 * kGiB - kContextReserve);
  EXPECT_EQ((*g1)["peak_memory_bytes"], kGranule);
}

TEST(DeviceMemory, ClusterFileOverridesMemorySize) {
  TempDir dir;
  write_file(dir.file("small.yaml"),
             "schema: 1\n"
             "name: small-gpus\n"
             "nodes: 1\n"
             "node:\n"
             "  gpu: H100-SXM-80GB\n"
             "  gpus: 2\n"
             "  gpu_memory: 40GiB\n"
             "  host_link: {bandwidth: 55GB/s, latency: 2us}\n"
             "  scale_up: {kind: nvswitch, bandwidth: 450GB/s, latency: 1us}\n");
  const Outcome o = seer_run(dir.file("small.yaml"), dir.file("out"), {program("oom")});
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  expect_capacity(o, 40 * kGiB);
  const nlohmann::json s = read_json(dir.file("out/summary.json"));
  const nlohmann::json* g0 = find_gpu(s, 0);
  ASSERT_TRUE(g0) << s.dump(2);
  EXPECT_EQ((*g0)["peak_memory_bytes"], 40 * kGiB - kContextReserve);
}

// ---------------------------------------------------------------------------------------------

TEST(Misuse, ErrorCodesOfRealCuda) {
  TempDir dir;
  const Outcome o = seer_run("dgx-h100", dir.file("out"), {program("misuse")});
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  EXPECT_EQ(o.integer("device_count"), 8);
  // cudaErrorInvalidDevice (101); the current device is unchanged.
  EXPECT_EQ(o.integer("set_device_9999_rc"), 101);
  EXPECT_EQ(o.integer("set_device_minus1_rc"), 101);
  EXPECT_EQ(o.integer("set_device_count_rc"), 101);
  EXPECT_EQ(o.integer("after_set_device_last_rc"), 101);
  EXPECT_EQ(o.integer("device_after_bad_set"), 0);
  EXPECT_EQ(o.integer("properties_bad_device_rc"), 101);
  // cudaErrorInvalidValue (1) for pointers that are not (the start of) device allocations.
  EXPECT_EQ(o.integer("free_host_pointer_rc"), 1);
  EXPECT_EQ(o.integer("free_null_rc"), 0);
  EXPECT_EQ(o.integer("free_interior_pointer_rc"), 1);
  EXPECT_EQ(o.integer("memcpy_null_dst_rc"), 1);
  EXPECT_EQ(o.integer("memcpy_null_src_rc"), 1);
  EXPECT_EQ(o.integer("memcpy_past_end_rc"), 1);
  EXPECT_EQ(o.integer("memset_host_pointer_rc"), 1);
  // cudaErrorInvalidMemcpyDirection (21).
  EXPECT_EQ(o.integer("memcpy_bad_kind_rc"), 21);
  // cudaErrorInvalidResourceHandle (400) for destroyed or made-up handles and untimed events.
  EXPECT_EQ(o.integer("sync_destroyed_stream_rc"), 400);
  EXPECT_EQ(o.integer("sync_garbage_stream_rc"), 400);
  EXPECT_EQ(o.integer("copy_on_destroyed_stream_rc"), 400);
  EXPECT_EQ(o.integer("elapsed_disable_timing_rc"), 400);
  EXPECT_EQ(o.integer("elapsed_unrecorded_rc"), 400);
  EXPECT_EQ(o.integer("query_unrecorded_rc"), 0);  // an unrecorded event counts as complete
  EXPECT_EQ(o.integer("sync_destroyed_event_rc"), 400);
  EXPECT_EQ(o.integer("event_bad_flags_rc"), 1);
  // cudaErrorNotReady (600) while the work of the events and the stream is running.
  EXPECT_EQ(o.integer("elapsed_running_rc"), 600);
  EXPECT_EQ(o.integer("event_query_running_rc"), 600);
  EXPECT_EQ(o.integer("stream_query_running_rc"), 600);
  EXPECT_EQ(o.integer("elapsed_done_rc"), 0);
  EXPECT_EQ(o.integer("event_query_done_rc"), 0);
  EXPECT_EQ(o.integer("stream_query_done_rc"), 0);
  // Launch configuration errors: cudaErrorInvalidConfiguration (9), seen by
  // cudaPeekAtLastError without resetting it and by cudaGetLastError, which resets it.
  EXPECT_EQ(o.integer("peek_after_bad_launch_rc"), 9);
  EXPECT_EQ(o.integer("peek_again_rc"), 9);
  EXPECT_EQ(o.integer("get_after_bad_launch_rc"), 9);
  EXPECT_EQ(o.integer("get_again_rc"), 0);
  EXPECT_EQ(o.integer("zero_grid_rc"), 9);
  EXPECT_EQ(o.integer("grid_y_too_big_rc"), 9);
  EXPECT_EQ(o.integer("block_z_too_big_rc"), 9);
  EXPECT_EQ(o.integer("shared_too_big_rc"), 1);
  EXPECT_EQ(o.integer("good_launch_rc"), 0);
  EXPECT_EQ(o.integer("device_sync_rc"), 0);  // not sticky: the context still works
  EXPECT_EQ(o.integer("most_recent_error_rc"), 1);
  // Names and descriptions as the real runtime gives them.
  EXPECT_EQ(o.text("name_0"), "cudaSuccess");
  EXPECT_EQ(o.text("string_0"), "no error");
  EXPECT_EQ(o.text("name_1"), "cudaErrorInvalidValue");
  EXPECT_EQ(o.text("string_1"), "invalid argument");
  EXPECT_EQ(o.text("name_2"), "cudaErrorMemoryAllocation");
  EXPECT_EQ(o.text("string_2"), "out of memory");
  EXPECT_EQ(o.text("name_9"), "cudaErrorInvalidConfiguration");
  EXPECT_EQ(o.text("name_101"), "cudaErrorInvalidDevice");
  EXPECT_EQ(o.text("string_101"), "invalid device ordinal");
  EXPECT_EQ(o.text("name_400"), "cudaErrorInvalidResourceHandle");
  EXPECT_EQ(o.text("string_400"), "invalid resource handle");
  EXPECT_EQ(o.text("name_600"), "cudaErrorNotReady");
  EXPECT_EQ(o.text("name_700"), "cudaErrorIllegalAddress");
  EXPECT_EQ(o.text("name_801"), "cudaErrorNotSupported");
  EXPECT_EQ(o.text("string_801"), "operation not supported");
  EXPECT_EQ(o.text("name_12345"), "unrecognized error code");
  EXPECT_EQ(o.text("string_12345"), "unrecognized error code");
  EXPECT_EQ(o.integer("runtime_version"), 13000);
}

TEST(Misuse, DeviceCountIsEveryGpuOfTheCluster) {
  for (const auto& [cluster, count] :
       std::vector<std::pair<std::string, int>>{{"dgx-h100:2", 16}, {"test-fabric", 4}}) {
    TempDir dir;
    const Outcome o = seer_run(cluster, dir.file("out"), {program("misuse")});
    ASSERT_EQ(o.exit_code, 0) << cluster << "\n" << o.describe();
    EXPECT_EQ(o.integer("device_count"), count) << cluster;
    EXPECT_EQ(o.integer("set_device_count_rc"), 101) << cluster;
  }
  TempDir dir;
  const Outcome o = seer_run("dgx-h100:2", dir.file("out"), {"true"});
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  const nlohmann::json s = read_json(dir.file("out/summary.json"));
  EXPECT_EQ(s["cluster"]["nodes"], 2);
  EXPECT_EQ(s["cluster"]["gpus_per_node"], 8);
}

bool cudart_exports(const std::string& symbol) {
  const Outcome nm =
      run_command({"nm", "-D", "--defined-only", seer_lib_dir() + "/libcudart.so.13"});
  return nm.exit_code == 0 && nm.out.find(" " + symbol + "@") != std::string::npos;
}

TEST(Unsupported, ReturnsNotSupportedAndSaysSoOnce) {
  if (!cudart_exports("cudaGraphicsUnregisterResource")) {
    GTEST_SKIP() << "libcudart.so.13 does not export cudaGraphicsUnregisterResource (stubs not "
                    "built)";
  }
  TempDir dir;
  const Outcome o = seer_run("dgx-h100", dir.file("out"), {program("unsupported")});
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  EXPECT_EQ(o.integer("unsupported_rc"), 801);
  EXPECT_EQ(o.integer("unsupported_again_rc"), 801);
  EXPECT_EQ(o.integer("done"), 1);
  // One message for two calls, naming the function and what it returns.
  EXPECT_EQ(count_of(o.err, "cudaGraphicsUnregisterResource"), 1u) << o.describe();
  EXPECT_NE(o.err.find("not implemented"), std::string::npos) << o.describe();
  EXPECT_NE(o.err.find("cudaErrorNotSupported"), std::string::npos) << o.describe();
  // ... and the call site.
  EXPECT_NE(o.err.find("main+"), std::string::npos) << o.describe();
}

// DISABLED: Seer bug. The real runtime records the error of any failing runtime call for
// cudaGetLastError; Seer's stubs return cudaErrorNotSupported (801) without recording it, so
// cudaGetLastError right after the failing call returns 0.
TEST(Unsupported, ErrorIsTheLastError) {
  if (!cudart_exports("cudaGraphicsUnregisterResource")) {
    GTEST_SKIP() << "libcudart.so.13 does not export cudaGraphicsUnregisterResource (stubs not "
                    "built)";
  }
  TempDir dir;
  const Outcome o = seer_run("dgx-h100", dir.file("out"), {program("unsupported")});
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  EXPECT_EQ(o.integer("last_error_rc"), 801);
}

TEST(HostDereference, DiesWithSigsegvNamingThePointer) {
  TempDir dir;
  const Outcome o = seer_run("dgx-h100", dir.file("out"), {program("deref")});
  // `seer run` returns 128 + SIGSEGV like a shell.
  EXPECT_EQ(o.exit_code, 128 + 11) << o.describe();
  ASSERT_TRUE(o.has("address")) << o.describe();
  EXPECT_FALSE(o.has("survived")) << o.describe();
  const std::string message = "dereferenced simulated device pointer " + o.text("address");
  EXPECT_NE(o.err.find(message), std::string::npos) << "expected: " << message << "\n"
                                                    << o.describe();
  EXPECT_NE(o.err.find("GPU 0"), std::string::npos) << o.describe();
  const nlohmann::json s = read_json(dir.file("out/summary.json"));
  EXPECT_EQ(s["exit_code"], 128 + 11);
}

TEST(HostDereference, CrashingRankEndsTheRun) {
  // Rank 1 dies; rank 0 would run on. The session stops the run, says which rank died, and
  // `seer run` reports a failure (the shell's status: 139 from the crash, or 128 + the signal
  // that stopped it).
  TempDir dir;
  const Outcome o =
      seer_run("dgx-h100", dir.file("out"),
               {"sh", "-c",
                "RANK=0 WORLD_SIZE=2 '" + program("contend") + "' & RANK=1 WORLD_SIZE=2 '" +
                    program("deref") + "'; r=$?; wait; exit $r"});
  EXPECT_FALSE(o.timed_out) << o.describe();
  EXPECT_NE(o.exit_code, 0) << o.describe();
  EXPECT_NE(o.err.find("dereferenced simulated device pointer"), std::string::npos) << o.describe();
  const nlohmann::json s = read_json(dir.file("out/summary.json"));
  EXPECT_EQ(s["exit_code"], o.exit_code);
  ASSERT_FALSE(s["problems"].empty()) << s.dump(2);
  EXPECT_NE(s["problems"].dump().find("rank 1"), std::string::npos) << s.dump(2);
}

TEST(StaticRuntime, StopsWithAdviceAndStatus97) {
  if (!std::filesystem::exists(seer_lib_dir() + "/libcuda.so.1")) {
    GTEST_SKIP() << "Seer's libcuda.so.1 (static runtime detector) is not built";
  }
  TempDir dir;
  const Outcome o = seer_run("dgx-h100", dir.file("out"), {program("static_runtime")});
  EXPECT_EQ(o.exit_code, 97) << o.describe();
  EXPECT_NE(o.err.find("-cudart shared"), std::string::npos) << o.describe();
  EXPECT_NE(o.out.find("before the first CUDA call"), std::string::npos) << o.describe();
  EXPECT_EQ(o.out.find("cudaGetDeviceCount:"), std::string::npos) << o.describe();
}

}  // namespace
}  // namespace seer::e2e

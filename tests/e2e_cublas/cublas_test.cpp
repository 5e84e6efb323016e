// End-to-end tests of Seer's cuBLAS and cuBLASLt: programs linked against the real libraries run
// under `seer run` with Seer's preloaded, and time their own calls with CUDA events.
//
// The GEMM model is still being written (simcore gemm_model.h), so the tests check what any
// sound model gives: cuBLAS and cuBLASLt agree on a shape and type, an H100 bf16 8192^3 GEMM runs
// between 600 and 989 (peak) TFLOP/s, a batch of b GEMMs takes about b times one, memory-bound
// routines stay under the HBM bandwidth, and calls appear in the report under their names.

#include <cmath>
#include <memory>

#include "e2e_util.h"

namespace seer::e2e {
namespace {

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// One run of a program, shared by the tests of a suite.
struct ProgramRun {
  TempDir dir;
  Outcome outcome;
  nlohmann::json summary;
  std::map<std::string, nlohmann::json> kernels;  // summary.json "kernels" by name

  explicit ProgramRun(const std::string& name) {
    outcome = seer_run("dgx-h100", dir.file("out"), {program(name)});
    if (outcome.exit_code != 0) return;
    summary = read_json(dir.file("out/summary.json"));
    for (const auto& k : summary["kernels"]) kernels[k["name"].get<std::string>()] = k;
  }
  long long count(const std::string& kernel) const {
    auto it = kernels.find(kernel);
    return it == kernels.end() ? 0 : it->second["count"].get<long long>();
  }
};

// Expects `ratio` x `base` <= `value` <= `base` x the upper ratio, with a message naming both.
void expect_ratio(const Outcome& o, const std::string& value, const std::string& base, double lo,
                  double hi) {
  const double v = o.number(value), b = o.number(base);
  EXPECT_GE(v, lo * b) << value << " = " << v << ", " << base << " = " << b;
  EXPECT_LE(v, hi * b) << value << " = " << v << ", " << base << " = " << b;
}

constexpr double kH100Bf16PeakTflops = 989.4;
constexpr double kH100HbmGbs = 3350;

class Cublas : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { run_ = std::make_unique<ProgramRun>("cublas_gemm"); }
  static void TearDownTestSuite() { run_.reset(); }
  void SetUp() override { ASSERT_EQ(run_->outcome.exit_code, 0) << run_->outcome.describe(); }
  static const Outcome& o() { return run_->outcome; }
  static std::unique_ptr<ProgramRun> run_;
};
std::unique_ptr<ProgramRun> Cublas::run_;

TEST_F(Cublas, Bf16GemmRunsNearTheH100sTensorCorePeak) {
  const double tflops = o().number("gemmex_bf16_8192_tflops");
  EXPECT_GE(tflops, 600) << o().out;
  EXPECT_LE(tflops, kH100Bf16PeakTflops) << o().out;
  // Transposed operands (and an FP32 output) do not change the work.
  expect_ratio(o(), "gemmex_bf16_8192_tt_us", "gemmex_bf16_8192_us", 0.9, 1.1);
  EXPECT_EQ(o().integer("done"), 1);
}

TEST_F(Cublas, ABatchOfGemmsTakesAboutTheBatchTimesOne) {
  expect_ratio(o(), "strided_ex_bf16_4096x4_us", "gemmex_bf16_4096_us", 0.8 * 4, 1.05 * 4);
  expect_ratio(o(), "hgemm_strided_2048x8_us", "hgemm_2048_us", 0.8 * 8, 1.05 * 8);
  // Pointer arrays or strides: the same GEMMs.
  expect_ratio(o(), "batched_ex_bf16_4096x4_us", "strided_ex_bf16_4096x4_us", 0.999, 1.001);
}

TEST_F(Cublas, TypedGemms) {
  // TF32 tensor cores (math mode) are never slower than plain FP32.
  EXPECT_EQ(o().integer("math_mode"), 3);  // CUBLAS_TF32_TENSOR_OP_MATH
  expect_ratio(o(), "sgemm_tf32_4096_us", "sgemm_4096_us", 0.0, 1.0001);
  // A complex GEMM does four real multiply-adds per product: a 2048^3 FP32 complex GEMM costs
  // about four 2048^3 FP32 real ones.
  expect_ratio(o(), "cgemm_2048_us", "sgemm_strided_2048x4_us", 0.8, 1.25);
  EXPECT_GT(o().number("dgemm_2048_us"), 0);
}

TEST_F(Cublas, MemoryBoundRoutinesStayUnderTheHbmBandwidth) {
  for (const char* name : {"saxpy_gbs", "sgemv_gbs"}) {
    EXPECT_GE(o().number(name), 0.3 * kH100HbmGbs) << name;
    EXPECT_LE(o().number(name), kH100HbmGbs) << name;
  }
  // scal of 2^25 doubles reads and writes 512 MiB.
  EXPECT_GE(o().number("dscal_us"), 2.0 * (1 << 25) * 8 / (kH100HbmGbs * 1e3));
}

TEST_F(Cublas, HostPointerModeResultsWaitForTheGpu) {
  // 2 x 2^26 floats read: at least 160 us at 3.35 TB/s, all of it waited for on the host.
  EXPECT_GE(o().integer("sdot_host_ns"), 160'000);
  // Into device memory the call only enqueues (one launch).
  EXPECT_LE(o().integer("sdot_device_ns"), 10'000);
  EXPECT_EQ(o().number("sdot_result"), 0.0);  // values are not simulated
  EXPECT_EQ(o().number("snrm2_result"), 0.0);
  EXPECT_EQ(o().integer("isamax_index"), 1);  // a valid 1-based index
  EXPECT_EQ(o().integer("stream_roundtrip"), 1);
}

TEST_F(Cublas, CallsAppearInTheReportByNameAndType) {
  const ProgramRun& r = *run_;
  EXPECT_EQ(r.count("cublasGemmEx [bf16]"), 6 + 3 + 4) << r.summary.dump(2);
  EXPECT_EQ(r.count("cublasGemmStridedBatchedEx [bf16]"), 4);
  EXPECT_EQ(r.count("cublasGemmBatchedEx [bf16]"), 4);
  EXPECT_EQ(r.count("cublasHgemm [f16]"), 4);
  EXPECT_EQ(r.count("cublasHgemmStridedBatched [f16]"), 4);
  EXPECT_EQ(r.count("cublasSgemm [f32]"), 4);
  EXPECT_EQ(r.count("cublasSgemm [tf32]"), 4);
  EXPECT_EQ(r.count("cublasSgemmStridedBatched [f32]"), 3);
  EXPECT_EQ(r.count("cublasDgemm [f64]"), 3);
  EXPECT_EQ(r.count("cublasCgemm [f32]"), 3);
  EXPECT_EQ(r.count("cublasSaxpy [f32]"), 4);
  EXPECT_EQ(r.count("cublasSgemv [f32]"), 4);
  EXPECT_EQ(r.count("cublasDscal [f64]"), 4);
  EXPECT_EQ(r.count("cublasSdot [f32]"), 2);
  EXPECT_EQ(r.count("cublasIsamax [f32]"), 1);
  EXPECT_EQ(r.count("cublasSnrm2 [f32]"), 1);
  EXPECT_TRUE(r.summary["problems"].empty()) << r.summary.dump(2);
  // The event-timed calls are the report's: 6 back-to-back bf16 8192^3 GEMMs (one warm-up).
  const auto& k = r.kernels.at("cublasGemmEx [bf16]");
  EXPECT_NEAR(k["max_ns"].get<double>(), o().number("gemmex_bf16_8192_us") * 1e3, 2) << k.dump();
}

class CublasLt : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    lt_ = std::make_unique<ProgramRun>("cublaslt_matmul");
    blas_ = std::make_unique<ProgramRun>("cublas_gemm");
  }
  static void TearDownTestSuite() {
    lt_.reset();
    blas_.reset();
  }
  void SetUp() override {
    ASSERT_EQ(lt_->outcome.exit_code, 0) << lt_->outcome.describe();
    ASSERT_EQ(blas_->outcome.exit_code, 0) << blas_->outcome.describe();
  }
  static const Outcome& o() { return lt_->outcome; }
  static std::unique_ptr<ProgramRun> lt_, blas_;
};
std::unique_ptr<ProgramRun> CublasLt::lt_;
std::unique_ptr<ProgramRun> CublasLt::blas_;

TEST_F(CublasLt, HeuristicOffersAUsableAlgorithm) {
  EXPECT_GE(o().integer("heuristic_count"), 1);
  EXPECT_EQ(o().integer("heuristic_state"), 0);  // CUBLAS_STATUS_SUCCESS
  EXPECT_EQ(o().integer("heuristic_workspace_ok"), 1);
  // 64 x 32 tiles of 128 x 256 on 132 SMs.
  EXPECT_NEAR(o().number("heuristic_waves"), 64.0 * 32 / 132, 1e-3);
}

TEST_F(CublasLt, AttributesReadBackAsSet) {
  EXPECT_EQ(o().integer("epilogue_back"), 4);  // CUBLASLT_EPILOGUE_BIAS
  EXPECT_EQ(o().integer("epilogue_size"), 4);
  EXPECT_EQ(o().integer("transa_back"), 1);  // CUBLAS_OP_T
  EXPECT_EQ(o().integer("batch_back"), 4);
  EXPECT_EQ(o().integer("stride_back"), 4096LL * 4096);
  EXPECT_GE(o().integer("lt_version"), 130000);
}

// The same GEMM through either library takes the same time; a bias epilogue (one vector of m
// elements) adds at most a little.
TEST_F(CublasLt, MatmulTakesWhatTheSameCublasGemmTakes) {
  const Outcome& b = blas_->outcome;
  EXPECT_NEAR(o().number("lt_plain_bf16_8192_us"), b.number("gemmex_bf16_8192_us"),
              1e-6 * b.number("gemmex_bf16_8192_us"));
  const auto near = [&](const char* lt, const char* blas) {
    EXPECT_GE(o().number(lt), b.number(blas) * (1 - 1e-6)) << lt << " vs " << blas;
    EXPECT_LE(o().number(lt), b.number(blas) * 1.01) << lt << " vs " << blas;
  };
  near("lt_bf16_8192_us", "gemmex_bf16_8192_us");
  near("lt_bf16_4096_us", "gemmex_bf16_4096_us");
  near("lt_bf16_4096x4_us", "strided_ex_bf16_4096x4_us");
  const double tflops = o().number("lt_bf16_8192_tflops");
  EXPECT_GE(tflops, 600);
  EXPECT_LE(tflops, kH100Bf16PeakTflops);
  expect_ratio(o(), "lt_bf16_4096x4_us", "lt_bf16_4096_us", 0.8 * 4, 1.05 * 4);
  // FP8 tensor cores are at least as fast as BF16 ones.
  expect_ratio(o(), "lt_fp8_4096_us", "lt_bf16_4096_us", 0.0, 1.0001);
}

TEST_F(CublasLt, EpilogueAndTypeAreNamedInTheReport) {
  EXPECT_EQ(lt_->count("cublasLtMatmul+bias [bf16]"), 6 + 4 + 4) << lt_->summary.dump(2);
  EXPECT_EQ(lt_->count("cublasLtMatmul [bf16]"), 3) << lt_->summary.dump(2);
  EXPECT_EQ(lt_->count("cublasLtMatmul [f8]"), 3) << lt_->summary.dump(2);
  EXPECT_EQ(lt_->kernels.size(), 3u) << lt_->summary.dump(2);
}

TEST_F(CublasLt, Errors) {
  EXPECT_EQ(o().integer("null_handle_rc"), 1);   // CUBLAS_STATUS_NOT_INITIALIZED
  EXPECT_EQ(o().integer("zero_request_rc"), 7);  // CUBLAS_STATUS_INVALID_VALUE
  EXPECT_EQ(o().integer("mismatch_rc"), 7);
  EXPECT_EQ(o().integer("done"), 1);
}

TEST(CublasErrors, StatusCodesAndOneMessagePerUnsupportedFunction) {
  const ProgramRun r("cublas_errors");
  const Outcome& o = r.outcome;
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  EXPECT_EQ(o.integer("create_null_rc"), 7);
  EXPECT_EQ(o.integer("version"), 130100);
  EXPECT_EQ(o.integer("major"), 13);
  EXPECT_EQ(o.text("status_name"), "CUBLAS_STATUS_INVALID_VALUE");
  EXPECT_EQ(o.integer("status_string_ok"), 1);
  EXPECT_EQ(o.integer("null_handle_rc"), 1);  // CUBLAS_STATUS_NOT_INITIALIZED
  for (const char* name :
       {"negative_m_rc", "small_lda_rc", "bad_op_rc", "null_alpha_rc", "negative_batch_rc",
        "gemv_bad_inc_rc", "dot_null_result_rc", "bad_pointer_mode_rc"}) {
    EXPECT_EQ(o.integer(name), 7) << name;  // CUBLAS_STATUS_INVALID_VALUE
  }
  EXPECT_EQ(o.integer("mixed_types_rc"), 15);  // CUBLAS_STATUS_NOT_SUPPORTED
  EXPECT_EQ(o.integer("empty_gemm_rc"), 0);
  EXPECT_EQ(o.integer("strsm_rc_0"), 15);
  EXPECT_EQ(o.integer("strsm_rc_1"), 15);
  EXPECT_EQ(count_of(o.err, "cublasStrsm_v2"), 1u) << o.describe();
  EXPECT_NE(o.err.find("not implemented"), std::string::npos) << o.describe();
  EXPECT_NE(o.err.find("CUBLAS_STATUS_NOT_SUPPORTED"), std::string::npos) << o.describe();
  EXPECT_EQ(o.integer("destroy_again_rc"), 1);
  EXPECT_EQ(o.integer("after_destroy_rc"), 1);
  EXPECT_EQ(o.integer("done"), 1);
  // Failed and empty calls run nothing on the GPU.
  EXPECT_TRUE(r.summary["kernels"].empty()) << r.summary.dump(2);
}

}  // namespace
}  // namespace seer::e2e

namespace seer::e2e {
namespace {

// A kernel-database entry for a library call (keyed by its report label and parameters, with a
// 1x1x1 geometry) takes precedence over the GEMM model, and the program's own events see it.
TEST(KernelDatabase, LibraryCallEntryOverridesTheGemmModel) {
  TempDir dir;
  write_file(dir.file("db.csv"),
             "gpu,kernel,grid_x,grid_y,grid_z,block_x,block_y,block_z,shmem,duration_ns,samples,"
             "source,library_params\n"
             "H100-SXM-80GB,cublasGemmEx [bf16],1,1,1,1,1,1,0,1500000,1,test,"
             "\"m=8192,n=8192,k=8192,batch=1\"\n");
  const Outcome import = seer({"db", "import", dir.file("db.csv"), dir.file("db.pb")});
  ASSERT_EQ(import.exit_code, 0) << import.describe();
  const Outcome o = seer_run("dgx-h100", dir.file("out"), {program("cublas_gemm")},
                             {{"SEER_KERNEL_DB", dir.file("db.pb")}});
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  EXPECT_NEAR(o.number("gemmex_bf16_8192_us"), 1500.0, 0.01);
  const nlohmann::json s = read_json(dir.file("out/summary.json"));
  EXPECT_GT(s["time_sources"]["kernel_shares"]["database"].get<double>(), 0.0);
}

}  // namespace
}  // namespace seer::e2e

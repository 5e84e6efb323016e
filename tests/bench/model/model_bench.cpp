// Cost of evaluating Seer's compute models once per launch (Google Benchmark).
#include <benchmark/benchmark.h>

#include "seer/simcore/cost_models.h"
#include "seer/simcore/gemm_model.h"
#include "seer/simcore/gpu_spec.h"

namespace {

using namespace seer::sim;

void BM_GenericKernelModel(benchmark::State& state) {
  const GpuSpec gpu = *find_gpu("H100-SXM-80GB");
  LaunchGeometry g;
  g.gx = 65536;
  g.bx = 256;
  for (auto _ : state) {
    benchmark::DoNotOptimize(generic_kernel_ns(gpu, g));
    g.gx = g.gx % 100000 + 1;
  }
}
BENCHMARK(BM_GenericKernelModel);

void BM_GemmModel(benchmark::State& state) {
  const GpuSpec gpu = *find_gpu("H100-SXM-80GB");
  GemmShape s;
  s.m = 8192;
  s.n = 8192;
  s.k = 8192;
  for (auto _ : state) {
    benchmark::DoNotOptimize(gemm_time(gpu, s).ns);
    s.k = s.k % 16384 + 64;
  }
}
BENCHMARK(BM_GemmModel);

void BM_LibraryCallThroughEngineModel(benchmark::State& state) {
  const GpuSpec gpu = *find_gpu("H100-SXM-80GB");
  OpDesc op;
  op.kind = OpKind::kLibrary;
  op.gemm = true;
  op.m = 4096;
  op.n = 4096;
  op.k = 1024;
  op.dtype = static_cast<int>(DType::kBF16);
  for (auto _ : state) benchmark::DoNotOptimize(library_ns(gpu, op));
}
BENCHMARK(BM_LibraryCallThroughEngineModel);

}  // namespace

BENCHMARK_MAIN();

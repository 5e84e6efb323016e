"""Triton's autotuner under Seer: it benchmarks each config with CUDA events (do_bench) and keeps
the fastest. Seer's Triton model times a user kernel by the tiles its programs move, so with n
just above a multiple of 1024, BLOCK=1024 wastes least on masked lanes and must win. Prints
RESULT lines (tests/e2e_compile/triton_kernel_test.cpp)."""
import torch
import triton
import triton.language as tl


@triton.autotune(
    configs=[triton.Config({"BLOCK": 65536}), triton.Config({"BLOCK": 1024}), triton.Config({"BLOCK": 16384})],
    key=["n"],
)
@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) * 2.0, mask=m)


n = 1024 * 4096 + 1
x = torch.randn(n, device="cuda")
out = torch.empty_like(x)
scale_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, out, n)
torch.cuda.synchronize()
print("RESULT best_block", scale_kernel.best_config.kwargs["BLOCK"])
for cfg, t in sorted(scale_kernel.configs_timings.items(), key=lambda kv: kv[0].kwargs["BLOCK"]):
    ms = t[0] if isinstance(t, (list, tuple)) else t
    print(f"RESULT bench_us_{cfg.kwargs['BLOCK']} {ms * 1000:.3f}")

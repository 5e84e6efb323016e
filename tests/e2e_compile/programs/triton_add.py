"""A user @triton.jit kernel: out = x + y over N float32 elements, BLOCK = 1024 per program.

The first launch compiles (Triton's cache); then QUEUED launches keep the GPU busy so that the
TIMED launches between two CUDA events run back to back, and their event time is the kernels'
own. Prints RESULT lines (tests/e2e_compile/triton_kernel_test.cpp).
"""

import sys

import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


N = int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 24
BLOCK, QUEUED, TIMED = 1024, 2, 10

x = torch.ones(N, device="cuda")
y = torch.ones(N, device="cuda")
out = torch.empty_like(x)
grid = (triton.cdiv(N, BLOCK),)

compiled = add_kernel[grid](x, y, out, N, BLOCK=BLOCK)
torch.cuda.synchronize()

start = torch.cuda.Event(enable_timing=True)
end = torch.cuda.Event(enable_timing=True)
for _ in range(QUEUED):
    add_kernel[grid](x, y, out, N, BLOCK=BLOCK)
start.record()
for _ in range(TIMED):
    add_kernel[grid](x, y, out, N, BLOCK=BLOCK)
end.record()
end.synchronize()

print(f"RESULT n {N}")
print(f"RESULT grid {grid[0]}")
print(f"RESULT num_warps {compiled.metadata.num_warps}")
print(f"RESULT launches {1 + QUEUED + TIMED}")
print(f"RESULT timed {TIMED}")
print(f"RESULT timed_ms {start.elapsed_time(end):.6f}")
print(f"RESULT kernel_ms {start.elapsed_time(end) / TIMED:.6f}")

"""A user @triton.jit kernel with an Inductor-style size argument (xnumel): out = 2 * x over
xnumel float32 elements, XBLOCK = 1024 per program, launched twice at each size the command line
names (tests/e2e_compile/triton_profile_test.cpp). Prints RESULT lines.
"""

import sys

import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr, xnumel, XBLOCK: tl.constexpr):
    offsets = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)
    mask = offsets < xnumel
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x * 2.0, mask=mask)


XBLOCK, REPEATS = 1024, 2

launches = 0
for n in (int(a) for a in sys.argv[1:]):
    x = torch.ones(n, device="cuda")
    out = torch.empty_like(x)
    grid = (triton.cdiv(n, XBLOCK),)
    for _ in range(REPEATS):
        scale_kernel[grid](x, out, n, XBLOCK=XBLOCK)
        launches += 1
torch.cuda.synchronize()
print(f"RESULT launches {launches}")

"""PyTorch times its own elementwise, cast, layer-norm, reduction, softmax, embedding, cat, SDPA
(flash and memory-efficient) and fused-AdamW calls with CUDA events.

Each call runs once alone and then REPS more times; the extra REPS run back to back on the GPU
(each kernel takes far longer than its launch), so (E(1 + REPS) - E(1)) / REPS is one kernel's
GPU time. Prints RESULT lines (tests/e2e_torch/kernel_families_test.cpp)."""

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

REPS = 10
ROWS, COLS = 8192, 4096

x = torch.randn(ROWS, COLS, device="cuda", dtype=torch.bfloat16)
y = torch.randn_like(x)
ln = torch.nn.LayerNorm(COLS, device="cuda", dtype=torch.bfloat16)
weight = torch.nn.Parameter(torch.randn(4096, 4096, device="cuda"))
weight.grad = torch.randn_like(weight)
adamw = torch.optim.AdamW([weight], lr=1e-3, fused=True)
xf = torch.randn(ROWS, COLS, device="cuda")
short_rows = torch.randn(ROWS * 8, 512, device="cuda", dtype=torch.bfloat16)
VOCAB = 32000
emb = torch.nn.Embedding(VOCAB, COLS, device="cuda", dtype=torch.bfloat16)
tokens = torch.randint(0, VOCAB, (ROWS,), device="cuda")
# SDPA: batch 2, 16 heads, 1,000 positions (not a multiple of any tile), head dim 128.
B, H, S, D = 2, 16, 1000, 128
q, k, v = (torch.randn(B, H, S, D, device="cuda", dtype=torch.bfloat16) for _ in range(3))


def sdpa(backend, causal):
    with sdpa_kernel(backend):
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal)


def event_ms(fn, n):
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(n):
        fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end)


calls = {
    "add_bf16": lambda: x + y,
    "mul_scalar_bf16": lambda: x * 2.0,
    "cast_bf16_to_fp32": lambda: x.float(),
    "layer_norm_bf16": lambda: ln(x),
    "fused_adamw_fp32": adamw.step,
    "sum_rows_fp32": lambda: xf.sum(dim=-1),
    "softmax_512_bf16": lambda: torch.softmax(short_rows, dim=-1),
    "embedding_bf16": lambda: emb(tokens),
    "cat_columns_bf16": lambda: torch.cat([x, y], dim=1),
    "sdpa_flash_bf16": lambda: sdpa(SDPBackend.FLASH_ATTENTION, False),
    "sdpa_mem_efficient_causal_bf16": lambda: sdpa(SDPBackend.EFFICIENT_ATTENTION, True),
}
with torch.no_grad():
    for name, fn in calls.items():
        fn()
        torch.cuda.synchronize()  # both timings start on an idle GPU
        one = event_ms(fn, 1)
        many = event_ms(fn, 1 + REPS)
        print(f"RESULT {name}_ns {round((many - one) / REPS * 1e6)}")
print(f"RESULT elements {ROWS * COLS}")

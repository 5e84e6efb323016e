"""PyTorch paths whose kernels used to get Seer's generic model: the sort-based embedding backward
(more than 3,072 indices), index_put_ with accumulate (a radix sort, then
indexing_backward_kernel), torch.sort of a long vector (cub's radix sort) and a layer norm whose
size is not a multiple of 4 (the two-pass fallback). Prints RESULT lines
(tests/e2e_torch/sort_chains_test.cpp)."""

import torch

VOCAB, DIM, TOKENS = 32000, 1024, 8192
ROWS, COLS = 4096, 1022  # 1022 % 4 != 0: RowwiseMomentsCUDAKernel + LayerNormForwardCUDAKernel

emb = torch.nn.Embedding(VOCAB, DIM, device="cuda", dtype=torch.bfloat16)
tokens = torch.randint(0, VOCAB, (TOKENS,), device="cuda")
emb(tokens).sum().backward()

dst = torch.zeros(VOCAB, DIM, device="cuda", dtype=torch.bfloat16)
values = torch.randn(TOKENS, DIM, device="cuda", dtype=torch.bfloat16)
dst.index_put_((tokens,), values, accumulate=True)

keys = torch.randn(1 << 20, device="cuda")
torch.sort(keys)

ln = torch.nn.LayerNorm(COLS, device="cuda", dtype=torch.bfloat16)
x = torch.randn(ROWS, COLS, device="cuda", dtype=torch.bfloat16, requires_grad=True)
ln(x).sum().backward()
torch.cuda.synchronize()
print("RESULT tokens", TOKENS)

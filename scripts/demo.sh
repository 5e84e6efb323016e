#!/usr/bin/env bash
# Builds Seer, creates the Python environment (.venv) and runs the demo: unmodified PyTorch
# training a Llama-3-8B-shaped model (its first 2 layers, 4096 tokens per GPU) with FSDP2 as 16
# ranks under torchrun, on a simulated cluster of two DGX H100 nodes.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${SEER_BUILD_DIR:-$root/build}"
"$root/scripts/build.sh"
"$root/scripts/setup-python.sh"
venv="${SEER_VENV:-$root/.venv}"
exec "$build/bin/seer" run --cluster dgx-h100:2 --out "$root/out/demo" -- \
  "$venv/bin/torchrun" --standalone --nproc_per_node 16 \
  "$root/examples/pytorch/train_llama.py" --model llama3-8b --layers 2 --seq-len 4096 --fsdp \
  --steps 5

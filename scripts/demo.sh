#!/usr/bin/env bash
# Builds Seer and runs the demo: an unmodified data-parallel CUDA+NCCL training loop, 16 MPI
# ranks, on a simulated cluster of two DGX H100 nodes.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${SEER_BUILD_DIR:-$root/build}"
"$root/scripts/build.sh"
mpirun_flags=(-np 16 --oversubscribe)
[ "$(id -u)" -eq 0 ] && mpirun_flags+=(--allow-run-as-root)
exec "$build/bin/seer" run --cluster dgx-h100:2 --out "$root/out/demo" -- \
  mpirun "${mpirun_flags[@]}" "$build/examples/dp_train" --steps 6

#!/usr/bin/env bash
# Builds Seer and runs the demo: an unmodified CUDA program on a simulated DGX H100.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${SEER_BUILD_DIR:-$root/build}"
"$root/scripts/build.sh"
exec "$build/bin/seer" run --cluster dgx-h100 --out "$root/out/demo" -- \
  "$build/examples/pipeline_demo" 8 64

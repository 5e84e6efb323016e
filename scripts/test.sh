#!/usr/bin/env bash
# Builds Seer, creates the Python environment (.venv) and runs the whole test suite (unit and
# end-to-end, PyTorch included).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${SEER_BUILD_DIR:-$root/build}"
"$root/scripts/build.sh"
"$root/scripts/setup-python.sh"  # the PyTorch end-to-end tests run with .venv
ctest --test-dir "$build" --output-on-failure -j 2 --timeout 600

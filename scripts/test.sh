#!/usr/bin/env bash
# Builds Seer and runs the whole test suite (unit and end-to-end).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${SEER_BUILD_DIR:-$root/build}"
"$root/scripts/build.sh"
ctest --test-dir "$build" --output-on-failure -j 2 --timeout 600

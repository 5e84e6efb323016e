#!/usr/bin/env bash
# Builds Seer with AddressSanitizer and UBSan (a separate build directory) and runs the tests
# that run inside one process: unit tests of simcore, netsim, runtime, the NCCL and GEMM models,
# the kernel database and seer check. The end-to-end and validation tests preload Seer's
# libraries into programs that are not instrumented, which ASan does not allow, so they and the
# examples are not built here (SEER_BUILD_E2E=OFF).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${SEER_ASAN_BUILD_DIR:-$root/build-asan}"
"$root/scripts/setup.sh"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSEER_SANITIZE=ON \
  -DSEER_BUILD_BENCH=OFF -DSEER_BUILD_E2E=OFF >/dev/null
cmake --build "$build" -j "$(nproc)"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
ctest --test-dir "$build" --output-on-failure -j 2 --timeout 600 -LE 'e2e|validation' \
  -E clang_format

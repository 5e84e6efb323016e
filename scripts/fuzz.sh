#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz (clang, ASan + UBSan, own build directory) and runs
# each for SECONDS: `scripts/fuzz.sh SECONDS [TARGET...]`. Prints per target the executions,
# executions per second, coverage and CPU time, and the inputs that crashed, leaked or hung.
# Exits 1 when any target found something (the inputs are kept under the work directory; turn
# each into a regression test, tests/fuzz/README.md).
#
# Environment: SEER_FUZZ_BUILD_DIR (default build-fuzz), SEER_FUZZ_WORK (default
# SEER_FUZZ_BUILD_DIR/fuzz-work: the growing corpora and the findings), SEER_FUZZ_NICE (default
# 19), SEER_FUZZ_ARGS (more libFuzzer flags, e.g. -jobs=2).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
if [ $# -lt 1 ] || ! [[ "$1" =~ ^[0-9]+$ ]]; then
  echo "usage: $0 SECONDS [TARGET...]" >&2
  exit 2
fi
seconds="$1"
shift
build="${SEER_FUZZ_BUILD_DIR:-$root/build-fuzz}"
work="${SEER_FUZZ_WORK:-$build/fuzz-work}"

"$root/scripts/setup.sh"
flags="-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer"
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DSEER_BUILD_TESTS=OFF -DSEER_BUILD_BENCH=OFF -DSEER_BUILD_FUZZ=ON "${launcher[@]}" \
  "-DCMAKE_C_FLAGS=$flags" "-DCMAKE_CXX_FLAGS=$flags" >/dev/null
ninja -C "$build" -j "$(nproc)" seer_fuzz >/dev/null

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in "$build"/fuzz/fuzz_*; do targets+=("$(basename "$f")"); done
fi

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
found=0
printf '%-20s %12s %10s %8s %8s %8s  %s\n' target executions exec/s cov ft cpu_s findings
for t in "${targets[@]}"; do
  corpus="$work/corpus/$t"
  findings="$work/findings/$t"
  log="$work/logs/$t.log"
  mkdir -p "$corpus" "$findings" "$(dirname "$log")"
  seeds=()
  [ -d "$root/tests/fuzz/corpus/$t" ] && seeds+=("$root/tests/fuzz/corpus/$t")
  dict=()
  [ -f "$root/tests/fuzz/$t.dict" ] && dict+=("-dict=$root/tests/fuzz/$t.dict")
  # tests/fuzz/TARGET.flags: libFuzzer flags of that target (one line).
  extra=()
  [ -f "$root/tests/fuzz/$t.flags" ] && read -r -a extra <"$root/tests/fuzz/$t.flags"
  status=0
  # -close_fd_mask=3: the targets' own output (the session's "dropped" lines) is noise here;
  # libFuzzer and the sanitizers still report on a descriptor of their own.
  /usr/bin/time -f '%U %S' -o "$work/logs/$t.time" \
    nice -n "${SEER_FUZZ_NICE:-19}" "$build/fuzz/$t" -max_total_time="$seconds" -timeout=20 \
    -rss_limit_mb=4096 -close_fd_mask=3 -print_final_stats=1 -artifact_prefix="$findings/" \
    "${dict[@]}" "${extra[@]}" ${SEER_FUZZ_ARGS:-} "$corpus" "${seeds[@]}" >"$log" 2>&1 ||
    status=$?
  runs=$(awk '/stat::number_of_executed_units/ {print $2}' "$log" | tail -1)
  rate=$(awk '/stat::average_exec_per_sec/ {print $2}' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  cpu=$(tail -1 "$work/logs/$t.time" | awk '{printf "%.0f", $1 + $2}')
  # slow-unit-* files are inputs that once took over 10 s; on a loaded machine that is the
  # scheduler as often as the input (rerun the file to tell), so they are listed, not failures.
  crashes=$(find "$findings" -type f ! -name 'slow-unit-*' | sort)
  slow=$(find "$findings" -type f -name 'slow-unit-*' | wc -l)
  summary="none"
  if [ -n "$crashes" ] || [ "$status" -ne 0 ]; then
    found=1
    summary="$(echo "$crashes" | grep -c . || true) file(s), exit $status, log $log"
  fi
  printf '%-20s %12s %10s %8s %8s %8s  %s\n' "$t" "${runs:-?}" "${rate:-?}" "${cov:-?}" \
    "${ft:-?}" "$cpu" "$summary"
  [ "$slow" -eq 0 ] || echo "    $slow slow input(s) (over 10 s once) in $findings"
  if [ -n "$crashes" ]; then
    echo "$crashes" | sed 's/^/    /'
    grep -m1 -E 'ERROR: (AddressSanitizer|UndefinedBehaviorSanitizer|libFuzzer)|runtime error' \
      "$log" | sed 's/^/    /' || true
  fi
done
exit "$found"

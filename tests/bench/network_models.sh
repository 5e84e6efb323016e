#!/usr/bin/env bash
# The flow model against the ns-3 packet-level backend on nccl-tests-style collectives across
# nodes of dgx-h100: busbw from each, their difference, and each run's wall time.
#   [SEER_BENCH_NODES="2 4"] tests/bench/network_models.sh [SIZE...]   (default 64M 256M; nodes 2 3 4)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${SEER_BUILD_DIR:-$root/build}"
seer="$build/bin/seer"
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(64M 256M)

busbw() {  # NETWORK NODES OP SIZE -> "busbw wall"
  local start end out
  start=$(date +%s.%N)
  out=$("$seer" run --quiet --host-time modeled --network "$1" --cluster "dgx-h100:$2" -- \
    "$build/examples/coll_bench" -g $(($2 * 8)) -b "$4" -e "$4" -n 3 -w 1 -o "$3" 2>/dev/null)
  end=$(date +%s.%N)
  local bw
  bw=$(awk '!/^#/ && NF >= 9 {print $8}' <<<"$out" | tail -1)
  echo "${bw:-nan} $(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')"
}

printf '%-14s %6s %5s %12s %12s %8s %9s %9s\n' collective size nodes "flow GB/s" "ns-3 GB/s" \
  "diff" "flow s" "ns-3 s"
for nodes in ${SEER_BENCH_NODES:-2 3 4}; do
  for op in allreduce allgather reducescatter alltoall; do
    for size in "${sizes[@]}"; do
      read -r f fw <<<"$(busbw flow "$nodes" "$op" "$size")"
      read -r n nw <<<"$(busbw ns3 "$nodes" "$op" "$size")"
      diff=$(awk -v f="$f" -v n="$n" 'BEGIN { printf "%+.1f%%", 100 * (n - f) / f }')
      printf '%-14s %6s %5d %12.1f %12.1f %8s %9.2f %9.2f\n' "$op" "$size" "$nodes" "$f" "$n" \
        "$diff" "$fw" "$nw"
    done
  done
done

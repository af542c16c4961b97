#!/usr/bin/env bash
# The fast path of blocking collectives (docs/collectives.md "Fast path"): `collbench barrier` and
# `collbench allreduce 1 1` (one call each, plus two MPI_Reduce of the result) and `hello` (Reduce,
# Barrier, Reduce) on one native process, with -xsim-coll-replay on at RANKS and off at OFF_RANKS (the
# point-to-point path is slow at a million ranks: minutes). Prints wall time, load average at the start,
# messages, context switches, peak RSS and the program's virtual-time line.
# Usage: bench/coll_replay.sh [BUILD_DIR] [RANKS] [OFF_RANKS]   (defaults: build 1048576 131072)
set -euo pipefail
BUILD=${1:-build}
M=${2:-1048576}
OFF=${3:-131072}
. "$(dirname "$0")/lib.sh"
[ -x "$BUILD/bench/collbench" ] || { echo "build first: cmake --build $BUILD" >&2; exit 1; }
printf '%-20s %8s %4s %10s %10s %8s %6s %9s  %s\n' program ranks fast messages switches wall_s load RSS_MiB \
  "program's line"
run_case() {  # ranks on|off program args...
  local m=$1 mode=$2 prog=$3; shift 3
  local log out t0 t1 load
  log=$(mktemp); out=$(mktemp)
  load=$(cut -d' ' -f1 /proc/loadavg)
  t0=$(date +%s.%N)
  "$MPIEXEC" -np 1 "$prog" "$@" -xsim-np "$m" -xsim-cpu none -xsim-coll-replay "$mode" > "$out" 2> "$log"
  t1=$(date +%s.%N)
  local total
  total=$(report_field "peak memory" "$log" | sed 's/.*, \([0-9]*\) KiB in total.*/\1/')
  printf '%-20s %8s %4s %10s %10s %8.2f %6s %9s  %s\n' "$(basename "$prog")${1:+ $*}" "$m" "$mode" \
    "$(report_msgs "$log")" "$(report_switches "$log")" "$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')" \
    "$load" "$(ratio "$total" 1024)" "$(head -1 "$out")"
  rm -f "$log" "$out"
}
for m_mode in "$M on" "$OFF on" "$OFF off"; do
  set -- $m_mode
  run_case "$1" "$2" "$BUILD/bench/collbench" barrier
  run_case "$1" "$2" "$BUILD/bench/collbench" allreduce 1 1
  run_case "$1" "$2" "$BUILD/examples/hello"
done

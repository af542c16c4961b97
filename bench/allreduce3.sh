#!/usr/bin/env bash
# Issue 34's collective benchmark: bench/allreduce3.c (3 MPI_Allreduce of one double over MPI_COMM_WORLD,
# a plain MPI program with libxsim preloaded) at RANKS ranks, default model (loggp, endpoint contention),
# -xsim-cpu none, on 1 and 2 native processes, with the collective replay on and off. Prints wall time,
# context switches, messages, the program's last line and the report's simulated time: the virtual lines
# must be identical in every row.
# Usage: bench/allreduce3.sh [BUILD_DIR] [RANKS] [MODES]   (defaults: build 1048576 "on off")
set -euo pipefail
BUILD=${1:-build}
M=${2:-1048576}
MODES=${3:-on off}
. "$(dirname "$0")/lib.sh"
PROG=$BUILD/bench/allreduce3
LIB=$BUILD/libxsim/runtime/libxsim.so
[ -x "$PROG" ] && [ -f "$LIB" ] || { echo "build first: cmake --build $BUILD" >&2; exit 1; }
printf '%-4s %-4s %8s %10s %10s %8s %6s  %s\n' np fast ranks messages switches wall_s load "virtual: program's last line | simulated time"
for mode in $MODES; do
  for np in 1 2; do
    log=$(mktemp); out=$(mktemp)
    load=$(cut -d' ' -f1 /proc/loadavg)
    t0=$(date +%s.%N)
    "$MPIEXEC" -np "$np" -env LD_PRELOAD "$LIB" "$PROG" -xsim-np "$M" -xsim-cpu none -xsim-coll-replay "$mode" \
      > "$out" 2> "$log"
    t1=$(date +%s.%N)
    printf '%-4s %-4s %8s %10s %10s %8.2f %6s  %s | %s\n' "$np" "$mode" "$M" "$(report_msgs "$log")" \
      "$(report_switches "$log")" "$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')" "$load" "$(tail -1 "$out")" \
      "$(report_field "simulated time" "$log")"
    rm -f "$log" "$out"
  done
done

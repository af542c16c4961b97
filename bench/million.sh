#!/usr/bin/env bash
# 1,048,576 virtual ranks: `hello` (MPI_Reduce, MPI_Barrier, MPI_Reduce), `allreduce 1 1` (a barrier, one
# timed MPI_Allreduce, then one each of the untimed checks: Allreduce(MAX), Bcast, Reduce) on 1 and 2
# native processes. Prints wall time (whole mpiexec run, start-up included) and peak RSS (all native
# processes together, from xsim's report), plus the simulated messages and the virtual time printed.
# Usage: bench/million.sh [BUILD_DIR] [RANKS]   (defaults: build 1048576). Needs ~12 GiB of memory.
set -euo pipefail
BUILD=${1:-build}
M=${2:-1048576}
. "$(dirname "$0")/lib.sh"
[ -x "$BUILD/examples/hello" ] || { echo "build first: cmake --build $BUILD" >&2; exit 1; }
printf '%-14s %8s %3s %10s %9s %10s %9s  %s\n' program ranks N messages wall_s RSS_MiB KiB/rank "virtual time (program's line)"
run_case() {  # N program args...
  local n=$1 prog=$2; shift 2
  local log out t0 t1
  log=$(mktemp); out=$(mktemp)
  t0=$(date +%s.%N)
  "$MPIEXEC" -np "$n" "$BUILD/examples/$prog" "$@" -xsim-np "$M" -xsim-cpu none > "$out" 2> "$log"
  t1=$(date +%s.%N)
  local kib total
  kib=$(report_kib "$log")
  total=$(report_field "peak memory" "$log" | sed 's/.*, \([0-9]*\) KiB in total.*/\1/')
  printf '%-14s %8s %3s %10s %9.2f %10s %9s  %s\n' "$prog${1:+ $*}" "$M" "$n" "$(report_msgs "$log")" \
    "$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')" "$(ratio "$total" 1024)" "$kib" \
    "$(grep -m1 -i 'time' "$out" || true)"
  rm -f "$log" "$out"
}
for n in 1 2; do
  run_case "$n" hello
  run_case "$n" allreduce 1 1
done

#!/usr/bin/env bash
# Cost per simulated message as the rank count grows: `ring` and `random` with 1,024 ... 262,144 virtual
# ranks, rounds chosen so that every case sends about 1 million messages (at least 8 rounds), on 1 (and
# with N=2 in the environment, 2) native processes. Prints messages, wall time, messages per second and
# ns per message from xsim's run report (messages include the final reduction's). Each case also runs
# with 1 round: `wall_1r` is that run's wall time (start-up of every rank, MPI_Init, one round, the
# reduction, MPI_Finalize), and `marg_ns` the marginal cost of a message, (wall - wall_1r) / (messages -
# messages_1r): the per-message cost without the per-rank start-up, which the issue wants flat. `cpu_marg`
# is the same margin in CPU time (the report's simulation CPU time, the busiest process's): on a shared
# machine it counts this run's work, not the neighbours'. Every run is repeated REPS times (default 3) and
# the least wall and CPU time count (noise only ever adds time); at least 8 rounds, so that the margin at
# 262,144 ranks is not lost in the 1-round run's start-up noise.
set -euo pipefail
BUILD=${1:-build}
shift || true
NPROCS=${*:-1}
. "$(dirname "$0")/lib.sh"
[ -x "$BUILD/examples/ring" ] || { echo "build first: cmake --build $BUILD" >&2; exit 1; }
printf '%-8s %8s %7s %3s %10s %8s %10s %9s %8s %8s %9s %9s\n' program ranks rounds N messages wall_s msgs/s ns/msg \
  wall_1r marg_ns cpu_marg KiB/rank
REPS=${REPS:-3}
run_case() {  # PROG RANKS ROUNDS N -> "messages wall KiB/rank cpu" (least wall and CPU of REPS runs)
  local log msgs wall kib cpu best_wall=1e99 best_cpu=1e99 i
  log=$(mktemp)
  for ((i = 0; i < REPS; i++)); do
    "$MPIEXEC" -np "$4" "$BUILD/examples/$1" "$3" -xsim-np "$2" -xsim-cpu none > /dev/null 2> "$log"
    msgs=$(report_msgs "$log"); wall=$(report_wall "$log"); kib=$(report_kib "$log"); cpu=$(report_cpu "$log")
    best_wall=$(awk -v a="$wall" -v b="$best_wall" 'BEGIN{print (a < b) ? a : b}')
    best_cpu=$(awk -v a="$cpu" -v b="$best_cpu" 'BEGIN{print (a < b) ? a : b}')
  done
  echo "$msgs $best_wall $kib $best_cpu"
  rm -f "$log"
}
for n in $NPROCS; do
  for prog in ring random; do
    for m in 1024 4096 16384 65536 262144; do
      rounds=$(( 1048576 / m )); [ "$rounds" -lt 8 ] && rounds=8
      read -r msgs wall kib cpu <<< "$(run_case "$prog" "$m" "$rounds" "$n")"
      read -r msgs1 wall1 _ cpu1 <<< "$(run_case "$prog" "$m" 1 "$n")"
      marg=$(awk -v w="$wall" -v w1="$wall1" -v m="$msgs" -v m1="$msgs1" \
        'BEGIN{ if (m > m1) printf "%.4g", (w - w1) / (m - m1) * 1e9; else print 0 }')
      cmarg=$(awk -v c="$cpu" -v c1="$cpu1" -v m="$msgs" -v m1="$msgs1" \
        'BEGIN{ if (m > m1) printf "%.4g", (c - c1) / (m - m1) * 1e9; else print 0 }')
      printf '%-8s %8s %7s %3s %10s %8s %10s %9s %8s %8s %9s %9s\n' "$prog" "$m" "$rounds" "$n" "$msgs" "$wall" \
        "$(ratio "$msgs" "$wall")" "$(ratio "$wall" "$msgs" 1e9)" "$wall1" "$marg" "$cmarg" "$kib"
    done
  done
done

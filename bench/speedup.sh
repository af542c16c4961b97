#!/usr/bin/env bash
# Speed-up from a second native process: `random` and `ring` with 16,384, 65,536 and 262,144 virtual ranks
# (rounds as in bench/scaling.sh: about 1 million messages per case), each run REPS times (default 3) on 1
# and on 2 native processes; the best run of each counts (noise only ever slows a run down). Prints, per
# case, the best simulation wall time from xsim's run report (engine run only) and the best elapsed time of
# the whole mpiexec command (start-up and teardown included) for N=1 and N=2, the speed-ups N1/N2 of both,
# the windows of the N=2 run and the load average before and after (the machine's other load skews N=2 most:
# it needs two cores at once).
# Usage: bench/speedup.sh [BUILD_DIR] [REPS] [RANKS...]   (defaults: build 3 16384 65536 262144)
# A few minutes on a quiet 2-core machine. Never run more than 2 native processes for timing (MPICH polls).
set -euo pipefail
BUILD=${1:-build}
REPS=${2:-3}
shift 2 || shift $#
SIZES=${*:-16384 65536 262144}
. "$(dirname "$0")/lib.sh"
[ -x "$BUILD/examples/ring" ] || { echo "build first: cmake --build $BUILD" >&2; exit 1; }
[[ "$REPS" =~ ^[1-9][0-9]*$ ]] || { echo "REPS must be a positive integer, got '$REPS'" >&2; exit 2; }
loadavg() { cut -d' ' -f1 /proc/loadavg; }
# min A B: the smaller number (B when A is empty)
min() { if [ -z "$1" ] || awk -v a="$2" -v b="$1" 'BEGIN{exit !(a < b)}'; then echo "$2"; else echo "$1"; fi; }
# best_of N PROG ROUNDS M: prints "best_report_wall best_elapsed best_cpu windows" over REPS runs
best_of() {
  local n=$1 prog=$2 rounds=$3 m=$4 best_w="" best_e="" best_c="" win=0 log tim e c
  for ((i = 0; i < REPS; ++i)); do
    log=$(mktemp); tim=$(mktemp)
    /usr/bin/time -f '%e %U %S' -o "$tim" \
      "$MPIEXEC" -np "$n" "$BUILD/examples/$prog" "$rounds" -xsim-np "$m" -xsim-cpu none > /dev/null 2> "$log"
    read -r e u s < "$tim"
    c=$(awk -v u="$u" -v s="$s" 'BEGIN{printf "%.2f", u + s}')
    best_w=$(min "$best_w" "$(report_wall "$log")"); best_e=$(min "$best_e" "$e"); best_c=$(min "$best_c" "$c")
    if [ "$n" -gt 1 ]; then win=$(report_field "windows" "$log" | awk '{print $3}'); fi
    rm -f "$log" "$tim"
  done
  echo "$best_w $best_e $best_c $win"
}
echo "# best of $REPS; load average before: $(loadavg)"
fmt='%-7s %7s %6s %8s %8s %7s %9s %9s %7s %7s %7s %6s %8s\n'
printf "$fmt" program ranks rounds N1_wall N2_wall speedup N1_elapsd N2_elapsd speedup N1_cpu N2_cpu cpu_x windows
for prog in random ring; do
  for m in $SIZES; do
    rounds=$(( 1048576 / m )); [ "$rounds" -lt 4 ] && rounds=4
    read -r w1 e1 c1 _ < <(best_of 1 "$prog" "$rounds" "$m")
    read -r w2 e2 c2 win < <(best_of 2 "$prog" "$rounds" "$m")
    printf "$fmt" "$prog" "$m" "$rounds" "$w1" "$w2" "$(ratio "$w1" "$w2")" "$e1" "$e2" "$(ratio "$e1" "$e2")" \
      "$c1" "$c2" "$(ratio "$c1" "$c2" 2)" "$win"
  done
done
echo "# load average after: $(loadavg)"

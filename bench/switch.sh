#!/usr/bin/env bash
# Context switches between virtual ranks: ns per switch through xsim (bench/switch.c: one switch per
# MPI_Iprobe, scheduler included) and bare Boost.Context switches on StackPool stacks (bench/fiber_switch),
# from 2 to 1,048,576 ranks on one native process. Besides the wall time per switch of one run (start-up
# included), `cpu_marg_ns`: the marginal CPU time per switch, (CPU(2P) - CPU(P)) / (switches(2P) - switches(P))
# between runs of P and 2P polls, from the run report's simulation CPU time: start-up left out, and less
# sensitive to a shared machine's load than wall time; at least 8 and 16 polls per rank. Each run is repeated
# REPS times (default 3) and the least wall and CPU time kept.
# Usage: [REPS=3] bench/switch.sh [BUILD_DIR]   (default: build). About two minutes on a quiet machine.
set -euo pipefail
BUILD=${1:-build}
. "$(dirname "$0")/lib.sh"
REPS=${REPS:-3}
[ -x "$BUILD/bench/switch" ] || { echo "build first: cmake --build $BUILD" >&2; exit 1; }
echo "Bare fiber switches (bench/fiber_switch):"
"$BUILD/bench/fiber_switch" 2 1024 16384 262144 1048576
echo
echo "xsim switches, one MPI_Iprobe each (bench/switch), 1 native process (best of $REPS runs per poll count):"
printf '%10s %7s %12s %9s %12s %13s\n' ranks polls switches wall_s ns/switch cpu_marg_ns
run_polls() {  # RANKS POLLS -> "switches wall cpu" (least wall and CPU of REPS runs)
  local log sw wall cpu best_wall=1e99 best_cpu=1e99 i
  for ((i = 0; i < REPS; i++)); do
    log=$(mktemp)
    "$MPIEXEC" -np 1 "$BUILD/bench/switch" "$2" -xsim-np "$1" -xsim-cpu none > /dev/null 2> "$log"
    sw=$(report_switches "$log"); wall=$(report_wall "$log"); cpu=$(report_cpu "$log")
    rm -f "$log"
    best_wall=$(awk -v a="$wall" -v b="$best_wall" 'BEGIN{print (a < b) ? a : b}')
    best_cpu=$(awk -v a="$cpu" -v b="$best_cpu" 'BEGIN{print (a < b) ? a : b}')
  done
  echo "$sw $best_wall $best_cpu"
}
for m in 2 1024 16384 262144 1048576; do
  polls=$(( 4000000 / m )); [ "$polls" -lt 4 ] && polls=4
  mpolls=$(( polls < 8 && m < 1048576 ? 8 : polls ))  # the margin's base: at least 8 polls (the margin of
  read -r sw wall cpu < <(run_polls "$m" "$polls")   # 15 against 30 at 262,144 ranks moved 15-210 ns)
  if [ "$mpolls" -ne "$polls" ]; then read -r msw _ mcpu < <(run_polls "$m" "$mpolls"); else msw=$sw mcpu=$cpu; fi
  read -r sw2 _ cpu2 < <(run_polls "$m" $(( 2 * mpolls )))
  marg=$(ratio "$(awk -v a="$mcpu" -v b="$cpu2" 'BEGIN{print b - a}')" $(( sw2 - msw )) 1e9)
  [ "$mpolls" -lt 8 ] && marg=-  # a few polls per rank: start-up's variation dominates the difference
  printf '%10s %7s %12s %9s %12s %13s\n' "$m" "$polls" "$sw" "$wall" "$(ratio "$wall" "$sw" 1e9)" "$marg"
done

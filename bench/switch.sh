#!/usr/bin/env bash
# Context switches between virtual ranks: ns per switch through xsim (bench/switch.c: one switch per
# MPI_Iprobe, scheduler included) and bare Boost.Context switches on StackPool stacks (bench/fiber_switch),
# from 2 to 1,048,576 ranks on one native process. Besides the wall time per switch of one run (start-up
# included), `cpu_marg_ns`: the marginal CPU time per switch, (CPU(2P) - CPU(P)) / (switches(2P) - switches(P))
# between runs of P and 2P polls, from the run report's simulation CPU time: start-up left out, and less
# sensitive to a shared machine's load than wall time.
# Usage: bench/switch.sh [BUILD_DIR]   (default: build). About a minute on a quiet machine.
set -euo pipefail
BUILD=${1:-build}
. "$(dirname "$0")/lib.sh"
[ -x "$BUILD/bench/switch" ] || { echo "build first: cmake --build $BUILD" >&2; exit 1; }
echo "Bare fiber switches (bench/fiber_switch):"
"$BUILD/bench/fiber_switch" 2 1024 16384 262144 1048576
echo
echo "xsim switches, one MPI_Iprobe each (bench/switch), 1 native process:"
printf '%10s %7s %12s %9s %12s %13s\n' ranks polls switches wall_s ns/switch cpu_marg_ns
for m in 2 1024 16384 262144 1048576; do
  polls=$(( 4000000 / m )); [ "$polls" -lt 4 ] && polls=4
  log=$(mktemp); log2=$(mktemp)
  "$MPIEXEC" -np 1 "$BUILD/bench/switch" "$polls" -xsim-np "$m" -xsim-cpu none > /dev/null 2> "$log"
  "$MPIEXEC" -np 1 "$BUILD/bench/switch" $(( 2 * polls )) -xsim-np "$m" -xsim-cpu none > /dev/null 2> "$log2"
  wall=$(report_wall "$log"); sw=$(report_switches "$log")
  dcpu=$(awk -v a="$(report_cpu "$log")" -v b="$(report_cpu "$log2")" 'BEGIN{print b - a}')
  dsw=$(( $(report_switches "$log2") - sw ))
  marg=$(ratio "$dcpu" "$dsw" 1e9)
  [ "$polls" -lt 8 ] && marg=-  # a few polls per rank: start-up's variation dominates the difference
  printf '%10s %7s %12s %9s %12s %13s\n' "$m" "$polls" "$sw" "$wall" "$(ratio "$wall" "$sw" 1e9)" "$marg"
  rm -f "$log" "$log2"
done

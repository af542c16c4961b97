#!/usr/bin/env bash
# Context switches between virtual ranks: ns per switch through xsim (bench/switch.c: one switch per
# MPI_Iprobe, scheduler included) and bare Boost.Context switches on StackPool stacks (bench/fiber_switch),
# from 2 to 1,048,576 ranks on one native process.
# Usage: bench/switch.sh [BUILD_DIR]   (default: build). About a minute on a quiet machine.
set -euo pipefail
BUILD=${1:-build}
. "$(dirname "$0")/lib.sh"
[ -x "$BUILD/bench/switch" ] || { echo "build first: cmake --build $BUILD" >&2; exit 1; }
echo "Bare fiber switches (bench/fiber_switch):"
"$BUILD/bench/fiber_switch" 2 1024 16384 262144 1048576
echo
echo "xsim switches, one MPI_Iprobe each (bench/switch), 1 native process:"
printf '%10s %7s %12s %9s %12s\n' ranks polls switches wall_s ns/switch
for m in 2 1024 16384 262144 1048576; do
  polls=$(( 4000000 / m )); [ "$polls" -lt 4 ] && polls=4
  log=$(mktemp)
  "$MPIEXEC" -np 1 "$BUILD/bench/switch" "$polls" -xsim-np "$m" -xsim-cpu none > /dev/null 2> "$log"
  wall=$(report_wall "$log"); sw=$(report_switches "$log")
  printf '%10s %7s %12s %9s %12s\n' "$m" "$polls" "$sw" "$wall" "$(ratio "$wall" "$sw" 1e9)"
  rm -f "$log"
done

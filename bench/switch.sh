#!/usr/bin/env bash
# Context switches between virtual ranks against bare Boost.Context switches, side by side, from 2 to
# 1,048,576 ranks on one native process.
#  - xsim (bench/switch.c): every MPI_Iprobe is one switch, scheduler included. `cpu_marg_ns` is the marginal
#    CPU time per switch, (CPU(2P) - CPU(P)) / (switches(2P) - switches(P)) between runs of P and 2P polls per
#    rank (at least 8 and 16), from the run report's simulation CPU time: start-up left out, and less
#    sensitive to a shared machine's load than wall time. `ns/switch` is one run's wall time per switch,
#    start-up included.
#  - bare (bench/fiber_switch): a driver resumes fibers on StackPool stacks of the size xsim gives as many
#    ranks; one switch = driver -> fiber -> driver. `fp_ns`: the same with each fiber writing 5 lines of its
#    stack frame and 4 lines of its own record whenever it runs (`fiber_switch --touch 5 4`), the memory a
#    rank of bench/switch touches when resumed (its stack from a line below the saved pointer up to the
#    application's frame; the two lines of its Rank record that every call reads, its unexpected queue and
#    its statistics) with no simulator instruction.
#  - `call_ns`: the same MPI_Iprobe with one rank, which never switches (marginal CPU between 2 and 4 million
#    calls); `switch_ns` = cpu_marg_ns - call_ns, the part of an xsim switch beyond the MPI call itself.
# Each xsim run is repeated REPS times (default 3) and the least wall and CPU time kept.
# Usage: [REPS=3] bench/switch.sh [BUILD_DIR]   (default: build). About five minutes on a quiet machine.
set -euo pipefail
BUILD=${1:-build}
. "$(dirname "$0")/lib.sh"
REPS=${REPS:-3}
SIZES=(2 1024 16384 262144 1048576)
[ -x "$BUILD/bench/switch" ] || { echo "build first: cmake --build $BUILD" >&2; exit 1; }
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
echo "Bare fiber switches (bench/fiber_switch):"
bare_out=$("$BUILD/bench/fiber_switch" "${SIZES[@]}")
echo "$bare_out"
declare -A bare fp
while read -r n _ ns; do [[ $n =~ ^[0-9]+$ ]] && bare[$n]=$ns; done <<< "$bare_out"
echo "The same, each fiber touching a rank's footprint (fiber_switch --touch 5 4):"
fp_out=$("$BUILD/bench/fiber_switch" --touch 5 4 "${SIZES[@]}")
echo "$fp_out"
while read -r n _ ns; do [[ $n =~ ^[0-9]+$ ]] && fp[$n]=$ns; done <<< "$fp_out"
read -r _ _ c1 < <(run_polls 1 2000000)
read -r _ _ c2 < <(run_polls 1 4000000)
call=$(ratio "$(awk -v a="$c1" -v b="$c2" 'BEGIN{print b - a}')" 2000000 1e9)
echo
echo "MPI_Iprobe without a switch (1 rank): $call ns per call (call_ns)"
echo
echo "xsim switches, one MPI_Iprobe each (bench/switch), 1 native process (best of $REPS runs per poll count):"
printf '%10s %7s %12s %9s %10s %12s %8s %6s %8s %6s %10s %6s\n' ranks polls switches wall_s ns/switch cpu_marg_ns \
  bare_ns ratio fp_ns ratio switch_ns ratio
for m in "${SIZES[@]}"; do
  polls=$(( 4000000 / m )); [ "$polls" -lt 4 ] && polls=4
  mpolls=$(( polls < 8 ? 8 : polls ))  # the margin's base: at least 8 polls (the margin of 15 against 30
  read -r sw wall cpu < <(run_polls "$m" "$polls")  # polls at 262,144 ranks moved 15-210 ns)
  if [ "$mpolls" -ne "$polls" ]; then read -r msw _ mcpu < <(run_polls "$m" "$mpolls"); else msw=$sw mcpu=$cpu; fi
  read -r sw2 _ cpu2 < <(run_polls "$m" $(( 2 * mpolls )))
  marg=$(ratio "$(awk -v a="$mcpu" -v b="$cpu2" 'BEGIN{print b - a}')" $(( sw2 - msw )) 1e9)
  part=$(awk -v a="$marg" -v b="$call" 'BEGIN{printf "%.4g", a - b}')
  printf '%10s %7s %12s %9s %10s %12s %8s %6s %8s %6s %10s %6s\n' "$m" "$polls" "$sw" "$wall" \
    "$(ratio "$wall" "$sw" 1e9)" "$marg" "${bare[$m]}" "$(ratio "$marg" "${bare[$m]}")" "${fp[$m]}" \
    "$(ratio "$marg" "${fp[$m]}")" "$part" "$(ratio "$part" "${bare[$m]}")"
done

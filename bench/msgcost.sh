#!/usr/bin/env bash
# Marginal CPU time per simulated message, for one or more builds side by side (interleaved runs, so every
# build sees the same load). For each program (ring, random) and rank count M: runs of R = 1,048,576 / M
# rounds (at least 8) and of 1 round, CPU = the run report's "simulation CPU time" (the scheduler thread's
# CPU time in run()), ns per message = (CPU(R) - CPU(1)) / (messages(R) - messages(1)); best of REPS
# (default 3) for each of the two runs.
#   bench/msgcost.sh "build [build2 ...]" ["1024 16384 262144"] ["ring random"]
set -euo pipefail
BUILDS=${1:-build}
SIZES=${2:-"1024 16384 262144"}
PROGS=${3:-"ring random"}
REPS=${REPS:-3}
. "$(dirname "$0")/lib.sh"
run_case() {  # BUILD PROG RANKS ROUNDS -> "messages cpu"
  local log
  log=$(mktemp)
  "$MPIEXEC" -np 1 "$1/examples/$2" "$4" -xsim-np "$3" -xsim-cpu none > /dev/null 2> "$log"
  echo "$(report_msgs "$log") $(report_cpu "$log")"
  rm -f "$log"
}
printf '%-8s %8s %7s %-28s %10s %9s %9s %9s\n' program ranks rounds build messages cpu_R cpu_1 ns/msg
for prog in $PROGS; do
  for m in $SIZES; do
    rounds=$(( 1048576 / m )); [ "$rounds" -lt 8 ] && rounds=8
    declare -A best_r=() best_1=() msgs_r=() msgs_1=()
    for ((i = 0; i < REPS; ++i)); do
      for b in $BUILDS; do
        read -r mr cr <<< "$(run_case "$b" "$prog" "$m" "$rounds")"
        read -r m1 c1 <<< "$(run_case "$b" "$prog" "$m" 1)"
        msgs_r[$b]=$mr; msgs_1[$b]=$m1
        if [ -z "${best_r[$b]:-}" ] || awk -v a="$cr" -v b="${best_r[$b]}" 'BEGIN{exit !(a < b)}'; then best_r[$b]=$cr; fi
        if [ -z "${best_1[$b]:-}" ] || awk -v a="$c1" -v b="${best_1[$b]}" 'BEGIN{exit !(a < b)}'; then best_1[$b]=$c1; fi
      done
    done
    for b in $BUILDS; do
      ns=$(awk -v a="${best_r[$b]}" -v c="${best_1[$b]}" -v m="${msgs_r[$b]}" -v n="${msgs_1[$b]}" \
        'BEGIN{ printf "%.1f", (a - c) / (m - n) * 1e9 }')
      printf '%-8s %8s %7s %-28s %10s %9s %9s %9s\n' "$prog" "$m" "$rounds" "$b" "${msgs_r[$b]}" "${best_r[$b]}" \
        "${best_1[$b]}" "$ns"
    done
    unset best_r best_1 msgs_r msgs_1
  done
done

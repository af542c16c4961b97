#!/usr/bin/env bash
# Simulator throughput and memory: runs the examples under xsim (processor model "none") and prints,
# per case, simulated messages, wall time, simulated messages per second, context switches per second
# and peak memory per virtual rank, all read from xsim's run report.
# Usage: bench/run.sh [BUILD_DIR]   (default: build). Takes about two minutes on 2 cores.
set -euo pipefail
BUILD=${1:-build}
EX=$BUILD/examples
MPIEXEC=${MPIEXEC:-mpiexec.hydra}
[ -x "$EX/ring" ] || { echo "build first: ./scripts/build.sh" >&2; exit 1; }

field() { grep "xsim: $1" "$2" | head -1; }
printf '%-8s %8s %7s %3s %10s %8s %10s %10s %12s\n' program ranks rounds N messages wall_s msgs/s switch/s KiB/rank
run_case() {  # program ranks rounds N [extra]
  local prog=$1 m=$2 rounds=$3 n=$4 log
  log=$(mktemp)
  "$MPIEXEC" -np "$n" "$EX/$prog" $rounds -xsim-np "$m" -xsim-cpu none > /dev/null 2> "$log"
  local msgs wall sw kib
  msgs=$(field "messages  " "$log" | awk '{print $3}')
  wall=$(field "simulator wall time" "$log" | awk '{print $5}')
  sw=$(field "context switches" "$log" | sed 's/.*(\(.*\) per second)/\1/')
  kib=$(field "peak memory" "$log" | sed 's/.* \([0-9.]*\) KiB per virtual rank/\1/')
  printf '%-8s %8s %7s %3s %10s %8s %10.3g %10s %12s\n' "$prog" "$m" "${rounds:--}" "$n" "$msgs" "$wall" \
    "$(awk -v a="$msgs" -v b="$wall" 'BEGIN{print (b>0)?a/b:0}')" "$sw" "$kib"
  rm -f "$log"
}
run_case hello 65536 "" 1
run_case hello 65536 "" 2
for n in 1 2; do
  run_case ring 1024 1024 $n
  run_case ring 16384 64 $n
  run_case random 1024 1024 $n
  run_case random 16384 64 $n
done

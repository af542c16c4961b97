#!/usr/bin/env bash
# Resilience (issue 25; docs/resilience.md), two tables:
#  1. What failure injection costs on the message path when it is enabled but idle (a failure after the
#     run's end): `ring` and `random` (examples/) at RANKS (default 65,536) ranks, 16 rounds, one native
#     process, with and without -xsim-fault; the runs alternate REPS times (default 5) and the least
#     simulation CPU time counts. Both arms run with -xsim-coll-replay off: configured faults turn the
#     collectives' replay off (docs/resilience.md), which would otherwise add the cost of the programs' final
#     reduction over all ranks to the message path's.
#  2. The resilient Jacobi solver (examples/resilient.c) on NP ranks (default 64), processor model none:
#     predicted time to solution against the number of failures (ranks 3, 9, 12, ... failing 2 ms apart),
#     with the sweeps redone and the virtual time spent in agreement and shrink (the run report).
#   bench/resilience.sh [BUILD]        e.g. RANKS="65536" REPS=5 NP=64 bench/resilience.sh build
set -euo pipefail
BUILD=${1:-build}
. "$(dirname "$0")/lib.sh"
[ -x "$BUILD/examples/resilient" ] || { echo "build first: cmake --build $BUILD" >&2; exit 1; }
REPS=${REPS:-5}
RANKS=${RANKS:-65536}
NP=${NP:-64}
log=$(mktemp)
trap 'rm -f "$log"' EXIT

printf '%-7s %7s %13s %13s %8s\n' program ranks cpu_off_s cpu_idle_s idle/off
for prog in ring random; do
  for m in $RANKS; do
    best=(1e99 1e99)
    for ((i = 0; i < REPS; i++)); do
      for k in 0 1; do
        extra=""; [ "$k" = 1 ] && extra="-xsim-fault 0@1000s"
        # shellcheck disable=SC2086
        "$MPIEXEC" -np 1 "$BUILD/examples/$prog" 16 -xsim-np "$m" -xsim-cpu none -xsim-coll-replay off $extra \
          > /dev/null 2> "$log"
        cpu=$(report_cpu "$log")
        best[k]=$(awk -v a="${best[k]}" -v b="$cpu" 'BEGIN{print (b < a) ? b : a}')
      done
    done
    printf '%-7s %7s %13s %13s %8s\n' "$prog" "$m" "${best[0]}" "${best[1]}" "$(ratio "${best[1]}" "${best[0]}")"
  done
done

echo
printf '%-9s %-34s %9s %7s %15s %15s\n' failures faults survivors redone time_to_solution agree+shrink/rank
faults=""
ranks=(3 9 12 20 27 33 41 50)
for f in 0 1 2 4 8; do
  faults=""
  for ((j = 0; j < f; j++)); do faults+="${faults:+,}${ranks[j]}@$((2 * (j + 1)))ms"; done
  spec=${faults:+-xsim-fault $faults}
  # shellcheck disable=SC2086
  out=$("$MPIEXEC" -np 1 "$BUILD/examples/resilient" -xsim-np "$NP" -xsim-cpu none $spec 2> "$log")
  surv=$(echo "$out" | sed -n 's/.* \([0-9]*\) survivors.*/\1/p')
  redone=$(echo "$out" | sed -n 's/.*(\([0-9]*\) redone).*/\1/p')
  t=$(echo "$out" | sed -n 's/resilient: virtual time //p')
  ag=$(report_field "recovery" "$log" | sed -n 's/.*took \([0-9.]*\) s per rank.*/\1/p')
  printf '%-9s %-34s %9s %7s %15s %15s\n' "$f" "${faults:-none}" "$surv" "$redone" "$t" "${ag:-0}"
done

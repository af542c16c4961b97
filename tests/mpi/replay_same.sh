#!/usr/bin/env bash
# An engine mode that must not change results, on against off: by default the fast path of blocking
# collectives (-xsim-coll-replay, docs/collectives.md) against the point-to-point algorithms; with
# SWITCH=large-scale the engine's large-scale mode (-xsim-large-scale: prefetching and deferred delivery,
# libxsim/README.md); with SWITCH=fast-paths the differential mode (docs/testing.md): every fast path on
# (collective replay, large-scale mode, globals privatized by mapping) against every one off (point-to-point
# collectives, plain delivery, globals privatized by copying). Runs PROGRAM with the mode on and off, on each native process count of N_LIST, and
# requires identical stdout (sorted) and identical run reports (simulated time, compute and MPI time per
# rank, messages and bytes) in every run. Per-rank statistics (-xsim-stats) turn the fast path off, so
# they are compared through the report's per-rank min/avg/max.
#   [SWITCH=coll-replay|large-scale|fast-paths] replay_same.sh N_LIST -- PROGRAM ARGS...
# For coll-replay, also requires the fast path to have run (fewer context switches with it on, N=1) unless
# FAST_EXPECTED=0.
set -u
MPIEXEC=${MPIEXEC:-mpiexec.hydra}
TIMEOUT=${TIMEOUT:-300}
nlist=$1; shift; [ "$1" = "--" ] && shift
SWITCH=${SWITCH:-coll-replay}
case "$SWITCH" in
  coll-replay | large-scale)
    on_args=("-xsim-$SWITCH" on) off_args=("-xsim-$SWITCH" off) ;;
  fast-paths)
    on_args=(-xsim-coll-replay on -xsim-large-scale on -xsim-privatize map)
    off_args=(-xsim-coll-replay off -xsim-large-scale off -xsim-privatize copy) ;;
  *) echo "replay_same.sh: SWITCH=$SWITCH: give coll-replay, large-scale or fast-paths" >&2; exit 2 ;;
esac
[ "$SWITCH" = coll-replay ] || FAST_EXPECTED=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# The report lines that must agree (wall time, memory, switches and rates are the simulator's own).
report() {
  grep -E '^xsim: (virtual ranks|simulated time|compute per rank|MPI time per rank|messages  |exit code)' "$1" |
    sed -E 's/ on [0-9]+ native process(es)?//'
}
switches() { sed -n 's/^xsim: context switches *\([0-9]*\).*/\1/p' "$1"; }
first=""
for n in $nlist; do
  for mode in on off; do
    if [ "$mode" = on ]; then args=("${on_args[@]}"); else args=("${off_args[@]}"); fi
    timeout "$TIMEOUT" "$MPIEXEC" -np "$n" "$@" "${args[@]}" >"$tmp/out.$n.$mode" 2>"$tmp/err.$n.$mode"
    rc=$?
    # Sanitizer builds (docs/testing.md): any ASan, LSan or UBSan report fails the test, as in run.sh.
    if grep -Eq '^==[0-9]+==ERROR: [A-Za-z]+Sanitizer|^SUMMARY: [A-Za-z]+Sanitizer|: runtime error: ' "$tmp/err.$n.$mode"; then
      echo "FAIL: sanitizer report (N=$n, $SWITCH $mode): $*"; cat "$tmp/err.$n.$mode"; exit 1
    fi
    if [ $rc -ne 0 ]; then echo "FAIL: N=$n, $SWITCH $mode: exit code $rc: $*"; tail -30 "$tmp/err.$n.$mode"; exit 1; fi
    sort "$tmp/out.$n.$mode" >"$tmp/sorted.$n.$mode"
    report "$tmp/err.$n.$mode" >"$tmp/report.$n.$mode"
    if [ ! -s "$tmp/report.$n.$mode" ]; then echo "FAIL: no run report (N=$n, $mode)"; cat "$tmp/err.$n.$mode"; exit 1; fi
    [ -z "$first" ] && first="$n.$mode"
    for what in sorted report; do
      if ! diff -u "$tmp/$what.$first" "$tmp/$what.$n.$mode" >"$tmp/diff"; then
        echo "FAIL: $what differs between (N.$SWITCH) $first and $n.$mode: $*"; cat "$tmp/diff"; exit 1
      fi
    done
  done
done
if [ "${FAST_EXPECTED:-1}" = 1 ]; then
  n=${nlist%% *}
  on=$(switches "$tmp/err.$n.on"); off=$(switches "$tmp/err.$n.off")
  if [ "$on" -ge "$off" ]; then
    echo "FAIL: the fast path did not run (context switches: $on with it, $off without; N=$n): $*"; exit 1
  fi
fi
cat "$tmp/out.$first"
report "$tmp/err.$first"
echo "same output and report with $SWITCH on (${on_args[*]}) and off (${off_args[*]}), N in {$nlist}"

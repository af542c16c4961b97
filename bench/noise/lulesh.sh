#!/usr/bin/env bash
# Noise study on a real mini-app (issue 36 item 4; docs/noise.md "LULESH under noise"): LULESH 2.0, unedited,
# built from the user's checkout with MPICH's wrapper, run under xsim at RANKS virtual ranks (cubes) on the
# study's network (bench/noise/study.sh "normal": Frontera's links, 16-core nodes), -xsim-cpu scaled (its
# computation is timed on the host), one native process, without noise (REPS times: the host's own timing
# spread) and with each signature of SIGS. Prints ranks, nodes, signature, LULESH's elapsed virtual time,
# the slowdown against the first noise-free run and the simulator's wall time.
#   bench/noise/lulesh.sh LULESH_SRC [BUILD]     (LULESH_SRC: a checkout of github.com/LLNL/LULESH)
# S and I: LULESH's -s (elements per rank per side, default 8) and -i (iterations, default 50).
# RT: a prefix for the runs (default "chrt -f 10" when allowed: real-time priority keeps other jobs on a
# shared machine from stretching the timed computation; empty to run at normal priority).
set -euo pipefail
SRC=$(cd "$1" && pwd)
BUILD=$(cd "${2:-build}" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$HERE/../lib.sh"
RANKS=${RANKS:-64 512}
S=${S:-8} I=${I:-50} REPS=${REPS:-2} CORES=${CORES:-16}
SIGS=${SIGS:-periodic:1ms:25us:random periodic:100ms:2.5ms:random poisson:1kHz:25us}
MN=${MN:-fattree:m=128:n=3:lat=90ns:bw=100Gbps/star:$CORES:lat=150ns:bw=80Gbps}
if [ -z "${RT+x}" ]; then RT=""; chrt -f 10 true 2> /dev/null && RT="chrt -f 10"; fi
LIB=$BUILD/libxsim/runtime/libxsim.so
[ -e "$LIB" ] || { echo "build first: cmake --build $BUILD" >&2; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
( cd "$SRC" && mpicxx.mpich -O3 -DUSE_MPI=1 -I. lulesh.cc lulesh-comm.cc lulesh-viz.cc lulesh-util.cc \
    lulesh-init.cc -o "$tmp/lulesh2.0" -lm )

# run NP SIG: prints LULESH's virtual elapsed time (s) and the wall time ("-" for no noise)
run() {
  local noise=()
  [ "$2" != - ] && noise=(-xsim-noise "$2")
  # shellcheck disable=SC2086
  $RT "$MPIEXEC" -np 1 -env LD_PRELOAD "$LIB" "$tmp/lulesh2.0" -s "$S" -i "$I" -q -xsim-np "$1" -xsim-cpu scaled \
    -xsim-mn "$MN" "${noise[@]}" > "$tmp/out" 2> "$tmp/log"
  echo "$(awk '/simulated time/ {print $4}' "$tmp/log") $(report_wall "$tmp/log")"
}

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'); LULESH -s $S -i $I; MN=$MN; RT=${RT:-none}"
printf '%6s %5s %-28s %12s %9s %7s\n' ranks nodes signature elapsed_s slowdown wall_s
for np in $RANKS; do
  nodes=$(( (np + CORES - 1) / CORES ))
  base=
  for rep in $(seq "$REPS"); do
    read -r t wall < <(run "$np" -)
    [ -n "$base" ] || base=$t
    printf '%6s %5s %-28s %12.6f %9.3f %7s\n' "$np" "$nodes" "none (run $rep)" "$t" "$(ratio "$t" "$base")" "$wall"
  done
  for sig in $SIGS; do
    read -r t wall < <(run "$np" "$sig")
    printf '%6s %5s %-28s %12.6f %9.3f %7s\n' "$np" "$nodes" "$sig" "$t" "$(ratio "$t" "$base")" "$wall"
  done
done

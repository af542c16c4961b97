#!/usr/bin/env bash
# Noise study (issue 36 item 4; docs/noise.md "Study"): the bulk-synchronous loop bsp.c (ITER iterations
# of WORK_US us of xsim_compute, then MPI_Allreduce of one double) at RANKS virtual ranks on MN (16-core
# nodes: noise is per node), processor model none, one native process. Each size runs without noise and
# with the signatures in SIGS, all of the same noise ratio (2.5%): frequent short detours, rare long ones,
# and Poisson arrivals. Prints ranks, nodes, signature, virtual time per iteration, slowdown against the
# noise-free run, and the simulator's wall time.
#   bench/noise/study.sh [BUILD]     e.g. RANKS="1024 4096 16384 65536" ITER=200 bench/noise/study.sh build
set -euo pipefail
BUILD=$(cd "${1:-build}" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$HERE/../lib.sh"
RANKS=${RANKS:-1024 4096}
ITER=${ITER:-200}
WORK_US=${WORK_US:-100}
CORES=${CORES:-16}
MN=${MN:-frontera:cores=$CORES}
SIGS=${SIGS:-periodic:1ms:25us:random periodic:100ms:2.5ms:random poisson:1kHz:25us}
MPICC=${MPICC:-mpicc.mpich}
RT="$BUILD/libxsim/runtime"
[ -e "$RT/libxsim.so" ] || { echo "build first: cmake --build $BUILD" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$MPICC" -O2 -I"$HERE/../../include" "$HERE/bsp.c" -o "$tmp/bsp" -L"$RT" -lxsim -Wl,-rpath,"$RT"

us() { awk -v t="$1" 'BEGIN{printf "%.3f", t * 1e6}'; }

# run NP SIG: prints the virtual time per iteration and the wall time ("-" for no noise)
run() {
  local noise=()
  [ "$2" != - ] && noise=(-xsim-noise "$2")
  "$MPIEXEC" -np 1 "$tmp/bsp" "$ITER" "$WORK_US" -xsim-np "$1" -xsim-cpu none -xsim-mn "$MN" "${noise[@]}" \
    > "$tmp/out" 2> "$tmp/log"
  echo "$(awk '/^bsp /{print $9}' "$tmp/out") $(report_wall "$tmp/log")"
}

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'); ITER=$ITER WORK_US=$WORK_US MN=$MN"
printf '%7s %6s %-28s %14s %9s %7s\n' ranks nodes signature per_iter_us slowdown wall_s
for np in $RANKS; do
  nodes=$(( (np + CORES - 1) / CORES ))
  read -r base wall < <(run "$np" -)
  printf '%7s %6s %-28s %14.3f %9s %7s\n' "$np" "$nodes" none "$(us "$base")" 1.000 "$wall"
  for sig in $SIGS; do
    read -r t wall < <(run "$np" "$sig")
    printf '%7s %6s %-28s %14.3f %9.3f %7s\n' "$np" "$nodes" "$sig" "$(us "$t")" "$(ratio "$t" "$base")" "$wall"
  done
done

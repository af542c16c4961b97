#!/usr/bin/env bash
# Noise study (issue 36 item 4; docs/noise.md "Study"): the bulk-synchronous loop bsp.c (ITER iterations
# of WORK_US us of xsim_compute, then MPI_Allreduce of one double) at RANKS virtual ranks on 16-core nodes
# (noise is per node), processor model none, one native process. Each size runs without noise and with the
# signatures in SIGS, all of the same noise ratio (2.5%): frequent short detours, rare long ones, and
# Poisson arrivals; on each network of NETS:
#   normal  Frontera's links (fat tree of 90 ns hops and 100 Gbps, 16-core nodes of 0.15 us and 80 Gbps
#           links), as a three-level tree (m = 128, n = 3: 524,288 nodes) so that a million ranks fit;
#   fast    the same network 10x faster: every latency / 10, every bandwidth x 10.
# Endpoint contention is off (-xsim-contention none): the 8-byte allreduce never queues at a NIC, and
# without a NIC model the allreduce takes the collective replay (docs/collectives.md), the same virtual
# times at a quarter of the simulator's cost. Prints ranks, nodes, network, signature, iterations, virtual
# time per iteration, slowdown against the noise-free run on the same network, and the simulator's wall
# time; with OUT=FILE it also appends the rows to FILE (tab-separated, for plot.py).
#   bench/noise/study.sh [BUILD]     e.g. RANKS="1024 65536" ITERS="65536:50" NETS="normal fast" bench/noise/study.sh build
# ITERS: NP:ITER pairs overriding ITER at those sizes (the large sizes take fewer iterations).
set -euo pipefail
BUILD=$(cd "${1:-build}" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$HERE/../lib.sh"
RANKS=${RANKS:-1024 4096}
ITER=${ITER:-200}
ITERS=${ITERS:-}
WORK_US=${WORK_US:-100}
CORES=${CORES:-16}
NETS=${NETS:-normal fast}
SIGS=${SIGS:-periodic:1ms:25us:random periodic:100ms:2.5ms:random poisson:1kHz:25us}
OUT=${OUT:-}
MPICC=${MPICC:-mpicc.mpich}
RT="$BUILD/libxsim/runtime"
[ -e "$RT/libxsim.so" ] || { echo "build first: cmake --build $BUILD" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$MPICC" -O2 -I"$HERE/../../include" "$HERE/bsp.c" -o "$tmp/bsp" -L"$RT" -lxsim -Wl,-rpath,"$RT"

net_spec() {
  case $1 in
    normal) echo "fattree:m=128:n=3:lat=90ns:bw=100Gbps/star:$CORES:lat=150ns:bw=80Gbps" ;;
    fast) echo "fattree:m=128:n=3:lat=9ns:bw=1000Gbps/star:$CORES:lat=15ns:bw=800Gbps" ;;
    *) echo "unknown network $1 (normal or fast)" >&2; exit 1 ;;
  esac
}
iter_for() {
  local pair
  for pair in $ITERS; do [ "${pair%%:*}" = "$1" ] && { echo "${pair#*:}"; return; }; done
  echo "$ITER"
}
us() { awk -v t="$1" 'BEGIN{printf "%.3f", t * 1e6}'; }

# run NP NET SIG ITER: prints the virtual time per iteration and the wall time ("-" for no noise)
run() {
  local noise=()
  [ "$3" != - ] && noise=(-xsim-noise "$3")
  "$MPIEXEC" -np 1 "$tmp/bsp" "$4" "$WORK_US" -xsim-np "$1" -xsim-cpu none -xsim-mn "$(net_spec "$2")" \
    -xsim-contention none "${noise[@]}" > "$tmp/out" 2> "$tmp/log"
  echo "$(awk '/^bsp /{print $9}' "$tmp/out") $(report_wall "$tmp/log")"
}
row() {  # np nodes net sig iter per_iter_s slowdown wall
  printf '%8s %6s %-6s %-28s %5s %12.3f %9s %7s\n' "$1" "$2" "$3" "$4" "$5" "$(us "$6")" "$7" "$8"
  [ -z "$OUT" ] || printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >> "$OUT"
}

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'); ITER=$ITER ITERS=$ITERS WORK_US=$WORK_US CORES=$CORES"
printf '%8s %6s %-6s %-28s %5s %12s %9s %7s\n' ranks nodes net signature iter per_iter_us slowdown wall_s
for np in $RANKS; do
  nodes=$(( (np + CORES - 1) / CORES ))
  it=$(iter_for "$np")
  for net in $NETS; do
    read -r base wall < <(run "$np" "$net" - "$it")
    row "$np" "$nodes" "$net" none "$it" "$base" 1.000 "$wall"
    for sig in $SIGS; do
      read -r t wall < <(run "$np" "$net" "$sig" "$it")
      row "$np" "$nodes" "$net" "$sig" "$it" "$t" "$(ratio "$t" "$base")" "$wall"
    done
  done
done

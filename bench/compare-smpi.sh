#!/usr/bin/env bash
# xsim against SimGrid's SMPI on the same unmodified example programs (examples/ring.c, random.c, hello.c,
# allreduce.c), the same rank counts and comparable networks: wall time, peak memory (/usr/bin/time %M,
# the largest process) and the xsim/SMPI ratios, plus the virtual time each simulator reports through
# the program's own MPI_Wtime-based output, so a reader can see both model the same network.
#
# Networks: xsim's default `ethernet` (a star: two 25 us, 1 Gbps links between any two ranks). SMPI: a
# cluster with one host per rank, each with a private 25 us, 1 Gbps link to a switch (written below), the
# CM02 network model (plain latency + size / bandwidth, no SMPI piecewise correction factors), and the same
# collective algorithms xsim uses for these programs (binomial reduce and bcast, recursive-doubling
# allreduce, dissemination barrier; docs/collectives.md). Both with compute time off (xsim
# -xsim-cpu none, SMPI smpi/simulate-computation:no), 256 KiB stacks, no privatization for SMPI (the
# examples have no writable globals: only string constants) and one native process for xsim (SMPI runs
# on one core too; PROCS=2 runs xsim on two).
#
# Usage: bench/compare-smpi.sh [BUILD_DIR]            (default: build)
# Environment:
#   SIZES    rank counts                      (default "1024 4096 16384 65536")
#   PROGS    programs                         (default "ring random hello allreduce")
#   ROUNDS   rounds of ring/random, iterations of allreduce (default 10)
#   TIMEOUT  seconds allowed to each SMPI run (default 300): "timeout" in the table past it
#   PROCS    native processes for xsim        (default 1)
# It is a benchmark, not a test: about 5 minutes with SIZES="1024 4096", up to about an hour with the
# defaults (SMPI runs that reach TIMEOUT). Installs libsimgrid-dev (Debian 12: SimGrid 3.32) if smpicc
# is missing.
set -uo pipefail
BUILD=$(cd "${1:-build}" && pwd) || { echo "compare-smpi: no build directory ${1:-build}" >&2; exit 1; }
SRC=$(cd "$(dirname "$0")/.." && pwd)
SIZES=${SIZES:-"1024 4096 16384 65536"}
PROGS=${PROGS:-"ring random hello allreduce"}
ROUNDS=${ROUNDS:-10}
TIMEOUT=${TIMEOUT:-300}
PROCS=${PROCS:-1}
MPIEXEC=${MPIEXEC:-mpiexec.hydra}

[ -x "$BUILD/examples/ring" ] || { echo "compare-smpi: build xsim first (cmake --build $BUILD)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "compare-smpi: /usr/bin/time is missing (apt-get install time)" >&2; exit 1; }
if ! command -v smpicc > /dev/null || ! command -v smpirun > /dev/null; then
  echo "compare-smpi: installing SimGrid (libsimgrid-dev provides smpicc and smpirun)" >&2
  SUDO=; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get install -y libsimgrid-dev > /dev/null || { $SUDO apt-get update > /dev/null &&
    $SUDO apt-get install -y libsimgrid-dev > /dev/null; } ||
    { echo "compare-smpi: could not install libsimgrid-dev" >&2; exit 1; }
fi

WORK=$(mktemp -d /tmp/compare-smpi.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
for p in $PROGS; do
  smpicc -O2 "$SRC/examples/$p.c" -o "$WORK/$p" > "$WORK/build-$p.log" 2>&1 ||
    { echo "compare-smpi: smpicc failed on examples/$p.c:" >&2; cat "$WORK/build-$p.log" >&2; exit 1; }
done

args() {  # program arguments
  case $1 in
    ring | random) echo "$ROUNDS" ;;
    allreduce) echo "1 $ROUNDS" ;;
    *) echo "" ;;
  esac
}
vtime() { sed -n 's/^[a-z]*: .*virtual time[a-z ]* \([0-9.e+-]*\)$/\1/p' "$1" | head -1; }

platform() {  # ranks -> writes $WORK/platform-N.xml and $WORK/hosts-N
  local n=$1
  [ -f "$WORK/platform-$n.xml" ] && return
  cat > "$WORK/platform-$n.xml" << EOF
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <!-- one host per rank, each with a private 25 us, 1 Gbps link to the cluster's switch: -->
  <!-- between two hosts 2 x 25 us + size / 1 Gbps, like xsim's ethernet star -->
  <cluster id="star" prefix="node-" suffix="" radical="0-$((n - 1))" speed="1Gf" bw="1Gbps" lat="25us"/>
</platform>
EOF
  seq 0 $((n - 1)) | sed 's/^/node-/' > "$WORK/hosts-$n"
}

# run_xsim PROG N -> "wall_s peak_kib virtual_s" or "failed"
run_xsim() {
  local p=$1 n=$2 out=$WORK/x.out err=$WORK/x.err
  # shellcheck disable=SC2046
  if /usr/bin/time -o "$WORK/x.time" -f "%e %M" "$MPIEXEC" -np "$PROCS" "$BUILD/examples/$p" $(args "$p") \
    -xsim-np "$n" -xsim-cpu none -xsim-stack 256K > "$out" 2> "$err" && grep -q "ok" "$out"; then
    echo "$(cat "$WORK/x.time") $(vtime "$out")"
  else
    echo "failed"
    { echo "compare-smpi: xsim $p $n failed:"; tail -5 "$err"; } >&2
  fi
}

# run_smpi PROG N -> "wall_s peak_kib virtual_s" or "timeout"/"failed"
run_smpi() {
  local p=$1 n=$2 out=$WORK/s.out rc
  platform "$n"
  # shellcheck disable=SC2046
  /usr/bin/time -o "$WORK/s.time" -f "%e %M" timeout "$TIMEOUT" smpirun -np "$n" \
    -platform "$WORK/platform-$n.xml" -hostfile "$WORK/hosts-$n" \
    --cfg=smpi/privatization:no --cfg=smpi/simulate-computation:no --cfg=contexts/stack-size:256 \
    --cfg=network/model:CM02 --cfg=smpi/reduce:binomial --cfg=smpi/bcast:binomial_tree \
    --cfg=smpi/allreduce:rdb --cfg=smpi/barrier:ompi_bruck --log=root.thres:critical \
    "$WORK/$p" $(args "$p") > "$out" 2>&1
  rc=$?
  if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    echo "timeout"
  elif [ $rc -ne 0 ] || ! grep -q "ok" "$out"; then
    echo "failed"
    { echo "compare-smpi: SMPI $p $n failed (exit $rc):"; tail -5 "$out"; } >&2
  else
    echo "$(tail -1 "$WORK/s.time") $(vtime "$out")"
  fi
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3g", a / b; else print "-" }'; }

echo "xsim ($PROCS native process(es), ethernet) vs SMPI (SimGrid $(smpirun -version 2>/dev/null | head -1 |
  sed 's/.*version //; s/ .*//'), CM02, one host per rank); rounds/iterations $ROUNDS; SMPI timeout ${TIMEOUT}s"
printf '%-10s %6s | %9s %10s %13s | %9s %10s %13s | %9s %9s\n' program ranks xsim_s xsim_MiB xsim_virt_s \
  smpi_s smpi_MiB smpi_virt_s wall_x/s mem_x/s
for p in $PROGS; do
  skip=
  for n in $SIZES; do
    read -r xw xm xv <<< "$(run_xsim "$p" "$n")"
    if [ -n "$skip" ]; then
      sw=$skip sm='' sv=''
    else
      read -r sw sm sv <<< "$(run_smpi "$p" "$n")"
      case $sw in timeout | failed) skip="$sw (skipped)" ;; esac
    fi
    xmib=$(awk -v k="${xm:-0}" 'BEGIN { printf "%.1f", k / 1024 }')
    smib=$(awk -v k="${sm:-0}" 'BEGIN { if (k > 0) printf "%.1f", k / 1024; else print "-" }')
    case $sw in
      [0-9]*) wr=$(ratio "$xw" "$sw") mr=$(ratio "$xm" "$sm") ;;
      *) wr=- mr=- ;;
    esac
    printf '%-10s %6s | %9s %10s %13s | %9s %10s %13s | %9s %9s\n' "$p" "$n" "$xw" "$xmib" "${xv:--}" \
      "$sw" "$smib" "${sv:--}" "$wr" "$mr"
  done
done

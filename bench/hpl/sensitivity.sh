#!/usr/bin/env bash
# How much HPL's predicted Gflops move for +-5% of each machine input, on a slice of Frontera:
#   bench/hpl/sensitivity.sh [N NB P Q]      (default 20000 192 8 8)
# Each input of the frontera presets (kernels: peak, dgemm and dtrsm efficiency, bandwidth; network: the fat
# tree's hop latency and link bandwidth, the node level's) is set 5% lower and 5% higher, one at a time,
# everything else as in the preset; prints the Gflops and the change against the preset's. Needs what
# bench/hpl/run.sh needs (BUILD, XHPL, OUT).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
XHPL=${XHPL:-$ROOT/build-hpl/bin/xsim/xhpl}
OUT=${OUT:-/tmp/xsim-hpl}/sensitivity
N=${1:-20000} NB=${2:-192} P=${3:-8} Q=${4:-8}
mkdir -p "$OUT"
"$HERE/hpl_dat.sh" "$N" "$NB" "$P" "$Q" "$OUT"
export OPENBLAS_NUM_THREADS=1
# run NAME KERNEL_KEYS NETWORK: Gflops of one run (KERNEL_KEYS: lines for [kernels], after the preset)
run() {
  { printf '[kernels]\nexec = ["copy"]\n%b\n' "$2"; awk '/^\[/{t=$0} !(t=="[kernels]")' "$HERE/hpl.toml"; } > "$OUT/$1.toml"
  (cd "$OUT" && LD_PRELOAD="$BUILD/libxsim/runtime/libxsim.so" mpiexec.hydra -np 1 "$XHPL" -xsim-np $((P * Q)) \
     -xsim-cpu none -xsim-kernels model -xsim-kernel-preset frontera -xsim-config "$OUT/$1.toml" -xsim-fold 256K \
     -xsim-poll-skip on -xsim-mn "$3" > "$OUT/$1.log" 2>&1)
  awk '/^WR/ {print $7}' "$OUT/$1.log"
}
net() { echo "fattree:m=128:n=2:lat=${1}ns:bw=${2}Gbps/star:56:lat=${3}ns:bw=${4}Gbps"; }
base=$(run base "" "$(net 90 100 150 80)")
echo "N=$N NB=$NB ${P}x$Q, frontera presets: $base Gflops"
printf '%-28s %14s %14s\n' "input (-5% / +5%)" "Gflops -5%" "Gflops +5%"
k=0
one() {  # one LABEL LOW_KEYS LOW_NET HIGH_KEYS HIGH_NET
  local lo hi
  k=$((k + 1))
  lo=$(run "in$k-lo" "$2" "$3"); hi=$(run "in$k-hi" "$4" "$5")
  awk -v l="$1" -v a="$lo" -v b="$hi" -v c="$base" \
    'BEGIN{printf "%-28s %9.4g (%+.2f%%) %9.4g (%+.2f%%)\n", l, a, (a/c-1)*100, b, (b/c-1)*100}'
}
B=$(net 90 100 150 80)
one "peak (57.6 GF/s)" 'peak = "54.72GF"' "$B" 'peak = "60.48GF"' "$B"
one "dgemm efficiency (0.8468)" '[kernels.gemm]\nefficiency = 0.80446\nhalf_dim = 4.63' "$B" '[kernels.gemm]\nefficiency = 0.88914\nhalf_dim = 4.63' "$B"
one "dtrsm efficiency (0.6201)" '[kernels.trsm]\nefficiency = 0.589095\nhalf_dim = 178.1\noverhead = "49.257us"' "$B" '[kernels.trsm]\nefficiency = 0.651105\nhalf_dim = 178.1\noverhead = "49.257us"' "$B"
one "bandwidth (5.028 GB/s)" 'bandwidth = "4.7769GB/s"' "$B" 'bandwidth = "5.2797GB/s"' "$B"
one "hop latency (90 ns)" "" "$(net 85.5 100 150 80)" "" "$(net 94.5 100 150 80)"
one "link bandwidth (100 Gbps)" "" "$(net 90 95 150 80)" "" "$(net 90 105 150 80)"
one "on-node latency (150 ns)" "" "$(net 90 100 142.5 80)" "" "$(net 90 100 157.5 80)"
one "on-node bandwidth (80 Gbps)" "" "$(net 90 100 150 76)" "" "$(net 90 100 150 84)"

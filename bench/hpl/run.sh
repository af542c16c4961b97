#!/usr/bin/env bash
# HPL 2.3 under xsim (docs/real-programs.md, "HPL at TOP500 scale"). Needs xhpl from bench/hpl/build.sh
# (XHPL, default build-hpl/bin/xsim/xhpl) and a built xsim (BUILD, default build). Cases:
#   run.sh calibrate                 this host's kernel and node parameters -> $OUT/host.toml
#   run.sh check [N NB P Q]          the same HPL run with its BLAS executed (-xsim-cpu scaled) and modelled
#                                    (-xsim-kernels model, this host's calibration): time and Gflops of both
#   run.sh native [N NB]             HPL natively on 2 ranks (1 x 2) against xsim's prediction for them
#                                    (calibrated kernels, every rank in one native process)
#   run.sh scale N NB P Q [NP] [MN]  HPL modelled and folded on P x Q ranks (NP native processes, default 1;
#                                    network MN, default frontera): wall time, peak memory, Gflops
#   run.sh machine frontera|pupmaya [N P Q]   a TOP500 machine with its preset kernels and network
#   run.sh row_swap                  HPL_dlaswp00N's loop timed here against hpl.toml's model of it
# Every run prints HPL's result line and xsim's report; OUT (default /tmp/xsim-hpl) keeps the logs.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
XHPL=${XHPL:-$ROOT/build-hpl/bin/xsim/xhpl}
OUT=${OUT:-/tmp/xsim-hpl}
FOLD=${FOLD:-256K}  # -xsim-fold for scale and machine: HPL allocates its panels and work arrays above it
LIB=$BUILD/libxsim/runtime/libxsim.so
MPIEXEC=${MPIEXEC:-mpiexec.hydra}
export OPENBLAS_NUM_THREADS=1  # one core per rank, as the model is one core's
mkdir -p "$OUT"
[ -x "$XHPL" ] || { echo "run.sh: no xhpl at $XHPL: build it with bench/hpl/build.sh (or set XHPL)" >&2; exit 2; }
[ -f "$LIB" ] || { echo "run.sh: no libxsim.so in $BUILD (set BUILD)" >&2; exit 2; }

# hpl NAME NP N NB P Q -- XSIM_ARGS...: one HPL run under xsim in $OUT/NAME, its log in $OUT/NAME.log
hpl() {
  local name=$1 np=$2 n=$3 nb=$4 p=$5 q=$6; shift 7
  mkdir -p "$OUT/$name"
  "$HERE/hpl_dat.sh" "$n" "$nb" "$p" "$q" "$OUT/$name"
  (cd "$OUT/$name" && /usr/bin/time -f "host: %e s wall, %M KiB max RSS" \
     env LD_PRELOAD="$LIB" "$MPIEXEC" -np "$np" "$XHPL" -xsim-np $((p * q)) "$@") > "$OUT/$name.log" 2>&1 || {
    tail -30 "$OUT/$name.log"; echo "run.sh: $name failed (log: $OUT/$name.log)" >&2; return 1; }
  grep -E "^WR|xsim: (simulated time|messages  |simulator wall|peak memory|physical memory|memory folding|kernel models|context sw)|^host:" "$OUT/$name.log"
}
gflops() { awk '/^WR/ {print $7}' "$OUT/$1.log"; }
hpl_time() { awk '/^WR/ {print $6}' "$OUT/$1.log"; }

# config NAME FILES... hpl.toml: the TOML files concatenated (-xsim-config takes one file), hpl.toml's
# [kernels] keys (exec) moved into the first file's [kernels] table
config() {
  local f=$OUT/$1.toml; shift
  local files=("$@") last=${*: -1}
  local keys; keys=$(awk '/^\[/{t=$0} t=="[kernels]" && /^[a-z_]+ *=/' "$last")
  for x in "${files[@]:0:${#files[@]}-1}"; do
    awk -v k="$keys" '{print} /^\[kernels\]$/ && k != "" {print k; k=""}' "$x"
  done > "$f"
  awk '/^\[/{t=$0} !(t=="[kernels]")' "$last" >> "$f"
  echo "$f"
}

case "${1:-}" in
  calibrate)
    "$BUILD/tools/xsim-calibrate" --kernels --node --out "$OUT/host.toml"
    ;;
  check)
    N=${2:-6000} NB=${3:-128} P=${4:-2} Q=${5:-2}
    [ -f "$OUT/host.toml" ] || "$0" calibrate
    cfg=$(config check "$OUT/host.toml" "$HERE/hpl.toml")
    hpl check_exec 1 "$N" "$NB" "$P" "$Q" -- -xsim-cpu scaled
    hpl check_model 1 "$N" "$NB" "$P" "$Q" -- -xsim-cpu scaled -xsim-kernels model -xsim-config "$cfg"
    echo "check: N=$N NB=$NB ${P}x$Q: executed $(hpl_time check_exec) s $(gflops check_exec) GF, modelled" \
         "$(hpl_time check_model) s $(gflops check_model) GF: modelled/executed time" \
         "$(awk -v a="$(hpl_time check_model)" -v b="$(hpl_time check_exec)" 'BEGIN{printf "%.3f", a/b}')"
    ;;
  native)
    N=${2:-6000} NB=${3:-128}
    [ -f "$OUT/host.toml" ] || "$0" calibrate
    [ -f "$OUT/net.toml" ] || (cd "$OUT" && "$MPIEXEC" -np 2 "$BUILD/tools/xsim-calibrate" --out "$OUT/net.toml" > /dev/null)
    mkdir -p "$OUT/native"
    "$HERE/hpl_dat.sh" "$N" "$NB" 1 2 "$OUT/native"
    (cd "$OUT/native" && "$MPIEXEC" -np 2 "$XHPL") > "$OUT/native.log" 2>&1
    grep "^WR" "$OUT/native.log"
    cfg=$(config native_model "$OUT/host.toml" "$OUT/net.toml" "$HERE/hpl.toml")
    hpl native_model 1 "$N" "$NB" 1 2 -- -xsim-cpu scaled -xsim-kernels model -xsim-config "$cfg"
    echo "native: N=$N NB=$NB 1x2: measured $(hpl_time native) s, predicted $(hpl_time native_model) s," \
         "error $(awk -v a="$(hpl_time native_model)" -v b="$(hpl_time native)" 'BEGIN{printf "%+.1f%%", (a/b-1)*100}')"
    ;;
  scale)
    N=$2 NB=$3 P=$4 Q=$5 NP=${6:-1} MN=${7:-frontera}
    [ -f "$OUT/host.toml" ] || "$0" calibrate
    cfg=$(config scale "$OUT/host.toml" "$HERE/hpl.toml")
    hpl "scale_${N}_${P}x${Q}_n$NP" "$NP" "$N" "$NB" "$P" "$Q" -- -xsim-cpu none -xsim-kernels model \
      -xsim-config "$cfg" -xsim-fold "$FOLD" -xsim-poll-skip on -xsim-mn "$MN"
    ;;
  row_swap)
    [ -f "$OUT/host.toml" ] || "$0" calibrate
    bps=$(awk -F'"' '/^bandwidth *=/ {sub(/bps$/, "", $2); print $2; exit}' "$OUT/host.toml")
    ${CC:-cc} -O2 -o "$OUT/row_swap" "$HERE/row_swap.c"
    "$OUT/row_swap" "$(awk -v b="$bps" 'BEGIN {print b / 8e9}')"
    ;;
  machine)
    M=$2
    case "$M" in
      frontera) N=${3:-9282848} P=${4:-616} Q=${5:-728} ;;
      pupmaya) N=${3:-4748928} P=${4:-360} Q=${5:-472} ;;
      *) echo "run.sh machine: frontera or pupmaya" >&2; exit 2 ;;
    esac
    NB=${NB:-384}
    hpl "${M}_${N}" 1 "$N" "$NB" "$P" "$Q" -- -xsim-cpu none -xsim-kernels model -xsim-kernel-preset "$M" \
      -xsim-config "$HERE/hpl.toml" -xsim-fold "$FOLD" -xsim-poll-skip on -xsim-mn "$M"
    ;;
  *)
    sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac

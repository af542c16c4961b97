#!/usr/bin/env bash
# Predicted against measured on this machine (docs/validation.md): calibrates the network with
# xsim-calibrate (2 native processes), then runs each case natively with 2 processes and under xsim with
# 2 virtual ranks in one native process (-xsim-config the calibration, -xsim-cpu scaled: compute time
# measured on the host), and prints both with the error. Cases: bench/validate.c (ping-pong 8 B - 1 MiB,
# MPI_Allreduce of 1 - 65,536 doubles, a halo exchange), examples/stencil (a compute-bound 2-D stencil with
# halo exchange), examples/cg and examples/jacobi3d (the kernels). Each case runs REPS times (default 3) and
# the median counts, natively and simulated alike. Writes OUT/validation.csv and OUT/validation.svg.
#   bench/validate.sh [BUILD] [OUT]      (defaults: build, bench-validation/)
set -euo pipefail
BUILD=${1:-build}
OUT=${2:-bench-validation}
MPIEXEC=${MPIEXEC:-mpiexec.hydra}
REPS=${REPS:-3}
LIB=$PWD/$BUILD/libxsim/runtime/libxsim.so
for f in "$BUILD/tools/xsim-calibrate" "$BUILD/bench/validate" "$BUILD/examples/stencil_plain" "$LIB"; do
  [ -e "$f" ] || { echo "validate.sh: $f is missing; build first: cmake --build $BUILD" >&2; exit 1; }
done
mkdir -p "$OUT"
t0=$(date +%s.%N)
"$MPIEXEC" -np 2 "$BUILD/tools/xsim-calibrate" --out "$OUT/cal.toml" > "$OUT/calibrate.txt"
t1=$(date +%s.%N)
cat "$OUT/calibrate.txt"
echo "calibration took $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", b - a}') s (wall, with start-up)"

native() { "$MPIEXEC" -np 2 "$@"; }
simulated() { "$MPIEXEC" -np 1 -env LD_PRELOAD "$LIB" "$@" -xsim-np 2 -xsim-cpu scaled -xsim-config "$OUT/cal.toml" -xsim-report off; }
median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
# case NAME EXTRACT PROGRAM ARGS...: REPS runs each way; EXTRACT is an awk program printing the time
declare -a rows
run_case() {
  local name=$1 extract=$2; shift 2
  local nat sim
  nat=$(for ((i = 0; i < REPS; i++)); do native "$@" | awk "$extract"; done | median)
  sim=$(for ((i = 0; i < REPS; i++)); do simulated "$@" | awk "$extract"; done | median)
  rows+=("$name $nat $sim")
}
# the communication cases: one run of bench/validate prints all of them
nat_v=$(mktemp); sim_v=$(mktemp)
for ((i = 0; i < REPS; i++)); do native "$BUILD/bench/validate"; done > "$nat_v"
for ((i = 0; i < REPS; i++)); do simulated "$BUILD/bench/validate"; done > "$sim_v"
for c in $(awk '/^validate:/ {print $2}' "$nat_v" | sort -u -V); do
  nat=$(awk -v c="$c" '$2 == c {print $3}' "$nat_v" | median)
  sim=$(awk -v c="$c" '$2 == c {print $3}' "$sim_v" | median)
  rows+=("$c $nat $sim")
done
rm -f "$nat_v" "$sim_v"
run_case stencil-1024x300 '/virtual time/ {print $NF}' "$BUILD/examples/stencil_plain" 1024 300
run_case cg-40x40x40 '/^cg: virtual time/ {print $NF}' "$BUILD/examples/cg_plain" 40 40 40 60 0
if [ -x "$BUILD/examples/jacobi3d_plain" ]; then
  run_case jacobi3d-48x48x48 '/virtual time/ {print $NF}' "$BUILD/examples/jacobi3d_plain" 48 48 48 60 0
fi

printf '%-20s %14s %14s %9s\n' case measured_s predicted_s error
echo "case,measured_s,predicted_s,error" > "$OUT/validation.csv"
for r in "${rows[@]}"; do
  read -r name nat sim <<< "$r"
  err=$(awk -v a="$nat" -v b="$sim" 'BEGIN{ if (a > 0) printf "%+.1f%%", (b / a - 1) * 100; else print "n/a" }')
  printf '%-20s %14s %14s %9s\n' "$name" "$nat" "$sim" "$err"
  echo "$name,$nat,$sim,$err" >> "$OUT/validation.csv"
done
python3 "$(dirname "$0")/validation_plot.py" "$OUT/validation.csv" "$OUT/validation.svg" && echo "wrote $OUT/validation.csv and $OUT/validation.svg"

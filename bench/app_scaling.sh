#!/usr/bin/env bash
# Predicted weak scaling of the two application kernels (examples/cg.c, examples/jacobi3d.f90) under xsim:
# virtual time per iteration against the virtual rank count, one column per network preset. Each rank keeps
# the same work at every size:
#   cg        16 x 16 x (2p) grid, block rows: 512 rows (two planes) per rank, 20 CG iterations
#   jacobi3d  16 x 16 x 16 cells per rank on a Dims_create(p, 3) grid, 20 Jacobi sweeps
# (tolerance 0: exactly 20 iterations, which each program still verifies; see docs/applications.md).
# Prints Markdown tables. Usage:
#   bench/app_scaling.sh [BUILD_DIR]       (default: build)
# Environment: RANKS ("8 64 512 4096"), NETS ("ethernet torus3d-dualcore aries"), CPU (none: communication
# only, deterministic; scaled: plus the host-measured compute), PROCS (native processes, 2), ITERS (20).
# About 1.5 minutes on 2 cores with the defaults.
set -euo pipefail
BUILD=${1:-build}
EX=$BUILD/examples
MPIEXEC=${MPIEXEC:-mpiexec.hydra}
RANKS=${RANKS:-"8 64 512 4096"}
NETS=${NETS:-"ethernet torus3d-dualcore aries"}
CPU=${CPU:-none}
PROCS=${PROCS:-2}
ITERS=${ITERS:-20}
[ -x "$EX/cg" ] && [ -x "$EX/jacobi3d" ] || { echo "build first: cmake --build $BUILD" >&2; exit 1; }

# run APP P NET -> "time_per_iteration_us sim_wall_s"; fails loudly if the program does not print "ok"
run() {
  local app=$1 p=$2 net=$3 out err
  out=$(mktemp) err=$(mktemp)
  case $app in
    cg) args="16 16 $((2 * p)) $ITERS 0" ;;
    jacobi3d) args="-l 16 16 16 $ITERS 0" ;;
  esac
  # shellcheck disable=SC2086
  if ! "$MPIEXEC" -np "$PROCS" "$EX/$app" $args -xsim-np "$p" -xsim-mn "$net" -xsim-cpu "$CPU" >"$out" 2>"$err" ||
     ! grep -q " ok$" "$out"; then
    echo "app_scaling: $app with $p ranks on $net failed:" >&2; cat "$out" >&2; tail -20 "$err" >&2; exit 1
  fi
  local per wall
  per=$(sed -n "s/^$app: time per iteration //p" "$out")
  wall=$(sed -n 's/^xsim: simulator wall time \([0-9.]*\) s/\1/p' "$err")
  rm -f "$out" "$err"
  awk -v t="$per" -v w="$wall" 'BEGIN { printf "%.2f %s\n", t * 1e6, w }'
}

for app in cg jacobi3d; do
  echo
  echo "$app: virtual time per iteration (us), processor model $CPU, $ITERS iterations, $PROCS native processes"
  echo
  header="| ranks |" rule="|---:|"
  for net in $NETS; do header+=" $net |"; rule+="---:|"; done
  echo "$header simulator wall time (s) |"
  echo "$rule---|"
  for p in $RANKS; do
    row="| $p |" walls=""
    for net in $NETS; do
      read -r per wall < <(run "$app" "$p" "$net")
      row+=" $per |"
      walls+="${walls:+, }$wall"
    done
    echo "$row $walls |"
  done
done

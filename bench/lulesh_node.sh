#!/usr/bin/env bash
# The node model on a real program (docs/real-programs.md "Node model"): LULESH 2.0, one rank per core of
# this 2-core machine, native against xsim without and with [node] host = "memory" from this machine's
# own calibration. LULESH needs a cube number of ranks, so "both cores busy" is two single-rank runs at
# once, one per core; xsim runs the one rank under -xsim-cpu scaled, timed alone.
#   bench/lulesh_node.sh LULESH_SRC [BUILD]     (LULESH_SRC: a checkout of github.com/LLNL/LULESH)
# Everything runs at real-time priority (chrt -f 10) so that other jobs on a shared machine stay off the
# cores while it measures. S (default 40) and I (default 40): LULESH's -s and -i; REPS (default 5).
set -euo pipefail
SRC=$1 BUILD=${2:-build}
S=${S:-40} I=${I:-40} REPS=${REPS:-5}
LIB=$BUILD/libxsim/runtime/libxsim.so CAL=$BUILD/tools/xsim-calibrate
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
( cd "$SRC" && mpicxx.mpich -O3 -DUSE_MPI=1 -I. lulesh.cc lulesh-comm.cc lulesh-viz.cc lulesh-util.cc \
    lulesh-init.cc -o "$tmp/lulesh2.0" -lm )
RT="chrt -f 10"
elapsed() { awk -v n="$S" -v i="$I" '/Grind time/ {printf "%.3f", $5 * n * n * n * i / 1e6}'; }  # more digits than "Elapsed"
$RT "$CAL" --node --out "$tmp/node.toml" | grep -E "triad|FMA"
MF=$(awk '/^memory_factor/ {print $3}' "$tmp/node.toml")
for rep in $(seq "$REPS"); do
  a=$($RT taskset -c 0 mpiexec.hydra -np 1 "$tmp/lulesh2.0" -s "$S" -i "$I" | elapsed)
  $RT taskset -c 0 mpiexec.hydra -np 1 "$tmp/lulesh2.0" -s "$S" -i "$I" > "$tmp/b0" & p0=$!
  $RT taskset -c 1 mpiexec.hydra -np 1 "$tmp/lulesh2.0" -s "$S" -i "$I" > "$tmp/b1" & p1=$!
  wait $p0 $p1
  x=(mpiexec.hydra -np 1 -env LD_PRELOAD "$LIB" "$tmp/lulesh2.0" -s "$S" -i "$I" -xsim-np 1 -xsim-cpu scaled)
  c=$($RT taskset -c 0 "${x[@]}" 2>/dev/null | elapsed)
  d=$($RT taskset -c 0 "${x[@]}" -xsim-node-host memory -xsim-node-memory-factor "$MF" 2>/dev/null | elapsed)
  echo "rep $rep: native alone $a s, both cores $(elapsed < "$tmp/b0") / $(elapsed < "$tmp/b1") s;" \
       "xsim $c s; xsim with [node] host = memory (x $MF) $d s"
done

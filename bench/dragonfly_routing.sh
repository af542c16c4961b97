#!/usr/bin/env bash
# Adaptive routing on a dragonfly against Kim, Dally, Scott, Abts, ISCA 2008 (docs/network-model.md
# "Adaptive routing"): bench/dragonfly_traffic.c on a balanced dragonfly (p = h = 4, a = 8, g = 33: 1,056
# nodes; every link 100 ns, 10 Gbps), one rank per node, 4 KiB eager messages, -xsim-contention links,
# under minimal, Valiant, UGAL-L and UGAL-G routing and three patterns: uniform random (a random
# permutation per round), shift by one group, worst case (group i to random nodes of group i + 1).
# Prints the accepted throughput at each offered load (a fraction of the injection bandwidth) and writes
# them as CSV (pattern,routing,offered,accepted) for bench/dragonfly_routing_plot.py.
#   bench/dragonfly_routing.sh [BUILD] [MSGS] [LOADS] [OUT.csv]
# Defaults: build, 100 messages per node, loads "0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9 1.0",
# dragonfly_routing.csv. The saturation throughput is the accepted throughput at offered load 1.0.
set -euo pipefail
BUILD=$(cd "${1:-build}" && pwd)
MSGS=${2:-100}
LOADS=${3:-"0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9 1.0"}
OUT=${4:-dragonfly_routing.csv}
MPIEXEC=${MPIEXEC:-mpiexec.hydra}
PROG="$BUILD/bench/dragonfly_traffic"
[ -x "$PROG" ] || { echo "dragonfly_routing: build the dragonfly_traffic target first" >&2; exit 1; }
P=4 A=8 H=4 G=33
N=$((P * A * G))
NET="dragonfly:p=$P:a=$A:h=$H:g=$G:lat=100ns:bw=10Gbps"
echo "pattern,routing,offered,accepted" > "$OUT"
for pattern in ur shift wc; do
  for routing in minimal valiant ugal-l ugal-g; do
    for load in $LOADS; do
      line=$("$MPIEXEC" -np 1 "$PROG" "$pattern" $((P * A)) "$MSGS" 4096 "$load" 10 -xsim-np "$N" \
        -xsim-mn "$NET:routing=$routing" -xsim-cpu none -xsim-contention links -xsim-eager 1M -xsim-report off \
        | grep '^dragonfly_traffic:')
      accepted=$(echo "$line" | awk '{print $6}')
      printf '%-6s %-8s offered %.2f accepted %s\n' "$pattern" "$routing" "$load" "$accepted"
      echo "$pattern,$routing,$load,$accepted" >> "$OUT"
    done
  done
done

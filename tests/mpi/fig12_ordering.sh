#!/usr/bin/env bash
# End-to-end check of the network models against the qualitative results of 004 Fig. 12: the `random`
# and `ring` examples with 1,024 virtual ranks, link latency 1 us and bandwidth 1 Gbps on every topology.
# Expected (and asserted): for `random`, star < tree < torus ~ twisted torus < mesh on a square 32x32;
# for `ring`, the ring topology is best (a twisted torus with jump 1 ties it) and the mesh is worse than
# the torus. Prints the table.
# Usage: fig12_ordering.sh EXAMPLES_DIR
set -euo pipefail
EX=$1
MPIEXEC=${MPIEXEC:-mpiexec.hydra}
L="lat=1us:bw=1Gbps"
declare -A net=(
  [star]="star:1024:$L"
  [ring]="ring:1024:$L"
  [mesh]="mesh:32x32:$L"
  [torus]="torus:32x32:$L"
  [twistedtorus]="twistedtorus:32x32:degree=1:jump=1,1:$L"
  [tree]="tree:2:depth=10:$L"
  [dragonfly]="dragonfly:p=4:a=8:h=4:g=32:routing=min:$L"
  [fattree]="fattree:m=16:n=3:$L"
)
declare -A rnd rng
for t in star ring mesh torus twistedtorus tree dragonfly fattree; do
  rnd[$t]=$("$MPIEXEC" -np 1 "$EX/random" 30 -xsim-np 1024 -xsim-cpu none -xsim-report off -xsim-mn "${net[$t]}" |
            sed -n 's/^random: average time per round //p')
  rng[$t]=$("$MPIEXEC" -np 1 "$EX/ring" 30 -xsim-np 1024 -xsim-cpu none -xsim-report off -xsim-mn "${net[$t]}" |
            sed -n 's/^ring: time per hop //p')
  printf '%-13s random: %s s per round   ring: %s s per hop   (%s)\n' "$t" "${rnd[$t]}" "${rng[$t]}" "${net[$t]}"
done
lt() { awk -v a="$1" -v b="$2" 'BEGIN{exit !(a < b)}'; }
le() { awk -v a="$1" -v b="$2" 'BEGIN{exit !(a <= b)}'; }
near() { awk -v a="$1" -v b="$2" 'BEGIN{r=a/b; exit !(r > 0.8 && r < 1.25)}'; }
fail=0
check() { if "$@"; then echo "ok:   $*"; else echo "FAIL: $*"; fail=1; fi; }
check lt "${rnd[star]}" "${rnd[tree]}"
check lt "${rnd[tree]}" "${rnd[torus]}"
check lt "${rnd[torus]}" "${rnd[mesh]}"
check lt "${rnd[twistedtorus]}" "${rnd[mesh]}"
check near "${rnd[twistedtorus]}" "${rnd[torus]}"
for t in star mesh torus tree dragonfly fattree; do check lt "${rng[ring]}" "${rng[$t]}"; done
# a twisted torus with jump 1 turns the row ends of the ring pattern into single hops: it ties the ring
check le "${rng[ring]}" "${rng[twistedtorus]}"
check lt "${rng[torus]}" "${rng[mesh]}"
exit $fail

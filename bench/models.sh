#!/usr/bin/env bash
# What the message model costs the simulator (issue 21; docs/network-model.md): `ring` and `random`
# (examples/) at 1,024 and 65,536 ranks (RANKS to change), about 1 M messages per case, one native process,
# once per model: analytic (paper 004), loggp with endpoint contention (the default), loggp without
# contention, loggp with link contention (serial sharing) and loggp with link contention and fair sharing
# (-xsim-sharing fair). The five runs of a case are interleaved REPS times (default 3) and the least simulation CPU
# time counts (the report's; noise only adds time), so the ratios compare like with like under the same
# load. Prints messages per second of CPU for each model and loggp's rates as fractions of analytic's, and
# links' and fair's as fractions of endpoint's (issue 21: links becomes the default if that is above 1/1.5).
# ROUNDS overrides the rounds per case (default: about 1 M messages).
# NET (default: the default network) gives another network, e.g. NET=torus:32x32x64 for 65,536 ranks.
#   bench/models.sh [BUILD]        e.g. RANKS="1024 65536 262144" REPS=5 bench/models.sh build
set -euo pipefail
BUILD=${1:-build}
. "$(dirname "$0")/lib.sh"
[ -x "$BUILD/examples/ring" ] || { echo "build first: cmake --build $BUILD" >&2; exit 1; }
REPS=${REPS:-3}
RANKS=${RANKS:-1024 65536}
MODELS=("-xsim-model analytic" "-xsim-model loggp -xsim-contention endpoint" "-xsim-model loggp -xsim-contention none"
        "-xsim-model loggp -xsim-contention links" "-xsim-model loggp -xsim-contention links -xsim-sharing fair")
NET_ARGS=()
[ -n "${NET:-}" ] && NET_ARGS=(-xsim-mn "$NET")
printf '%-7s %7s %9s %13s %13s %13s %13s %13s %9s %9s %9s %9s\n' program ranks messages analytic_M/s endpoint_M/s \
  none_M/s links_M/s fair_M/s endpoint/analytic none/analytic links/endpoint fair/endpoint
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for prog in ring random; do
  for m in $RANKS; do
    rounds=$(( 1048576 / m )); [ "$rounds" -lt 8 ] && rounds=8
    rounds=${ROUNDS:-$rounds}
    best=(1e99 1e99 1e99 1e99 1e99)
    msgs=0
    for ((i = 0; i < REPS; i++)); do
      for k in 0 1 2 3 4; do
        # shellcheck disable=SC2086
        "$MPIEXEC" -np 1 "$BUILD/examples/$prog" "$rounds" -xsim-np "$m" -xsim-cpu none ${MODELS[k]} "${NET_ARGS[@]}" \
          > /dev/null 2> "$log"
        msgs=$(report_msgs "$log")
        cpu=$(report_cpu "$log")
        best[k]=$(awk -v a="$cpu" -v b="${best[k]}" 'BEGIN{print (a < b) ? a : b}')
      done
    done
    ra=$(ratio "$msgs" "${best[0]}" 1e-6); re=$(ratio "$msgs" "${best[1]}" 1e-6); rn=$(ratio "$msgs" "${best[2]}" 1e-6)
    rl=$(ratio "$msgs" "${best[3]}" 1e-6); rf=$(ratio "$msgs" "${best[4]}" 1e-6)
    printf '%-7s %7s %9s %13s %13s %13s %13s %13s %9s %9s %9s %9s\n' "$prog" "$m" "$msgs" "$ra" "$re" "$rn" "$rl" "$rf" \
      "$(ratio "${best[0]}" "${best[1]}")" "$(ratio "${best[0]}" "${best[2]}")" "$(ratio "${best[1]}" "${best[3]}")" \
      "$(ratio "${best[1]}" "${best[4]}")"
  done
done

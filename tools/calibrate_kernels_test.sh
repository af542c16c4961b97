#!/usr/bin/env bash
# xsim-calibrate --kernels --node --quick (docs/real-programs.md): the tool runs as one process, and the file
# it writes has every part of the [kernels] and [node] schema. Only what holds on a loaded machine is
# checked: the file's structure and the ranges the tool guarantees (factors >= 1, positive rates), not
# the measured values.
#   calibrate_kernels_test.sh XSIM_CALIBRATE
set -euo pipefail
CAL=$1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$CAL" --kernels --node --quick --budget 5 --out "$tmp/k.toml" > "$tmp/out"
cat "$tmp/out"
fail() { echo "FAIL: $*"; cat "$tmp/k.toml"; exit 1; }
grep -q "BLAS: libblas.so.3 -> /" "$tmp/out" || fail "the BLAS's real path is not printed"
grep -Eq '^peak = "[0-9]+(\.[0-9]+)?GF"' "$tmp/k.toml" || fail "no peak"
grep -Eq '^bandwidth = "[1-9][0-9]*bps"' "$tmp/k.toml" || fail "no bandwidth"
grep -Eq '^overhead = "[0-9]+ps"' "$tmp/k.toml" || fail "no default overhead"
for f in gemm trsm axpy scal copy swap dot nrm2 iamax gemv ger trsv; do
  block=$(awk -v t="[kernels.$f]" '$1 == t {on = 1; next} /^\[/ {on = 0} on' "$tmp/k.toml")
  grep -Eq '^efficiency = [0-9.e+-]+$' <<< "$block" || fail "[kernels.$f] has no efficiency"
  grep -Eq '^overhead = "[0-9]+ps"$' <<< "$block" || fail "[kernels.$f] has no overhead"
  case $f in gemm|trsm) grep -Eq '^half_dim = [0-9.e+-]+$' <<< "$block" || fail "[kernels.$f] has no half_dim" ;; esac
  grep -q "^  -> $f: efficiency" "$tmp/out" || fail "no fit printed for $f"
done
for k in memory_factor compute_factor; do
  awk -v k=$k '$1 == k && $3 + 0 >= 1 {ok = 1} END {exit !ok}' "$tmp/k.toml" || fail "[node] $k missing or below 1"
done
grep -q '^host = "none"' "$tmp/k.toml" || fail "[node] host is not none"
echo "calibrate_kernels_test.sh: the file has [kernels] with 12 families and [node]"

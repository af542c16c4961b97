#!/usr/bin/env bash
# xsim-calibrate end to end (docs/validation.md): a quick calibration of this machine with 2 native
# processes, then a simulated ping-pong under -xsim-config with the file it wrote must take, for every
# size both print, the one-way time the tool's model predicted (to the nanosecond: the tool prints
# microseconds with 3 decimals).
#   calibrate.sh MPIEXEC XSIM_CALIBRATE PINGPONG_PLAIN LIBXSIM
set -euo pipefail
MPIEXEC=$1 CAL=$2 PINGPONG=$3 LIB=$4
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$MPIEXEC" -np 2 "$CAL" --quick --out "$tmp/cal.toml" > "$tmp/cal.out"
cat "$tmp/cal.out"
grep -q "wrote $tmp/cal.toml" "$tmp/cal.out" || { echo "FAIL: no file written"; exit 1; }
if [[ "$MPIEXEC" == *openmpi* || "$MPIEXEC" == *orterun* ]]; then preload=(-x "LD_PRELOAD=$LIB"); else preload=(-env LD_PRELOAD "$LIB"); fi
"$MPIEXEC" -np 1 "${preload[@]}" "$PINGPONG" 1048576 2 -xsim-np 2 -xsim-cpu none -xsim-config "$tmp/cal.toml" \
  > "$tmp/sim.out" 2> "$tmp/sim.err" || { echo "FAIL: the simulation with the calibrated file failed"; cat "$tmp/sim.err"; exit 1; }
cat "$tmp/sim.out"
checked=0
while read -r _ bytes _ _ oneway _; do
  model=$(awk -v b="$bytes" '$1 == b && NF == 4 {print $3}' "$tmp/cal.out")
  [ -n "$model" ] || continue
  if ! awk -v s="$oneway" -v m="$model" 'BEGIN { d = s * 1e6 - m; exit !(d < 0.0011 && d > -0.0011) }'; then
    echo "FAIL: $bytes bytes: simulated one-way $oneway s, the calibration's model $model us"; exit 1
  fi
  checked=$((checked + 1))
done < <(grep '^pingpong: [0-9]* bytes' "$tmp/sim.out")
[ "$checked" -ge 6 ] || { echo "FAIL: only $checked sizes compared"; exit 1; }
echo "calibrate.sh: the simulation reproduces the calibrated model at $checked sizes"

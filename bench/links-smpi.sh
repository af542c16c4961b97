#!/usr/bin/env bash
# Link contention against SimGrid's SMPI (docs/network-model.md "Link contention"): flows of 1 MiB that
# share links of a line of 8 hosts (1 us, 1 Gbps links, full duplex), run by bench/flows.c under xsim
# (mesh:8, -xsim-contention endpoint and links, eager sends) and under SMPI (the same line as a SimGrid
# platform with SPLITDUPLEX links, the CM02 model without SMPI's correction factors, eager sends). Prints
# each receiver's completion time in both simulators. Needs libsimgrid-dev (smpicc, smpirun).
#   bench/links-smpi.sh [BUILD]
set -euo pipefail
BUILD=$(cd "${1:-build}" && pwd)
SRC=$(cd "$(dirname "$0")/.." && pwd)
MPIEXEC=${MPIEXEC:-mpiexec.hydra}
command -v smpicc > /dev/null || { echo "links-smpi: install libsimgrid-dev (smpicc, smpirun)" >&2; exit 1; }
LIB=$(find "$BUILD/libxsim" -name libxsim.so | head -1)
[ -n "$LIB" ] || { echo "links-smpi: build xsim first" >&2; exit 1; }
WORK=$(mktemp -d /tmp/links-smpi.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
mpicc.mpich -O2 "$SRC/bench/flows.c" -o "$WORK/flows"
smpicc -O2 "$SRC/bench/flows.c" -o "$WORK/flows_smpi" > "$WORK/smpicc.log" 2>&1 || { cat "$WORK/smpicc.log" >&2; exit 1; }
# The line h0 - h1 - ... - h7: link l_i joins h_i and h_(i+1); UP is the direction towards higher hosts.
N=8
{
  echo "<?xml version='1.0'?>"
  echo '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">'
  echo '<platform version="4.1"><zone id="line" routing="Full">'
  for ((i = 0; i < N; i++)); do echo "<host id=\"h$i\" speed=\"1Gf\"/>"; done
  for ((i = 0; i < N - 1; i++)); do
    echo "<link id=\"l$i\" bandwidth=\"125MBps\" latency=\"1us\" sharing_policy=\"SPLITDUPLEX\"/>"
  done
  for ((s = 0; s < N; s++)); do
    for ((d = 0; d < N; d++)); do
      [ "$s" = "$d" ] && continue
      printf '<route src="h%d" dst="h%d" symmetrical="NO">' "$s" "$d"
      if [ "$s" -lt "$d" ]; then
        for ((k = s; k < d; k++)); do printf '<link_ctn id="l%d" direction="UP"/>' "$k"; done
      else
        for ((k = s - 1; k >= d; k--)); do printf '<link_ctn id="l%d" direction="DOWN"/>' "$k"; done
      fi
      echo '</route>'
    done
  done
  echo '</zone></platform>'
} > "$WORK/line.xml"
for ((i = 0; i < N; i++)); do echo "h$i"; done > "$WORK/hosts"
times() { sed -n 's/^flows: rank \([0-9]*\) received at \([0-9.]*\) us$/\1 \2/p' | sort -n | awk '{printf "%s:%s ", $1, $2}'; }
for case in "0:3 1:4" "0:7 1:6 2:5 3:4" "0:4 1:4 2:4 3:4" "0:2 1:3 2:4 3:5"; do
  # shellcheck disable=SC2086
  smpi=$(smpirun -np $N -platform "$WORK/line.xml" -hostfile "$WORK/hosts" --cfg=network/model:CM02 \
    --cfg=smpi/send-is-detached-thresh:4194304 --cfg=smpi/async-small-thresh:4194304 \
    "$WORK/flows_smpi" $case 2> /dev/null | times)
  echo "case $case"
  echo "  smpi      (rank:us)  $smpi"
  for c in endpoint links; do
    # shellcheck disable=SC2086
    x=$(LD_PRELOAD=$LIB "$MPIEXEC" -n 1 "$WORK/flows" $case -xsim-np $N -xsim-mn mesh:$N:lat=1us:bw=1Gbps \
      -xsim-cpu none -xsim-eager 2M -xsim-contention $c -xsim-report off | times)
    printf '  xsim %-9s(rank:us)  %s\n' "$c" "$x"
  done
done

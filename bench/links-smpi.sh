#!/usr/bin/env bash
# Link contention against SimGrid's SMPI (docs/network-model.md "Link contention"): flows of 1 MiB that
# share links, run by bench/flows.c under xsim (-xsim-contention endpoint and links, eager sends) and under
# SMPI (the CM02 model without SMPI's correction factors, eager sends), on the same routes:
#   1. a line of 8 hosts (1 us, 1 Gbps full-duplex links; xsim mesh:8): each receiver's completion time;
#   2. a 5x5 torus (1 us, 1 Gbps links): two permutations, the transpose and a shift by (2, 2); the SimGrid
#      platform is written from xsim-net's own link lists (one SimGrid link per directed link), so both
#      simulators route alike and only the sharing differs: mean and last completion over the ranks.
# Needs libsimgrid-dev (smpicc, smpirun) and python3.
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
echo "line of $N hosts"
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

# 2. The 5x5 torus, routes from xsim-net.
SPEC=torus:5x5:lat=1us:bw=1Gbps
python3 - "$BUILD/tools/xsim-net" "$SPEC" 25 "$WORK/torus.xml" << 'PY'
import subprocess, sys
xnet, spec, n, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
routes, links = {}, set()
for s in range(n):
    for d in range(n):
        if s != d:
            text = subprocess.run([xnet, "--mn", spec, "links", str(s), str(d)], capture_output=True, text=True,
                                  check=True).stdout
            routes[(s, d)] = [int(line.split()[1]) for line in text.splitlines()[1:]]
            links.update(routes[(s, d)])
with open(out, "w") as f:
    f.write("<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n")
    f.write('<platform version="4.1"><zone id="torus" routing="Full">\n')
    f.writelines(f'<host id="h{h}" speed="1Gf"/>\n' for h in range(n))
    f.writelines(f'<link id="l{l}" bandwidth="125MBps" latency="1us"/>\n' for l in sorted(links))
    for (s, d), ids in routes.items():
        f.write(f'<route src="h{s}" dst="h{d}" symmetrical="NO">' + "".join(f'<link_ctn id="l{i}"/>' for i in ids) +
                "</route>\n")
    f.write("</zone></platform>\n")
PY
for ((i = 0; i < 25; i++)); do echo "h$i"; done > "$WORK/hosts25"
summary() { sed -n 's/^flows: rank [0-9]* received at \([0-9.]*\) us$/\1/p' |
  awk '{s += $1; if ($1 > m) m = $1} END {printf "mean %.1f us, last %.1f us (%d receivers)", s / NR, m, NR}'; }
transpose=$(for ((x = 0; x < 5; x++)); do for ((y = 0; y < 5; y++)); do
  if [ $x -ne $y ]; then printf '%d:%d ' $((x + 5 * y)) $((y + 5 * x)); fi; done; done)
shift22=$(for ((x = 0; x < 5; x++)); do for ((y = 0; y < 5; y++)); do
  printf '%d:%d ' $((x + 5 * y)) $(((x + 2) % 5 + 5 * ((y + 2) % 5))); done; done)
echo "torus 5x5"
for name in transpose shift22; do
  case=${!name}
  # shellcheck disable=SC2086
  smpi=$(smpirun -np 25 -platform "$WORK/torus.xml" -hostfile "$WORK/hosts25" --cfg=network/model:CM02 \
    --cfg=smpi/send-is-detached-thresh:4194304 --cfg=smpi/async-small-thresh:4194304 \
    "$WORK/flows_smpi" $case 2> /dev/null | summary)
  echo "case $name"
  echo "  smpi           $smpi"
  for c in endpoint links; do
    # shellcheck disable=SC2086
    x=$(LD_PRELOAD=$LIB "$MPIEXEC" -n 1 "$WORK/flows" $case -xsim-np 25 -xsim-mn $SPEC -xsim-cpu none -xsim-eager 2M \
      -xsim-contention $c -xsim-report off | summary)
    printf '  xsim %-9s %s\n' "$c" "$x"
  done
done

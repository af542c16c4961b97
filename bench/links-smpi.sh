#!/usr/bin/env bash
# Link contention against SimGrid's SMPI (docs/network-model.md "Link contention", "Fair sharing"): flows of
# 1 MiB that share links, run by bench/flows.c under xsim (-xsim-contention endpoint, and links with each
# -xsim-sharing: serial, fair, rtt; eager sends) and under SMPI (the CM02 model without SMPI's correction
# factors, eager sends, no computation timed), on the same routes. Every receiver's completion time is printed, with its error
# against SMPI's, and per mode the largest error of a case:
#   1. a line of 8 hosts (1 us, 1 Gbps full-duplex links; xsim mesh:8);
#   2. a 5x5 torus (1 us, 1 Gbps links): the transpose and a shift by (2, 2);
#   3. a dragonfly (p=2, a=2, h=1, 3 groups: 12 nodes, minimal routing): every node of group i to group i+1;
#   4. a 4-port 3-tree (16 nodes): node s to 15 - s (no link shared), and the transpose of a 4x4 grid
#      (node 4a + b to 4b + a: flows to nearby destinations meet on their down links).
#   For 2-4 the SimGrid platform is written from xsim-net's own link lists (one SimGrid link per directed
#   link), so both simulators route alike and only the sharing differs.
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
# compare SMPI_OUT XSIM_OUT...: every receiver's completion (us) under SMPI and each xsim mode, the error
# of each against SMPI's, and per mode the largest error of the case ("flows: rank R received at T us").
compare() {
  python3 - "$@" << 'PY'
import re, sys
def parse(path):
    return {int(m.group(1)): float(m.group(2)) for m in re.finditer(r"^flows: rank (\d+) received at ([0-9.]+) us$", open(path).read(), re.M)}
smpi = parse(sys.argv[1])
modes = [(p.rsplit(".", 1)[-1], parse(p)) for p in sys.argv[2:]]
print("    rank      smpi" + "".join(f" {name:>18}" for name, _ in modes))
worst = {name: 0.0 for name, _ in modes}
for r in sorted(smpi):
    row = f"    {r:4d} {smpi[r]:9.1f}"
    for name, t in modes:
        err = (t[r] - smpi[r]) / smpi[r] * 100
        worst[name] = max(worst[name], abs(err))
        row += f" {t[r]:9.1f} {err:+6.2f}%"
    print(row)
print("    largest |error|: " + ", ".join(f"{name} {w:.2f}%" for name, w in worst.items()))
PY
}
# run_case NAME NP PLATFORM HOSTS SPEC PAIRS...: SMPI and xsim (endpoint; links serial, fair, rtt) on PAIRS.
run_case() {
  local name=$1 np=$2 platform=$3 hosts=$4 spec=$5 c m
  shift 5
  echo "case $name: $*"
  smpirun -np "$np" -platform "$platform" -hostfile "$hosts" --cfg=network/model:CM02 \
    --cfg=smpi/simulate-computation:no --cfg=network/crosstraffic:0 \
    --cfg=smpi/send-is-detached-thresh:4194304 --cfg=smpi/async-small-thresh:4194304 \
    "$WORK/flows_smpi" "$@" > "$WORK/out.smpi" 2> /dev/null
  local outs=()
  for m in endpoint links:serial links:fair links:rtt; do
    c=${m%%:*}
    LD_PRELOAD=$LIB "$MPIEXEC" -n 1 "$WORK/flows" "$@" -xsim-np "$np" -xsim-mn "$spec" -xsim-cpu none -xsim-eager 2M \
      -xsim-contention "$c" -xsim-sharing "$([ "$c" = links ] && echo "${m#*:}" || echo serial)" -xsim-report off \
      > "$WORK/out.${m#links:}"
    outs+=("$WORK/out.${m#links:}")
  done
  compare "$WORK/out.smpi" "${outs[@]}"
}
# platform SPEC N OUT: a SimGrid platform with xsim-net's routes of SPEC between N nodes (1 us, 1 Gbps links).
platform() {
  python3 - "$BUILD/tools/xsim-net" "$1" "$2" "$3" << 'PY'
import subprocess, sys
xnet, spec, n, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
routes, links = {}, set()
for s in range(n):
    for d in range(n):
        if s != d:
            text = subprocess.run([xnet, "--mn", spec, "--np", str(n), "links", str(s), str(d)], capture_output=True,
                                  text=True, check=True).stdout
            routes[(s, d)] = [int(line.split()[1]) for line in text.splitlines()[1:]]
            links.update(routes[(s, d)])
with open(out, "w") as f:
    f.write("<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n")
    f.write('<platform version="4.1"><zone id="net" routing="Full">\n')
    f.writelines(f'<host id="h{h}" speed="1Gf"/>\n' for h in range(n))
    f.writelines(f'<link id="l{l}" bandwidth="125MBps" latency="1us"/>\n' for l in sorted(links))
    for (s, d), ids in routes.items():
        f.write(f'<route src="h{s}" dst="h{d}" symmetrical="NO">' + "".join(f'<link_ctn id="l{i}"/>' for i in ids) +
                "</route>\n")
    f.write("</zone></platform>\n")
PY
  for ((i = 0; i < $2; i++)); do echo "h$i"; done > "$3.hosts"
}
echo "line of $N hosts"
for case in "0:3 1:4" "0:7 1:6 2:5 3:4" "0:4 1:4 2:4 3:4" "0:2 1:3 2:4 3:5"; do
  # shellcheck disable=SC2086
  run_case line $N "$WORK/line.xml" "$WORK/hosts" mesh:$N:lat=1us:bw=1Gbps $case
done

# 2. The 5x5 torus, routes from xsim-net.
SPEC=torus:5x5:lat=1us:bw=1Gbps
platform $SPEC 25 "$WORK/torus.xml"
# shellcheck disable=SC2034  # read through ${!name} below
transpose=$(for ((x = 0; x < 5; x++)); do for ((y = 0; y < 5; y++)); do
  if [ $x -ne $y ]; then printf '%d:%d ' $((x + 5 * y)) $((y + 5 * x)); fi; done; done)
# shellcheck disable=SC2034
shift22=$(for ((x = 0; x < 5; x++)); do for ((y = 0; y < 5; y++)); do
  printf '%d:%d ' $((x + 5 * y)) $(((x + 2) % 5 + 5 * ((y + 2) % 5))); done; done)
echo "torus 5x5"
for name in transpose shift22; do
  # shellcheck disable=SC2086
  run_case "$name" 25 "$WORK/torus.xml" "$WORK/torus.xml.hosts" $SPEC ${!name}
done

# 3. A dragonfly: 3 groups of 2 routers with 2 nodes each, one global link between each pair of groups.
SPEC=dragonfly:p=2:a=2:h=1:routing=min:lat=1us:bw=1Gbps
platform $SPEC 12 "$WORK/dragonfly.xml"
echo "dragonfly p=2 a=2 h=1 g=3 (minimal routing)"
# shellcheck disable=SC2046
run_case group-shift 12 "$WORK/dragonfly.xml" "$WORK/dragonfly.xml.hosts" $SPEC $(for ((s = 0; s < 12; s++)); do
  printf '%d:%d ' $s $(((s + 4) % 12)); done)

# 4. A 4-port 3-tree (d-mod-k up routes).
SPEC=fattree:m=4:n=3:lat=1us:bw=1Gbps
platform $SPEC 16 "$WORK/fattree.xml"
echo "fat tree m=4 n=3"
# shellcheck disable=SC2046
run_case reverse 16 "$WORK/fattree.xml" "$WORK/fattree.xml.hosts" $SPEC $(for ((s = 0; s < 16; s++)); do
  [ $s -ne $((15 - s)) ] && printf '%d:%d ' $s $((15 - s)); done)
# shellcheck disable=SC2046
run_case transpose 16 "$WORK/fattree.xml" "$WORK/fattree.xml.hosts" $SPEC $(for ((s = 0; s < 16; s++)); do
  d=$((s % 4 * 4 + s / 4)); [ $s -ne $d ] && printf '%d:%d ' $s $d; done)

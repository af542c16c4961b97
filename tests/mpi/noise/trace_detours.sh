#!/usr/bin/env bash
# Detours are regions of their own in the traces (docs/noise.md "Traces"): noise/noise.c on 2 ranks (nodes
# of their own) under -xsim-noise periodic:1ms:10us. Each rank's computation meets the detours at 0, 1, ...
# 9 ms, 10 us each, except rank 1's at 7 ms: it waits inside MPI_Recv then, and a detour during MPI time is
# absorbed, not charged (noise.c's header gives the times). The Chrome trace must hold exactly those
# "xsim: detour (noise)" slices (category noise), and the OTF2 archive the same region entered and left
# at the same picoseconds (otf2-print).
#   trace_detours.sh NOISE_PROGRAM OUT_DIR [N]
set -euo pipefail
prog=$1 out=$2 n=${3:-1}
rm -rf "$out"; mkdir -p "$out"
"${MPIEXEC:-mpiexec.hydra}" -np "$n" "$prog" -xsim-np 2 -xsim-cpu none -xsim-noise periodic:1ms:10us \
  -xsim-trace "$out/t" > "$out/stdout" 2> "$out/stderr" || { cat "$out/stderr"; echo "FAIL: the run failed"; exit 1; }
want() {  # rank: "start_ps end_ps" per detour
  for ms in 0 1 2 3 4 5 6 7 8 9; do
    [ "$1" = 1 ] && [ "$ms" = 7 ] && continue
    echo "$((ms * 1000000000)) $((ms * 1000000000 + 10000000))"
  done
}
python3 - "$out/t.json" "$(want 0 | tr '\n' ,)" "$(want 1 | tr '\n' ,)" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"] if isinstance(d, dict) else d
for rank in (0, 1):
    want = [tuple(int(x) for x in p.split()) for p in sys.argv[2 + rank].split(",") if p]
    got = [e for e in ev if e.get("name") == "xsim: detour (noise)" and e["tid"] == rank]
    if any(e.get("cat") != "noise" or e.get("ph") != "X" for e in got):
        sys.exit(f"FAIL: rank {rank}: detour slices not complete events of category noise: {got}")
    ps = [(round(float(e["ts"]) * 1e6), round((float(e["ts"]) + float(e["dur"])) * 1e6)) for e in got]
    if ps != want:
        sys.exit(f"FAIL: rank {rank}: detour slices {ps}, expected {want} (start, end in ps)")
    print(f"json: rank {rank}: {len(ps)} detours as expected")
PY
if command -v otf2-print > /dev/null; then
  otf2-print "$out/t.otf2" > "$out/otf2.txt"
  for rank in 0 1; do
    got=$(awk -v r="$rank" '/"xsim: detour \(noise\)"/ && $2 == r {print $1, $3}' "$out/otf2.txt" | paste -d' ' - - |
          awk '$1 == "ENTER" && $3 == "LEAVE" {print $2, $4} $1 != "ENTER" || $3 != "LEAVE" {print "bad", $0}')
    [ "$got" = "$(want "$rank")" ] || { echo "FAIL: OTF2 detours of rank $rank:"; echo "$got"; exit 1; }
    echo "otf2: rank $rank: $(echo "$got" | wc -l) detours as expected"
  done
fi

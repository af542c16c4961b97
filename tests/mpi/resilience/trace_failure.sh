#!/usr/bin/env bash
# An injected failure is visible in the traces (docs/resilience.md): tests/mpi/resilience/ulfm.c in mode shrink,
# 4 ranks, rank 1 failing at 1 ms; it computes 2 ms first, so it fails at its next MPI call, at 2 ms. The
# Chrome trace must hold a zero-length "xsim: process failure (injected)" slice on rank 1 at 2,000 us, and
# the OTF2 archive the same region entered and left by location 1 at 2,000,000,000 ps (otf2-print).
#   trace_failure.sh ULFM_PROGRAM OUT_DIR [N]
set -euo pipefail
prog=$1 out=$2 n=${3:-1}
rm -rf "$out"; mkdir -p "$out"
"${MPIEXEC:-mpiexec.hydra}" -np "$n" "$prog" shrink -xsim-np 4 -xsim-cpu none -xsim-fault 1@1ms -xsim-trace "$out/t" \
  > "$out/stdout" 2> "$out/stderr" || { cat "$out/stderr"; echo "FAIL: the run failed"; exit 1; }
python3 - "$out/t.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"] if isinstance(d, dict) else d
f = [e for e in ev if e.get("name") == "xsim: process failure (injected)"]
want = [(1, 2000.0, 0.0)]
got = [(e["tid"], float(e["ts"]), float(e.get("dur", 0))) for e in f]
if got != want:
    sys.exit(f"FAIL: failure slices {got}, expected {want} (tid, ts us, dur)")
print("json: rank 1 fails at 2000 us")
PY
if command -v otf2-print > /dev/null; then
  lines=$(otf2-print "$out/t.otf2" | grep '"xsim: process failure (injected)"' | awk '{print $1, $2, $3}')
  [ "$lines" = "$(printf 'ENTER 1 2000000000\nLEAVE 1 2000000000')" ] ||
    { echo "FAIL: OTF2 failure records: $lines"; exit 1; }
  echo "otf2: rank 1 fails at 2000000000 ps"
fi

#!/usr/bin/env bash
# Cost per simulated message as the rank count grows: `ring` and `random` with 1,024 ... 262,144 virtual
# ranks, rounds chosen so that every case sends about 1 million messages (at least 4 rounds), on 1 (and
# with N=2 in the environment, 2) native processes. Prints messages, wall time, messages per second and
# ns per message from xsim's run report (messages include the final reduction's).
# Usage: bench/scaling.sh [BUILD_DIR] [N...]   (default: build 1). A few minutes on a quiet machine.
set -euo pipefail
BUILD=${1:-build}
shift || true
NPROCS=${*:-1}
. "$(dirname "$0")/lib.sh"
[ -x "$BUILD/examples/ring" ] || { echo "build first: cmake --build $BUILD" >&2; exit 1; }
printf '%-8s %8s %7s %3s %10s %8s %10s %9s %9s\n' program ranks rounds N messages wall_s msgs/s ns/msg KiB/rank
for n in $NPROCS; do
  for prog in ring random; do
    for m in 1024 4096 16384 65536 262144; do
      rounds=$(( 1048576 / m )); [ "$rounds" -lt 4 ] && rounds=4
      log=$(mktemp)
      "$MPIEXEC" -np "$n" "$BUILD/examples/$prog" "$rounds" -xsim-np "$m" -xsim-cpu none > /dev/null 2> "$log"
      msgs=$(report_msgs "$log"); wall=$(report_wall "$log")
      printf '%-8s %8s %7s %3s %10s %8s %10s %9s %9s\n' "$prog" "$m" "$rounds" "$n" "$msgs" "$wall" \
        "$(ratio "$msgs" "$wall")" "$(ratio "$wall" "$msgs" 1e9)" "$(report_kib "$log")"
      rm -f "$log"
    done
  done
done

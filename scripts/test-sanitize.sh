#!/usr/bin/env bash
# Builds xsim with AddressSanitizer + UndefinedBehaviorSanitizer into build-asan/ (or $XSIM_ASAN_BUILD_DIR)
# and runs the unit, MPI, differential and fuzz-corpus tests under them (docs/testing.md, "Sanitizers and
# fuzzing"), except those tests/sanitize/excluded-tests lists with their reasons (the slowest large-scale
# runs); XSIM_SANITIZE_ALL=1 runs every test. Extra arguments go to ctest (e.g. -R ring). Called by
# scripts/test.sh; prints the build's and the suite's wall times.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
./scripts/install-deps.sh
BUILD=${XSIM_ASAN_BUILD_DIR:-build-asan}
start=$(date +%s)
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DXSIM_SANITIZE=address,undefined \
  > "$BUILD.configure.log" 2>&1 || { cat "$BUILD.configure.log"; exit 1; }
cmake --build "$BUILD" -j"$(nproc)"
echo "test-sanitize.sh: built in $(( $(date +%s) - start )) s"
# The sanitizers' settings for every test (inherited through ctest and mpiexec):
. "$ROOT/tests/sanitize/env.sh"
# Tests left out, each with its reason in tests/sanitize/excluded-tests (NAME REASON, one per line).
EXCLUDE=""
if [ "${XSIM_SANITIZE_ALL:-0}" = 0 ]; then
  EXCLUDE=$(sed -e '/^#/d' -e '/^ *$/d' "$ROOT/tests/sanitize/excluded-tests" | cut -d' ' -f1 | paste -sd'|')
fi
cd "$BUILD"
start=$(date +%s)
ctest --output-on-failure -j2 --timeout 600 ${EXCLUDE:+-E "^($EXCLUDE)\$"} "$@"
left_out="none left out"
[ -n "$EXCLUDE" ] && left_out="$(tr '|' '\n' <<< "$EXCLUDE" | wc -l) left out: tests/sanitize/excluded-tests"
echo "test-sanitize.sh: tests run in $(( $(date +%s) - start )) s ($left_out)"

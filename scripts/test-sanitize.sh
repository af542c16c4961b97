#!/usr/bin/env bash
# Builds xsim with AddressSanitizer + UndefinedBehaviorSanitizer into build-asan/ (or $XSIM_ASAN_BUILD_DIR)
# and runs the unit, MPI and fuzz-corpus tests under them (docs/testing.md, "Sanitizers and fuzzing").
# Extra arguments go to ctest (e.g. -R ring). Called by scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
./scripts/install-deps.sh
BUILD=${XSIM_ASAN_BUILD_DIR:-build-asan}
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DXSIM_SANITIZE=address,undefined \
  > "$BUILD.configure.log" 2>&1 || { cat "$BUILD.configure.log"; exit 1; }
cmake --build "$BUILD" -j"$(nproc)"
# The sanitizers' settings for every test (inherited through ctest and mpiexec):
. "$ROOT/tests/sanitize/env.sh"
# Tests left out under ASan, each with its reason in tests/sanitize/excluded-tests.
EXCLUDE=$(sed -e '/^#/d' -e '/^ *$/d' "$ROOT/tests/sanitize/excluded-tests" | cut -d' ' -f1 | paste -sd'|')
cd "$BUILD"
ctest --output-on-failure -j2 --timeout 600 ${EXCLUDE:+-E "^($EXCLUDE)\$"} "$@"

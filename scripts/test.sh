#!/usr/bin/env bash
# Installs, builds and runs the whole test suite (GoogleTest units and MPI programs under mpiexec).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh
BUILD=${XSIM_BUILD_DIR:-build}
(cd "$BUILD" && ctest --output-on-failure -j2 --timeout 600)
# The same tests under ASan + UBSan, and a short fuzz run of the parsers (docs/testing.md, "Sanitizers and
# fuzzing"). XSIM_TEST_SANITIZE=1 runs both (not yet the default: the whole suite has not passed under ASan
# yet); FUZZ_SECONDS sets the seconds per fuzz target (default 25).
if [ "${XSIM_TEST_SANITIZE:-0}" != 0 ]; then
  ./scripts/test-sanitize.sh
  ./scripts/fuzz.sh
fi

#!/usr/bin/env bash
# Installs, builds and runs the whole test suite (GoogleTest units and MPI programs under mpiexec).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh
BUILD=${XSIM_BUILD_DIR:-build}
cd "$BUILD"
ctest --output-on-failure -j2 --timeout 600

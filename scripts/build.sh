#!/usr/bin/env bash
# Installs the dependencies (Debian packages, idempotent) and builds xsim into build/ (or $XSIM_BUILD_DIR)
# against the native MPI $XSIM_MPI: mpich (the default) or openmpi (default directory build-openmpi/).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
MPI=${XSIM_MPI:-mpich}
case "$MPI" in
  mpich) BUILD=${XSIM_BUILD_DIR:-build} ;;
  openmpi) BUILD=${XSIM_BUILD_DIR:-build-openmpi} ;;
  *) echo "build.sh: XSIM_MPI=$MPI: give mpich or openmpi" >&2; exit 2 ;;
esac
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DXSIM_MPI="$MPI" ${XSIM_CMAKE_ARGS:-} \
  > "$BUILD.configure.log" 2>&1 || { cat "$BUILD.configure.log"; exit 1; }
cmake --build "$BUILD" -j"$(nproc)"

#!/usr/bin/env bash
# The main job: installs, builds, then simulates the paper's `ring` micro-benchmark with 4,096 virtual
# ranks on 2 native MPI processes over the default Gigabit Ethernet star, and prints the run report.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh
BUILD=${XSIM_BUILD_DIR:-build}
set -x
mpiexec.hydra -np 2 "$BUILD/examples/ring" -xsim-np 4096 -xsim-cpu none

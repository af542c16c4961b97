#!/usr/bin/env bash
# Installs, builds and runs the whole test suite (GoogleTest units and MPI programs under mpiexec) once per
# native MPI: MPICH in build/ (or $XSIM_BUILD_DIR), then Open MPI in build-openmpi/ (or
# $XSIM_BUILD_DIR_OPENMPI), whose suite also checks that both give the same virtual times
# (same_across_mpis). XSIM_MPIS chooses: "mpich openmpi" (the default: both), "mpich" or "openmpi" alone.
# Then the sanitizer suite and the fuzz run (docs/testing.md, "Sanitizers and fuzzing"):
# scripts/test-sanitize.sh builds with AddressSanitizer + UndefinedBehaviorSanitizer into build-asan/ and
# runs the tests under them, and scripts/fuzz.sh fuzzes the parsers for FUZZ_SECONDS (default here 15) per
# target. XSIM_TEST_SANITIZE=0 leaves both out. Every phase prints its wall time; the last line sums them.
set -euo pipefail
cd "$(dirname "$0")/.."
MPIS=${XSIM_MPIS:-mpich openmpi}
MPICH_BUILD=${XSIM_BUILD_DIR:-build}
OPENMPI_BUILD=${XSIM_BUILD_DIR_OPENMPI:-build-openmpi}
SANITIZE=${XSIM_TEST_SANITIZE:-1}
./scripts/install-deps.sh
t_all=$(date +%s)
summary=()
# done_phase NAME START: prints and records how long phase NAME took
done_phase() {
  local s=$(( $(date +%s) - $2 ))
  echo "test.sh: $1: done in $s s"
  summary+=("$1 $s s")
}
for mpi in $MPIS; do
  start=$(date +%s)
  if [ "$mpi" = mpich ]; then
    XSIM_MPI=mpich XSIM_BUILD_DIR=$MPICH_BUILD ./scripts/build.sh
    dir=$MPICH_BUILD
  else
    compare=""
    case " $MPIS " in *" mpich "*) compare="-DXSIM_COMPARE_BUILD=$(cd "$MPICH_BUILD" && pwd)" ;; esac
    XSIM_MPI=openmpi XSIM_BUILD_DIR=$OPENMPI_BUILD XSIM_CMAKE_ARGS="$compare" ./scripts/build.sh
    dir=$OPENMPI_BUILD
  fi
  (cd "$dir" && ctest --output-on-failure -j2 --timeout 600)
  done_phase "$mpi (build + suite)" "$start"
done
if [ "$SANITIZE" != 0 ]; then
  start=$(date +%s)
  ./scripts/test-sanitize.sh
  done_phase "asan+ubsan (build + suite)" "$start"
  start=$(date +%s)
  FUZZ_SECONDS=${FUZZ_SECONDS:-15} FUZZ_SEED=${FUZZ_SEED:-1} ./scripts/fuzz.sh
  done_phase "fuzz (build + run)" "$start"
fi
summary_line=$(IFS=,; echo "${summary[*]}" | sed 's/,/, /g')
echo "test.sh: all passed in $(( $(date +%s) - t_all )) s: $summary_line"

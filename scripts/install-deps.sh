#!/usr/bin/env bash
# Installs xsim's build and test dependencies from Debian packages (both native MPIs: MPICH and Open MPI;
# installing libopenmpi-dev makes Debian's plain mpicc/mpi.h Open MPI's, xsim names each MPI's wrappers). Idempotent:
# does nothing (and needs no network) when every package is already present.
# `install-deps.sh demo` installs only what libxsim.so and the C examples need (scripts/demo.sh): a C/C++
# compiler, CMake, MPICH, Boost.Context, libunwind and toml++; configure then says what it leaves out.
set -euo pipefail
pkgs=(mpich libmpich-dev openmpi-bin libopenmpi-dev libboost-context-dev libunwind-dev libtomlplusplus-dev
      libgtest-dev cmake g++ gfortran make pkg-config python3 binutils
      libotf2-trace-dev otf2-tools python3-matplotlib)  # traces (OTF2, otf2-print) and tools/xsim-plot
pkgs+=(scalapack-mpi-test netpipe-mpich2)  # real MPI programs the suite runs unmodified (tests/mpi/packages.cmake)
pkgs+=(libopenblas-dev libblas-dev)  # BLAS for the kernel model tests (tests/mpi/kernels.cmake): OpenBLAS, reference
pkgs+=(libopenmpi-dev openmpi-bin)  # Open MPI: fortran/gen_bindings.py reads its mpi.h; test fortran_bindings_openmpi
pkgs+=(libblas3)  # a BLAS for test calibrate_kernels (xsim-calibrate --kernels dlopen()s libblas.so.3)
pkgs+=(clang-14 libclang-rt-14-dev)  # libFuzzer for scripts/fuzz.sh (gcc's libasan/libubsan come with g++)
if [ "${1:-all}" = demo ]; then
  pkgs=(cmake g++ make pkg-config mpich libmpich-dev libboost-context-dev libunwind-dev libtomlplusplus-dev)
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "install-deps: installing ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"

#!/usr/bin/env bash
# The host cost of a BLAS call through libxsim (docs/real-programs.md "Kernel models", "Cost"): blas_calls
# natively (the program's BLAS directly), under xsim with -xsim-kernels exec (libxsim's entry point, then
# the BLAS) and with -xsim-kernels model (not run: the model and the rank's clock). One rank, one process.
# Usage: bench/blas_calls.sh [BUILD_DIR] [ITER]
set -eu
build=${1:-build} iter=${2:-10000000}
lib=$build/libxsim/runtime/libxsim.so prog=$build/bench/blas_calls
echo "native:            $(mpiexec.hydra -np 1 "$prog" "$iter")"
echo "xsim exec:         $(mpiexec.hydra -np 1 -env LD_PRELOAD "$lib" "$prog" "$iter" -xsim-virtual-clocks off -xsim-report off)"
echo "xsim model:        $(mpiexec.hydra -np 1 -env LD_PRELOAD "$lib" "$prog" "$iter" -xsim-virtual-clocks off -xsim-report off \
  -xsim-kernels model -xsim-kernel-preset frontera)"
echo "xsim model, cpu none: $(mpiexec.hydra -np 1 -env LD_PRELOAD "$lib" "$prog" "$iter" -xsim-virtual-clocks off -xsim-report off \
  -xsim-kernels model -xsim-kernel-preset frontera -xsim-cpu none)"

#!/usr/bin/env bash
# xsim's Fortran bindings (fortran/bindings.c, special.c) against Open MPI's ABI, without the simulator: the
# bindings are compiled with Open MPI's mpi.h into a library of their own, Fortran test programs built with
# Open MPI's mpif90 are linked to it (so their mpi_* calls reach the bindings, which call Open MPI's C
# functions), and run on 2 native Open MPI processes. This checks the conversions xsim's bindings make
# (handles through MPI_*_f2c/c2f, Open MPI's Fortran sentinels, status arrays, strings, callbacks) against
# real pointer handles. Skipped (77) when Open MPI's compilers are not installed.
# usage: fortran_bindings_openmpi.sh SOURCE_DIR WORK_DIR
set -uo pipefail
src=$1 work=$2
for tool in mpicc.openmpi mpif90.openmpi mpirun.openmpi; do
  command -v $tool > /dev/null || { echo "SKIP: $tool not installed (apt-get install libopenmpi-dev)"; exit 77; }
done
mkdir -p "$work" && cd "$work" || exit 1
cat > unsupported.c <<'C'
#include <stdio.h>
#include <stdlib.h>
__attribute__((visibility("default"), noreturn)) void xsim_unsupported(const char* name) {
  fprintf(stderr, "%s is not supported\n", name);
  exit(3);
}
/* without libxsim, Open MPI's keyvals: their Fortran records live as long as the process */
int xsim_keyval_set_release(int keyval, void (*release)(void*)) {
  (void)keyval;
  (void)release;
  return 0;
}
C
mpicc.openmpi -std=gnu11 -O1 -fPIC -shared -Wno-stringop-overflow -o libxsim_fortran_ompi.so \
  "$src/fortran/bindings.c" "$src/fortran/special.c" unsupported.c || { echo "FAIL: bindings do not compile"; exit 1; }
fail=0
for t in conventions coll types cart; do
  mpif90.openmpi -frecursive -fallow-argument-mismatch -w -o "fortran_$t" "$src/tests/mpi/fortran/fortran_test_util.f90" \
    "$src/tests/mpi/fortran/fortran_$t.f90" \
    -L. -lxsim_fortran_ompi -Wl,-rpath,"$PWD" || { echo "FAIL: fortran_$t does not build"; fail=1; continue; }
  timeout 120 mpirun.openmpi --allow-run-as-root --oversubscribe -np 2 "./fortran_$t" > "$t.out" 2>&1
  rc=$?
  if [ $rc -ne 0 ] || ! grep -Eq "(ok|: ok)( |$)" "$t.out"; then
    echo "FAIL: fortran_$t (exit code $rc):"; cat "$t.out"; fail=1
  else
    echo "ok: fortran_$t"
  fi
done
exit $fail

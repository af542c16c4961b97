#!/usr/bin/env bash
# libxsim.so must export only the MPI entry points, xsim's public API and the libc functions it interposes
# (__libc_start_main, exit; the application's clocks clock_gettime and gettimeofday, and its random numbers
# rand, srand, random, srandom, initstate, setstate and the drand48 family, and its getopt scan getopt,
# __posix_getopt, getopt_long and getopt_long_only, strtok; the pthread calls of threaded ranks (libc_pthread.cpp:
# pthread_create, _join, _detach, _exit, mutexes, condition variables, barriers, sem_wait/_timedwait/_post,
# sched_yield); for privatization __cxa_atexit,
# __cxa_thread_atexit_impl) and libgfortran's _gfortran_set_options (to keep xsim's crash handlers in
# Fortran programs), its I/O statements _gfortran_st_* and _gfortran_flush_i4/_i8 (each rank's own units),
# and with xsim's own Fortran bindings (second argument ON) their entry points in every
# mangling (mpi_send_, mpi_send, mpi_send__, MPI_SEND; ULFM: mpix_comm_*, MPIX_COMM_*), and the BLAS kernels of
# the kernel models, s and d, Fortran and CBLAS spellings (dgemm_, cblas_dgemm; process/blas_fortran.cpp,
# blas_cblas.cpp), and the allocator (malloc & co., process/fold_malloc.cpp): everything else is hidden
# (docs/architecture.md §8).
set -euo pipefail
lib=$1
fortran=${2:-OFF}
syms=$(nm -D --defined-only "$lib" | awk '{print $3}')
extra=$(echo "$syms" | grep -vE '^(MPI_[A-Za-z0-9_]+|MPIX_Comm_[a-z_]+|MPIX_COMM_[A-Z_]+|mpix_comm_[a-z_]+|mpi_[a-z0-9_]+|xsim_[a-z_]+|__libc_start_main|exit|clock_gettime|gettimeofday|rand|srand|random|srandom|initstate|setstate|[delnmj]rand48|srand48|seed48|lcong48|getopt|__posix_getopt|getopt_long|getopt_long_only|strtok|pthread_(create|join|detach|exit|mutex_(lock|trylock|unlock)|cond_(wait|timedwait|signal|broadcast)|barrier_(init|wait|destroy))|sem_(wait|timedwait|post)|sched_yield|__cxa_atexit|__cxa_thread_atexit_impl|_gfortran_set_options|_gfortran_st_(open|close|inquire|read|write|rewind|backspace|endfile|flush|wait|wait_async)|_gfortran_flush_i[48]|_init|_fini|MPII_Comm_get_attr|MPII_Comm_set_attr|MPII_Keyval_set_proxy|(cblas_)?[sd](gemm|trsm|trmm|syrk|symm|gemv|ger|trsv|axpy|scal|copy|swap|dot|nrm2)_?|(cblas_)?i[sd]amax_?|malloc|free|calloc|realloc|reallocarray|posix_memalign|aligned_alloc|memalign|valloc|pvalloc|malloc_usable_size)$' || true)
if [ -n "$extra" ]; then
  echo "unexpected exported symbols:"; echo "$extra"; exit 1
fi
for s in MPI_Init MPI_Send MPI_Allreduce MPI_Wtime xsim_compute __libc_start_main exit clock_gettime gettimeofday rand srandom drand48 getopt getopt_long __cxa_atexit MPI_Win_fence \
         dgemm_ sgemm_ idamax_ dtrsv_ cblas_dgemm cblas_isamax cblas_ddot; do
  grep -qx "$s" <<< "$syms" || { echo "missing export: $s"; exit 1; }
done
if [ "$fortran" = ON ]; then
  for s in mpi_init_ mpi_send_ mpi_send mpi_send__ MPI_SEND mpi_waitall_ mpi_comm_get_attr_ mpi_wtime_ mpix_comm_agree_ MPIX_COMM_SHRINK; do
    grep -qx "$s" <<< "$syms" || { echo "missing Fortran export: $s"; exit 1; }
  done
elif grep -q '^mpi_' <<< "$syms"; then
  echo "Fortran entry points exported although XSIM_FORTRAN_BINDINGS is OFF"; exit 1
fi
echo "exports ok: $(wc -l <<< "$syms") symbols"

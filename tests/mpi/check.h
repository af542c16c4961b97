// CHECK(cond, fmt, ...) for the MPI test programs (tests/mpi/*.c): when `cond` is false, prints
// "FAILED: rank R, FILE:LINE: cond: message" on stderr and ends the whole run with MPI_Abort(..., 1), so
// the test fails with the reason. R is the rank in MPI_COMM_WORLD, asked only when the check fails (no
// MPI call, hence no virtual time, on the passing path). Header-only, C11; include after <mpi.h>.
#pragma once
#include <mpi.h>
#include <stdio.h>

#define CHECK(cond, ...)                                                                        \
  do {                                                                                          \
    if (!(cond)) {                                                                              \
      int check_rank_ = -1;                                                                     \
      MPI_Comm_rank(MPI_COMM_WORLD, &check_rank_);                                              \
      fprintf(stderr, "FAILED: rank %d, %s:%d: %s: ", check_rank_, __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                                             \
      fprintf(stderr, "\n");                                                                    \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                             \
    }                                                                                           \
  } while (0)

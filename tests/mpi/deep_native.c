// The native MPI's deep calls on small rank stacks (runtime/core/native_stack.hpp). MPICH 4 puts 128 KiB
// frames on the stack in MPI_Reduce_local, MPI_Pack and MPI_Unpack; run with -xsim-stack 64K, each call
// below would write far below its rank's stack, into another rank's or xsim's memory, if xsim did not move
// it to its native stack. Every result is checked; rank 0 prints one line (the same output for any N).
//   deep_native -xsim-np 8 -xsim-stack 64K   (64 KiB: the auto size from 262,144 ranks per process)
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

enum { kN = 64 };

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  // MPI_Reduce_local, called by the program: int MPI_MAX (MPICH's deep path), double MPI_SUM
  int a[kN], b[kN];
  double x[kN], y[kN];
  for (int i = 0; i < kN; ++i) a[i] = i * rank, b[i] = i + rank, x[i] = 0.5 * i, y[i] = rank;
  MPI_Reduce_local(a, b, kN, MPI_INT, MPI_MAX);
  MPI_Reduce_local(x, y, kN, MPI_DOUBLE, MPI_SUM);
  for (int i = 0; i < kN; ++i) {
    CHECK(b[i] == (i * rank > i + rank ? i * rank : i + rank), "MPI_Reduce_local MAX [%d] = %d", i, b[i]);
    CHECK(y[i] == 0.5 * i + rank, "MPI_Reduce_local SUM [%d] = %g", i, y[i]);
  }

  // Reductions inside collectives (xsim's local reductions), int MPI_MAX and a pair type with MPI_MAXLOC
  int mx = 0, v = (rank * 7) % size;
  MPI_Allreduce(&v, &mx, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  struct { double value; int where; } in = {(double)((rank * 5) % size), rank}, out;
  MPI_Allreduce(&in, &out, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
  int sum = 0;
  MPI_Reduce(&rank, &sum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);

  // MPI_Pack / MPI_Unpack of a vector type
  MPI_Datatype vec;
  MPI_Type_vector(8, 2, 4, MPI_DOUBLE, &vec);
  MPI_Type_commit(&vec);
  double src[32], dst[32];
  for (int i = 0; i < 32; ++i) src[i] = rank * 100 + i, dst[i] = -1;
  char packed[512];
  int pos = 0;
  MPI_Pack(src, 1, vec, packed, sizeof packed, &pos, MPI_COMM_WORLD);
  CHECK(pos == 16 * (int)sizeof(double), "MPI_Pack position %d", pos);
  pos = 0;
  MPI_Unpack(packed, sizeof packed, &pos, dst, 1, vec, MPI_COMM_WORLD);
  for (int i = 0; i < 32; ++i)
    CHECK(dst[i] == (i % 4 < 2 ? src[i] : -1), "MPI_Unpack [%d] = %g", i, dst[i]);

  // A message of a named type with a gap (MPI_DOUBLE_INT: packed by the native MPI) around a ring
  struct { double value; int where; } token = {rank * 1.5, rank}, got;
  MPI_Sendrecv(&token, 1, MPI_DOUBLE_INT, (rank + 1) % size, 0, &got, 1, MPI_DOUBLE_INT, (rank + size - 1) % size, 0,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  const int left = (rank + size - 1) % size;
  CHECK(got.value == left * 1.5 && got.where == left, "MPI_DOUBLE_INT from %d: %g %d", left, got.value, got.where);
  MPI_Type_free(&vec);

  if (rank == 0)
    printf("deep_native: %d ranks: max %d, maxloc %g at %d, sum %d, pack/unpack ok, t=%.9f\n", size, mx,
           out.value, out.where, sum, MPI_Wtime());
  MPI_Finalize();
  return 0;
}

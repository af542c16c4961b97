/* Faults inside a virtual rank must name the rank. argv[1]: "overflow" -> rank 1 recurses until its stack
 * overflows; "segv" -> rank 2 writes through a null pointer; "fpe" -> rank 1 raises SIGFPE. */
#include <mpi.h>
#include <signal.h>
#include <string.h>

static int deep(volatile char* prev, int depth) {
  volatile char frame[1024];
  frame[0] = (char)depth;
  frame[1023] = prev ? prev[0] : 0;
  return deep(frame, depth + 1) + frame[1023];
}

int main(int argc, char** argv) {
  int me;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  const char* mode = argc > 1 ? argv[1] : "";
  MPI_Barrier(MPI_COMM_WORLD);
  if (!strcmp(mode, "overflow") && me == 1) deep(0, 0);
  if (!strcmp(mode, "segv") && me == 2) *(volatile int*)0 = 1;
  if (!strcmp(mode, "fpe") && me == 1) raise(SIGFPE);
  MPI_Finalize();
  return 0;
}

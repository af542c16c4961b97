/* Faults inside a virtual rank must name the rank. argv[1]: "overflow" -> rank 1 recurses until its stack
 * overflows; "segv" -> rank 2 writes through a null pointer; "fpe" -> rank 1 raises SIGFPE; "bus" -> rank 3
 * reads a file mapping past the end of the file (SIGBUS); "abort" -> rank 1 calls abort() (SIGABRT). */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static int read_past_end_of_file(void) {
  FILE* f = tmpfile(); /* empty: every page of a mapping of it lies past its end */
  volatile char* p = f ? (volatile char*)mmap(0, 4096, PROT_READ, MAP_SHARED, fileno(f), 0) : 0;
  return p && p != (volatile char*)MAP_FAILED ? p[0] : 0;
}

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
  if (!strcmp(mode, "bus") && me == 3) read_past_end_of_file();
  if (!strcmp(mode, "abort") && me == 1) abort();
  MPI_Finalize();
  return 0;
}

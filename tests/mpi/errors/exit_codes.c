/* Exit codes and argument handling. Every rank checks that no -xsim-* argument reached it and that its
 * argv is its own copy (it overwrites it). Mode (argv[1]): "ok" -> exit 0; "exit" -> rank 2 calls exit(7)
 * after MPI_Finalize while the others return 0; "return" -> rank 1 returns 5 from main;
 * "abort" -> rank 1 calls MPI_Abort(MPI_COMM_WORLD, 9); "unsupported" -> calls MPI_Comm_spawn. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  int me, np;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  for (int i = 0; i < argc; ++i)
    if (strncmp(argv[i], "-xsim", 5) == 0) {
      fprintf(stderr, "FAILED: rank %d sees %s\n", me, argv[i]);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  const char* mode = argc > 1 ? argv[1] : "ok";
  if (argv[0][0] == 'X') { /* another rank's write reached this rank's argv */
    fprintf(stderr, "FAILED: rank %d shares argv with another rank\n", me);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  argv[0][0] = 'X';
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == 0) printf("exit_codes: %d ranks, argc %d, mode %s, argv[0][0] %c\n", np, argc, mode, argv[0][0]);
  if (!strcmp(mode, "abort") && me == 1) MPI_Abort(MPI_COMM_WORLD, 9);
  if (!strcmp(mode, "unsupported") && me == 0) {
    MPI_Comm child;
    MPI_Comm_spawn("none", MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_SELF, &child, MPI_ERRCODES_IGNORE);
  }
  MPI_Finalize();
  if (!strcmp(mode, "exit") && me == 2) exit(7);
  if (!strcmp(mode, "return") && me == 1) return 5;
  return 0;
}

/* priv_lib.c - globals of a shared library, per virtual rank (-xsim-privatize-libs, docs/privatization.md).
 * Each rank bumps the counter kept inside libxsim_privtest.so rank+1 times, communicating in between; it
 * must see only its own bumps. Without the library privatized the ranks share its counter: the program
 * reports it and exits 1. */
#include <mpi.h>
#include <stdio.h>

int priv_libcounter_bump(void);

int main(int argc, char **argv)
{
    int rank, size, errors = 0, total = 0, last = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int k = 0; k <= rank; ++k) {
        last = priv_libcounter_bump();
        MPI_Barrier(MPI_COMM_WORLD);
    }
    for (int k = rank + 1; k < size; ++k) MPI_Barrier(MPI_COMM_WORLD); /* everybody takes part in each */
    if (last != rank + 1) ++errors;
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        if (total == 0)
            printf("priv_lib: %d ranks, library globals per rank ok\n", size);
        else
            fprintf(stderr, "priv_lib: FAILED: %d ranks saw other ranks' library globals\n", total);
        fflush(stdout);
    }
    MPI_Finalize();
    return total == 0 ? 0 : 1;
}

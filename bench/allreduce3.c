/* allreduce3.c - issue 34's collective benchmark: a plain MPI program making 3 MPI_Allreduce calls of one
 * double (MPI_SUM) over MPI_COMM_WORLD. Rank 0 prints, after each call, its virtual time and the result.
 * Built against the MPI alone (no xsim header): bench/allreduce3.sh runs it with libxsim preloaded. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double x = rank, y = 0;
    for (int i = 0; i < 3; ++i) {
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        if (rank == 0)
            printf("allreduce3: call %d at %.9f s: %.17g\n", i, MPI_Wtime(), y);
        x = y / size + rank;
    }
    MPI_Finalize();
    return 0;
}

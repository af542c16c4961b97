/* priv_bigdata.c - a program with 256 MiB of zero-initialised globals: privatized by mapping, only the pages
 * a rank touches cost memory; copied (-xsim-privatize=copy), it cannot fit many ranks, which xsim must say
 * before starting (docs/privatization.md). Each rank writes a few pages of its own and checks them. */
#include <mpi.h>
#include <stdio.h>

#define BIG (256L << 20)
static unsigned char big[BIG];

int main(int argc, char **argv)
{
    int rank, size, errors = 0, total = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (long at = 0; at < BIG; at += BIG / 4) big[at + rank] = (unsigned char)(rank + 1);
    MPI_Barrier(MPI_COMM_WORLD);
    for (long at = 0; at < BIG; at += BIG / 4)
        for (int r = 0; r < size; ++r)
            if (big[at + r] != (r == rank ? (unsigned char)(rank + 1) : 0)) ++errors;
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        if (total == 0) printf("priv_bigdata: %d ranks, 256 MiB of globals each, ok\n", size);
        else fprintf(stderr, "priv_bigdata: FAILED: %d checks saw another rank's globals\n", total);
    }
    MPI_Finalize();
    return total == 0 ? 0 : 1;
}

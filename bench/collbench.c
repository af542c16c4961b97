/* collbench.c - one blocking collective, timed in virtual time, for the fast path of collectives
 * (bench/coll_replay.sh, docs/collectives.md "Fast path").
 *
 *   collbench barrier|allreduce [iterations] [count]   (defaults 1 and 1: count doubles, MPI_SUM)
 *
 * Rank 0 prints the largest virtual time any rank spent in the `iterations` calls, and for allreduce
 * whether every rank got the exact sum (the values are integers).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int barrier = argc > 1 && strcmp(argv[1], "barrier") == 0;
    if (argc < 2 || (!barrier && strcmp(argv[1], "allreduce") != 0)) {
        if (rank == 0)
            fprintf(stderr, "usage: collbench barrier|allreduce [iterations] [count]\n");
        MPI_Finalize();
        return 2;
    }
    const int iters = argc > 2 ? atoi(argv[2]) : 1, count = argc > 3 ? atoi(argv[3]) : 1;
    if (iters < 1 || count < 1) {
        if (rank == 0)
            fprintf(stderr, "collbench: iterations and count must be >= 1\n");
        MPI_Finalize();
        return 2;
    }
    double *in = malloc(sizeof(double) * (size_t)count), *out = malloc(sizeof(double) * (size_t)count);
    for (int i = 0; i < count; ++i)
        in[i] = (double)(rank % 1000 + i);
    int ok = 1;
    const double t0 = MPI_Wtime();
    for (int k = 0; k < iters; ++k) {
        if (barrier) {
            MPI_Barrier(MPI_COMM_WORLD);
        } else {
            MPI_Allreduce(in, out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            /* sum over ranks of (rank % 1000 + i): exact in doubles at these sizes */
            const double full = (double)(size / 1000), part = (double)(size % 1000);
            const double base = full * 499500.0 + part * (part - 1) / 2;
            for (int i = 0; i < count; ++i)
                ok &= out[i] == base + (double)size * i;
        }
    }
    double mine = MPI_Wtime() - t0, worst = 0;
    int all_ok = 0;
    MPI_Reduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("collbench: %s x %d (count %d) on %d ranks: virtual time %.9f s%s\n", argv[1], iters, count, size,
               worst, barrier ? "" : all_ok ? ", sums ok" : ", SUMS WRONG");
    free(in);
    free(out);
    MPI_Finalize();
    return rank != 0 || barrier || all_ok ? 0 : 1;
}

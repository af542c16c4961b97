/* hello.c - smallest xsim example.
 *
 * Every rank asks for its processor name, the ranks are summed with MPI_Reduce(MPI_SUM) and rank 0 checks
 * that the sum is p(p-1)/2; then everybody meets in an MPI_Barrier and rank 0 prints the result and the
 * largest (virtual) time any rank spent from just after MPI_Init to just after the barrier.
 *
 *   hello [-v]      -v: every rank prints "hello from rank r of p on <name>" (unordered)
 *
 * Plain C11 + MPI-1; no mutable globals (xsim runs many ranks in one process with shared globals).
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static void usage(int rank)
{
    if (rank == 0)
        fprintf(stderr, "usage: hello [-v]\n");
}

static void fail(const char *what)
{
    fprintf(stderr, "FAILED: %s\n", what);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

int main(int argc, char **argv)
{
    int rank, size, verbose = 0;
    MPI_Init(&argc, &argv);
    double t0 = MPI_Wtime();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "-v") == 0) {
            verbose = 1;
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(rank);
            MPI_Finalize();
            return 0;
        } else {
            if (rank == 0)
                fprintf(stderr, "hello: unknown argument '%s'\n", argv[i]);
            usage(rank);
            MPI_Finalize();
            return 2;
        }
    }

    char name[MPI_MAX_PROCESSOR_NAME + 1];
    int len = 0;
    memset(name, 0, sizeof name);
    MPI_Get_processor_name(name, &len);
    if (len < 0 || len > MPI_MAX_PROCESSOR_NAME)
        fail("MPI_Get_processor_name returned a bad length");
    name[len] = '\0';
    if (verbose) {
        printf("hello from rank %d of %d on %s\n", rank, size, name);
        fflush(stdout);
    }

    long long mine = rank, sum = -1;
    MPI_Reduce(&mine, &sum, 1, MPI_LONG_LONG_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    long long expect = (long long)size * (size - 1) / 2;
    if (rank == 0 && sum != expect) {
        char msg[128];
        snprintf(msg, sizeof msg, "rank sum %lld, expected %lld", sum, expect);
        fail(msg);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime() - t0, tmax = 0.0;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("hello: %d ranks, rank sum %lld ok\n", size, sum);
        printf("hello: virtual time %.9f\n", tmax);
        fflush(stdout);
    }
    MPI_Finalize();
    return 0;
}

/* priv_counters.c - results that depend on per-rank globals (docs/privatization.md).
 *
 * Every rank keeps its state the way real codes do: an initialised global, a file-static array in .bss
 * (the rank's subdomain), a counter in a function-local static, a thread-local variable and errno. Between
 * writing and checking them the ranks communicate, so that under xsim every other rank of the native
 * process runs in between. With privatized globals every check holds; with shared globals the other ranks'
 * writes show through and the program reports it and exits 1.
 *
 *   priv_counters [rounds]      rounds >= 1, default 3
 */
#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int owner = -1;                 /* initialised data: the rank that owns this image */
static long subdomain[512];     /* bss: the rank's cells */
static __thread int tls_visits = 100; /* thread-local: one per rank, too */

static int bump(void)
{
    static int calls; /* function-local static counter */
    return ++calls;
}

int main(int argc, char **argv)
{
    int rank, size, errors = 0, total = 0;
    int rounds = argc > 1 ? atoi(argv[1]) : 3;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rounds < 1) {
        if (rank == 0) fprintf(stderr, "usage: priv_counters [rounds >= 1]\n");
        MPI_Finalize();
        return 2;
    }

    /* every rank starts from the executable's initial image */
    if (owner != -1 || subdomain[0] != 0 || subdomain[511] != 0 || tls_visits != 100 || bump() != 1) ++errors;
    owner = rank;
    for (int i = 0; i < 512; ++i) subdomain[i] = 1000L * rank + i;

    const int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int k = 1; k <= rounds; ++k) {
        int token = rank, got = -1;
        errno = 1000 + rank;
        ++tls_visits;
        /* every rank of the process writes its globals before any of these receives completes */
        MPI_Sendrecv(&token, 1, MPI_INT, right, k, &got, 1, MPI_INT, left, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (errno != 1000 + rank) ++errors;
        if (got != left || owner != rank || bump() != k + 1) ++errors;
        if (tls_visits != 100 + k) ++errors;
    }
    for (int i = 0; i < 512; ++i)
        if (subdomain[i] != 1000L * rank + i) {
            ++errors;
            break;
        }

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        if (total == 0)
            printf("priv_counters: %d ranks, %d rounds, per-rank globals ok\n", size, rounds);
        else
            fprintf(stderr, "priv_counters: FAILED: %d checks saw another rank's globals\n", total);
        fflush(stdout);
    }
    MPI_Finalize();
    return total == 0 ? 0 : 1;
}

/* allreduce.c - collective timing and correctness.
 *
 * Timed: `iterations` MPI_Allreduce(MPI_SUM) of `count` doubles (integer values, so the sums are exact
 * whatever the reduction order), each result checked; the time starts after a barrier (outside the timed
 * section) and the largest per-rank time divided by the iterations is printed.
 * Then, untimed, each iteration also checks: MPI_Allreduce(MPI_MAX) of `count` ints, MPI_Bcast of `count`
 * ints from root p-1, and MPI_Reduce(MPI_SUM) of `count` ints to root 0.
 *
 *   allreduce [count] [iterations]   1 <= count <= 16777216 (default 1), iterations >= 1 (default 10)
 */
#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fail(const char *what)
{
    fprintf(stderr, "FAILED: %s\n", what);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static int parse_ll(const char *s, long long lo, long long hi, long long *out)
{
    char *end = NULL;
    if (s == NULL || *s == '\0')
        return -1;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static void fail_at(const char *what, int rank, long long it, long i, double got, double want)
{
    char msg[200];
    snprintf(msg, sizeof msg, "%s: rank %d iteration %lld element %ld is %.17g, expected %.17g", what, rank, it, i,
             got, want);
    fail(msg);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    static const char usage_text[] =
        "usage: allreduce [count] [iterations]   (1 <= count <= 16777216, default 1; iterations >= 1, default 10)\n";
    long long count = 1, iters = 10;
    int bad = 0;
    if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        if (rank == 0)
            fputs(usage_text, stderr);
        MPI_Finalize();
        return 0;
    }
    if (argc > 3)
        bad = 1;
    if (!bad && argc >= 2 && parse_ll(argv[1], 1, 16777216LL, &count) != 0)
        bad = 1;
    if (!bad && argc >= 3 && parse_ll(argv[2], 1, 100000000LL, &iters) != 0)
        bad = 1;
    if (bad) {
        if (rank == 0)
            fputs(usage_text, stderr);
        MPI_Finalize();
        return 2;
    }

    const int n = (int)count;
    const double p = (double)size;
    double *dsend = malloc((size_t)n * sizeof *dsend), *drecv = malloc((size_t)n * sizeof *drecv);
    int *isend = malloc((size_t)n * sizeof *isend), *irecv = malloc((size_t)n * sizeof *irecv);
    if (dsend == NULL || drecv == NULL || isend == NULL || irecv == NULL)
        fail("out of memory");

    /* Timed part: double SUM. Rank r contributes r + (i % 1000) + it, so the sum is
     * p(p-1)/2 + p * ((i % 1000) + it), an integer far below 2^53. */
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long long it = 0; it < iters; ++it) {
        for (int i = 0; i < n; ++i) {
            dsend[i] = (double)rank + (double)(i % 1000) + (double)it;
            drecv[i] = -1.0;
        }
        MPI_Allreduce(dsend, drecv, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        for (int i = 0; i < n; ++i) {
            const double want = p * (p - 1.0) / 2.0 + p * ((double)(i % 1000) + (double)it);
            if (drecv[i] != want)
                fail_at("MPI_Allreduce(MPI_DOUBLE, MPI_SUM)", rank, it, i, drecv[i], want);
        }
    }
    double t = MPI_Wtime() - t0, tmax = 0.0;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);

    /* Untimed checks of the other collectives. */
    const int root = size - 1;
    const long long q5 = size / 5, m5 = size % 5;
    const long long sum_mod5 = q5 * 10 + m5 * (m5 - 1) / 2; /* sum over r of (r % 5) */
    for (long long it = 0; it < iters; ++it) {
        /* int MAX: rank r contributes (r + i + it) % p, whose maximum over all ranks is p-1; in odd elements
         * rank 0 contributes a large negative value instead (catches a MIN, a sum or a wrong root value). */
        for (int i = 0; i < n; ++i) {
            isend[i] = (int)(((long long)rank + i + it) % size);
            if (rank == 0 && (i & 1))
                isend[i] = -1000000 - i;
            irecv[i] = -7;
        }
        MPI_Allreduce(isend, irecv, n, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        for (int i = 0; i < n; ++i) {
            /* Every value of [0, p) appears once; in odd elements rank 0's value c = (i+it) % p is replaced. */
            int want = size - 1;
            if ((i & 1) && size == 1)
                want = -1000000 - i;
            else if ((i & 1) && (int)((i + it) % size) == size - 1)
                want = size - 2;
            if (irecv[i] != want)
                fail_at("MPI_Allreduce(MPI_INT, MPI_MAX)", rank, it, i, irecv[i], want);
        }

        /* Bcast from root p-1. */
        for (int i = 0; i < n; ++i)
            irecv[i] = rank == root ? (int)((i * 3 + it * 7 + root) % 1000003) : -1;
        MPI_Bcast(irecv, n, MPI_INT, root, MPI_COMM_WORLD);
        for (int i = 0; i < n; ++i) {
            const int want = (int)((i * 3 + it * 7 + root) % 1000003);
            if (irecv[i] != want)
                fail_at("MPI_Bcast(MPI_INT, root p-1)", rank, it, i, irecv[i], want);
        }

        /* Reduce SUM to root 0: rank r contributes (r % 5) + ((i + it) % 3). */
        for (int i = 0; i < n; ++i) {
            isend[i] = rank % 5 + (int)((i + it) % 3);
            irecv[i] = -1;
        }
        MPI_Reduce(isend, irecv, n, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            for (int i = 0; i < n; ++i) {
                const long long want = sum_mod5 + (long long)size * ((i + it) % 3);
                if (irecv[i] != want)
                    fail_at("MPI_Reduce(MPI_INT, MPI_SUM, root 0)", rank, it, i, irecv[i], (double)want);
            }
        }
    }

    if (rank == 0) {
        printf("allreduce: %d ranks, count %d, %lld iterations ok\n", size, n, iters);
        printf("allreduce: virtual time per allreduce %.9f\n", tmax / (double)iters);
        fflush(stdout);
    }
    free(dsend);
    free(drecv);
    free(isend);
    free(irecv);
    MPI_Finalize();
    return 0;
}

/* ring.c - the ring micro-benchmark.
 *
 * Every rank starts with a token equal to its rank. In each round every rank sends its current token to
 * (r+1)%p and receives the next one from (r-1+p)%p with MPI_Sendrecv (one int, tag = round & 0x7fff).
 * After k rounds rank r must hold token (r-k) mod p, and the sum of the tokens it received must be
 * sum_{j=1..rounds} ((r-j) mod p), which is p(p-1)/2 after p rounds (the default: every token goes all the
 * way round). Timed from just after MPI_Init to just after the last round, no barrier.
 *
 *   ring [rounds]          rounds >= 1, default p
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

/* Parses a whole decimal integer in [lo, hi]; returns 0 on success. */
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

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    double t0 = MPI_Wtime();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    long long rounds = size;
    int bad = 0;
    if (argc > 2)
        bad = 1;
    else if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        if (rank == 0)
            fprintf(stderr, "usage: ring [rounds]   (rounds >= 1, default: number of ranks)\n");
        MPI_Finalize();
        return 0;
    } else if (argc == 2 && parse_ll(argv[1], 1, 1000000000LL, &rounds) != 0)
        bad = 1;
    if (bad) {
        if (rank == 0)
            fprintf(stderr, "usage: ring [rounds]   (rounds >= 1, default: number of ranks)\n");
        MPI_Finalize();
        return 2;
    }

    const int right = (rank + 1) % size;
    const int left = (rank - 1 + size) % size;
    int token = rank;
    long long received_sum = 0;
    for (long long k = 1; k <= rounds; ++k) {
        int next = -1;
        MPI_Status st;
        const int tag = (int)(k & 0x7fff);
        MPI_Sendrecv(&token, 1, MPI_INT, right, tag, &next, 1, MPI_INT, left, tag, MPI_COMM_WORLD, &st);
        const int expect = (int)(((rank - k) % size + size) % size);
        if (next != expect || st.MPI_SOURCE != left || st.MPI_TAG != tag) {
            char msg[200];
            snprintf(msg, sizeof msg,
                     "rank %d round %lld: got token %d from %d tag %d, expected token %d from %d tag %d", rank,
                     k, next, st.MPI_SOURCE, st.MPI_TAG, expect, left, tag);
            fail(msg);
        }
        token = next;
        received_sum += next;
    }
    double t = MPI_Wtime() - t0;

    /* Expected sum of ((r-j) mod p) for j = 1..rounds: full turns contribute p(p-1)/2 each. */
    long long full = rounds / size, rest = rounds % size, expect_sum = full * ((long long)size * (size - 1) / 2);
    for (long long j = 1; j <= rest; ++j)
        expect_sum += ((rank - j) % size + size) % size;
    if (received_sum != expect_sum) {
        char msg[160];
        snprintf(msg, sizeof msg, "rank %d: sum of received tokens %lld, expected %lld", rank, received_sum,
                 expect_sum);
        fail(msg);
    }

    double tmax = 0.0;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("ring: %d ranks, %lld rounds, %lld messages ok\n", size, rounds, (long long)size * rounds);
        printf("ring: virtual time %.9f\n", tmax);
        printf("ring: time per hop %.9f\n", tmax / (double)rounds);
        fflush(stdout);
    }
    MPI_Finalize();
    return 0;
}

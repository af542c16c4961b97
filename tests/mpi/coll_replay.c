/* coll_replay.c - the shapes of MPI_Barrier and MPI_Allreduce that the fast path (-xsim-coll-replay,
 * docs/collectives.md) must time and compute exactly as the point-to-point algorithms: ranks entering at
 * different virtual times, user messages in flight to the same peers (per-pair FIFO order), floating-point
 * sums whose bits depend on the reduction order, a non-commutative user operation (2x2 matrix products),
 * MPI_MINLOC on MPI_DOUBLE_INT, MPI_IN_PLACE, counts 0, 1, small and large (recursive doubling and
 * Rabenseifner), sub-communicators (halves: local to one native process when N=2; odd/even ranks), and a
 * blocking collective while a nonblocking one is in progress (every member falls back).
 * Rank 0 prints, after each step, a hash of every rank's result bits and of every rank's virtual time, and
 * the earliest and latest time: tests/mpi/replay_same.sh requires the same lines with the fast path on and
 * off (and for every native process count).
 *
 *   coll_replay [large]   large: element count of the long-message allreduces (default 3000)
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xsim.h"

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; ++i)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

/* Gathers every rank's `n` result bytes and its virtual time to rank 0 and prints one line. */
static void report(const char *step, const void *result, int n)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double now = MPI_Wtime();
    uint64_t mine[2] = {fnv(1469598103934665603ull, result, (size_t)n), 0};
    memcpy(&mine[1], &now, sizeof now);
    uint64_t *all = rank == 0 ? malloc(sizeof mine * (size_t)size) : NULL;
    MPI_Gather(mine, 2, MPI_UINT64_T, all, 2, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        uint64_t hr = 1469598103934665603ull, ht = hr;
        double lo = 1e300, hi = -1e300;
        for (int i = 0; i < size; ++i) {
            double t;
            memcpy(&t, &all[2 * i + 1], sizeof t);
            hr = fnv(hr, &all[2 * i], 8);
            ht = fnv(ht, &t, sizeof t);
            if (t < lo) lo = t;
            if (t > hi) hi = t;
        }
        printf("%-28s results %016llx times %016llx min %.9f max %.9f\n", step, (unsigned long long)hr,
               (unsigned long long)ht, lo, hi);
        free(all);
    }
    /* the next step starts with the ranks apart again */
    xsim_compute(1e-6 * (double)((rank * 7) % 5));
}

/* inout[k] = in[k] x inout[k] for consecutive 2x2 matrices (row-major): not commutative. */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    double *a = in, *b = inout;
    for (int k = 0; k + 3 < *len; k += 4) {
        double c0 = a[k] * b[k] + a[k + 1] * b[k + 2], c1 = a[k] * b[k + 1] + a[k + 1] * b[k + 3];
        double c2 = a[k + 2] * b[k] + a[k + 3] * b[k + 2], c3 = a[k + 2] * b[k + 1] + a[k + 3] * b[k + 3];
        b[k] = c0, b[k + 1] = c1, b[k + 2] = c2, b[k + 3] = c3;
    }
}

static void allreduce_steps(const char *name, MPI_Comm comm, int large, MPI_Op noncomm)
{
    int rank, size, wrank;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    char step[64];
    const int counts[] = {0, 1, 7, 300, large};
    double *in = malloc(sizeof(double) * (size_t)large), *out = malloc(sizeof(double) * (size_t)large);
    for (int c = 0; c < 5; ++c) {
        const int n = counts[c] < large ? counts[c] : large;
        for (int i = 0; i < n; ++i)
            in[i] = 1.0 / (double)(rank + 1) + 1e-3 * (double)i / 3.0;  /* sums depend on the order */
        memset(out, 0, sizeof(double) * (size_t)large);
        MPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_SUM, comm);
        snprintf(step, sizeof step, "%s sum %d", name, n);
        report(step, out, (int)sizeof(double) * n);
    }
    /* in place, MPI_MAX */
    for (int i = 0; i < large; ++i)
        out[i] = (double)((rank * 31 + i * 17) % 101) / 7.0;
    MPI_Allreduce(MPI_IN_PLACE, out, large, MPI_DOUBLE, MPI_MAX, comm);
    snprintf(step, sizeof step, "%s max in place", name);
    report(step, out, (int)sizeof(double) * large);
    /* non-commutative user operation: 2x2 matrices, 3 of them per rank */
    double m[12];
    for (int k = 0; k < 12; ++k)
        m[k] = (double)((rank + 2 * k) % 5) * 0.25 + (k % 4 == 0 || k % 4 == 3 ? 1.0 : 0.0);
    double mr[12];
    MPI_Allreduce(m, mr, 12, MPI_DOUBLE, noncomm, comm);
    snprintf(step, sizeof step, "%s matrix product", name);
    report(step, mr, (int)sizeof mr);
    /* MPI_MINLOC on MPI_DOUBLE_INT: ties broken by the lower index */
    struct {
        double v;
        int i;
    } loc[3], lr[3];
    for (int k = 0; k < 3; ++k) {
        loc[k].v = (double)((rank * (k + 3)) % 7);
        loc[k].i = rank;
    }
    MPI_Allreduce(loc, lr, 3, MPI_DOUBLE_INT, MPI_MINLOC, comm);
    int idx[6];
    for (int k = 0; k < 3; ++k) {
        memcpy(&idx[2 * k], &lr[k].v, sizeof(int));  /* the value's leading bytes and the index */
        idx[2 * k + 1] = lr[k].i;
    }
    snprintf(step, sizeof step, "%s minloc", name);
    report(step, idx, (int)sizeof idx);
    free(in);
    free(out);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, large = argc > 1 ? atoi(argv[1]) : 3000;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (large < 1) {
        if (rank == 0)
            fprintf(stderr, "usage: coll_replay [large >= 1]\n");
        MPI_Finalize();
        return 2;
    }
    MPI_Op noncomm;
    MPI_Op_create(matmul, 0, &noncomm);
    int none = 0;

    /* ranks enter at different times */
    xsim_compute(1e-6 * (double)((rank * 13) % 7));
    MPI_Barrier(MPI_COMM_WORLD);
    report("barrier skewed", &none, 0);

    /* a large user message to each barrier peer is still in flight: the barrier's messages queue behind it */
    const int big = 100000;
    char *sbuf = calloc(2 * (size_t)big, 1), *rbuf = calloc(2 * (size_t)big, 1);
    MPI_Request rq[4];
    MPI_Status st[4];
    int nrq = 0;
    if (size > 1) {
        MPI_Irecv(rbuf, big, MPI_CHAR, (rank - 1 + size) % size, 9, MPI_COMM_WORLD, &rq[nrq++]);
        MPI_Isend(sbuf, big, MPI_CHAR, (rank + 1) % size, 9, MPI_COMM_WORLD, &rq[nrq++]);
        if (size > 2) {
            MPI_Irecv(rbuf + big, big / 3, MPI_CHAR, (rank - 2 + size) % size, 9, MPI_COMM_WORLD, &rq[nrq++]);
            MPI_Isend(sbuf + big, big / 3, MPI_CHAR, (rank + 2) % size, 9, MPI_COMM_WORLD, &rq[nrq++]);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    report("barrier behind messages", &none, 0);
    MPI_Waitall(nrq, rq, st);
    double x = (double)rank, xs = 0;
    nrq = 0;
    if (size > 1) {
        MPI_Irecv(rbuf, big, MPI_CHAR, (rank - 1 + size) % size, 10, MPI_COMM_WORLD, &rq[nrq++]);
        MPI_Isend(sbuf, big, MPI_CHAR, (rank + 1) % size, 10, MPI_COMM_WORLD, &rq[nrq++]);
    }
    MPI_Allreduce(&x, &xs, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    report("allreduce behind message", &xs, (int)sizeof xs);
    MPI_Waitall(nrq, rq, st);
    free(sbuf);
    free(rbuf);

    allreduce_steps("world", MPI_COMM_WORLD, large, noncomm);

    MPI_Comm half, parity;
    MPI_Comm_split(MPI_COMM_WORLD, rank < size / 2, rank, &half);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &parity);  /* reversed order */
    MPI_Barrier(half);
    report("half barrier", &none, 0);
    allreduce_steps("half", half, large, noncomm);
    MPI_Barrier(parity);
    report("parity barrier", &none, 0);
    allreduce_steps("parity", parity, 64, noncomm);

    /* a nonblocking collective in progress on another communicator: the blocking ones fall back */
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Request ib;
    double y = 1.0 / (double)(rank + 3), ys = 0;
    if (rank % 2 == 0)
        MPI_Ibarrier(dup, &ib);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Allreduce(&y, &ys, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank % 2 == 1)
        MPI_Ibarrier(dup, &ib);
    MPI_Wait(&ib, MPI_STATUS_IGNORE);
    report("with a nonblocking one", &ys, (int)sizeof ys);

    MPI_Comm_free(&dup);
    MPI_Comm_free(&half);
    MPI_Comm_free(&parity);
    MPI_Op_free(&noncomm);
    MPI_Finalize();
    return 0;
}

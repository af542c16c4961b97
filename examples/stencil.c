/* stencil.c - 2-D Jacobi with halo exchange.
 *
 * An n x n global grid of unknowns, surrounded by fixed (position-dependent) boundary values, is split over
 * a px x py process grid (px = largest divisor of p with px*px <= p, py = p/px; rank r sits at column r % px,
 * row r / px); local sizes are n/px or n/px+1 (remainders go to the first columns/rows). Each iteration
 * exchanges one-cell halos with the existing neighbours (MPI_Irecv/MPI_Isend/MPI_Waitall; ranks on the
 * border simply have fewer neighbours) and applies u' = (W + E + S + N) / 4.
 * Check: a plain and a position-weighted sum of the final grid are combined with MPI_Allreduce and, when
 * n*n <= 2^20, compared with the same Jacobi computed serially on rank 0 (else the serial check is skipped
 * and a line says so). Timed: the iterations (after a barrier outside the timed section).
 *
 *   stencil [n] [iterations]    n >= py (default max(64, 16*ceil(sqrt(p)))), iterations >= 0 (default 20)
 */
#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAG_EAST 11  /* message travelling towards larger x */
#define TAG_WEST 12
#define TAG_NORTH 13 /* towards larger y */
#define TAG_SOUTH 14

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

/* Value of a boundary cell (gx or gy is -1 or n). Corners are never read by the 5-point stencil. */
static double boundary_value(long gx, long gy, long n)
{
    if (gx < 0)
        return 1.0 + (double)(gy % 4) * 0.25;
    if (gx >= n)
        return -0.5;
    if (gy < 0)
        return 2.0;
    return (double)(gx % 3) - 1.0; /* gy >= n */
}

static double initial_value(long gx, long gy)
{
    return (double)((gx * 7 + gy * 13) % 17) / 16.0;
}

static double weight(long gx, long gy)
{
    return (double)(1 + gx % 5 + 3 * (gy % 7));
}

/* First global index and length of block `idx` of `parts` over n cells. */
static void block(long n, long parts, long idx, long *start, long *len)
{
    long q = n / parts, r = n % parts;
    *start = idx * q + (idx < r ? idx : r);
    *len = q + (idx < r ? 1 : 0);
}

static int close_enough(double a, double b)
{
    double scale = fabs(b) > 1.0 ? fabs(b) : 1.0;
    return fabs(a - b) <= 1e-9 * scale;
}

/* The same computation on one (n+2) x (n+2) array; returns the plain and weighted sums. */
static void serial_jacobi(long n, long iters, double *sum, double *wsum)
{
    const long w = n + 2;
    double *u = malloc((size_t)(w * w) * sizeof *u), *v = malloc((size_t)(w * w) * sizeof *v);
    if (u == NULL || v == NULL)
        fail("rank 0: out of memory for the serial check");
    for (long j = 0; j < w; ++j)
        for (long i = 0; i < w; ++i) {
            long gx = i - 1, gy = j - 1;
            double x = (gx < 0 || gx >= n || gy < 0 || gy >= n) ? boundary_value(gx, gy, n) : initial_value(gx, gy);
            u[j * w + i] = x;
            v[j * w + i] = x;
        }
    for (long it = 0; it < iters; ++it) {
        for (long j = 1; j <= n; ++j)
            for (long i = 1; i <= n; ++i)
                v[j * w + i] = 0.25 * (u[j * w + i - 1] + u[j * w + i + 1] + u[(j - 1) * w + i] + u[(j + 1) * w + i]);
        double *t = u;
        u = v;
        v = t;
    }
    double s = 0.0, ws = 0.0;
    for (long j = 1; j <= n; ++j)
        for (long i = 1; i <= n; ++i) {
            s += u[j * w + i];
            ws += u[j * w + i] * weight(i - 1, j - 1);
        }
    *sum = s;
    *wsum = ws;
    free(u);
    free(v);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* Process grid, by hand: px = largest divisor of p not above sqrt(p). */
    long px = 1, ceil_sqrt = 1;
    for (long d = 1; d * d <= size; ++d)
        if (size % d == 0)
            px = d;
    while (ceil_sqrt * ceil_sqrt < size)
        ++ceil_sqrt;
    const long py = size / px;
    long long n = 16 * ceil_sqrt;
    if (n < 64)
        n = 64;
    if (n < py)
        n = py;
    long long iters = 20;

    static const char usage_text[] =
        "usage: stencil [n] [iterations]   (n >= rows of the process grid, default max(64, 16*ceil(sqrt(p)));"
        " iterations >= 0, default 20)\n";
    int bad = 0;
    if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        if (rank == 0)
            fputs(usage_text, stderr);
        MPI_Finalize();
        return 0;
    }
    if (argc > 3)
        bad = 1;
    if (!bad && argc >= 2 && parse_ll(argv[1], 1, 1000000LL, &n) != 0)
        bad = 1;
    if (!bad && argc >= 3 && parse_ll(argv[2], 0, 100000000LL, &iters) != 0)
        bad = 1;
    if (!bad && n < py) {
        if (rank == 0)
            fprintf(stderr, "stencil: n = %lld is smaller than the %ld rows of the %ldx%ld process grid\n", n, py,
                    px, py);
        bad = 1;
    }
    if (bad) {
        if (rank == 0)
            fputs(usage_text, stderr);
        MPI_Finalize();
        return 2;
    }

    const long rx = rank % px, ry = rank / px;
    long x0, lnx, y0, lny;
    block(n, px, rx, &x0, &lnx);
    block(n, py, ry, &y0, &lny);
    const long w = lnx + 2, h = lny + 2;
    const int west = rx > 0 ? rank - 1 : -1, east = rx < px - 1 ? rank + 1 : -1;
    const int south = ry > 0 ? rank - (int)px : -1, north = ry < py - 1 ? rank + (int)px : -1;

    double *u = malloc((size_t)(w * h) * sizeof *u), *v = malloc((size_t)(w * h) * sizeof *v);
    double *cols = malloc((size_t)(4 * lny) * sizeof *cols); /* send W, send E, recv W, recv E */
    if (u == NULL || v == NULL || cols == NULL)
        fail("out of memory for the local grid");
    double *send_w = cols, *send_e = cols + lny, *recv_w = cols + 2 * lny, *recv_e = cols + 3 * lny;

    for (long j = 0; j < h; ++j)
        for (long i = 0; i < w; ++i) {
            long gx = x0 + i - 1, gy = y0 + j - 1;
            double x;
            if (gx < 0 || gx >= n || gy < 0 || gy >= n)
                x = boundary_value(gx, gy, n);
            else if (i == 0 || i == w - 1 || j == 0 || j == h - 1)
                x = NAN; /* halo owned by a neighbour: must be overwritten before use */
            else
                x = initial_value(gx, gy);
            u[j * w + i] = x;
            v[j * w + i] = x;
        }

    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    for (long long it = 0; it < iters; ++it) {
        MPI_Request req[8];
        MPI_Status sts[8]; /* not MPI_STATUSES_IGNORE: GCC warns falsely about it */
        int nreq = 0;
        if (west >= 0)
            MPI_Irecv(recv_w, (int)lny, MPI_DOUBLE, west, TAG_EAST, MPI_COMM_WORLD, &req[nreq++]);
        if (east >= 0)
            MPI_Irecv(recv_e, (int)lny, MPI_DOUBLE, east, TAG_WEST, MPI_COMM_WORLD, &req[nreq++]);
        if (south >= 0)
            MPI_Irecv(&u[0 * w + 1], (int)lnx, MPI_DOUBLE, south, TAG_NORTH, MPI_COMM_WORLD, &req[nreq++]);
        if (north >= 0)
            MPI_Irecv(&u[(h - 1) * w + 1], (int)lnx, MPI_DOUBLE, north, TAG_SOUTH, MPI_COMM_WORLD, &req[nreq++]);
        if (west >= 0) {
            for (long j = 0; j < lny; ++j)
                send_w[j] = u[(j + 1) * w + 1];
            MPI_Isend(send_w, (int)lny, MPI_DOUBLE, west, TAG_WEST, MPI_COMM_WORLD, &req[nreq++]);
        }
        if (east >= 0) {
            for (long j = 0; j < lny; ++j)
                send_e[j] = u[(j + 1) * w + lnx];
            MPI_Isend(send_e, (int)lny, MPI_DOUBLE, east, TAG_EAST, MPI_COMM_WORLD, &req[nreq++]);
        }
        if (south >= 0)
            MPI_Isend(&u[1 * w + 1], (int)lnx, MPI_DOUBLE, south, TAG_SOUTH, MPI_COMM_WORLD, &req[nreq++]);
        if (north >= 0)
            MPI_Isend(&u[lny * w + 1], (int)lnx, MPI_DOUBLE, north, TAG_NORTH, MPI_COMM_WORLD, &req[nreq++]);
        MPI_Waitall(nreq, req, sts);
        if (west >= 0)
            for (long j = 0; j < lny; ++j)
                u[(j + 1) * w + 0] = recv_w[j];
        if (east >= 0)
            for (long j = 0; j < lny; ++j)
                u[(j + 1) * w + lnx + 1] = recv_e[j];

        for (long j = 1; j <= lny; ++j)
            for (long i = 1; i <= lnx; ++i)
                v[j * w + i] = 0.25 * (u[j * w + i - 1] + u[j * w + i + 1] + u[(j - 1) * w + i] + u[(j + 1) * w + i]);
        double *t = u;
        u = v;
        v = t;
    }
    const double t = MPI_Wtime() - t0;
    double tmax = 0.0;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);

    double local[2] = {0.0, 0.0}, global[2] = {0.0, 0.0};
    for (long j = 1; j <= lny; ++j)
        for (long i = 1; i <= lnx; ++i) {
            local[0] += u[j * w + i];
            local[1] += u[j * w + i] * weight(x0 + i - 1, y0 + j - 1);
        }
    MPI_Allreduce(local, global, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (global[0] != global[0] || global[1] != global[1]) { /* NaN: a halo was read before it was received */
        if (rank == 0)
            fail("checksum is NaN (a halo cell was used before it was received)");
    }

    if (rank == 0) {
        if (n * n <= (1LL << 20)) {
            double s, ws;
            serial_jacobi((long)n, (long)iters, &s, &ws);
            if (!close_enough(global[0], s) || !close_enough(global[1], ws)) {
                char msg[200];
                snprintf(msg, sizeof msg, "checksums %.17g / %.17g, serial computation gives %.17g / %.17g",
                         global[0], global[1], s, ws);
                fail(msg);
            }
        } else {
            printf("stencil: serial check skipped (n*n > 1048576)\n");
        }
        printf("stencil: %d ranks (%ldx%ld), %lldx%lld grid, %lld iterations, checksum %.6e ok\n", size, px, py, n,
               n, iters, global[0]);
        printf("stencil: virtual time %.9f\n", tmax);
        fflush(stdout);
    }
    free(u);
    free(v);
    free(cols);
    MPI_Finalize();
    return 0;
}

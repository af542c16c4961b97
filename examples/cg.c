/* cg.c - conjugate gradients on a distributed sparse matrix.
 *
 * A is the 7-point Laplacian of an nx x ny x nz box with zero Dirichlet boundaries (6 on the diagonal, -1 for
 * each neighbour inside the box), stored in CSR. Its N = nx*ny*nz rows (global row g = i + nx*(j + ny*k)) are
 * block-distributed over the p ranks (rank r owns a contiguous range; remainders go to the first ranks).
 * The right-hand side is b = A x* for a known x* (a smooth polynomial times a bounded oscillation), so the
 * solution error can be measured. CG starts from x = 0; each iteration does one sparse matrix-vector
 * product, whose off-rank x entries (the halo) come from MPI_Irecv/MPI_Isend/MPI_Waitall with the ranks that
 * own them, and two dot products (MPI_Allreduce).
 *
 * The communication pattern needs no setup messages: A's sparsity is symmetric, so the rows of mine that a
 * rank q needs are exactly my rows with a column in q's range, in ascending order on both sides.
 *
 * Checks (rank 0 prints FAILED and aborts on any):
 *   - tol > 0: CG must reach ||r|| <= tol ||b|| within max_it iterations (tol = 0: it runs exactly max_it
 *     iterations, for timing);
 *   - the recurrence's residual must agree with the true residual ||b - A x||;
 *   - the error must satisfy ||x - x*|| / ||x*|| <= kappa(A) ||b - A x|| / ||b||, the bound that holds for
 *     any approximate solution (kappa(A) from A's known eigenvalues): a wrong halo or a wrong matrix row
 *     makes x drift from x* while the computed residual stays small, and fails here.
 * Timed: the CG iterations (after a barrier), as the largest per-rank MPI_Wtime difference.
 *
 *   cg [nx ny nz] [max_it] [tol]      defaults 16 16 16, 500, 1e-8
 */
#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAG_HALO 21

/* Everything a rank knows about its part of the problem (no globals: virtual ranks share them). */
struct problem {
    long long nx, ny, nz, n;  /* grid and global row count */
    long long first, nloc;    /* my rows: [first, first + nloc) */
    int p;
    /* CSR with local column indices: < nloc for my rows, nloc + k for halo entry k */
    long long *rowptr;
    int *col;
    double *val;
    long long nghost;
    /* neighbours, ascending rank: ghost entries [gptr[i], gptr[i+1]) come from nbr[i]; my rows
     * sidx[sptr[i] .. sptr[i+1]) (local indices) go to nbr[i] */
    int nnbr, *nbr;
    long long *gptr, *sptr, *sidx;
    double *sendbuf;
    MPI_Request *req;
    MPI_Status *sts; /* not MPI_STATUSES_IGNORE: GCC warns falsely about it */
};

static void fail(const char *what)
{
    fprintf(stderr, "FAILED: %s\n", what);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes > 0 ? bytes : 1);
    if (p == NULL)
        fail("out of memory");
    return p;
}

static int parse_ll(const char *s, long long lo, long long hi, long long *out)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (*s == '\0' || errno != 0 || *end != '\0' || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static int parse_double(const char *s, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (*s == '\0' || errno != 0 || *end != '\0' || !(v >= 0.0) || v >= 1.0)
        return -1;
    *out = v;
    return 0;
}

/* Block distribution of n rows over p ranks: first row of rank r, and the owner of row g. */
static long long block_first(long long n, int p, int r)
{
    long long q = n / p, rem = n % p;
    return r * q + (r < rem ? r : rem);
}

static int block_owner(long long n, int p, long long g)
{
    long long q = n / p, rem = n % p;
    if (g < rem * (q + 1))
        return (int)(g / (q + 1));
    return (int)(rem + (g - rem * (q + 1)) / q);
}

/* The known solution at grid point (i, j, k). */
static double exact(const struct problem *pb, long long i, long long j, long long k)
{
    double x = (i + 1.0) / (pb->nx + 1.0), y = (j + 1.0) / (pb->ny + 1.0), z = (k + 1.0) / (pb->nz + 1.0);
    return x * (1.0 - x) * y * (1.0 - y) * z * (1.0 - z) * 64.0 + 0.1 * (double)((i + 2 * j + 3 * k) % 5 - 2);
}

/* The (at most 7) columns of row g in ascending order; returns the count. */
static int row_columns(const struct problem *pb, long long g, long long cols[7])
{
    long long i = g % pb->nx, j = (g / pb->nx) % pb->ny, k = g / (pb->nx * pb->ny), sxy = pb->nx * pb->ny;
    int c = 0;
    if (k > 0) cols[c++] = g - sxy;
    if (j > 0) cols[c++] = g - pb->nx;
    if (i > 0) cols[c++] = g - 1;
    cols[c++] = g;
    if (i < pb->nx - 1) cols[c++] = g + 1;
    if (j < pb->ny - 1) cols[c++] = g + pb->nx;
    if (k < pb->nz - 1) cols[c++] = g + sxy;
    return c;
}

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* Sorts and removes duplicates; returns the new length. */
static long long unique_ll(long long *v, long long n)
{
    if (n == 0)
        return 0;
    qsort(v, (size_t)n, sizeof *v, cmp_ll);
    long long m = 1;
    for (long long i = 1; i < n; ++i)
        if (v[i] != v[m - 1])
            v[m++] = v[i];
    return m;
}

/* Position of x in the sorted v[0..n), or -1. */
static long long find_ll(const long long *v, long long n, long long x)
{
    long long lo = 0, hi = n;
    while (lo < hi) {
        long long mid = lo + (hi - lo) / 2;
        if (v[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && v[lo] == x ? lo : -1;
}

static void build(struct problem *pb, int rank)
{
    const long long n = pb->n, first = pb->first, nloc = pb->nloc, last = first + nloc;
    long long cols[7];
    /* off-rank columns (with repeats), and my rows that have one */
    long long *ghosts = xmalloc((size_t)(6 * nloc) * sizeof *ghosts), nghost = 0;
    long long *srows = xmalloc((size_t)(6 * nloc) * sizeof *srows), nsend = 0;
    for (long long g = first; g < last; ++g) {
        int c = row_columns(pb, g, cols);
        for (int e = 0; e < c; ++e)
            if (cols[e] < first || cols[e] >= last) {
                ghosts[nghost++] = cols[e];
                /* keyed by (owner, row) so that the list groups by neighbour, rows ascending within one */
                srows[nsend++] = (long long)block_owner(n, pb->p, cols[e]) * n + g;
            }
    }
    nghost = unique_ll(ghosts, nghost); /* ascending global index = grouped by owner, ascending */
    nsend = unique_ll(srows, nsend);
    pb->nghost = nghost;

    /* neighbours: the owners of the ghosts (the same set as the receivers of srows, by symmetry) */
    pb->nbr = xmalloc((size_t)(nghost + 1) * sizeof *pb->nbr);
    pb->gptr = xmalloc((size_t)(nghost + 2) * sizeof *pb->gptr);
    pb->sptr = xmalloc((size_t)(nghost + 2) * sizeof *pb->sptr);
    pb->nnbr = 0;
    for (long long e = 0; e < nghost; ++e) {
        int q = block_owner(n, pb->p, ghosts[e]);
        if (pb->nnbr == 0 || pb->nbr[pb->nnbr - 1] != q) {
            pb->nbr[pb->nnbr] = q;
            pb->gptr[pb->nnbr++] = e;
        }
    }
    pb->gptr[pb->nnbr] = nghost;
    pb->sidx = xmalloc((size_t)(nsend + 1) * sizeof *pb->sidx);
    int b = -1;
    for (long long e = 0; e < nsend; ++e) {
        int q = (int)(srows[e] / n);
        if (b < 0 || pb->nbr[b] != q) {
            ++b;
            if (b >= pb->nnbr || pb->nbr[b] != q)
                fail("send and receive neighbours differ (the matrix is not structurally symmetric?)");
            pb->sptr[b] = e;
        }
        pb->sidx[e] = srows[e] % n - first;
    }
    if (b != pb->nnbr - 1)
        fail("send and receive neighbours differ (the matrix is not structurally symmetric?)");
    pb->sptr[pb->nnbr] = nsend;
    pb->sendbuf = xmalloc((size_t)nsend * sizeof *pb->sendbuf);
    pb->req = xmalloc((size_t)(2 * pb->nnbr + 1) * sizeof *pb->req);
    pb->sts = xmalloc((size_t)(2 * pb->nnbr + 1) * sizeof *pb->sts);

    /* CSR with local column indices */
    pb->rowptr = xmalloc((size_t)(nloc + 1) * sizeof *pb->rowptr);
    pb->col = xmalloc((size_t)(7 * nloc) * sizeof *pb->col);
    pb->val = xmalloc((size_t)(7 * nloc) * sizeof *pb->val);
    long long nz = 0;
    for (long long g = first; g < last; ++g) {
        pb->rowptr[g - first] = nz;
        int c = row_columns(pb, g, cols);
        for (int e = 0; e < c; ++e) {
            long long lc;
            if (cols[e] >= first && cols[e] < last)
                lc = cols[e] - first;
            else
                lc = nloc + find_ll(ghosts, nghost, cols[e]);
            pb->col[nz] = (int)lc;
            pb->val[nz++] = cols[e] == g ? 6.0 : -1.0;
        }
    }
    pb->rowptr[nloc] = nz;
    free(ghosts);
    free(srows);
    (void)rank;
}

/* y = A x; x holds nloc own entries followed by room for the nghost halo entries, which this fills. */
static void spmv(struct problem *pb, double *x, double *y)
{
    int nr = 0;
    for (int b = 0; b < pb->nnbr; ++b)
        MPI_Irecv(x + pb->nloc + pb->gptr[b], (int)(pb->gptr[b + 1] - pb->gptr[b]), MPI_DOUBLE, pb->nbr[b], TAG_HALO,
                  MPI_COMM_WORLD, &pb->req[nr++]);
    for (int b = 0; b < pb->nnbr; ++b) {
        for (long long e = pb->sptr[b]; e < pb->sptr[b + 1]; ++e)
            pb->sendbuf[e] = x[pb->sidx[e]];
        MPI_Isend(pb->sendbuf + pb->sptr[b], (int)(pb->sptr[b + 1] - pb->sptr[b]), MPI_DOUBLE, pb->nbr[b], TAG_HALO,
                  MPI_COMM_WORLD, &pb->req[nr++]);
    }
    MPI_Waitall(nr, pb->req, pb->sts);
    for (long long r = 0; r < pb->nloc; ++r) {
        double s = 0.0;
        for (long long e = pb->rowptr[r]; e < pb->rowptr[r + 1]; ++e)
            s += pb->val[e] * x[pb->col[e]];
        y[r] = s;
    }
}

static double dot(const struct problem *pb, const double *a, const double *b)
{
    double local = 0.0, global = 0.0;
    for (long long r = 0; r < pb->nloc; ++r)
        local += a[r] * b[r];
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return global;
}

/* Condition number of A from its eigenvalues 6 - 2 sum_d cos(pi m_d / (n_d + 1)). */
static double kappa(const struct problem *pb)
{
    const double pi = 3.14159265358979323846;
    double lo = 0.0, hi = 0.0;
    long long dims[3] = {pb->nx, pb->ny, pb->nz};
    for (int d = 0; d < 3; ++d) {
        double c = cos(pi / (double)(dims[d] + 1));
        lo += 2.0 * (1.0 - c);
        hi += 2.0 * (1.0 + c);
    }
    return hi / lo;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    static const char usage_text[] =
        "usage: cg [nx ny nz] [max_it] [tol]   (grid of unknowns, default 16 16 16; iteration cap >= 1, default "
        "500; relative residual target in [0, 1), default 1e-8; tol 0 runs exactly max_it iterations)\n";
    struct problem pb;
    memset(&pb, 0, sizeof pb);
    pb.nx = pb.ny = pb.nz = 16;
    long long max_it = 500;
    double tol = 1e-8;
    int bad = 0, a = 1;
    if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        if (rank == 0)
            fputs(usage_text, stderr);
        MPI_Finalize();
        return 0;
    }
    if (argc >= 4) {
        bad |= parse_ll(argv[1], 1, 1000000, &pb.nx) | parse_ll(argv[2], 1, 1000000, &pb.ny) |
               parse_ll(argv[3], 1, 100000000, &pb.nz);
        a = 4;
    } else if (argc == 2 || argc == 3) {
        bad = 1;
    }
    if (!bad && argc > a && parse_ll(argv[a], 1, 100000000, &max_it) != 0)
        bad = 1;
    if (!bad && argc > a + 1 && parse_double(argv[a + 1], &tol) != 0)
        bad = 1;
    if (argc > a + 2)
        bad = 1;
    pb.n = pb.nx * pb.ny * pb.nz; /* at most 1e6 * 1e6 * 1e8: fits; larger than 1e12 is refused */
    if (!bad && (double)pb.nx * (double)pb.ny * (double)pb.nz > 1e12)
        bad = 1;
    if (!bad && pb.n < size) {
        if (rank == 0)
            fprintf(stderr, "cg: %lld rows are fewer than the %d ranks\n", pb.n, size);
        bad = 1;
    }
    if (!bad && pb.n / size + 1 > 100000000LL) {
        if (rank == 0)
            fprintf(stderr, "cg: more than 1e8 rows per rank\n");
        bad = 1;
    }
    if (bad) {
        if (rank == 0)
            fputs(usage_text, stderr);
        MPI_Finalize();
        return 2;
    }

    pb.p = size;
    pb.first = block_first(pb.n, size, rank);
    pb.nloc = block_first(pb.n, size, rank + 1) - pb.first;
    build(&pb, rank);

    const long long nloc = pb.nloc, width = nloc + pb.nghost;
    double *x = xmalloc((size_t)nloc * sizeof *x), *xs = xmalloc((size_t)nloc * sizeof *xs);
    double *r = xmalloc((size_t)nloc * sizeof *r), *b = xmalloc((size_t)nloc * sizeof *b);
    double *p = xmalloc((size_t)width * sizeof *p), *q = xmalloc((size_t)nloc * sizeof *q);
    /* x* and b = A x*, computed from the formula (x* is known everywhere, so no halo is needed) */
    long long cols[7];
    for (long long l = 0; l < nloc; ++l) {
        long long g = pb.first + l;
        long long i = g % pb.nx, j = (g / pb.nx) % pb.ny, k = g / (pb.nx * pb.ny);
        xs[l] = exact(&pb, i, j, k);
        int c = row_columns(&pb, g, cols);
        double s = 0.0;
        for (int e = 0; e < c; ++e) {
            long long h = cols[e];
            double v = exact(&pb, h % pb.nx, (h / pb.nx) % pb.ny, h / (pb.nx * pb.ny));
            s += (h == g ? 6.0 : -1.0) * v;
        }
        b[l] = s;
        x[l] = 0.0;
        r[l] = s;
        p[l] = s;
    }
    const double bnorm = sqrt(dot(&pb, b, b));

    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    double rr = bnorm * bnorm;
    long long it = 0;
    int converged = tol > 0.0 && sqrt(rr) <= tol * bnorm;
    while (!converged && it < max_it) {
        spmv(&pb, p, q);
        const double alpha = rr / dot(&pb, p, q);
        for (long long l = 0; l < nloc; ++l) {
            x[l] += alpha * p[l];
            r[l] -= alpha * q[l];
        }
        const double rr_new = dot(&pb, r, r);
        ++it;
        if (rr_new == 0.0 || (tol > 0.0 && sqrt(rr_new) <= tol * bnorm))
            converged = 1; /* (an exact zero residual ends even a fixed-iteration run: beta would be 0/0) */
        const double beta = rr_new / rr;
        rr = rr_new;
        for (long long l = 0; l < nloc; ++l)
            p[l] = r[l] + beta * p[l];
    }
    const double t = MPI_Wtime() - t0;
    double tmax = 0.0;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);

    /* true residual b - A x, and the error against x* */
    for (long long l = 0; l < nloc; ++l)
        p[l] = x[l];
    spmv(&pb, p, q);
    for (long long l = 0; l < nloc; ++l)
        q[l] = b[l] - q[l];
    const double true_res = sqrt(dot(&pb, q, q)) / bnorm, rec_res = sqrt(rr) / bnorm;
    for (long long l = 0; l < nloc; ++l)
        q[l] = x[l] - xs[l];
    const double err = sqrt(dot(&pb, q, q)) / sqrt(dot(&pb, xs, xs));

    if (rank == 0) {
        char msg[256];
        if (tol > 0.0 && !converged) {
            snprintf(msg, sizeof msg, "no convergence to %g in %lld iterations (relative residual %.3e)", tol, it,
                     rec_res);
            fail(msg);
        }
        if (!(fabs(true_res - rec_res) <= 1e-6 * (rec_res > tol ? rec_res : tol) + 1e-12)) {
            snprintf(msg, sizeof msg, "true residual %.6e disagrees with the recurrence's %.6e", true_res, rec_res);
            fail(msg);
        }
        const double bound = kappa(&pb) * true_res;
        if (!(err <= bound * (1.0 + 1e-9) + 1e-14)) {
            snprintf(msg, sizeof msg, "error %.6e exceeds kappa * residual = %.6e", err, bound);
            fail(msg);
        }
        printf("cg: %d ranks, grid %lldx%lldx%lld (%lld rows), %lld iterations, residual %.3e, error %.3e %s\n", size,
               pb.nx, pb.ny, pb.nz, pb.n, it, true_res, err, tol > 0.0 ? "ok" : "(tol 0) ok");
        printf("cg: virtual time %.9f\n", tmax);
        printf("cg: time per iteration %.9f\n", it > 0 ? tmax / (double)it : 0.0);
    }
    free(x); free(xs); free(r); free(b); free(p); free(q);
    free(pb.rowptr); free(pb.col); free(pb.val); free(pb.nbr); free(pb.gptr); free(pb.sptr); free(pb.sidx);
    free(pb.sendbuf); free(pb.req); free(pb.sts);
    MPI_Finalize();
    return 0;
}

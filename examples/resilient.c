/* resilient: a Jacobi solver that survives process failures with ULFM (docs/resilience.md).
 *
 * Solves A x = b for A = tridiag(-1, 2.5, -1) of order n (diagonally dominant: Jacobi contracts the error by
 * at most 2/2.5 per sweep), b = A x* for the known x*_i = 1 + sin(0.1 i). The rows are block-distributed
 * over the ranks of a communicator `work` (a duplicate of MPI_COMM_WORLD with MPI_ERRORS_RETURN). Every
 * sweep exchanges one halo value with each neighbour (MPI_Sendrecv) and sums the squared update
 * (MPI_Allreduce). Every `every` sweeps the ranks save a checkpoint: MPI_Allgatherv of the iterate, so that
 * every rank holds all of it (an in-memory replicated checkpoint: n doubles per rank, simple rather than
 * frugal). After each sweep the ranks agree (MPIX_Comm_agree) on whether all of its calls succeeded; if not,
 * they revoke `work`, shrink it to the survivors, split the rows among them again and go on from the last
 * checkpoint. A Jacobi sweep updates each row from its neighbours alone, so the result does not depend on
 * how the rows are split: with or without failures the solver ends with the same iterate, and checks it
 * against x* (max error <= 1e-9).
 *
 * Arguments: [n] [sweeps] [every] (default 64 rows per rank, 120 sweeps, a checkpoint every 10).
 * Output (rank 0 of the surviving communicator):
 *   resilient: <p> ranks, <s> survivors, <k> shrinks, n <n>, <sweeps> sweeps (<r> redone), error <e> ok
 *   resilient: virtual time <t>
 * Run it with failures: mpirun -np 1 ./resilient -xsim-np 16 -xsim-fault 3@2ms,9@5ms */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ULFM: MPICH's mpi.h declares these; Open MPI 4.1's does not (xsim provides them with either). */
#ifndef MPIX_ERR_PROC_FAILED
int MPIX_Comm_revoke(MPI_Comm comm);
int MPIX_Comm_shrink(MPI_Comm comm, MPI_Comm* newcomm);
int MPIX_Comm_agree(MPI_Comm comm, int* flag);
#endif

static double x_star(long i) { return 1.0 + sin(0.1 * (double)i); }
static double b_of(long i, long n) { /* (A x*)_i, with x*_{-1} = x*_n = 0 */
    double left = i > 0 ? x_star(i - 1) : 0.0, right = i + 1 < n ? x_star(i + 1) : 0.0;
    return 2.5 * x_star(i) - left - right;
}

/* The rows [lo, hi) of rank r of p. */
static void rows(long n, int r, int p, long* lo, long* hi) {
    *lo = n * r / p;
    *hi = n * (r + 1) / p;
}

typedef struct {
    MPI_Comm comm;
    int rank, size;
    long lo, hi;
    double* x;  /* rows lo..hi-1, with a halo cell at each end: x[0] is row lo-1, x[hi-lo+1] row hi */
    double* xn; /* the next iterate */
} Part;

static void partition(Part* w, long n, const double* from) {
    MPI_Comm_rank(w->comm, &w->rank);
    MPI_Comm_size(w->comm, &w->size);
    rows(n, w->rank, w->size, &w->lo, &w->hi);
    long m = w->hi - w->lo;
    free(w->x);
    free(w->xn);
    w->x = calloc((size_t)m + 2, sizeof(double));
    w->xn = calloc((size_t)m + 2, sizeof(double));
    if (!w->x || !w->xn) {
        fprintf(stderr, "FAILED: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (long i = 0; i < m; ++i) w->x[i + 1] = from ? from[w->lo + i] : 0.0;
}

/* One sweep; returns MPI_SUCCESS or the first error of its calls. */
static int sweep(Part* w, long n, double* update) {
    long m = w->hi - w->lo;
    int left = w->rank > 0 ? w->rank - 1 : MPI_PROC_NULL, right = w->rank + 1 < w->size ? w->rank + 1 : MPI_PROC_NULL;
    int rc = MPI_Sendrecv(&w->x[m], 1, MPI_DOUBLE, right, 0, &w->x[0], 1, MPI_DOUBLE, left, 0, w->comm,
                          MPI_STATUS_IGNORE);
    int rc2 = MPI_Sendrecv(&w->x[1], 1, MPI_DOUBLE, left, 1, &w->x[m + 1], 1, MPI_DOUBLE, right, 1, w->comm,
                           MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS) rc = rc2;
    if (left == MPI_PROC_NULL) w->x[0] = 0.0;
    if (right == MPI_PROC_NULL) w->x[m + 1] = 0.0;
    double local = 0.0;
    for (long i = 1; i <= m; ++i) {
        w->xn[i] = (b_of(w->lo + i - 1, n) + w->x[i - 1] + w->x[i + 1]) / 2.5;
        double d = w->xn[i] - w->x[i];
        local += d * d;
    }
    double* t = w->x;
    w->x = w->xn;
    w->xn = t;
    rc2 = MPI_Allreduce(&local, update, 1, MPI_DOUBLE, MPI_SUM, w->comm);
    return rc != MPI_SUCCESS ? rc : rc2;
}

/* The checkpoint: every rank gets the whole iterate. Returns MPI_SUCCESS or the error. */
static int checkpoint(Part* w, long n, double* all) {
    int* counts = malloc(sizeof(int) * (size_t)w->size);
    int* displs = malloc(sizeof(int) * (size_t)w->size);
    for (int r = 0; r < w->size; ++r) {
        long lo, hi;
        rows(n, r, w->size, &lo, &hi);
        counts[r] = (int)(hi - lo);
        displs[r] = (int)lo;
    }
    int rc = MPI_Allgatherv(&w->x[1], (int)(w->hi - w->lo), MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, w->comm);
    free(counts);
    free(displs);
    return rc;
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int world_rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        if (world_rank == 0) printf("usage: resilient [n] [sweeps] [every]\n");
        MPI_Finalize();
        return 0;
    }
    long n = argc > 1 ? atol(argv[1]) : 64L * p;
    long sweeps = argc > 2 ? atol(argv[2]) : 120;
    long every = argc > 3 ? atol(argv[3]) : 10;
    if (n < p || sweeps < 1 || every < 1) {
        if (world_rank == 0) fprintf(stderr, "usage: resilient [n >= ranks] [sweeps >= 1] [every >= 1]\n");
        MPI_Finalize();
        return 2;
    }
    Part w = {MPI_COMM_NULL, 0, 0, 0, 0, NULL, NULL};
    MPI_Comm_dup(MPI_COMM_WORLD, &w.comm);
    MPI_Comm_set_errhandler(w.comm, MPI_ERRORS_RETURN);
    partition(&w, n, NULL);
    double* saved = calloc((size_t)n, sizeof(double)); /* the last checkpoint (x_0 = 0 to begin with) */
    double* fresh = calloc((size_t)n, sizeof(double)); /* a checkpoint in the making (kept once agreed) */
    long saved_at = 0, redone = 0;
    int shrinks = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long k = 0; k < sweeps;) {
        double update = 0.0;
        int rc = sweep(&w, n, &update);
        if (rc == MPI_SUCCESS && (k + 1) % every == 0) {
            rc = checkpoint(&w, n, fresh);
        }
        int ok = rc == MPI_SUCCESS;
        int rc2 = MPIX_Comm_agree(w.comm, &ok);
        if (rc2 == MPI_SUCCESS && ok) {
            ++k;
            if (k % every == 0) {
                double* t = saved;
                saved = fresh;
                fresh = t;
                saved_at = k;
            }
            continue;
        }
        /* Recovery: the survivors go on from the last checkpoint, with the rows split among them. */
        MPIX_Comm_revoke(w.comm);
        MPI_Comm survivors;
        MPIX_Comm_shrink(w.comm, &survivors);
        MPI_Comm_free(&w.comm);
        w.comm = survivors;
        ++shrinks;
        redone += k - saved_at;
        k = saved_at;
        partition(&w, n, saved);
    }
    double t = MPI_Wtime() - t0;
    /* the check: the iterate against x* */
    double err = 0.0;
    for (long i = 0; i < w.hi - w.lo; ++i) err = fmax(err, fabs(w.x[i + 1] - x_star(w.lo + i)));
    double max_err = 0.0, max_t = 0.0;
    MPI_Reduce(&err, &max_err, 1, MPI_DOUBLE, MPI_MAX, 0, w.comm);
    MPI_Reduce(&t, &max_t, 1, MPI_DOUBLE, MPI_MAX, 0, w.comm);
    if (w.rank == 0) {
        if (!(max_err <= 1e-9)) {
            fprintf(stderr, "FAILED: max error %.3e after %ld sweeps\n", max_err, sweeps);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        printf("resilient: %d ranks, %d survivors, %d shrinks, n %ld, %ld sweeps (%ld redone), error %.3e ok\n", p,
               w.size, shrinks, n, sweeps, redone, max_err);
        printf("resilient: virtual time %.9f\n", max_t);
    }
    free(saved);
    free(fresh);
    free(w.x);
    free(w.xn);
    MPI_Comm_free(&w.comm);
    MPI_Finalize();
    return 0;
}

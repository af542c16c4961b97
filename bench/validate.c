/* The communication cases of docs/validation.md, timed with MPI_Wtime: run natively (the machine's own
 * time) and under xsim with a calibrated configuration (the predicted time), then compared by
 * bench/validate.sh. Plain MPI; 2 ranks (rank 0 prints). One line per case: "validate: CASE SECONDS".
 *   pingpong-B    one-way time of a B-byte MPI_Send/MPI_Recv ping-pong (median of 5 batches)
 *   allreduce-N   one MPI_Allreduce of N doubles (MPI_SUM; mean over the iterations, median of 5 batches)
 *   halo-B        one exchange of B bytes each way with MPI_Sendrecv (a 1-D halo; median of 5 batches)
 * Not the calibration's own code: xsim-calibrate measures ping-pong separately. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

static double median5(double* v) {
    qsort(v, 5, sizeof *v, cmp);
    return v[2];
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0) fprintf(stderr, "validate: needs exactly 2 ranks, got %d\n", size);
        MPI_Finalize();
        return 2;
    }
    const int peer = 1 - rank;
    char* buf = calloc(1 << 20, 1);
    char* buf2 = calloc(1 << 20, 1);
    double* x = calloc(65536, sizeof *x);
    double* y = calloc(65536, sizeof *y);
    const long sizes[] = {8, 1024, 65536, 1048576};
    for (int s = 0; s < 4; ++s) {
        const int n = (int)sizes[s], reps = n <= 1024 ? 2000 : n <= 65536 ? 400 : 40;
        double t[5];
        for (int b = -1; b < 5; ++b) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (int r = 0; r < reps; ++r) {
                if (rank == 0) {
                    MPI_Send(buf, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
                    MPI_Recv(buf, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else {
                    MPI_Recv(buf, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MPI_Send(buf, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
                }
            }
            if (b >= 0) t[b] = (MPI_Wtime() - t0) / reps / 2;
        }
        if (rank == 0) printf("validate: pingpong-%ld %.9e\n", sizes[s], median5(t));
    }
    const int counts[] = {1, 1024, 65536};
    for (int c = 0; c < 3; ++c) {
        const int n = counts[c], iters = n <= 1024 ? 1000 : 50;
        for (int i = 0; i < n; ++i) x[i] = rank + i;
        double t[5];
        for (int b = -1; b < 5; ++b) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (int it = 0; it < iters; ++it) MPI_Allreduce(x, y, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            double mine = (MPI_Wtime() - t0) / iters, worst;
            MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            if (b >= 0) t[b] = worst;
        }
        if (y[n - 1] != 2.0 * (n - 1) + 1) fprintf(stderr, "validate: allreduce-%d: wrong result %g\n", n, y[n - 1]);
        if (rank == 0) printf("validate: allreduce-%d %.9e\n", n, median5(t));
    }
    const long halos[] = {8192, 262144};
    for (int h = 0; h < 2; ++h) {
        const int n = (int)halos[h], reps = n <= 8192 ? 1000 : 100;
        double t[5];
        for (int b = -1; b < 5; ++b) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (int r = 0; r < reps; ++r)
                MPI_Sendrecv(buf, n, MPI_BYTE, peer, 2, buf2, n, MPI_BYTE, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            double mine = (MPI_Wtime() - t0) / reps, worst;
            MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            if (b >= 0) t[b] = worst;
        }
        if (rank == 0) printf("validate: halo-%ld %.9e\n", halos[h], median5(t));
    }
    free(buf);
    free(buf2);
    free(x);
    free(y);
    MPI_Finalize();
    return 0;
}

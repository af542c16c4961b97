/* Injected process failures (docs/resilience.md), each mode with exact virtual times on the default ethernet
 * star (a message of B bytes takes 50 us + 8 B ns), run with -xsim-fault 1@2ms and -xsim-cpu none:
 *   recv:     rank 0 receives from rank 1, which computes 3 ms before it sends: rank 1 fails at 2 ms (at its
 *             next MPI call), rank 0's MPI_Recv reports MPIX_ERR_PROC_FAILED at 2 ms + the detection delay
 *             (MPI_ERRORS_RETURN), or ends the run (the default MPI_ERRORS_ARE_FATAL).
 *   blocked:  rank 1 is blocked in MPI_Recv from rank 2 (which never sends before it) when it fails; rank 0
 *             detects it as above; rank 2 then sends to rank 1 (dropped) and finishes.
 *   ssend:    rank 0 MPI_Ssends to rank 1, which never receives: the send reports the failure.
 *   coll:     every rank calls MPI_Allreduce; rank 1 fails before it enters: the others' allreduce reports it.
 *   none:     no failure happens before the end (the fault is after it): normal output.
 * Prints "faults: RANK what TIME_US [error class]". */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "xsim.h"

/* ULFM's class where mpi.h declares it (MPICH); xsim's stand-in, MPI_ERR_OTHER, where it does not. */
#ifdef MPIX_ERR_PROC_FAILED
#define PROC_FAILED_CLASS MPIX_ERR_PROC_FAILED
#else
#define PROC_FAILED_CLASS MPI_ERR_OTHER
#endif

static const char* cls(int err) {
    if (err == MPI_SUCCESS) return "MPI_SUCCESS";
    int c;
    MPI_Error_class(err, &c);
    return c == PROC_FAILED_CLASS ? "MPIX_ERR_PROC_FAILED" : "other";
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char* mode = argc > 1 ? argv[1] : "recv";
    const int fatal = argc > 2 && strcmp(argv[2], "fatal") == 0;
    if (!fatal) MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    double v = 1;
    int err = MPI_SUCCESS;
    if (strcmp(mode, "recv") == 0 || strcmp(mode, "none") == 0) {
        if (rank == 0) {
            err = MPI_Recv(&v, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            printf("faults: 0 recv-returned %.3f %s\n", MPI_Wtime() * 1e6, cls(err));
        } else if (rank == 1) {
            xsim_compute(0.003);
            MPI_Send(&v, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
            printf("faults: 1 sent %.3f\n", MPI_Wtime() * 1e6);
        }
    } else if (strcmp(mode, "blocked") == 0) {
        if (rank == 0) {
            err = MPI_Recv(&v, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            printf("faults: 0 recv-returned %.3f %s\n", MPI_Wtime() * 1e6, cls(err));
        } else if (rank == 1) {
            MPI_Recv(&v, 1, MPI_DOUBLE, 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            printf("faults: 1 never here %.3f\n", MPI_Wtime() * 1e6);
        } else if (rank == 2) {
            xsim_compute(0.005);
            err = MPI_Send(&v, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
            printf("faults: 2 sent-to-failed %.3f %s\n", MPI_Wtime() * 1e6, cls(err));
        }
    } else if (strcmp(mode, "ssend") == 0) {
        if (rank == 0) {
            err = MPI_Ssend(&v, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
            printf("faults: 0 ssend-returned %.3f %s\n", MPI_Wtime() * 1e6, cls(err));
        } else if (rank == 1) {
            xsim_compute(0.003);
            MPI_Barrier(MPI_COMM_SELF);
        }
    } else if (strcmp(mode, "coll") == 0) {
        if (rank == 1) xsim_compute(0.003);
        double s = 0;
        err = MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        printf("faults: %d allreduce-returned %s\n", rank, cls(err));
    }
    MPI_Finalize();
    return 0;
}

/* ULFM recovery calls (docs/resilience.md), each mode with exact virtual times on the ethernet star (a message
 * of B bytes takes 50 us + 8 B ns; a revocation or an agreement contribution counts 8 bytes: 50.064 us), run
 * with -xsim-cpu none and MPI_ERRORS_RETURN:
 *   loop:    the pattern. Every rank computes 100 us, then MPI_Allreduce; the ranks agree on whether
 *            it succeeded and, if not, revoke and shrink and repeat the step on the survivors. 40 steps;
 *            prints the survivors, the shrinks and the last sum (rank 0 of the final communicator).
 *   agree:   2 ranks agree at time 0 on flags 1 and 1 (or with -xsim-fault 1@1ms: rank 1 computes 2 ms
 *            first, so it fails before it contributes).
 *   shrink:  4 ranks; rank 1 computes 2 ms before shrinking (it fails at 1 ms when told to); the others
 *            shrink at time 0, then Allreduce 1 on the new communicator.
 *   revoke:  rank 0 computes 100 us and revokes MPI_COMM_WORLD; rank 1 is blocked in a receive from rank 0
 *            (fails when the revocation arrives); rank 2 computes 1 ms, then posts a receive (fails at once);
 *            then all three agree on the revoked communicator (it still works).
 *   inter:   MPIX_Comm_agree on an intercommunicator (refused: the run stops with the reason).
 *   ack:     3 ranks, rank 2 fails at 1 ms (-xsim-fault 2@1ms): ranks 0 and 1 compute 2 ms, acknowledge,
 *            read the acknowledged group and agree (no error: the failure is acknowledged).
 * A second argument "fatal" keeps MPI_ERRORS_ARE_FATAL on MPI_COMM_WORLD. Prints "ulfm: RANK what ...". */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "xsim.h"

/* ULFM (MPICH declares them; Open MPI 4.1's mpi.h does not, and xsim's stand-in class is MPI_ERR_OTHER) */
int MPIX_Comm_revoke(MPI_Comm comm);
int MPIX_Comm_shrink(MPI_Comm comm, MPI_Comm* newcomm);
int MPIX_Comm_agree(MPI_Comm comm, int* flag);
int MPIX_Comm_failure_ack(MPI_Comm comm);
int MPIX_Comm_failure_get_acked(MPI_Comm comm, MPI_Group* failed);
#ifdef MPIX_ERR_PROC_FAILED
#define PROC_FAILED_CLASS MPIX_ERR_PROC_FAILED
#define REVOKED_CLASS MPIX_ERR_REVOKED
#else
#define PROC_FAILED_CLASS MPI_ERR_OTHER
#define REVOKED_CLASS MPI_ERR_OTHER
#endif

/* The name of err's class: `expected` when it is that class, else what it is. */
static const char* cls(int err, const char* expected) {
    if (err == MPI_SUCCESS) return "MPI_SUCCESS";
    int c;
    MPI_Error_class(err, &c);
    int want = strcmp(expected, "MPIX_ERR_REVOKED") == 0 ? REVOKED_CLASS : PROC_FAILED_CLASS;
    if (c == want) return expected;
    return c == PROC_FAILED_CLASS ? "MPIX_ERR_PROC_FAILED" : c == REVOKED_CLASS ? "MPIX_ERR_REVOKED" : "other";
}

static double us(void) { return MPI_Wtime() * 1e6; }

static void loop(void) {
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    int shrinks = 0, sum = 0;
    for (int step = 0; step < 40;) {
        xsim_compute(100e-6);
        int one = 1;
        int rc = MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, comm);
        int flag = rc == MPI_SUCCESS;
        int rc2 = MPIX_Comm_agree(comm, &flag);
        if (rc2 != MPI_SUCCESS || !flag) {
            MPIX_Comm_revoke(comm);
            MPI_Comm survivors;
            MPIX_Comm_shrink(comm, &survivors);
            MPI_Comm_free(&comm);
            comm = survivors;
            ++shrinks;
            continue; /* the step again, on the survivors */
        }
        ++step;
    }
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (rank == 0) printf("ulfm: survivors %d shrinks %d sum %d\n", size, shrinks, sum);
    MPI_Comm_free(&comm);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char* mode = argc > 1 ? argv[1] : "loop";
    if (!(argc > 2 && strcmp(argv[2], "fatal") == 0)) MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (strcmp(mode, "loop") == 0) {
        loop();
    } else if (strcmp(mode, "agree") == 0) {
        if (rank == 1) xsim_compute(0.002);
        int flag = 1;
        int rc = MPIX_Comm_agree(MPI_COMM_WORLD, &flag);
        if (rank == 0) printf("ulfm: 0 agree %.3f flag %d %s\n", us(), flag, cls(rc, "MPIX_ERR_PROC_FAILED"));
    } else if (strcmp(mode, "agree_and") == 0) { /* flags 1..1 except rank 1: 0 */
        int flag = rank == 1 ? 0 : 1;
        int rc = MPIX_Comm_agree(MPI_COMM_WORLD, &flag);
        printf("ulfm: %d agree %.3f flag %d %s\n", rank, us(), flag, cls(rc, "MPIX_ERR_PROC_FAILED"));
    } else if (strcmp(mode, "shrink") == 0) {
        if (rank == 1) xsim_compute(0.002);
        MPI_Comm s;
        int rc = MPIX_Comm_shrink(MPI_COMM_WORLD, &s);
        int ssize = -1, srank = -1, one = 1, sum = 0;
        MPI_Comm_size(s, &ssize);
        MPI_Comm_rank(s, &srank);
        double t = us();
        int rc2 = MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, s);
        printf("ulfm: %d shrink %.3f %s size %d rank %d allreduce %.3f %d %s\n", rank, t, cls(rc, ""), ssize,
               srank, us(), sum, cls(rc2, ""));
        MPI_Comm_free(&s);
    } else if (strcmp(mode, "revoke") == 0) {
        double v = 0;
        if (rank == 0) {
            xsim_compute(100e-6);
            int rc = MPIX_Comm_revoke(MPI_COMM_WORLD);
            printf("ulfm: 0 revoked %.3f %s\n", us(), cls(rc, ""));
            rc = MPI_Recv(&v, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            printf("ulfm: 0 recv %.3f %s\n", us(), cls(rc, "MPIX_ERR_REVOKED"));
        } else if (rank == 1) {
            int rc = MPI_Recv(&v, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            printf("ulfm: 1 recv %.3f %s\n", us(), cls(rc, "MPIX_ERR_REVOKED"));
        } else if (rank == 2) {
            xsim_compute(0.001);
            int rc = MPI_Recv(&v, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            printf("ulfm: 2 recv %.3f %s\n", us(), cls(rc, "MPIX_ERR_REVOKED"));
            rc = MPI_Barrier(MPI_COMM_WORLD);
            printf("ulfm: 2 barrier %.3f %s\n", us(), cls(rc, "MPIX_ERR_REVOKED"));
        }
        int flag = rank + 1;
        int rc = MPIX_Comm_agree(MPI_COMM_WORLD, &flag);
        printf("ulfm: %d agree %.3f flag %d %s\n", rank, us(), flag, cls(rc, ""));
    } else if (strcmp(mode, "inter") == 0) { /* ULFM on an intercommunicator: refused with a message */
        MPI_Comm inter;
        MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_WORLD, 1 - rank, 0, &inter);
        MPI_Comm_set_errhandler(inter, MPI_ERRORS_ARE_FATAL);
        int flag = 1;
        MPIX_Comm_agree(inter, &flag);
    } else if (strcmp(mode, "ack") == 0) {
        if (rank < 2) {
            xsim_compute(0.002);
            MPIX_Comm_failure_ack(MPI_COMM_WORLD);
            MPI_Group failed, world;
            MPIX_Comm_failure_get_acked(MPI_COMM_WORLD, &failed);
            int n = -1, who = -1, zero = 0;
            MPI_Group_size(failed, &n);
            MPI_Comm_group(MPI_COMM_WORLD, &world);
            if (n > 0) MPI_Group_translate_ranks(failed, 1, &zero, world, &who);
            int flag = 1;
            int rc = MPIX_Comm_agree(MPI_COMM_WORLD, &flag);
            printf("ulfm: %d acked %d (rank %d) agree %.3f flag %d %s\n", rank, n, who, us(), flag, cls(rc, ""));
            if (failed != MPI_GROUP_EMPTY) MPI_Group_free(&failed);
            MPI_Group_free(&world);
        } else {
            xsim_compute(0.002);
            MPI_Barrier(MPI_COMM_WORLD); /* never: it fails at 1 ms */
        }
    }
    MPI_Finalize();
    return 0;
}

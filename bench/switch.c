/* switch.c - cost of one context switch between virtual ranks, measured through xsim itself.
 *
 * Every rank calls MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG) `polls` times; nothing is ever sent. Each call
 * costs the poll cost in virtual time, so after one call the rank is no longer the earliest of its native
 * process and its next call yields to the next rank: every call is one switch rank -> scheduler -> rank
 * (ranks resumed round-robin in rank order). Wall time per switch = simulator wall time / switches, from the
 * run report; it includes one MPI_Iprobe and the scheduler's queue operations.
 *
 *   switch [polls]      polls >= 1 (default 100)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long polls = argc > 1 ? strtol(argv[1], NULL, 10) : 100;
    if (polls < 1) {
        fprintf(stderr, "usage: switch [polls]   (polls >= 1)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int flag = 0;
    for (long i = 0; i < polls; ++i)
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    if (flag) {
        fprintf(stderr, "switch: a message appeared although nobody sends\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Finalize();
    return 0;
}

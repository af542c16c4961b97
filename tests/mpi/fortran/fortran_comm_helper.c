/* fortran_comm_helper.c - C side of fortran_comm.f90: receives Fortran communicator handles, converts them
 * with MPI_Comm_f2c, uses them from C, and hands a communicator created in C back through MPI_Comm_c2f.
 * Called through BIND(C) interfaces; no global state (virtual ranks share globals). */
#include <mpi.h>

/* MPI_Comm_c2f(MPI_COMM_WORLD): Fortran compares it with its own MPI_COMM_WORLD. */
MPI_Fint fhelper_world_c2f(void) { return MPI_Comm_c2f(MPI_COMM_WORLD); }

/* Rank and size in the Fortran communicator, and the sum of the ranks in it computed from C. */
int fhelper_rank_sum(MPI_Fint fcomm, int *rank, int *size)
{
    MPI_Comm comm = MPI_Comm_f2c(fcomm);
    int sum = -1;
    MPI_Comm_rank(comm, rank);
    MPI_Comm_size(comm, size);
    MPI_Allreduce(rank, &sum, 1, MPI_INT, MPI_SUM, comm);
    return sum;
}

/* Splits the Fortran communicator in C (colour: rank parity, key: -rank) and returns the Fortran handle. */
MPI_Fint fhelper_split_parity(MPI_Fint fcomm)
{
    MPI_Comm comm = MPI_Comm_f2c(fcomm), out = MPI_COMM_NULL;
    int rank;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_split(comm, rank % 2, -rank, &out);
    return MPI_Comm_c2f(out);
}

/* Frees a communicator that Fortran holds; returns 1 when the handle came back as MPI_COMM_NULL. */
int fhelper_free(MPI_Fint *fcomm)
{
    MPI_Comm comm = MPI_Comm_f2c(*fcomm);
    MPI_Comm_free(&comm);
    *fcomm = MPI_Comm_c2f(comm);
    return comm == MPI_COMM_NULL;
}

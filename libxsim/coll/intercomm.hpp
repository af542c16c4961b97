// Collective operations on intercommunicators, as MPICH 4 implements them by default: each is built from
// point-to-point messages between the two groups plus intra-group collectives (collectives.hpp) inside
// each group. Layer: libxsim/coll; depends on coll/collectives.hpp, coll/transport.hpp, native/ only.
//
// Every function takes two transports of the calling rank:
//  - `local`:  the rank's own group, as an intracommunicator (rank() = rank in the local group);
//  - `remote`: messages to the other group: rank() = rank in the local group, size() = size of the remote
//    group, and the peers of isend/irecv are ranks of the remote group.
// `low` tells whether the local group is the "low" one (the order in which the two directions go, as
// MPICH's is_low_group). Roots follow MPI: MPI_ROOT at the root, MPI_PROC_NULL at the other ranks of the
// root's group, the root's rank in the remote group everywhere in the other group. Arguments are checked
// by the caller; MPI_IN_PLACE is not allowed on intercommunicators. docs/collectives.md lists the rules.
#pragma once
#include <mpi.h>

#include "coll/transport.hpp"

namespace xsim::coll::inter {

void barrier(Transport& local, Transport& remote, bool low);
void bcast(Transport& local, Transport& remote, void* buf, int count, MPI_Datatype type, int root);
void reduce(Transport& local, Transport& remote, const void* sbuf, void* rbuf, int count, MPI_Datatype type,
            MPI_Op op, int root);
void allreduce(Transport& local, Transport& remote, const void* sbuf, void* rbuf, int count, MPI_Datatype type,
               MPI_Op op);
void gather(Transport& local, Transport& remote, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf,
            int rcount, MPI_Datatype rtype, int root);
void gatherv(Transport& local, Transport& remote, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf,
             const int* rcounts, const int* displs, MPI_Datatype rtype, int root);
void scatter(Transport& local, Transport& remote, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf,
             int rcount, MPI_Datatype rtype, int root);
void scatterv(Transport& local, Transport& remote, const void* sbuf, const int* scounts, const int* displs,
              MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype, int root);
void allgather(Transport& local, Transport& remote, bool low, const void* sbuf, int scount, MPI_Datatype stype,
               void* rbuf, int rcount, MPI_Datatype rtype);
void allgatherv(Transport& local, Transport& remote, bool low, const void* sbuf, int scount, MPI_Datatype stype,
                void* rbuf, const int* rcounts, const int* displs, MPI_Datatype rtype);
void alltoall(Transport& local, Transport& remote, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf,
              int rcount, MPI_Datatype rtype);
void alltoallv(Transport& local, Transport& remote, const void* sbuf, const int* scounts, const int* sdispls,
               MPI_Datatype stype, void* rbuf, const int* rcounts, const int* rdispls, MPI_Datatype rtype);
// Displacements in bytes, one datatype per peer (MPI_Alltoallw).
void alltoallw(Transport& local, Transport& remote, const void* sbuf, const int* scounts, const int* sdispls,
               const MPI_Datatype* stypes, void* rbuf, const int* rcounts, const int* rdispls,
               const MPI_Datatype* rtypes);
// `rcounts` has one entry per rank of the local group; both groups' totals must be equal (as in MPICH).
void reduce_scatter(Transport& local, Transport& remote, bool low, const void* sbuf, void* rbuf, const int* rcounts,
                    MPI_Datatype type, MPI_Op op);
void reduce_scatter_block(Transport& local, Transport& remote, bool low, const void* sbuf, void* rbuf, int rcount,
                          MPI_Datatype type, MPI_Op op);

}  // namespace xsim::coll::inter

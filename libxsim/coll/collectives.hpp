// Collective operations as point-to-point algorithms over a Transport (docs/architecture.md §2 "Collectives").
// Layer: libxsim/coll; depends on coll/transport.hpp and native/datatype.hpp only.
// Arguments follow the MPI standard for an intracommunicator of t.size() ranks (MPI_IN_PLACE included);
// argument checking is the caller's job. The algorithm is chosen as MPICH 4 chooses by default, from
// message size and rank count; docs/collectives.md lists the exact rules. Each function returns when the
// calling rank's part is complete. Data results are exactly MPI's (reduction order included).
#pragma once
#include <mpi.h>

#include "coll/transport.hpp"

namespace xsim::coll {

void barrier(Transport& t);
void bcast(Transport& t, void* buf, int count, MPI_Datatype type, int root);
void reduce(Transport& t, const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, int root);
void allreduce(Transport& t, const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op);
void gather(Transport& t, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
            MPI_Datatype rtype, int root);
void gatherv(Transport& t, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int* rcounts,
             const int* displs, MPI_Datatype rtype, int root);
void scatter(Transport& t, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
             MPI_Datatype rtype, int root);
void scatterv(Transport& t, const void* sbuf, const int* scounts, const int* displs, MPI_Datatype stype,
              void* rbuf, int rcount, MPI_Datatype rtype, int root);
void allgather(Transport& t, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
               MPI_Datatype rtype);
void allgatherv(Transport& t, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int* rcounts,
                const int* displs, MPI_Datatype rtype);
void alltoall(Transport& t, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
              MPI_Datatype rtype);
void alltoallv(Transport& t, const void* sbuf, const int* scounts, const int* sdispls, MPI_Datatype stype,
               void* rbuf, const int* rcounts, const int* rdispls, MPI_Datatype rtype);
// One datatype per peer; displacements in bytes (MPI_Alltoallw).
void alltoallw(Transport& t, const void* sbuf, const int* scounts, const int* sdispls, const MPI_Datatype* stypes,
               void* rbuf, const int* rcounts, const int* rdispls, const MPI_Datatype* rtypes);
void reduce_scatter(Transport& t, const void* sbuf, void* rbuf, const int* rcounts, MPI_Datatype type,
                    MPI_Op op);
void reduce_scatter_block(Transport& t, const void* sbuf, void* rbuf, int rcount, MPI_Datatype type, MPI_Op op);
void scan(Transport& t, const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op);
void exscan(Transport& t, const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op);

}  // namespace xsim::coll

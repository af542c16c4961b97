// Neighbourhood collectives (MPI-4.0 §8.6) as point-to-point algorithms over a Transport.
// Layer: libxsim/coll; depends on coll/transport.hpp and native/datatype.hpp only.
// Contract: every rank of the communicator calls the same function with its own Neighborhood (the
// topology's neighbour lists for that rank) and buffers as the MPI standard describes them (no
// MPI_IN_PLACE; argument checking is the caller's job). As MPICH does, each call posts all its receives and
// sends at once and waits for all of them ("linear" algorithm); an MPI_PROC_NULL neighbour exchanges
// nothing and leaves its receive block untouched. Zero-size blocks are still sent, as in MPICH.
// Pairing of repeated neighbours: on a Cartesian topology the block a rank sends in direction s (2d: the
// negative direction of dimension d, 2d+1: the positive one) lands in the receiver's block s^1, also when a
// periodic dimension of size 1 or 2 makes both neighbours the same rank (MPI-4.0 erratum, mpi-issues #153);
// on graph and distributed-graph topologies the k-th edge to a rank matches the k-th edge from it.
#pragma once
#include <mpi.h>

#include <vector>

#include "coll/transport.hpp"

namespace xsim::coll {

// The calling rank's neighbourhood, in the order the standard fixes for the buffers.
struct Neighborhood {
  std::vector<int> sources;       // receive block j comes from sources[j]
  std::vector<int> destinations;  // send block k goes to destinations[k]
  bool cartesian = false;         // Cartesian pairing rule (sources == destinations, 2 per dimension)
};

void neighbor_allgather(Transport& t, const Neighborhood& nb, const void* sbuf, int scount, MPI_Datatype stype,
                        void* rbuf, int rcount, MPI_Datatype rtype);
void neighbor_allgatherv(Transport& t, const Neighborhood& nb, const void* sbuf, int scount, MPI_Datatype stype,
                         void* rbuf, const int* rcounts, const int* displs, MPI_Datatype rtype);
void neighbor_alltoall(Transport& t, const Neighborhood& nb, const void* sbuf, int scount, MPI_Datatype stype,
                       void* rbuf, int rcount, MPI_Datatype rtype);
void neighbor_alltoallv(Transport& t, const Neighborhood& nb, const void* sbuf, const int* scounts,
                        const int* sdispls, MPI_Datatype stype, void* rbuf, const int* rcounts, const int* rdispls,
                        MPI_Datatype rtype);
// Displacements in bytes, one datatype per block (MPI_Neighbor_alltoallw).
void neighbor_alltoallw(Transport& t, const Neighborhood& nb, const void* sbuf, const int* scounts,
                        const MPI_Aint* sdispls, const MPI_Datatype* stypes, void* rbuf, const int* rcounts,
                        const MPI_Aint* rdispls, const MPI_Datatype* rtypes);

}  // namespace xsim::coll

// Neighbourhood collectives over a Transport (see neighbor.hpp for the contract and the pairing rule).
// Layer: libxsim/coll. One exchange routine serves all five: it is given, for each receive block j and
// each send block k, the address, count and datatype, posts every receive, then every send (in buffer
// order, as MPICH's linear algorithm does), then waits for all of them.
#include "coll/neighbor.hpp"

#include <cstdint>
#include <vector>

#include "native/datatype.hpp"

namespace xsim::coll {
namespace {

// Tags of the neighbourhood collectives on the collective context: clear of collectives.cpp's (1..15).
// Graph topologies use kTagNeighbor for every block (the k-th edge matches the k-th edge: FIFO order);
// Cartesian ones tag a block with its direction, kTagNeighbor + 1 + s, so that the receiver can take it
// into block s^1 even when both of its neighbours in a dimension are the same rank.
constexpr int kTagNeighbor = 0x4e00;

int send_tag(const Neighborhood& nb, size_t k) { return nb.cartesian ? kTagNeighbor + 1 + static_cast<int>(k) : kTagNeighbor; }
int recv_tag(const Neighborhood& nb, size_t j) {
  return nb.cartesian ? kTagNeighbor + 1 + static_cast<int>(j ^ 1) : kTagNeighbor;
}

struct Block {
  const void* buf;
  int count;
  MPI_Datatype type;
};

inline MPI_Aint extent_of(MPI_Datatype t) { return native::type_extent(t).extent; }
inline const char* at(const void* buf, int64_t bytes) { return static_cast<const char*>(buf) + bytes; }

// recv_block(j) / send_block(k) give the j-th receive and k-th send block.
template <class RecvBlock, class SendBlock>
void exchange(Transport& t, const Neighborhood& nb, RecvBlock recv_block, SendBlock send_block) {
  std::vector<int> ids;
  ids.reserve(nb.sources.size() + nb.destinations.size());
  for (size_t j = 0; j < nb.sources.size(); ++j) {
    if (nb.sources[j] == MPI_PROC_NULL) continue;
    const Block b = recv_block(j);
    ids.push_back(t.irecv(const_cast<void*>(b.buf), b.count, b.type, nb.sources[j], recv_tag(nb, j)));
  }
  for (size_t k = 0; k < nb.destinations.size(); ++k) {
    if (nb.destinations[k] == MPI_PROC_NULL) continue;
    const Block b = send_block(k);
    ids.push_back(t.isend(b.buf, b.count, b.type, nb.destinations[k], send_tag(nb, k)));
  }
  if (!ids.empty()) t.waitall(static_cast<int>(ids.size()), ids.data());
}

}  // namespace

void neighbor_allgather(Transport& t, const Neighborhood& nb, const void* sbuf, int scount, MPI_Datatype stype,
                        void* rbuf, int rcount, MPI_Datatype rtype) {
  const int64_t rstride = int64_t{rcount} * extent_of(rtype);
  exchange(
      t, nb, [&](size_t j) { return Block{at(rbuf, static_cast<int64_t>(j) * rstride), rcount, rtype}; },
      [&](size_t) { return Block{sbuf, scount, stype}; });
}

void neighbor_allgatherv(Transport& t, const Neighborhood& nb, const void* sbuf, int scount, MPI_Datatype stype,
                         void* rbuf, const int* rcounts, const int* displs, MPI_Datatype rtype) {
  const MPI_Aint rext = extent_of(rtype);
  exchange(
      t, nb, [&](size_t j) { return Block{at(rbuf, int64_t{displs[j]} * rext), rcounts[j], rtype}; },
      [&](size_t) { return Block{sbuf, scount, stype}; });
}

void neighbor_alltoall(Transport& t, const Neighborhood& nb, const void* sbuf, int scount, MPI_Datatype stype,
                       void* rbuf, int rcount, MPI_Datatype rtype) {
  const int64_t rstride = int64_t{rcount} * extent_of(rtype), sstride = int64_t{scount} * extent_of(stype);
  exchange(
      t, nb, [&](size_t j) { return Block{at(rbuf, static_cast<int64_t>(j) * rstride), rcount, rtype}; },
      [&](size_t k) { return Block{at(sbuf, static_cast<int64_t>(k) * sstride), scount, stype}; });
}

void neighbor_alltoallv(Transport& t, const Neighborhood& nb, const void* sbuf, const int* scounts,
                        const int* sdispls, MPI_Datatype stype, void* rbuf, const int* rcounts, const int* rdispls,
                        MPI_Datatype rtype) {
  const MPI_Aint rext = extent_of(rtype), sext = extent_of(stype);
  exchange(
      t, nb, [&](size_t j) { return Block{at(rbuf, int64_t{rdispls[j]} * rext), rcounts[j], rtype}; },
      [&](size_t k) { return Block{at(sbuf, int64_t{sdispls[k]} * sext), scounts[k], stype}; });
}

void neighbor_alltoallw(Transport& t, const Neighborhood& nb, const void* sbuf, const int* scounts,
                        const MPI_Aint* sdispls, const MPI_Datatype* stypes, void* rbuf, const int* rcounts,
                        const MPI_Aint* rdispls, const MPI_Datatype* rtypes) {
  exchange(
      t, nb, [&](size_t j) { return Block{at(rbuf, rdispls[j]), rcounts[j], rtypes[j]}; },
      [&](size_t k) { return Block{at(sbuf, sdispls[k]), scounts[k], stypes[k]}; });
}

}  // namespace xsim::coll

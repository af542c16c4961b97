// What the collective algorithms of collectives.cpp, alltoall.cpp and intercomm.cpp share: addressing the blocks of
// typed buffers, and the linear pattern of gatherv and scatterv. Layer: libxsim/coll (its .cpp files only).
#pragma once
#include <mpi.h>

#include <cstdint>
#include <vector>

#include "coll/transport.hpp"
#include "native/datatype.hpp"

namespace xsim::coll {

inline MPI_Aint extent_of(MPI_Datatype t) { return native::type_extent(t).extent; }
inline bool in_place(const void* buf) { return buf == MPI_IN_PLACE; }
inline int as_count(uint64_t n) { return static_cast<int>(n); }  // a block size known to fit an int
// The bytes of data in `count` elements of `t`.
inline uint64_t bytes_of(int count, MPI_Datatype t) { return native::type_size(t) * static_cast<uint64_t>(count); }
// Element `elems` of a buffer whose elements are `extent` bytes apart.
inline char* offset(void* buf, int64_t elems, MPI_Aint extent) { return static_cast<char*>(buf) + elems * extent; }
inline const char* offset(const void* buf, int64_t elems, MPI_Aint extent) {
  return static_cast<const char*>(buf) + elems * extent;
}

// The root of a linear gatherv or scatterv: for each rank i < n in order, `own()` where i is the root
// itself (`me`; -1: none, the root of an intercommunicator's), else `post(i)`, one nonblocking receive or
// send returning its request id, where counts[i] > 0; then waits for all of them.
template <class Own, class Post>
void linear(Transport& t, int n, const int* counts, int me, Own own, Post post) {
  std::vector<int> ids;
  for (int i = 0; i < n; ++i) {
    if (i == me) own();
    else if (counts[i] > 0) ids.push_back(post(i));
  }
  if (!ids.empty()) t.waitall(static_cast<int>(ids.size()), ids.data());
}

}  // namespace xsim::coll

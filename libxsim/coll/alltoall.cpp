// All-to-all algorithms over a Transport (MPI_Alltoall, MPI_Alltoallv, MPI_Alltoallw; see collectives.hpp
// and docs/collectives.md): pairwise exchanges, Bruck's algorithm for small blocks, throttled scattered
// sends for the vector forms, and the MPI_IN_PLACE forms as pairwise swaps. Layer: libxsim/coll. Carved out
// of collectives.cpp; the same conventions (its file comment).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "coll/blocks.hpp"
#include "coll/collectives.hpp"
#include "coll/pof2.hpp"
#include "coll/tags.hpp"
#include "native/datatype.hpp"

namespace xsim::coll {
namespace {

using native::copy;

// MPICH's default thresholds (the MPIR_CVAR_ALLTOALL_* defaults of MPICH 4.0), in bytes.
constexpr uint64_t kAlltoallShortMsg = 256;
constexpr int kAlltoallMinProcs = 8;
constexpr uint64_t kAlltoallMediumMsg = 32768;
constexpr int kAlltoallThrottle = 32;

// The MPI_IN_PLACE all-to-alls: every pair (i < j), in order, swaps its blocks with one exchange;
// `swap(peer)` is this rank's side of each swap it takes part in.
template <class Swap>
void swap_pairs(Transport& t, Swap swap) {
  const int p = t.size(), r = t.rank();
  for (int i = 0; i < p; ++i) {
    for (int j = i + 1; j < p; ++j) {
      if (r == i) swap(j);
      else if (r == j) swap(i);
    }
  }
}

// MPI_IN_PLACE all-to-all(v).
void alltoall_in_place(Transport& t, void* rbuf, const int* counts, const int64_t* displs, MPI_Datatype type,
                       int tag) {
  const MPI_Aint ext = extent_of(type);
  const uint64_t size = native::type_size(type);
  std::vector<char> out;
  swap_pairs(t, [&](int peer) {
    char* block = offset(rbuf, displs[peer], ext);
    out.resize(size * static_cast<uint64_t>(counts[peer]));
    native::pack(block, counts[peer], type, out.data());
    t.sendrecv(out.data(), as_count(out.size()), MPI_BYTE, peer, tag, block, counts[peer], type, peer, tag);
  });
}

void alltoall_bruck(Transport& t, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
                    MPI_Datatype rtype) {
  const int p = t.size(), r = t.rank();
  const MPI_Aint sext = extent_of(stype), rext = extent_of(rtype);
  const size_t blk = native::type_size(stype) * static_cast<uint64_t>(scount);
  // Block i of `tmp` starts as my data for rank (r + i) % p; after the exchanges it holds the data
  // rank (r - i) % p sent to me.
  std::vector<char> tmp(blk * p), out, in;
  for (int i = 0; i < p; ++i)
    native::pack(offset(sbuf, int64_t{(r + i) % p} * scount, sext), scount, stype, tmp.data() + i * blk);
  for (int k = 1; k < p; k <<= 1) {
    std::vector<int> moving;
    for (int i = 0; i < p; ++i)
      if (i & k) moving.push_back(i);
    out.resize(moving.size() * blk);
    in.resize(moving.size() * blk);
    for (size_t m = 0; m < moving.size(); ++m) std::copy_n(tmp.data() + moving[m] * blk, blk, out.data() + m * blk);
    t.sendrecv(out.data(), as_count(out.size()), MPI_BYTE, (r + k) % p, kTagAlltoall, in.data(), as_count(in.size()),
               MPI_BYTE, (r - k + p) % p, kTagAlltoall);
    for (size_t m = 0; m < moving.size(); ++m) std::copy_n(in.data() + m * blk, blk, tmp.data() + moving[m] * blk);
  }
  for (int i = 0; i < p; ++i)
    native::unpack(tmp.data() + i * blk, blk, offset(rbuf, int64_t{(r - i + p) % p} * rcount, rext), rcount, rtype);
}

// Nonblocking exchange with every other rank, at most kAlltoallThrottle peers in flight per direction:
// batch after batch, receives from r + i, then sends to r - i. `recv(src)` and `send(dst)` post one
// operation and return its request id, or -1 to skip the peer.
template <class Recv, class Send>
void throttled(Transport& t, Recv recv, Send send) {
  const int p = t.size(), r = t.rank();
  std::vector<int> ids;
  for (int ii = 0; ii < p; ii += kAlltoallThrottle) {
    const int batch = std::min(kAlltoallThrottle, p - ii);
    ids.clear();
    for (int i = 0; i < batch; ++i)
      if (const int src = (r + i + ii) % p; src != r)
        if (const int id = recv(src); id >= 0) ids.push_back(id);
    for (int i = 0; i < batch; ++i)
      if (const int dst = (r - i - ii + p) % p; dst != r)
        if (const int id = send(dst); id >= 0) ids.push_back(id);
    if (!ids.empty()) t.waitall(static_cast<int>(ids.size()), ids.data());
  }
}

// All-to-all(v) by throttled nonblocking exchanges; zero-size blocks are skipped when `skip_empty`. The
// rank's own block is copied locally.
void alltoallv_scattered(Transport& t, const void* sbuf, const int* scounts, const int64_t* sdispls,
                         MPI_Datatype stype, void* rbuf, const int* rcounts, const int64_t* rdispls,
                         MPI_Datatype rtype, bool skip_empty, int tag) {
  const int r = t.rank();
  const MPI_Aint sext = extent_of(stype), rext = extent_of(rtype);
  const bool sempty = native::type_size(stype) == 0, rempty = native::type_size(rtype) == 0;
  copy(offset(sbuf, sdispls[r], sext), scounts[r], stype, offset(rbuf, rdispls[r], rext), rcounts[r], rtype);
  throttled(
      t,
      [&](int src) {
        if (skip_empty && (rcounts[src] == 0 || rempty)) return -1;
        return t.irecv(offset(rbuf, rdispls[src], rext), rcounts[src], rtype, src, tag);
      },
      [&](int dst) {
        if (skip_empty && (scounts[dst] == 0 || sempty)) return -1;
        return t.isend(offset(sbuf, sdispls[dst], sext), scounts[dst], stype, dst, tag);
      });
}

// Alltoallw's forms: one datatype per peer, displacements in bytes. In place: every pair (i < j), in order,
// swaps its blocks (rcounts/rdispls/rtypes describe both). Otherwise scattered nonblocking exchanges in
// batches of kAlltoallThrottle peers, skipping empty blocks; the rank's own block is copied locally.
void alltoallw_in_place(Transport& t, void* rbuf, const int* rcounts, const int* rdispls, const MPI_Datatype* rtypes) {
  std::vector<char> out;
  swap_pairs(t, [&](int peer) {
    char* block = static_cast<char*>(rbuf) + rdispls[peer];
    out.resize(bytes_of(rcounts[peer], rtypes[peer]));
    native::pack(block, rcounts[peer], rtypes[peer], out.data());
    t.sendrecv(out.data(), as_count(out.size()), MPI_BYTE, peer, kTagAlltoallw, block, rcounts[peer], rtypes[peer],
               peer, kTagAlltoallw);
  });
}

void alltoallw_scattered(Transport& t, const void* sbuf, const int* scounts, const int* sdispls,
                         const MPI_Datatype* stypes, void* rbuf, const int* rcounts, const int* rdispls,
                         const MPI_Datatype* rtypes) {
  const int r = t.rank();
  const char* s = static_cast<const char*>(sbuf);
  char* d = static_cast<char*>(rbuf);
  copy(s + sdispls[r], scounts[r], stypes[r], d + rdispls[r], rcounts[r], rtypes[r]);
  throttled(
      t,
      [&](int src) {
        if (rcounts[src] == 0 || native::type_size(rtypes[src]) == 0) return -1;
        return t.irecv(d + rdispls[src], rcounts[src], rtypes[src], src, kTagAlltoallw);
      },
      [&](int dst) {
        if (scounts[dst] == 0 || native::type_size(stypes[dst]) == 0) return -1;
        return t.isend(s + sdispls[dst], scounts[dst], stypes[dst], dst, kTagAlltoallw);
      });
}

}  // namespace

void alltoall(Transport& t, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
              MPI_Datatype rtype) {
  const int p = t.size(), r = t.rank();
  std::vector<int> counts;
  std::vector<int64_t> displs(p);
  if (in_place(sbuf)) {
    if (rcount == 0 || p == 1) return;
    counts.assign(p, rcount);
    for (int i = 0; i < p; ++i) displs[i] = int64_t{i} * rcount;
    alltoall_in_place(t, rbuf, counts.data(), displs.data(), rtype, kTagAlltoall);
    return;
  }
  if (scount == 0 || rcount == 0) return;
  const uint64_t nbytes = native::type_size(stype) * static_cast<uint64_t>(scount);
  const MPI_Aint sext = extent_of(stype), rext = extent_of(rtype);
  if (p == 1) {
    copy(sbuf, scount, stype, rbuf, rcount, rtype);
    return;
  }
  if (nbytes <= kAlltoallShortMsg && p >= kAlltoallMinProcs) {
    alltoall_bruck(t, sbuf, scount, stype, rbuf, rcount, rtype);
  } else if (nbytes <= kAlltoallMediumMsg) {
    std::vector<int> scounts(p, scount), rcounts(p, rcount);
    std::vector<int64_t> sdispls(p), rdispls(p);
    for (int i = 0; i < p; ++i) sdispls[i] = int64_t{i} * scount, rdispls[i] = int64_t{i} * rcount;
    alltoallv_scattered(t, sbuf, scounts.data(), sdispls.data(), stype, rbuf, rcounts.data(), rdispls.data(), rtype,
                        false, kTagAlltoall);
  } else {
    // Pairwise exchange: partner r^i when p is a power of two, else send to r+i and receive from r-i.
    copy(offset(sbuf, int64_t{r} * scount, sext), scount, stype, offset(rbuf, int64_t{r} * rcount, rext), rcount,
         rtype);
    const bool pof2 = is_pof2(p);
    for (int i = 1; i < p; ++i) {
      const int src = pof2 ? (r ^ i) : (r - i + p) % p, dst = pof2 ? (r ^ i) : (r + i) % p;
      t.sendrecv(offset(sbuf, int64_t{dst} * scount, sext), scount, stype, dst, kTagAlltoall,
                 offset(rbuf, int64_t{src} * rcount, rext), rcount, rtype, src, kTagAlltoall);
    }
  }
}

void alltoallv(Transport& t, const void* sbuf, const int* scounts, const int* sdispls, MPI_Datatype stype,
               void* rbuf, const int* rcounts, const int* rdispls, MPI_Datatype rtype) {
  const int p = t.size();
  std::vector<int64_t> rd(rdispls, rdispls + p);
  if (in_place(sbuf)) {
    if (p > 1) alltoall_in_place(t, rbuf, rcounts, rd.data(), rtype, kTagAlltoallv);
    return;
  }
  std::vector<int64_t> sd(sdispls, sdispls + p);
  alltoallv_scattered(t, sbuf, scounts, sd.data(), stype, rbuf, rcounts, rd.data(), rtype, true, kTagAlltoallv);
}

void alltoallw(Transport& t, const void* sbuf, const int* scounts, const int* sdispls, const MPI_Datatype* stypes,
               void* rbuf, const int* rcounts, const int* rdispls, const MPI_Datatype* rtypes) {
  if (in_place(sbuf)) {
    if (t.size() > 1) alltoallw_in_place(t, rbuf, rcounts, rdispls, rtypes);
    return;
  }
  alltoallw_scattered(t, sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes);
}

}  // namespace xsim::coll

// Intercommunicator collectives (see intercomm.hpp; docs/collectives.md "Intercommunicators").
// Layer: libxsim/coll. Each algorithm is MPICH 4's default for intercommunicators (MPIR_*_inter_*):
// the data crosses between the groups' rank 0s (or pairwise), the rest is done by the intra-group
// algorithms of collectives.cpp on the `local` transport.
#include "coll/intercomm.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "coll/blocks.hpp"
#include "coll/collectives.hpp"
#include "native/datatype.hpp"

namespace xsim::coll::inter {
namespace {

// Tags of the messages between the groups (the intra-group steps use collectives.cpp's own).
enum Tag : int {
  kTagBarrier = 101,
  kTagBcast,
  kTagReduce,
  kTagAllreduce,
  kTagGather,
  kTagGatherv,
  kTagScatter,
  kTagScatterv,
  kTagAlltoall,
  kTagAlltoallv,
  kTagAlltoallw,
};

// MPICH 4.0 defaults: MPIR_CVAR_GATHER_INTER_SHORT_MSG_SIZE and MPIR_CVAR_SCATTER_INTER_SHORT_MSG_SIZE.
constexpr uint64_t kGatherInterShortMsg = 2048;
constexpr uint64_t kScatterInterShortMsg = 2048;

// The pairwise exchange of MPICH's inter alltoall(v,w): with m = max(local, remote size), step i sends to
// remote rank (r + i) % m and receives from (r - i) % m, skipping peers that do not exist. `send(dst)` and
// `recv(src)` post the step's two operations and return their request ids.
template <class Send, class Recv>
void pairwise(Transport& local, Transport& remote, Send send, Recv recv) {
  const int r = local.rank(), rp = remote.size(), m = std::max(local.size(), rp);
  for (int i = 0; i < m; ++i) {
    const int src = (r - i + m) % m, dst = (r + i) % m;
    int ids[2], n = 0;
    if (src < rp) ids[n++] = recv(src);
    if (dst < rp) ids[n++] = send(dst);
    if (n) remote.waitall(n, ids);
  }
}

// The root's side of gather (post = irecv) and scatter (post = isend): `count` elements of `type` for each
// remote rank, in one message with the other group's rank 0 (which gathers or scatters them in its group)
// when they come to fewer than `short_msg` bytes in all, else in one message with each remote rank.
template <class Buf, class Post>
void root_side(Transport& remote, Buf* buf, int count, MPI_Datatype type, uint64_t short_msg, int tag, Post post) {
  if (count == 0) return;
  const int rp = remote.size();
  if (bytes_of(count, type) * rp < short_msg) {
    const int id = post(buf, count * rp, 0, tag);
    remote.waitall(1, &id);
    return;
  }
  const MPI_Aint ext = extent_of(type);
  std::vector<int> ids(rp);
  for (int i = 0; i < rp; ++i) ids[i] = post(offset(buf, int64_t{i} * count, ext), count, i, tag);
  remote.waitall(rp, ids.data());
}

// The other group's data (`total` elements each) reduced to `result` at my group's rank 0, and mine to
// theirs: an intercommunicator reduce each way, the low group receiving first.
void reduce_across(Transport& local, Transport& remote, bool low, const void* sbuf, void* result, int total,
                   MPI_Datatype type, MPI_Op op) {
  const int r = local.rank();
  auto take = [&] { reduce(local, remote, sbuf, result, total, type, op, r == 0 ? MPI_ROOT : MPI_PROC_NULL); };
  auto give = [&] { reduce(local, remote, sbuf, nullptr, total, type, op, 0); };
  if (low) take(), give();
  else give(), take();
}

}  // namespace

void barrier(Transport& local, Transport& remote, bool low) {
  coll::barrier(local);
  // Rank 0 of each group tells the other group (a one-byte bcast: a zero-byte one would send nothing).
  char b = 0;
  const int mine = local.rank() == 0 ? MPI_ROOT : MPI_PROC_NULL;
  if (low) {
    bcast(local, remote, &b, 1, MPI_BYTE, mine);
    bcast(local, remote, &b, 1, MPI_BYTE, 0);
  } else {
    bcast(local, remote, &b, 1, MPI_BYTE, 0);
    bcast(local, remote, &b, 1, MPI_BYTE, mine);
  }
}

void bcast(Transport& local, Transport& remote, void* buf, int count, MPI_Datatype type, int root) {
  if (root == MPI_PROC_NULL || count == 0) return;
  if (root == MPI_ROOT) {  // to rank 0 of the other group, which broadcasts it there
    remote.send(buf, count, type, 0, kTagBcast);
    return;
  }
  if (local.rank() == 0) remote.recv(buf, count, type, root, kTagBcast);
  coll::bcast(local, buf, count, type, 0);
}

void reduce(Transport& local, Transport& remote, const void* sbuf, void* rbuf, int count, MPI_Datatype type,
            MPI_Op op, int root) {
  if (root == MPI_PROC_NULL || count == 0) return;
  if (root == MPI_ROOT) {  // the other group reduces to its rank 0, which sends the result
    remote.recv(rbuf, count, type, 0, kTagReduce);
    return;
  }
  native::TypedBuffer tmp(count, type, local.rank() == 0);
  coll::reduce(local, sbuf, tmp.get(), count, type, op, 0);
  if (local.rank() == 0) remote.send(tmp.get(), count, type, root, kTagReduce);
}

void allreduce(Transport& local, Transport& remote, const void* sbuf, void* rbuf, int count, MPI_Datatype type,
               MPI_Op op) {
  if (count == 0) return;
  // Local reduce to rank 0, exchange of the two results between the rank 0s, local bcast.
  native::TypedBuffer tmp(count, type, local.rank() == 0);
  coll::reduce(local, sbuf, tmp.get(), count, type, op, 0);
  if (local.rank() == 0)
    remote.sendrecv(tmp.get(), count, type, 0, kTagAllreduce, rbuf, count, type, 0, kTagAllreduce);
  coll::bcast(local, rbuf, count, type, 0);
}

void gather(Transport& local, Transport& remote, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf,
            int rcount, MPI_Datatype rtype, int root) {
  if (root == MPI_PROC_NULL) return;
  if (root == MPI_ROOT)
    return root_side(remote, rbuf, rcount, rtype, kGatherInterShortMsg, kTagGather,
                     [&](auto* b, int n, int peer, int tag) { return remote.irecv(b, n, rtype, peer, tag); });
  if (scount == 0) return;
  const int lp = local.size();
  const uint64_t blk = bytes_of(scount, stype);
  if (blk * lp < kGatherInterShortMsg) {  // gather to local rank 0 (packed), which sends it all to the root
    std::vector<char> tmp(local.rank() == 0 ? blk * lp : 0);
    coll::gather(local, sbuf, scount, stype, tmp.data(), static_cast<int>(blk), MPI_BYTE, 0);
    if (local.rank() == 0) remote.send(tmp.data(), static_cast<int>(blk * lp), MPI_BYTE, root, kTagGather);
  } else {
    remote.send(sbuf, scount, stype, root, kTagGather);
  }
}

void gatherv(Transport& local, Transport& remote, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf,
             const int* rcounts, const int* displs, MPI_Datatype rtype, int root) {
  (void)local;
  if (root == MPI_PROC_NULL) return;
  if (root == MPI_ROOT) {  // linear: one receive per remote rank with data
    const MPI_Aint ext = extent_of(rtype);
    return linear(remote, remote.size(), rcounts, -1, [] {}, [&](int i) {
      return remote.irecv(offset(rbuf, displs[i], ext), rcounts[i], rtype, i, kTagGatherv);
    });
  }
  if (scount > 0) remote.send(sbuf, scount, stype, root, kTagGatherv);
}

void scatter(Transport& local, Transport& remote, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf,
             int rcount, MPI_Datatype rtype, int root) {
  if (root == MPI_PROC_NULL) return;
  if (root == MPI_ROOT)
    return root_side(remote, sbuf, scount, stype, kScatterInterShortMsg, kTagScatter,
                     [&](auto* b, int n, int peer, int tag) { return remote.isend(b, n, stype, peer, tag); });
  if (rcount == 0) return;
  const int lp = local.size();
  const uint64_t blk = bytes_of(rcount, rtype);
  if (blk * lp < kScatterInterShortMsg) {  // rank 0 receives everything and scatters it in the group
    std::vector<char> tmp(local.rank() == 0 ? blk * lp : 0);
    if (local.rank() == 0) remote.recv(tmp.data(), static_cast<int>(blk * lp), MPI_BYTE, root, kTagScatter);
    coll::scatter(local, tmp.data(), static_cast<int>(blk), MPI_BYTE, rbuf, rcount, rtype, 0);
  } else {
    remote.recv(rbuf, rcount, rtype, root, kTagScatter);
  }
}

void scatterv(Transport& local, Transport& remote, const void* sbuf, const int* scounts, const int* displs,
              MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype, int root) {
  (void)local;
  if (root == MPI_PROC_NULL) return;
  if (root == MPI_ROOT) {  // linear
    const MPI_Aint ext = extent_of(stype);
    return linear(remote, remote.size(), scounts, -1, [] {}, [&](int i) {
      return remote.isend(offset(sbuf, displs[i], ext), scounts[i], stype, i, kTagScatterv);
    });
  }
  if (rcount > 0) remote.recv(rbuf, rcount, rtype, root, kTagScatterv);
}

void allgather(Transport& local, Transport& remote, bool low, const void* sbuf, int scount, MPI_Datatype stype,
               void* rbuf, int rcount, MPI_Datatype rtype) {
  // Local gather to rank 0, then an intercommunicator bcast each way (the low group's first).
  const int lp = local.size(), rp = remote.size(), r = local.rank();
  const uint64_t blk = bytes_of(scount, stype);
  std::vector<char> tmp(r == 0 ? blk * lp : 0);
  if (scount != 0) coll::gather(local, sbuf, scount, stype, tmp.data(), static_cast<int>(blk), MPI_BYTE, 0);
  auto give = [&] {
    if (scount != 0) bcast(local, remote, tmp.data(), static_cast<int>(blk * lp), MPI_BYTE, r == 0 ? MPI_ROOT : MPI_PROC_NULL);
  };
  auto take = [&] {
    if (rcount != 0) bcast(local, remote, rbuf, rcount * rp, rtype, 0);
  };
  if (low) give(), take();
  else take(), give();
}

void allgatherv(Transport& local, Transport& remote, bool low, const void* sbuf, int scount, MPI_Datatype stype,
                void* rbuf, const int* rcounts, const int* displs, MPI_Datatype rtype) {
  // Gatherv across to each group's rank 0 (the low group's first), then a bcast inside each group.
  const int r = local.rank(), rp = remote.size();
  auto take = [&] { gatherv(local, remote, sbuf, scount, stype, rbuf, rcounts, displs, rtype, r == 0 ? MPI_ROOT : MPI_PROC_NULL); };
  auto give = [&] { gatherv(local, remote, sbuf, scount, stype, rbuf, rcounts, displs, rtype, 0); };
  if (low) take(), give();
  else give(), take();
  // MPICH broadcasts one element of an indexed datatype over the blocks; the packed blocks are the same
  // bytes, so the same algorithm and cost.
  const MPI_Aint ext = extent_of(rtype);
  const uint64_t esize = native::type_size(rtype);
  uint64_t total = 0;
  for (int i = 0; i < rp; ++i) total += esize * static_cast<uint64_t>(rcounts[i]);
  if (total == 0 || local.size() == 1) return;
  std::vector<char> packed(total);
  uint64_t pos = 0;
  if (r == 0)
    for (int i = 0; i < rp; ++i) {
      native::pack(offset(rbuf, displs[i], ext), rcounts[i], rtype, packed.data() + pos);
      pos += esize * static_cast<uint64_t>(rcounts[i]);
    }
  coll::bcast(local, packed.data(), static_cast<int>(total), MPI_BYTE, 0);
  if (r != 0)
    for (int i = 0; i < rp; ++i) {
      const uint64_t n = esize * static_cast<uint64_t>(rcounts[i]);
      native::unpack(packed.data() + pos, n, offset(rbuf, displs[i], ext), rcounts[i], rtype);
      pos += n;
    }
}

void alltoall(Transport& local, Transport& remote, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf,
              int rcount, MPI_Datatype rtype) {
  const MPI_Aint sext = extent_of(stype), rext = extent_of(rtype);
  pairwise(
      local, remote,
      [&](int dst) { return remote.isend(offset(sbuf, int64_t{dst} * scount, sext), scount, stype, dst, kTagAlltoall); },
      [&](int src) { return remote.irecv(offset(rbuf, int64_t{src} * rcount, rext), rcount, rtype, src, kTagAlltoall); });
}

void alltoallv(Transport& local, Transport& remote, const void* sbuf, const int* scounts, const int* sdispls,
               MPI_Datatype stype, void* rbuf, const int* rcounts, const int* rdispls, MPI_Datatype rtype) {
  const MPI_Aint sext = extent_of(stype), rext = extent_of(rtype);
  pairwise(
      local, remote,
      [&](int dst) { return remote.isend(offset(sbuf, sdispls[dst], sext), scounts[dst], stype, dst, kTagAlltoallv); },
      [&](int src) { return remote.irecv(offset(rbuf, rdispls[src], rext), rcounts[src], rtype, src, kTagAlltoallv); });
}

void alltoallw(Transport& local, Transport& remote, const void* sbuf, const int* scounts, const int* sdispls,
               const MPI_Datatype* stypes, void* rbuf, const int* rcounts, const int* rdispls,
               const MPI_Datatype* rtypes) {
  pairwise(
      local, remote,
      [&](int dst) {
        return remote.isend(static_cast<const char*>(sbuf) + sdispls[dst], scounts[dst], stypes[dst], dst, kTagAlltoallw);
      },
      [&](int src) {
        return remote.irecv(static_cast<char*>(rbuf) + rdispls[src], rcounts[src], rtypes[src], src, kTagAlltoallw);
      });
}

void reduce_scatter(Transport& local, Transport& remote, bool low, const void* sbuf, void* rbuf, const int* rcounts,
                    MPI_Datatype type, MPI_Op op) {
  // The other group's data is reduced to my group's rank 0 (an intercommunicator reduce each way, the low
  // group receiving first), which scatters the blocks in my group.
  const int lp = local.size(), r = local.rank();
  std::vector<int> displs(lp);
  int total = 0;
  for (int i = 0; i < lp; ++i) displs[i] = total, total += rcounts[i];
  if (total == 0) return;
  native::TypedBuffer tmp(total, type, r == 0);
  reduce_across(local, remote, low, sbuf, tmp.get(), total, type, op);
  coll::scatterv(local, tmp.get(), rcounts, displs.data(), type, rbuf, rcounts[r], type, 0);
}

void reduce_scatter_block(Transport& local, Transport& remote, bool low, const void* sbuf, void* rbuf, int rcount,
                          MPI_Datatype type, MPI_Op op) {
  const int total = rcount * local.size();
  if (total == 0) return;
  native::TypedBuffer tmp(total, type, local.rank() == 0);
  reduce_across(local, remote, low, sbuf, tmp.get(), total, type, op);
  coll::scatter(local, tmp.get(), rcount, type, rbuf, rcount, type, 0);
}

}  // namespace xsim::coll::inter

// Collective algorithms over a Transport (see collectives.hpp; selection rules in docs/collectives.md).
// Layer: libxsim/coll. Every function is called by one rank with its own Transport; the ranks of a
// communicator run the same function with matching arguments, as in MPI.
//
// Conventions used throughout:
//  - "rel" is a rank relative to a root: (rank - root + p) % p.
//  - Typed user buffers are addressed with the datatype's extent; temporaries that travel as bytes are
//    packed (native::pack) so message sizes equal the MPI data size whatever the layout.
//  - Reduction operands: native::reduce_local(in, inout) computes inout = in op inout, so "lower ranks'
//    data goes in `in`" keeps rank order for non-commutative operations.
#include "coll/collectives.hpp"
#include "coll/replay.hpp"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "coll/blocks.hpp"
#include "coll/reduce.hpp"
#include "coll/tags.hpp"
#include "coll/pof2.hpp"
#include "native/datatype.hpp"

namespace xsim::coll {
namespace {

using native::copy;
// reduce_local: coll/reduce.hpp (the runtime charges the reduction's host time)


// MPICH's default thresholds (the MPIR_CVAR_* defaults of MPICH 4.0), in bytes.
constexpr uint64_t kBcastShortMsg = 12288;
constexpr int kBcastMinProcs = 8;
constexpr uint64_t kBcastLongMsg = 524288;
constexpr uint64_t kReduceShortMsg = 2048;
constexpr uint64_t kAllreduceShortMsg = 2048;
constexpr uint64_t kAllgatherShortMsg = 81920;
constexpr uint64_t kAllgatherLongMsg = 524288;
constexpr uint64_t kReduceScatterCommLongMsg = 524288;

// The lowest set bit of a nonzero relative rank; for rel 0 (the root) a mask covering everyone.
inline int low_bit(int rel, int p) { return rel == 0 ? pof2_ceil(p) : (rel & -rel); }
// Ranks in the binomial subtree rooted at relative rank `rel`.
inline int subtree_size(int rel, int p) { return std::min(low_bit(rel, p), p - rel); }
// A rank's place in the binomial tree of a gather or scatter of p ranks rooted at `root`: its relative
// rank, the ranks of its subtree, and the packed size of one rank's block (`count` of `type`, the root's
// side of the call, at the root; `leaf_count` of `leaf_type` elsewhere).
struct Binomial {
  int rel, sub;
  size_t blk;
};
inline Binomial binomial(int p, int r, int root, int count, MPI_Datatype type, int leaf_count, MPI_Datatype leaf_type) {
  const int rel = (r - root + p) % p;
  return {rel, subtree_size(rel, p), r == root ? bytes_of(count, type) : bytes_of(leaf_count, leaf_type)};
}


// Predefined reduction operations (MPICH takes the long-message reduce/allreduce algorithms for these
// only; user-defined operations, commutative or not, use the short-message algorithms).
bool is_predefined_op(MPI_Op op) {
  static const MPI_Op kOps[] = {MPI_MAX,  MPI_MIN, MPI_SUM,  MPI_PROD,   MPI_LAND,   MPI_BAND,    MPI_LOR,
                                MPI_BOR,  MPI_LXOR, MPI_BXOR, MPI_MINLOC, MPI_MAXLOC, MPI_REPLACE, MPI_NO_OP};
  return std::find(std::begin(kOps), std::end(kOps), op) != std::end(kOps);
}

// ---------------------------------------------------------------------------------------------------
// Broadcast

void bcast_binomial(Transport& t, void* buf, int count, MPI_Datatype type, int root) {
  const int p = t.size(), r = t.rank(), rel = (r - root + p) % p;
  int mask = 1;
  for (; mask < p; mask <<= 1) {
    if (rel & mask) {
      t.recv(buf, count, type, (r - mask + p) % p, kTagBcast);
      break;
    }
  }
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (rel + mask < p) t.send(buf, count, type, (r + mask) % p, kTagBcast);
}

// Binomial scatter of the (packed) message in p chunks of ceil(bytes/p), then an allgather of the
// chunks: recursive doubling (p a power of two) or a ring.
void bcast_scatter_allgather(Transport& t, void* buf, int count, MPI_Datatype type, int root, bool ring) {
  const int p = t.size(), r = t.rank(), rel = (r - root + p) % p;
  const int64_t nbytes = static_cast<int64_t>(native::type_size(type)) * count;
  const bool contiguous = native::type_is_contiguous(type);
  std::vector<char> packed;
  char* data = static_cast<char*>(buf);
  if (!contiguous) {
    packed.resize(static_cast<size_t>(nbytes));
    data = packed.data();
    if (r == root) native::pack(buf, count, type, data);
  }
  const int64_t chunk = (nbytes + p - 1) / p;
  // Bytes [lo, hi) held by the relative ranks [first, first + n).
  auto span = [&](int64_t first, int64_t n) {
    const int64_t lo = std::min(first * chunk, nbytes), hi = std::min((first + n) * chunk, nbytes);
    return std::pair<int64_t, int64_t>{lo, hi};
  };

  int mask = 1;
  for (; mask < p; mask <<= 1) {
    if (rel & mask) {
      auto [lo, hi] = span(rel, mask);
      if (hi > lo) t.recv(data + lo, as_count(hi - lo), MPI_BYTE, (r - mask + p) % p, kTagBcast);
      break;
    }
  }
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (rel + mask < p) {
      auto [lo, hi] = span(rel + mask, mask);
      if (hi > lo) t.send(data + lo, as_count(hi - lo), MPI_BYTE, (r + mask) % p, kTagBcast);
    }
  }

  if (!ring) {
    for (mask = 1; mask < p; mask <<= 1) {
      const int prel = rel ^ mask, peer = (prel + root) % p;
      auto [mlo, mhi] = span(rel & ~(mask - 1), mask);
      auto [plo, phi] = span(prel & ~(mask - 1), mask);
      t.sendrecv(data + mlo, as_count(mhi - mlo), MPI_BYTE, peer, kTagBcast, data + plo, as_count(phi - plo), MPI_BYTE,
                 peer, kTagBcast);
    }
  } else {
    const int left = (r - 1 + p) % p, right = (r + 1) % p;
    int j = rel, jnext = (rel - 1 + p) % p;
    for (int i = 1; i < p; ++i) {
      auto [slo, shi] = span(j, 1);
      auto [rlo, rhi] = span(jnext, 1);
      t.sendrecv(data + slo, as_count(shi - slo), MPI_BYTE, right, kTagBcast, data + rlo, as_count(rhi - rlo), MPI_BYTE,
                 left, kTagBcast);
      j = jnext;
      jnext = (jnext - 1 + p) % p;
    }
  }
  if (!contiguous && r != root) native::unpack(data, static_cast<uint64_t>(nbytes), buf, count, type);
}

// ---------------------------------------------------------------------------------------------------
// Reduction building blocks

// Where a rank reduces towards `root`: the root's receive buffer (its own data copied in, unless in place),
// elsewhere a copy of its data in `own`.
char* accumulator(int r, int root, const void* sbuf, void* rbuf, int count, MPI_Datatype type,
                  std::unique_ptr<native::TypedBuffer>& own) {
  if (r == root) {
    if (!in_place(sbuf)) copy(sbuf, count, type, rbuf, count, type);
    return static_cast<char*>(rbuf);
  }
  own = std::make_unique<native::TypedBuffer>(count, type);
  copy(sbuf, count, type, own->get(), count, type);
  return own->get();
}

// Fold step: even ranks below 2*rem send `acc` to rank+1; odd ones reduce it in (lower rank first).
// Returns the new rank, or -1 for a rank that sat out.
int fold_in(Transport& t, char* acc, char* tmp, int count, MPI_Datatype type, MPI_Op op, int rem, int tag) {
  const int r = t.rank();
  if (r < 2 * rem) {
    if (r % 2 == 0) {
      t.send(acc, count, type, r + 1, tag);
      return -1;
    }
    t.recv(tmp, count, type, r - 1, tag);
    reduce_local(tmp, acc, count, type, op);
    return r / 2;
  }
  return r - rem;
}

// State of the recursive-halving reduce-scatter among pof2 survivors: element blocks and, per step, the
// block range [lo, hi) this rank kept.
struct Halving {
  int newrank = -1;
  int pof2 = 1, rem = 0;
  std::vector<int64_t> disps;               // pof2 + 1 element offsets
  std::vector<std::pair<int, int>> kept;    // kept[k]: block range after the step with mask 1 << k
  int64_t elems(int lo, int hi) const { return disps[hi] - disps[lo]; }
};

// Fold + reduce-scatter by recursive halving (Rabenseifner's first half). `acc` holds this rank's full
// vector on entry; on exit (survivors only) it holds the reduced blocks of the last kept range.
Halving reduce_scatter_halving(Transport& t, char* acc, int count, MPI_Datatype type, MPI_Op op, int tag) {
  const int p = t.size();
  const MPI_Aint ext = extent_of(type);
  Halving h;
  h.pof2 = pof2_floor(p);
  h.rem = p - h.pof2;
  h.disps.assign(h.pof2 + 1, 0);
  for (int i = 0; i < h.pof2; ++i) h.disps[i + 1] = h.disps[i] + count / h.pof2 + (i < count % h.pof2 ? 1 : 0);
  native::TypedBuffer tmp(count, type);
  h.newrank = fold_in(t, acc, tmp.get(), count, type, op, h.rem, tag);
  if (h.newrank < 0) return h;
  int lo = 0, hi = h.pof2;
  for (int mask = 1; mask < h.pof2; mask <<= 1) {
    const int newpeer = h.newrank ^ mask, peer = real_rank(newpeer, h.rem);
    const int mid = lo + (hi - lo) / 2;
    int klo = lo, khi = mid, slo = mid, shi = hi;
    if (h.newrank > newpeer) std::swap(klo, slo), std::swap(khi, shi);
    t.sendrecv(offset(acc, h.disps[slo], ext), as_count(h.elems(slo, shi)), type, peer, tag,
               offset(tmp.get(), h.disps[klo], ext), as_count(h.elems(klo, khi)), type, peer, tag);
    reduce_local(offset(tmp.get(), h.disps[klo], ext), offset(acc, h.disps[klo], ext), as_count(h.elems(klo, khi)),
                 type, op);
    lo = klo;
    hi = khi;
    h.kept.emplace_back(lo, hi);
  }
  return h;
}

// The block range a rank held before the halving step with mask 1 << k.
inline std::pair<int, int> range_before(const Halving& h, int k) {
  return k == 0 ? std::pair<int, int>{0, h.pof2} : h.kept[k - 1];
}
// Given my range after step k and the range before it, the partner's half.
inline std::pair<int, int> sibling(std::pair<int, int> mine, std::pair<int, int> parent) {
  return mine.first == parent.first ? std::pair<int, int>{mine.second, parent.second}
                                    : std::pair<int, int>{parent.first, mine.first};
}

void reduce_binomial(Transport& t, const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, int root) {
  const int p = t.size(), r = t.rank();
  const bool commutative = native::op_is_commutative(op);
  // A non-commutative operation is reduced to rank 0 (where rank order is the tree order) and the result
  // then sent on to the root.
  const int lroot = commutative ? root : 0;
  native::TypedBuffer tmp(count, type);
  std::unique_ptr<native::TypedBuffer> own;
  char* const acc = accumulator(r, root, sbuf, rbuf, count, type, own);
  const int rel = (r - lroot + p) % p;
  for (int mask = 1; mask < p; mask <<= 1) {
    if ((rel & mask) == 0) {
      const int child = rel | mask;
      if (child >= p) continue;
      t.recv(tmp.get(), count, type, (child + lroot) % p, kTagReduce);
      if (commutative) {
        reduce_local(tmp.get(), acc, count, type, op);
      } else {  // acc covers lower ranks than the child's subtree: acc op tmp
        reduce_local(acc, tmp.get(), count, type, op);
        copy(tmp.get(), count, type, acc, count, type);
      }
    } else {
      t.send(acc, count, type, ((rel & ~mask) + lroot) % p, kTagReduce);
      break;
    }
  }
  if (lroot != root) {
    if (r == lroot) t.send(acc, count, type, root, kTagReduce);
    else if (r == root) t.recv(rbuf, count, type, lroot, kTagReduce);
  }
}

// Rabenseifner: reduce-scatter by recursive halving, then a binomial gather of the blocks to the root.
void reduce_rabenseifner(Transport& t, const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op,
                         int root) {
  const int r = t.rank();
  const MPI_Aint ext = extent_of(type);
  std::unique_ptr<native::TypedBuffer> own;
  char* const acc = accumulator(r, root, sbuf, rbuf, count, type, own);
  const Halving h = reduce_scatter_halving(t, acc, count, type, op, kTagReduce);
  // The survivor that gathers: the root itself, or its odd neighbour when the root sat out.
  const int newroot = root < 2 * h.rem ? root / 2 : root - h.rem;
  const int gatherer = real_rank(newroot, h.rem);
  if (h.newrank >= 0) {
    for (int k = static_cast<int>(h.kept.size()) - 1; k >= 0; --k) {
      const int mask = 1 << k, newpeer = h.newrank ^ mask, peer = real_rank(newpeer, h.rem);
      const auto mine = h.kept[k];
      if ((h.newrank & mask) == (newroot & mask)) {
        const auto theirs = sibling(mine, range_before(h, k));
        t.recv(offset(acc, h.disps[theirs.first], ext), as_count(h.elems(theirs.first, theirs.second)), type, peer,
               kTagReduce);
      } else {
        t.send(offset(acc, h.disps[mine.first], ext), as_count(h.elems(mine.first, mine.second)), type, peer,
               kTagReduce);
        break;
      }
    }
  }
  if (gatherer != root) {
    if (r == gatherer) t.send(acc, count, type, root, kTagReduce);
    else if (r == root) t.recv(rbuf, count, type, gatherer, kTagReduce);
  }
}

void allreduce_recursive_doubling(Transport& t, char* acc, int count, MPI_Datatype type, MPI_Op op) {
  const int p = t.size(), r = t.rank();
  const int pof2 = pof2_floor(p), rem = p - pof2;
  const bool commutative = native::op_is_commutative(op);
  native::TypedBuffer tmp(count, type);
  const int newrank = fold_in(t, acc, tmp.get(), count, type, op, rem, kTagAllreduce);
  if (newrank >= 0) {
    for (int mask = 1; mask < pof2; mask <<= 1) {
      const int peer = real_rank(newrank ^ mask, rem);
      t.sendrecv(acc, count, type, peer, kTagAllreduce, tmp.get(), count, type, peer, kTagAllreduce);
      if (commutative || peer < r) {
        reduce_local(tmp.get(), acc, count, type, op);
      } else {
        reduce_local(acc, tmp.get(), count, type, op);
        copy(tmp.get(), count, type, acc, count, type);
      }
    }
  }
  if (r < 2 * rem) {
    if (r % 2) t.send(acc, count, type, r - 1, kTagAllreduce);
    else t.recv(acc, count, type, r + 1, kTagAllreduce);
  }
}

void allreduce_rabenseifner(Transport& t, char* acc, int count, MPI_Datatype type, MPI_Op op) {
  const int r = t.rank();
  const MPI_Aint ext = extent_of(type);
  const Halving h = reduce_scatter_halving(t, acc, count, type, op, kTagAllreduce);
  if (h.newrank >= 0) {
    for (int k = static_cast<int>(h.kept.size()) - 1; k >= 0; --k) {
      const int peer = real_rank(h.newrank ^ (1 << k), h.rem);
      const auto mine = h.kept[k];
      const auto theirs = sibling(mine, range_before(h, k));
      t.sendrecv(offset(acc, h.disps[mine.first], ext), as_count(h.elems(mine.first, mine.second)), type, peer,
                 kTagAllreduce, offset(acc, h.disps[theirs.first], ext),
                 as_count(h.elems(theirs.first, theirs.second)), type, peer, kTagAllreduce);
    }
  }
  if (r < 2 * h.rem) {
    if (r % 2) t.send(acc, count, type, r - 1, kTagAllreduce);
    else t.recv(acc, count, type, r + 1, kTagAllreduce);
  }
}

// ---------------------------------------------------------------------------------------------------
// Allgather

void allgather_recursive_doubling(Transport& t, void* rbuf, int rcount, MPI_Datatype rtype) {
  const int p = t.size(), r = t.rank();
  const MPI_Aint ext = extent_of(rtype);
  for (int mask = 1; mask < p; mask <<= 1) {
    const int peer = r ^ mask;
    const int mine = r & ~(mask - 1), theirs = peer & ~(mask - 1);
    t.sendrecv(offset(rbuf, int64_t{mine} * rcount, ext), mask * rcount, rtype, peer, kTagAllgather,
               offset(rbuf, int64_t{theirs} * rcount, ext), mask * rcount, rtype, peer, kTagAllgather);
  }
}

void allgather_bruck(Transport& t, void* rbuf, int rcount, MPI_Datatype rtype) {
  const int p = t.size(), r = t.rank();
  const MPI_Aint ext = extent_of(rtype);
  const size_t blk = native::type_size(rtype) * static_cast<uint64_t>(rcount);
  // Block i of `tmp` is rank (r + i) % p's contribution.
  std::vector<char> tmp(blk * p);
  native::pack(offset(rbuf, int64_t{r} * rcount, ext), rcount, rtype, tmp.data());
  int have = 1;
  while (have <= p / 2) {
    const int src = (r + have) % p, dst = (r - have + p) % p;
    t.sendrecv(tmp.data(), as_count(have * blk), MPI_BYTE, dst, kTagAllgather, tmp.data() + have * blk,
               as_count(have * blk), MPI_BYTE, src, kTagAllgather);
    have *= 2;
  }
  if (const int rest = p - have; rest > 0) {
    const int src = (r + have) % p, dst = (r - have + p) % p;
    t.sendrecv(tmp.data(), as_count(rest * blk), MPI_BYTE, dst, kTagAllgather, tmp.data() + have * blk,
               as_count(rest * blk), MPI_BYTE, src, kTagAllgather);
  }
  for (int i = 1; i < p; ++i)
    native::unpack(tmp.data() + i * blk, blk, offset(rbuf, int64_t{(r + i) % p} * rcount, ext), rcount, rtype);
}

// Ring over variable blocks (allgather uses it with equal blocks): step i passes block (r - i) to the right.
void allgatherv_ring(Transport& t, void* rbuf, const int* rcounts, const int* displs, MPI_Datatype rtype, int tag) {
  const int p = t.size(), r = t.rank();
  const MPI_Aint ext = extent_of(rtype);
  const int left = (r - 1 + p) % p, right = (r + 1) % p;
  int j = r, jnext = left;
  for (int i = 1; i < p; ++i) {
    t.sendrecv(offset(rbuf, displs[j], ext), rcounts[j], rtype, right, tag, offset(rbuf, displs[jnext], ext),
               rcounts[jnext], rtype, left, tag);
    j = jnext;
    jnext = (jnext - 1 + p) % p;
  }
}

// ---------------------------------------------------------------------------------------------------
// Reduce-scatter

void reduce_scatter_impl(Transport& t, const void* sbuf, void* rbuf, const int* rcounts, MPI_Datatype type, MPI_Op op,
                         int tag) {
  const int p = t.size(), r = t.rank();
  const MPI_Aint ext = extent_of(type);
  std::vector<int64_t> disps(p + 1, 0);
  for (int i = 0; i < p; ++i) disps[i + 1] = disps[i] + rcounts[i];
  const int total = as_count(disps[p]);
  if (total == 0) return;
  const void* input = in_place(sbuf) ? rbuf : sbuf;
  if (p == 1) {
    if (!in_place(sbuf)) copy(sbuf, rcounts[0], type, rbuf, rcounts[0], type);
    return;
  }
  const bool commutative = native::op_is_commutative(op);
  const uint64_t nbytes = native::type_size(type) * static_cast<uint64_t>(total);

  if (!commutative) {
    // Rank-ordered reduction to rank 0 (binomial), then a linear scatterv of the blocks.
    std::unique_ptr<native::TypedBuffer> full;
    if (r == 0) full = std::make_unique<native::TypedBuffer>(total, type);
    reduce_binomial(t, input, r == 0 ? full->get() : nullptr, total, type, op, 0);
    std::vector<int> displs(p);
    for (int i = 0; i < p; ++i) displs[i] = as_count(disps[i]);
    scatterv(t, r == 0 ? full->get() : nullptr, rcounts, displs.data(), type, rbuf, rcounts[r], type, 0);
    return;
  }

  if (is_pof2(p) && nbytes < kReduceScatterCommLongMsg) {
    // Recursive halving: at distance mask the pair splits its common block range, each keeping the half
    // that contains its own block.
    native::TypedBuffer acc(total, type), tmp(total, type);
    copy(input, total, type, acc.get(), total, type);
    for (int mask = p / 2; mask > 0; mask >>= 1) {
      const int peer = r ^ mask, base = r & ~(2 * mask - 1);
      int klo = base, slo = base + mask;
      if (r & mask) std::swap(klo, slo);
      const int kcount = as_count(disps[klo + mask] - disps[klo]), scount = as_count(disps[slo + mask] - disps[slo]);
      t.sendrecv(offset(acc.get(), disps[slo], ext), scount, type, peer, tag, offset(tmp.get(), disps[klo], ext), kcount,
                 type, peer, tag);
      reduce_local(offset(tmp.get(), disps[klo], ext), offset(acc.get(), disps[klo], ext), kcount, type, op);
    }
    copy(offset(acc.get(), disps[r], ext), rcounts[r], type, rbuf, rcounts[r], type);
    return;
  }

  // Pairwise exchange: at step i send rank r+i its block of my input, receive mine from rank r-i.
  std::unique_ptr<native::TypedBuffer> saved;
  if (in_place(sbuf)) {
    saved = std::make_unique<native::TypedBuffer>(total, type);
    copy(rbuf, total, type, saved->get(), total, type);
    input = saved->get();
  }
  copy(offset(input, disps[r], ext), rcounts[r], type, rbuf, rcounts[r], type);
  native::TypedBuffer tmp(rcounts[r], type);
  for (int i = 1; i < p; ++i) {
    const int src = (r - i + p) % p, dst = (r + i) % p;
    t.sendrecv(offset(input, disps[dst], ext), rcounts[dst], type, dst, tag, tmp.get(), rcounts[r], type, src, tag);
    reduce_local(tmp.get(), rbuf, rcounts[r], type, op);
  }
}

}  // namespace

ReduceRunner g_reduce_runner = nullptr;
void set_reduce_runner(ReduceRunner r) { g_reduce_runner = r; }

// ===================================================================================================

void barrier(Transport& t) {
  const int p = t.size(), r = t.rank();
  for (int mask = 1; mask < p; mask <<= 1)
    t.sendrecv(nullptr, 0, MPI_BYTE, (r + mask) % p, kTagBarrier, nullptr, 0, MPI_BYTE, (r - mask + p) % p,
               kTagBarrier);
}

void bcast(Transport& t, void* buf, int count, MPI_Datatype type, int root) {
  const int p = t.size();
  if (p == 1 || count == 0) return;
  const uint64_t nbytes = native::type_size(type) * static_cast<uint64_t>(count);
  if (nbytes < kBcastShortMsg || p < kBcastMinProcs) bcast_binomial(t, buf, count, type, root);
  else if (nbytes < kBcastLongMsg && is_pof2(p)) bcast_scatter_allgather(t, buf, count, type, root, false);
  else bcast_scatter_allgather(t, buf, count, type, root, true);
}

void reduce(Transport& t, const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, int root) {
  const int p = t.size();
  if (count == 0) return;
  if (p == 1) {
    if (!in_place(sbuf)) copy(sbuf, count, type, rbuf, count, type);
    return;
  }
  const uint64_t nbytes = native::type_size(type) * static_cast<uint64_t>(count);
  if (nbytes > kReduceShortMsg && is_predefined_op(op) && count >= pof2_floor(p))
    reduce_rabenseifner(t, sbuf, rbuf, count, type, op, root);
  else
    reduce_binomial(t, sbuf, rbuf, count, type, op, root);
}

void allreduce(Transport& t, const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op) {
  const int p = t.size();
  if (count == 0) return;
  if (!in_place(sbuf)) copy(sbuf, count, type, rbuf, count, type);
  if (p == 1) return;
  char* acc = static_cast<char*>(rbuf);
  if (allreduce_algorithm(p, count, type, op) == AllreduceAlgo::RecursiveDoubling)
    allreduce_recursive_doubling(t, acc, count, type, op);
  else
    allreduce_rabenseifner(t, acc, count, type, op);
}

AllreduceAlgo allreduce_algorithm(int p, int count, MPI_Datatype type, MPI_Op op) {
  const uint64_t nbytes = native::type_size(type) * static_cast<uint64_t>(count);
  if (nbytes <= kAllreduceShortMsg || !is_predefined_op(op) || count < pof2_floor(p))
    return AllreduceAlgo::RecursiveDoubling;
  return AllreduceAlgo::Rabenseifner;
}

void gather(Transport& t, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
            MPI_Datatype rtype, int root) {
  const int p = t.size(), r = t.rank();
  if ((r == root ? rcount : scount) == 0) return;
  const MPI_Aint rext = r == root ? extent_of(rtype) : 0;
  if (p == 1) {
    if (!in_place(sbuf)) copy(sbuf, scount, stype, rbuf, rcount, rtype);
    return;
  }
  const auto [rel, sub, blk] = binomial(p, r, root, rcount, rtype, scount, stype);
  if (sub == 1) {  // a leaf sends its own data straight from the user buffer
    t.send(sbuf, scount, stype, ((rel & (rel - 1)) + root) % p, kTagGather);
    return;
  }
  // Block i of `tmp` is relative rank rel + i's contribution.
  std::vector<char> tmp(blk * sub);
  if (r == root && in_place(sbuf)) native::pack(offset(rbuf, int64_t{r} * rcount, rext), rcount, rtype, tmp.data());
  else native::pack(sbuf, scount, stype, tmp.data());
  for (int mask = 1; mask < p; mask <<= 1) {
    if ((rel & mask) == 0) {
      const int child = rel | mask;
      if (child >= p) continue;
      const int n = std::min(mask, p - child);
      t.recv(tmp.data() + mask * blk, as_count(n * blk), MPI_BYTE, (child + root) % p, kTagGather);
    } else {
      t.send(tmp.data(), as_count(sub * blk), MPI_BYTE, ((rel & ~mask) + root) % p, kTagGather);
      break;
    }
  }
  if (r == root) {
    for (int i = 0; i < p; ++i) {
      const int who = (i + root) % p;
      if (who == root && in_place(sbuf)) continue;
      native::unpack(tmp.data() + i * blk, blk, offset(rbuf, int64_t{who} * rcount, rext), rcount, rtype);
    }
  }
}

void gatherv(Transport& t, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int* rcounts,
             const int* displs, MPI_Datatype rtype, int root) {
  const int p = t.size(), r = t.rank();
  if (r != root) {
    if (scount > 0) t.send(sbuf, scount, stype, root, kTagGatherv);
    return;
  }
  const MPI_Aint rext = extent_of(rtype);
  linear(
      t, p, rcounts, root,
      [&] {
        if (!in_place(sbuf)) copy(sbuf, scount, stype, offset(rbuf, displs[root], rext), rcounts[root], rtype);
      },
      [&](int i) { return t.irecv(offset(rbuf, displs[i], rext), rcounts[i], rtype, i, kTagGatherv); });
}

void scatter(Transport& t, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
             MPI_Datatype rtype, int root) {
  const int p = t.size(), r = t.rank();
  if ((r == root ? scount : rcount) == 0) return;
  const MPI_Aint sext = r == root ? extent_of(stype) : 0;
  if (p == 1) {
    if (!in_place(rbuf)) copy(sbuf, scount, stype, rbuf, rcount, rtype);
    return;
  }
  const auto [rel, sub, blk] = binomial(p, r, root, scount, stype, rcount, rtype);
  const int parent = ((rel & (rel - 1)) + root) % p;
  if (sub == 1) {  // a leaf receives straight into the user buffer
    t.recv(rbuf, rcount, rtype, parent, kTagScatter);
    return;
  }
  // Block i of `tmp` is for relative rank rel + i.
  std::vector<char> tmp(blk * sub);
  if (r == root) {
    for (int i = 1; i < p; ++i)
      native::pack(offset(sbuf, int64_t{(i + root) % p} * scount, sext), scount, stype, tmp.data() + i * blk);
  } else {
    t.recv(tmp.data(), as_count(sub * blk), MPI_BYTE, parent, kTagScatter);
  }
  for (int mask = low_bit(rel, p) >> 1; mask > 0; mask >>= 1) {
    const int child = rel + mask;
    if (child >= p) continue;
    const int n = std::min(mask, p - child);
    t.send(tmp.data() + mask * blk, as_count(n * blk), MPI_BYTE, (child + root) % p, kTagScatter);
  }
  if (r == root) {
    if (!in_place(rbuf)) copy(offset(sbuf, int64_t{root} * scount, sext), scount, stype, rbuf, rcount, rtype);
  } else {
    native::unpack(tmp.data(), blk, rbuf, rcount, rtype);
  }
}

void scatterv(Transport& t, const void* sbuf, const int* scounts, const int* displs, MPI_Datatype stype,
              void* rbuf, int rcount, MPI_Datatype rtype, int root) {
  const int p = t.size(), r = t.rank();
  if (r != root) {
    if (rcount > 0) t.recv(rbuf, rcount, rtype, root, kTagScatterv);
    return;
  }
  const MPI_Aint sext = extent_of(stype);
  linear(
      t, p, scounts, root,
      [&] {
        if (!in_place(rbuf)) copy(offset(sbuf, displs[root], sext), scounts[root], stype, rbuf, rcount, rtype);
      },
      [&](int i) { return t.isend(offset(sbuf, displs[i], sext), scounts[i], stype, i, kTagScatterv); });
}

void allgather(Transport& t, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
               MPI_Datatype rtype) {
  const int p = t.size(), r = t.rank();
  if ((scount == 0 && !in_place(sbuf)) || rcount == 0) return;
  const MPI_Aint rext = extent_of(rtype);
  if (!in_place(sbuf)) copy(sbuf, scount, stype, offset(rbuf, int64_t{r} * rcount, rext), rcount, rtype);
  if (p == 1) return;
  const uint64_t total = native::type_size(rtype) * static_cast<uint64_t>(rcount) * p;
  if (total < kAllgatherLongMsg && is_pof2(p)) {
    allgather_recursive_doubling(t, rbuf, rcount, rtype);
  } else if (total < kAllgatherShortMsg) {
    allgather_bruck(t, rbuf, rcount, rtype);
  } else {
    std::vector<int> counts(p, rcount), displs(p);
    for (int i = 0; i < p; ++i) displs[i] = i * rcount;
    allgatherv_ring(t, rbuf, counts.data(), displs.data(), rtype, kTagAllgather);
  }
}

void allgatherv(Transport& t, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int* rcounts,
                const int* displs, MPI_Datatype rtype) {
  const int p = t.size(), r = t.rank();
  int64_t total = 0;
  for (int i = 0; i < p; ++i) total += rcounts[i];
  if (total == 0) return;
  const MPI_Aint rext = extent_of(rtype);
  if (!in_place(sbuf)) copy(sbuf, scount, stype, offset(rbuf, displs[r], rext), rcounts[r], rtype);
  if (p == 1) return;
  allgatherv_ring(t, rbuf, rcounts, displs, rtype, kTagAllgatherv);
}

void reduce_scatter(Transport& t, const void* sbuf, void* rbuf, const int* rcounts, MPI_Datatype type,
                    MPI_Op op) {
  reduce_scatter_impl(t, sbuf, rbuf, rcounts, type, op, kTagReduceScatter);
}

void reduce_scatter_block(Transport& t, const void* sbuf, void* rbuf, int rcount, MPI_Datatype type, MPI_Op op) {
  const std::vector<int> rcounts(t.size(), rcount);
  reduce_scatter_impl(t, sbuf, rbuf, rcounts.data(), type, op, kTagReduceScatter);
}

}  // namespace xsim::coll

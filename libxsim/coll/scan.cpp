// Scan (inclusive) and exscan over a Transport (see collectives.hpp), MPICH's recursive doubling: at
// distance mask each rank exchanges the reduction of its aligned group with its partner's. Layer:
// libxsim/coll.
#include "coll/collectives.hpp"

#include "coll/reduce.hpp"
#include "coll/tags.hpp"
#include "native/datatype.hpp"

namespace xsim::coll {
namespace {

using native::copy;
// reduce_local: coll/reduce.hpp (the runtime charges the reduction's host time)

// Scan (inclusive) and exscan by recursive doubling. `partial` is the reduction over the aligned group of
// ranks (of size mask) that contains r, starting from this rank's data `mine`; `rbuf` accumulates the part
// of it below r, and at r itself when inclusive (then it already holds `mine`). Exclusive: rank 0's receive
// buffer is never written (its result is undefined).
void prefix_doubling(Transport& t, const void* mine, void* rbuf, int count, MPI_Datatype type, MPI_Op op,
                     bool inclusive, int tag) {
  const int p = t.size(), r = t.rank();
  const bool commutative = native::op_is_commutative(op);
  native::TypedBuffer partial(count, type), tmp(count, type);
  copy(mine, count, type, partial.get(), count, type);
  bool have_result = inclusive;
  for (int mask = 1; mask < p; mask <<= 1) {
    const int peer = r ^ mask;
    if (peer >= p) continue;
    t.sendrecv(partial.get(), count, type, peer, tag, tmp.get(), count, type, peer, tag);
    if (peer < r) {
      reduce_local(tmp.get(), partial.get(), count, type, op);
      if (have_result) {
        reduce_local(tmp.get(), rbuf, count, type, op);
      } else {
        copy(tmp.get(), count, type, rbuf, count, type);
        have_result = true;
      }
    } else if (commutative) {
      reduce_local(tmp.get(), partial.get(), count, type, op);
    } else {
      reduce_local(partial.get(), tmp.get(), count, type, op);
      copy(tmp.get(), count, type, partial.get(), count, type);
    }
  }
}

}  // namespace

void scan(Transport& t, const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op) {
  const int p = t.size();
  if (count == 0) return;
  if (sbuf != MPI_IN_PLACE) copy(sbuf, count, type, rbuf, count, type);
  if (p == 1) return;
  prefix_doubling(t, rbuf, rbuf, count, type, op, true, kTagScan);
}

void exscan(Transport& t, const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op) {
  const int p = t.size();
  if (count == 0 || p == 1) return;
  prefix_doubling(t, sbuf == MPI_IN_PLACE ? rbuf : sbuf, rbuf, count, type, op, false, kTagExscan);
}

}  // namespace xsim::coll

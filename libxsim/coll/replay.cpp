// Array replay of collective algorithms (see replay.hpp). Each function mirrors one algorithm of
// collectives.cpp step by step; a comment names the function it mirrors. Within a step every rank posts its
// receive at its clock, then sends (after the send overhead) before the step's receives complete (the
// algorithms' sendrecv: irecv, isend, waitall), so the step's messages are sent first for all ranks, then
// the clocks move to max(clock + send overhead, the receive's completion).
#include "coll/replay.hpp"

#include <cstring>
#include <utility>

#include "coll/pof2.hpp"
#include "native/datatype.hpp"

namespace xsim::coll {
namespace {

// For a contiguous datatype, its data bytes per element (pack and unpack are then one memcpy, as in
// native::pack/unpack); else 0. Asked once per replay: a handle can name another type later.
inline uint64_t contiguous_size(MPI_Datatype type) {
  return native::type_is_contiguous(type) ? native::type_size(type) : 0;
}

// One message moving `count` elements: what pack on the sender and unpack on the receiver do.
inline void move(const char* from, char* to, int count, MPI_Datatype type, uint64_t csize) {
  if (count <= 0) return;
  const uint64_t n = csize * static_cast<uint64_t>(count);
  if (n == 8) std::memcpy(to, from, 8);  // one double or 64-bit integer, the usual case: no call
  else if (csize) std::memcpy(to, from, n);
  else native::copy(from, count, type, to, count, type);
}

// Fold step of the non-power-of-two schemes (fold_in): even rank 2i sends its vector to 2i+1, which
// reduces it in, lower rank first.
void fold(ReplayNet& net, std::vector<SimTime>& t, char* const* acc, int count, MPI_Datatype type, int rem,
          char* tmp) {
  const uint64_t cs = contiguous_size(type);
  const uint64_t bytes = native::type_size(type) * static_cast<uint64_t>(count);
  const SimTime os = net.send_overhead();
  for (int i = 0; i < rem; ++i) {
    const int even = 2 * i, odd = even + 1;
    t[even] += os;
    const ReplayMsg m = net.send(even, odd, t[even], bytes);
    t[odd] = max(t[odd], net.receive(odd, even, t[odd], m));
    move(acc[even], tmp, count, type, cs);
    t[odd] += net.reduce(odd, tmp, acc[odd], count, type);
  }
}

// Unfold (the end of allreduce_recursive_doubling and allreduce_rabenseifner): odd rank 2i+1 sends the
// result to 2i.
void unfold(ReplayNet& net, std::vector<SimTime>& t, char* const* acc, int count, MPI_Datatype type, int rem) {
  const uint64_t cs = contiguous_size(type);
  const uint64_t bytes = native::type_size(type) * static_cast<uint64_t>(count);
  const SimTime os = net.send_overhead();
  for (int i = 0; i < rem; ++i) {
    const int even = 2 * i, odd = even + 1;
    t[odd] += os;
    const ReplayMsg m = net.send(odd, even, t[odd], bytes);
    t[even] = max(t[even], net.receive(even, odd, t[even], m));
    move(acc[odd], acc[even], count, type, cs);
  }
}

// One exchange step among the pof2 survivors (the algorithms' sendrecv with peer nr ^ mask): every survivor
// posts its receive at its clock and sends `bytes(nr)`, then its clock moves to the later of its send's end
// and its receive's completion.
template <class Bytes>
void exchange(ReplayNet& net, std::vector<SimTime>& t, std::vector<ReplayMsg>& msg, int pof2, int rem, int mask,
              Bytes bytes) {
  const SimTime os = net.send_overhead();
  for (int nr = 0; nr < pof2; ++nr) {
    const int r = real_rank(nr, rem);
    msg[nr] = net.send(r, real_rank(nr ^ mask, rem), t[r] + os, bytes(nr));
  }
  for (int nr = 0; nr < pof2; ++nr) {
    const int r = real_rank(nr, rem);
    t[r] = max(t[r] + os, net.receive(r, real_rank(nr ^ mask, rem), t[r], msg[nr ^ mask]));
  }
}

// Mirrors allreduce_recursive_doubling.
void allreduce_doubling(ReplayNet& net, std::vector<SimTime>& t, char* const* acc, int count, MPI_Datatype type,
                        bool commutative) {
  const uint64_t cs = contiguous_size(type);
  const int p = static_cast<int>(t.size()), pof2 = pof2_floor(p), rem = p - pof2;
  const uint64_t bytes = native::type_size(type) * static_cast<uint64_t>(count);
  native::TypedBuffer ta(count, type), tb(count, type);
  fold(net, t, acc, count, type, rem, ta.get());
  std::vector<ReplayMsg> msg(static_cast<size_t>(pof2));
  for (int mask = 1; mask < pof2; mask <<= 1) {
    exchange(net, t, msg, pof2, rem, mask, [bytes](int) { return bytes; });
    for (int nr = 0; nr < pof2; ++nr) {
      if ((nr & mask) != 0) continue;  // each pair once, from its lower member
      const int r = real_rank(nr, rem), pr = real_rank(nr | mask, rem);  // r < pr
      move(acc[pr], ta.get(), count, type, cs);  // what r receives
      move(acc[r], tb.get(), count, type, cs);   // what pr receives
      if (commutative) {
        t[r] += net.reduce(r, ta.get(), acc[r], count, type);
      } else {  // r's vector covers the lower ranks: acc op tmp
        t[r] += net.reduce(r, acc[r], ta.get(), count, type);
        move(ta.get(), acc[r], count, type, cs);
      }
      t[pr] += net.reduce(pr, tb.get(), acc[pr], count, type);  // the peer is lower: tmp op acc
    }
  }
  unfold(net, t, acc, count, type, rem);
}

// Mirrors allreduce_rabenseifner (reduce_scatter_halving, then the allgather by recursive doubling).
void allreduce_rabenseifner(ReplayNet& net, std::vector<SimTime>& t, char* const* acc, int count,
                            MPI_Datatype type) {
  const uint64_t cs = contiguous_size(type);
  const int p = static_cast<int>(t.size()), pof2 = pof2_floor(p), rem = p - pof2;
  const uint64_t size = native::type_size(type);
  const MPI_Aint ext = native::type_extent(type).extent;
  std::vector<int64_t> disps(static_cast<size_t>(pof2) + 1, 0);
  for (int i = 0; i < pof2; ++i) disps[i + 1] = disps[i] + count / pof2 + (i < count % pof2 ? 1 : 0);
  auto elems = [&](std::pair<int, int> b) { return static_cast<int>(disps[b.second] - disps[b.first]); };
  auto at = [&](char* buf, int block) { return buf + disps[block] * ext; };
  native::TypedBuffer tmp(count, type);
  fold(net, t, acc, count, type, rem, tmp.get());

  // kept[k][nr]: the block range survivor nr keeps after the halving step with mask 1 << k.
  std::vector<std::vector<std::pair<int, int>>> kept;
  std::vector<std::pair<int, int>> range(static_cast<size_t>(pof2), {0, pof2}), keep(range.size());
  std::vector<ReplayMsg> msg(range.size());
  std::vector<uint64_t> sent(range.size());
  for (int mask = 1; mask < pof2; mask <<= 1) {
    for (int nr = 0; nr < pof2; ++nr) {
      const auto [lo, hi] = range[nr];
      const int mid = lo + (hi - lo) / 2;
      std::pair<int, int> k{lo, mid}, s{mid, hi};
      if (nr > (nr ^ mask)) std::swap(k, s);
      keep[nr] = k;
      sent[nr] = size * static_cast<uint64_t>(elems(s));
    }
    exchange(net, t, msg, pof2, rem, mask, [&sent](int nr) { return sent[nr]; });
    // Each rank reduces its kept half with the peer's copy of it, which the peer sends and does not change.
    for (int nr = 0; nr < pof2; ++nr) {
      const int r = real_rank(nr, rem), pr = real_rank(nr ^ mask, rem);
      const int n = elems(keep[nr]);
      move(at(acc[pr], keep[nr].first), at(tmp.get(), keep[nr].first), n, type, cs);
      t[r] += net.reduce(r, at(tmp.get(), keep[nr].first), at(acc[r], keep[nr].first), n, type);
    }
    range = keep;
    kept.push_back(keep);
  }
  for (int k = static_cast<int>(kept.size()) - 1; k >= 0; --k) {
    const int mask = 1 << k;
    exchange(net, t, msg, pof2, rem, mask,
             [&](int nr) { return size * static_cast<uint64_t>(elems(kept[static_cast<size_t>(k)][nr])); });
    // Each rank receives the sibling half (the peer's own, which the peer does not change in this step).
    for (int nr = 0; nr < pof2; ++nr) {
      const auto mine = kept[k][nr];
      const auto parent = k == 0 ? std::pair<int, int>{0, pof2} : kept[k - 1][nr];
      const auto theirs = mine.first == parent.first ? std::pair<int, int>{mine.second, parent.second}
                                                     : std::pair<int, int>{parent.first, mine.first};
      move(at(acc[real_rank(nr ^ mask, rem)], theirs.first), at(acc[real_rank(nr, rem)], theirs.first),
           elems(theirs), type, cs);
    }
  }
  unfold(net, t, acc, count, type, rem);
}

}  // namespace

// Mirrors coll::barrier (dissemination: at step k rank r sends to r + 2^k and receives from r - 2^k).
void replay_barrier(ReplayNet& net, std::vector<SimTime>& t) {
  const int p = static_cast<int>(t.size());
  std::vector<ReplayMsg> msg(t.size());
  // Each step is coll::Transport::sendrecv: the receive is posted at t, the send leaves after the send
  // overhead, and the step ends when both are done (the receive's completion: receive()).
  const SimTime os = net.send_overhead();
  for (int mask = 1; mask < p; mask <<= 1) {
    for (int r = 0; r < p; ++r) msg[r] = net.send(r, (r + mask) % p, t[r] + os, 0);
    for (int r = 0; r < p; ++r) {
      const int from = (r - mask + p) % p;
      t[r] = max(t[r] + os, net.receive(r, from, t[r], msg[from]));
    }
  }
}

void replay_allreduce(ReplayNet& net, std::vector<SimTime>& t, char* const* acc, int count, MPI_Datatype type,
                      bool commutative, AllreduceAlgo algo) {
  if (algo == AllreduceAlgo::RecursiveDoubling) allreduce_doubling(net, t, acc, count, type, commutative);
  else allreduce_rabenseifner(net, t, acc, count, type);
}

}  // namespace xsim::coll

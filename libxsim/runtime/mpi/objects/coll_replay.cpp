// Fast path of blocking collectives: the rendezvous of the local members and the engine side of the
// replay (see coll_replay.hpp; the algorithms' schedules are in coll/replay.cpp).
#include "coll_replay.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "api_support.hpp"
#include "host_clock.hpp"
#include "coll/replay.hpp"
#include "native/datatype.hpp"
#include "native/flatten.hpp"
#include "options.hpp"
#include "privatize.hpp"

namespace xsim {

namespace {

enum class Kind : uint8_t { Barrier, Allreduce };

// Tags the point-to-point algorithms use (collectives.cpp), shown in the deadlock report as they would be.
constexpr int kTagBarrier = 1, kTagAllreduce = 4;

// One member's part, on its own stack while it waits.
struct Waiter {
  Rank* rank = nullptr;
  SimTime entry;
  Kind kind = Kind::Barrier;
  void* rbuf = nullptr;
  int count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_Op op = MPI_OP_NULL;
  bool commutative = true;
  coll::AllreduceAlgo algo = coll::AllreduceAlgo::RecursiveDoubling;
  bool released = false;  // set by the last member: `exit` is known, or `fallback`
  bool fallback = false;  // run the point-to-point algorithm instead
  bool must_fall_back = false;  // this member's arguments rule the fast path out for everyone
  SimTime exit;
};

// Loops over a million members touch each one's waiter (on its stack) and record: start loading member
// i + 8's waiter and member i + 4's record now (a miss or two per member otherwise).
inline void prefetch_member(const std::vector<Waiter*>& ws, size_t i) {
  if (i + 8 < ws.size()) __builtin_prefetch(ws[i + 8]);
  if (i + 4 < ws.size()) __builtin_prefetch(ws[i + 4]->rank);
}

// Arguments that decide the schedule must be equal on every member.
bool same_schedule(const Waiter& a, const Waiter& b) {
  if (a.kind != b.kind) return false;
  if (a.kind == Kind::Barrier) return true;
  return a.count == b.count && a.type == b.type && a.commutative == b.commutative && a.algo == b.algo;
}

// MPI_SUM of MPI_DOUBLE or MPI_INT by hand (inout = in + inout, as the MPI computes it: the same bits), the
// replay's usual reduction: a call into the MPI for one element costs more than the rest of the message.
// False for anything else.
bool sum_in_place(const void* in, void* inout, int count, MPI_Datatype type, MPI_Op op) {
  if (op != MPI_SUM) return false;
  if (type == MPI_DOUBLE) {
    const double* a = static_cast<const double*>(in);
    double* b = static_cast<double*>(inout);
    for (int k = 0; k < count; ++k) b[k] = a[k] + b[k];
    return true;
  }
  if (type == MPI_INT) {  // wraps on overflow, as the MPI's C addition does in practice
    const int* a = static_cast<const int*>(in);
    int* b = static_cast<int*>(inout);
    for (int k = 0; k < count; ++k) b[k] = static_cast<int>(static_cast<unsigned>(a[k]) + static_cast<unsigned>(b[k]));
    return true;
  }
  return false;
}

bool is_predefined_op(MPI_Op op) {
  static const MPI_Op kOps[] = {MPI_MAX,  MPI_MIN, MPI_SUM,  MPI_PROD,   MPI_LAND,   MPI_BAND,    MPI_LOR,
                                MPI_BOR,  MPI_LXOR, MPI_BXOR, MPI_MINLOC, MPI_MAXLOC, MPI_REPLACE, MPI_NO_OP};
  return std::find(std::begin(kOps), std::end(kOps), op) != std::end(kOps);
}

// Whether the native MPI applies predefined `op` to `type` (one element of `data`, on scratch copies).
// Answers for named datatypes are kept (their handles never change meaning).
bool reduction_works(const void* data, MPI_Datatype type, MPI_Op op) {
  static std::vector<std::pair<MPI_Datatype, MPI_Op>> known_good;
  const bool named = native::type_is_named(type);
  if (named && std::find(known_good.begin(), known_good.end(), std::make_pair(type, op)) != known_good.end())
    return true;
  native::TypedBuffer a(1, type), b(1, type);
  bool works = true;
  try {
    native::copy(data, 1, type, a.get(), 1, type);
    native::copy(a.get(), 1, type, b.get(), 1, type);
    native::reduce_local(a.get(), b.get(), 1, type, op);
  } catch (const native::MpiError&) {
    works = false;
  }
  if (works && named) known_good.emplace_back(type, op);
  return works;
}

}  // namespace

struct CollRendezvous {
  int arrived = 0;
  bool fallback = false;     // this instance runs point to point on every member
  // Held (Engine::replay_hold; allreduce with the NICs' ejection timed): until when the members may wait, the
  // earliest entry plus the send overhead and the minimum latency, less 1 ps (see arrive).
  bool held = false;
  SimTime hold = SimTime::infinity();
  Waiter first;              // the first member's arguments
  std::vector<Waiter*> waiting;  // by communicator rank (null: not entered yet)
};

namespace {

// The earliest message to member `r`'s node (of one core) not yet timed through its ejection link (its
// rank times its arrivals as it processes them), or null.
const Message* first_untimed(const Rank& r) {
  const Message* first = nullptr;
  for (const Message* m : r.arrivals) {
    if (!m->model_bytes() || m->src == m->dst) continue;
    if (!first || m->t_arrive < first->t_arrive ||
        (m->t_arrive == first->t_arrive && (m->src < first->src || (m->src == first->src && m->seq < first->seq))))
      first = m;
  }
  return first;
}

// The engine's side of a replay: message timing (network latency, per-pair FIFO order, the nodes' NICs under
// loggp) and statistics. What the schedule's messages read and write lives in arrays indexed by
// communicator rank, filled once from the members' records and written back once at the end (commit): a
// replay over a million ranks sends 20 million messages, and a walk over the ranks' records (320 bytes each,
// and the waiters on the ranks' stacks) for every message cost a cache and TLB miss or two each once they
// no longer fit the caches.
// The NICs (Engine::replay_nic_timed; nodes of one core, Engine::replay_nic_shared): a copy of this process's
// NIC state, timed as Engine::send and Engine::time_ejection do, in the order the schedule calls send() and
// receive(). That is the message path's order when each node's timed arrivals come in arrival order (its
// sends are its rank's, in program order), and every message to a member not yet timed arrives after the
// replay's (nothing else can reach a member meanwhile). EngineNet checks both; if one fails (ranks entering
// far apart, or the messages of a step of different sizes, can reorder a node's arrivals across steps),
// finish() returns false and commits nothing: the members take the point-to-point path from their entry
// times (safe: while a member waits, nothing else times its node's NIC).
class EngineNet final : public coll::ReplayNet {
 public:
  // `data`: the schedule sends messages with data (a barrier's never meet the NICs).
  EngineNet(Engine& e, const std::vector<Waiter*>& ws, bool data, bool user_op)
      : e_(e), ws_(ws), user_op_(user_op), os_(e.send_overhead()), or_(e.recv_overhead()),
        nic_(data && e.replay_nic_timed()) {
    // The arrays are kept from one replay to the next (a million ranks' worth is tens of MiB: touching fresh
    // pages each time cost more than the replay's own work).
    const size_t n = ws.size();
    world_.resize(n);
    ops_.resize(n);
    recent_.resize(n);
    sent_.assign(n, Sent{});
    if (nic_) {
      saved_.resize(n);
      nic_of_.resize(n);
      seq0_.resize(n);
      nics_.assign(e.replay_nic_count(), Nic{});
      for (size_t k = 0; k < nics_.size(); ++k) {
        nics_[k].inject_free = e.replay_inject_free(static_cast<int32_t>(k));
        nics_[k].eject_free = e.replay_eject_free(static_cast<int32_t>(k));
      }
    }
    for (size_t i = 0; i < n; ++i) {  // one pass over the members' records and waiters
      prefetch_member(ws, i);
      const Waiter& w = *ws[i];
      Rank& r = *w.rank;
      world_[i] = r.world;
      ops_[i] = w.op;
      recent_[i] = std::move(r.recent);  // back in finish(); nothing else sends meanwhile
      if (!nic_) continue;
      saved_[i].clear();  // what finish() gives back if the replay is not used
      for (size_t k = 0; k < recent_[i].size(); ++k) saved_[i].push_back(recent_[i][k]);
      nic_of_[i] = e.replay_nic_of(r);
      seq0_[i] = r.send_seq;
      // The member has timed arrivals up to its entry at most (it processes them up to its clock), and none
      // after its ejection link is next free (an arrival is timed to end no earlier than it comes): the
      // replay's must come after those.
      Nic& nic = nics_[static_cast<size_t>(nic_of_[i])];
      nic.after(min(w.entry, nic.eject_free));
    }
  }
  coll::ReplayMsg send(int i, int j, SimTime at, uint64_t bytes) override {
    const size_t a = static_cast<size_t>(i);
    const int32_t src = world_[a], dst = world_[static_cast<size_t>(j)];
    coll::ReplayMsg m;
    m.bytes = bytes;
    m.seq = (nic_ ? seq0_[a] : 0) + sent_[a].messages++;  // its send_seq in the message path
    sent_[a].bytes += bytes;
    SimTime leave = at, latency;
    if (nic_ && bytes && e_.replay_inter_node(src, dst)) {  // Engine::send's NIC branch
      latency = e_.replay_wire_latency(src, dst, bytes, &m.xfer);
      Nic& n = nics_[static_cast<size_t>(nic_of_[a])];  // its own: one core per node (replay_nic_shared)
      leave = max(leave, n.inject_free);
      n.inject_free = leave + e_.replay_nic_busy_for(m.xfer);
    } else {
      latency = e_.message_latency(src, dst, bytes);
    }
    m.arrive = Engine::fifo_clamp(recent_[a], dst, at + e_.min_latency(), leave + latency);
    return m;
  }
  SimTime send_overhead() const override { return os_; }
  SimTime receive(int i, int j, SimTime posted, const coll::ReplayMsg& m) override {
    SimTime done = m.arrive;
    const int32_t src = world_[static_cast<size_t>(j)];
    if (nic_ && m.bytes && e_.replay_ejection_timed() && e_.replay_inter_node(src, world_[static_cast<size_t>(i)])) {
      Nic& n = nics_[static_cast<size_t>(nic_of_[static_cast<size_t>(i)])];  // Engine::time_ejection
      if (!n.before(m.arrive, src, m.seq)) ordered_ = false;
      n.timed = true;
      n.last_arrive = m.arrive;
      n.last_src = src;
      n.last_seq = m.seq;
      done = max(m.arrive, n.eject_free + m.xfer);
      n.eject_free = done;
    }
    return max(posted, done) + or_;  // Engine::receive_done: the receive overhead after the match
  }
  SimTime reduce(int i, const void* in, void* inout, int count, MPI_Datatype type) override {
    const MPI_Op op = ops_[static_cast<size_t>(i)];
    if (user_op_) e_.enter_globals(*ws_[static_cast<size_t>(i)]->rank);  // the user's function sees its rank's globals
    if (!e_.host_timing()) {
      if (!sum_in_place(in, inout, count, type, op)) native::reduce_local(in, inout, count, type, op);
      return SimTime::zero();
    }
    const int64_t t0 = host_clock_ns(CLOCK_MONOTONIC);  // the message path's charge (coll_reduce_runner)
    native::reduce_local(in, inout, count, type, op);
    return e_.host_compute(host_clock_ns(CLOCK_MONOTONIC) - t0);
  }
  // Gives the FIFO records back to the members' records. When the NICs were timed in the message path's
  // order (see above), also the NIC state and the statistics, and returns true; else false (nothing else
  // changed: the members take the point-to-point path).
  bool finish() {
    bool ok = ordered_;
    if (ok && nic_) e_.replay_drain();
    if (ok && nic_ && e_.replay_ejection_timed())
      for (size_t i = 0; i < ws_.size() && ok; ++i)
        if (const Nic& n = nics_[static_cast<size_t>(nic_of_[i])]; n.timed)
          if (const Message* m = first_untimed(*ws_[i]->rank)) ok = n.before(m->t_arrive, m->src, m->seq);
    for (size_t i = 0; i < ws_.size(); ++i) {
      prefetch_member(ws_, i);
      Rank& r = *ws_[i]->rank;
      r.recent = std::move(ok ? recent_[i] : saved_[i]);
      if (ok) e_.count_replayed_sends(r, sent_[i].messages, sent_[i].bytes);
    }
    if (ok)
      for (size_t k = 0; k < nics_.size(); ++k) {
        e_.replay_inject_free(static_cast<int32_t>(k)) = nics_[k].inject_free;
        e_.replay_eject_free(static_cast<int32_t>(k)) = nics_[k].eject_free;
      }
    return ok;
  }

 private:
  struct Sent {
    uint64_t messages = 0, bytes = 0;
  };
  // A node's NIC: when its links are next free, and the last arrival timed (to check their order).
  struct Nic {
    SimTime inject_free, eject_free;
    SimTime last_arrive = SimTime::from_ps(-1);
    int32_t last_src = -1;
    uint64_t last_seq = 0;
    bool timed = false;  // the replay timed an arrival here
    void after(SimTime t) {  // every arrival timed from now on comes after `t`, all senders
      last_arrive = t;
      last_src = INT32_MAX;
    }
    // Whether the last timed arrival comes before (t, src, seq) in arrival order.
    bool before(SimTime t, int32_t src, uint64_t seq) const {
      if (last_arrive != t) return last_arrive < t;
      if (last_src != src) return last_src < src;
      return last_seq < seq;
    }
  };
  Engine& e_;
  const std::vector<Waiter*>& ws_;
  bool user_op_;
  SimTime os_, or_;
  bool nic_;
  bool ordered_ = true;
  // By member: world rank, operation (the waiters lie on the members' stacks), FIFO records (saved_: on
  // entry, nic_ only), messages sent, node's NIC and send_seq on entry (nic_ only); this process's NICs.
  struct Arrays {
    std::vector<int32_t> world;
    std::vector<MPI_Op> ops;
    std::vector<SmallVec<Rank::RecentSend, 2>> recent, saved;
    std::vector<Sent> sent;
    std::vector<int32_t> nic_of;
    std::vector<uint64_t> seq0;
    std::vector<Nic> nics;
  };
  static Arrays& arrays() {
    static Arrays a;  // one replay at a time: the engine is single-threaded
    return a;
  }
  Arrays& a_ = arrays();
  std::vector<int32_t>& world_ = a_.world;
  std::vector<MPI_Op>& ops_ = a_.ops;
  std::vector<SmallVec<Rank::RecentSend, 2>>& recent_ = a_.recent;
  std::vector<SmallVec<Rank::RecentSend, 2>>& saved_ = a_.saved;
  std::vector<Sent>& sent_ = a_.sent;
  std::vector<int32_t>& nic_of_ = a_.nic_of;
  std::vector<uint64_t>& seq0_ = a_.seq0;
  std::vector<Nic>& nics_ = a_.nics;
};

bool eligible(Comm& c) {
  Engine& e = *g_engine;
  if (!e.options().coll_replay || e.observer() || c.is_inter || c.size < 2 || e.replay_nic_open(c.size) ||
      e.faults())  // a member may fail: the point-to-point path detects it
    return false;
  if (c.all_local < 0) {
    bool local = true;
    if (e.nprocs() > 1)
      for (int i = 0; i < c.size && local; ++i) local = e.owner_of(c.world_of(i)) == e.proc();
    c.all_local = local ? 1 : 0;
  }
  return c.all_local == 1;
}

// Computes every member's exit time (and data) once all have entered. False: the replay could not prove
// the message path's NIC order (EngineNet::finish); nothing changed but the members' receive buffers.
bool replay(std::vector<Waiter*>& ws) {
  Engine& e = *g_engine;
  const size_t n = ws.size();
  const Waiter& w0 = *ws[0];
  const bool reduces = w0.kind == Kind::Allreduce, user_op = reduces && !is_predefined_op(w0.op);
  // Small contiguous vectors are reduced in one dense array (the receive buffers lie on the members'
  // stacks, a page or more apart: every step would miss the TLB on each), copied back if the replay is used.
  const uint64_t size = reduces ? native::type_size(w0.type) * static_cast<uint64_t>(w0.count) : 0;
  const bool dense = reduces && native::type_is_contiguous(w0.type) &&
                     native::type_extent(w0.type).extent == static_cast<MPI_Aint>(native::type_size(w0.type)) &&
                     size * n <= (uint64_t{64} << 20);
  std::vector<char> data(dense ? size * n : 0);
  std::vector<char*> acc(reduces ? n : 0);
  std::vector<SimTime> t(n);
  for (size_t i = 0; i < n; ++i) {
    if (i + 8 < n) __builtin_prefetch(ws[i + 8]);
    t[i] = ws[i]->entry;
    if (!reduces) continue;
    acc[i] = dense ? data.data() + i * size : static_cast<char*>(ws[i]->rbuf);
    if (dense) std::memcpy(acc[i], ws[i]->rbuf, size);
  }
  EngineNet net(e, ws, reduces, user_op);
  if (reduces) coll::replay_allreduce(net, t, acc.data(), w0.count, w0.type, w0.commutative, w0.algo);
  else coll::replay_barrier(net, t);
  if (user_op) e.enter_globals(e.current());
  if (!net.finish()) return false;
  for (size_t i = 0; i < n; ++i) {
    if (i + 8 < n) __builtin_prefetch(ws[i + 8]);
    ws[i]->exit = t[i];
    if (dense) std::memcpy(ws[i]->rbuf, acc[i], size);
  }
  return true;
}

// Every member waiting (ws, or those in rv.waiting) restarts at its entry time on the point-to-point path.
void release_to_fallback(const std::vector<Waiter*>& ws, const Waiter* self) {
  for (Waiter* o : ws) {
    if (!o || o == self) continue;
    o->fallback = true;
    o->released = true;
    g_engine->wake(o->rank->world, o->entry);
  }
}

// Ends the hold of `rv` (if held).
void end_hold(CollRendezvous& rv) {
  if (rv.held) g_engine->replay_hold(false);
  rv.held = false;
  rv.hold = SimTime::infinity();
}

// The calling member's arrival: true when its part is done (clock at its exit time), false: fall back.
// With the NICs' ejection timed (loggp's endpoint contention), a member's node times its arrivals in arrival
// order, and the replay's messages (or, if it falls back, the point-to-point run's) only exist once the
// last member has entered: meanwhile no rank may time an arrival that one of them could precede, or the
// order would be lost. The first of them arrives no earlier than the earliest member's entry plus the send
// overhead and the minimum latency: the rendezvous is held until just before that (the waiting members wake then, and if
// the last member has not come, everyone takes the point-to-point path from its entry; every rank times
// arrivals in run-queue order, and polls do not look ahead meanwhile: Engine::replay_hold). So the replay
// runs when the members enter within one minimum latency of each other, as a balanced program's do.
bool arrive(Comm& c, const char* call, int tag, Waiter& w) {
  Engine& e = *g_engine;
  if (!c.rendezvous) c.rendezvous = std::make_shared<CollRendezvous>();
  CollRendezvous& rv = *c.rendezvous;
  const int me = my_rank_in(c);
  if (rv.arrived == 0) {
    rv.fallback = false;
    rv.first = w;
    rv.waiting.assign(static_cast<size_t>(c.size), nullptr);
  }
  const bool ok = !rv.fallback && !w.must_fall_back && w.rank->pending_progress == 0 && same_schedule(rv.first, w) &&
                  !e.replay_nic_busy(*w.rank);
  ++rv.arrived;
  if (!ok) {
    if (!rv.fallback) {  // everyone waiting restarts at its entry time on the point-to-point path
      rv.fallback = true;
      release_to_fallback(rv.waiting, &w);
      rv.waiting.clear();
      end_hold(rv);
    }
    if (rv.arrived == c.size) rv.arrived = 0;
    return false;
  }
  rv.waiting[static_cast<size_t>(me)] = &w;
  if (w.kind == Kind::Allreduce && e.replay_nic_timed() && e.replay_ejection_timed()) {
    if (!rv.held) e.replay_hold(true);
    rv.held = true;
    rv.hold = min(rv.hold, w.entry + e.send_overhead() + e.min_latency() - SimTime::from_ps(1));
  }
  if (rv.arrived < c.size) {
    e.wait_until([&] { return w.released || w.rank->clock >= rv.hold; }, [&] { return rv.hold; },
                 BlockInfo{call, -3, tag, c.handle});
    Rank& r = *w.rank;
    if (!w.released) {  // its hold ended before the last member came: everyone takes the point-to-point path
      rv.fallback = true;
      release_to_fallback(rv.waiting, nullptr);
      rv.waiting.clear();
      end_hold(rv);
    }
    if (w.fallback) {
      r.clock = w.entry;  // it did nothing others could see while it waited (see coll_replay.hpp)
      return false;
    }
    if (r.clock < w.exit) r.clock = w.exit;
    e.clock_moved();
    return true;
  }
  // The last member: replay, then resume everyone at its exit time.
  std::vector<Waiter*> ws = std::move(rv.waiting);
  rv.waiting.clear();
  rv.arrived = 0;
  end_hold(rv);
  if (!replay(ws)) {  // the last member too: its clock has not moved
    release_to_fallback(ws, &w);
    return false;
  }
  for (size_t i = 0; i < ws.size(); ++i) {
    prefetch_member(ws, i);
    Waiter* o = ws[i];
    if (o == &w) continue;
    o->released = true;
    e.wake(o->rank->world, o->exit);
  }
  Rank& r = *w.rank;
  if (r.clock < w.exit) r.clock = w.exit;
  e.clock_moved();
  return true;
}

}  // namespace

bool replay_barrier(Comm& c, const char* call) {
  if (!eligible(c)) return false;
  Waiter w;
  w.rank = &g_engine->current();
  w.entry = w.rank->clock;
  w.kind = Kind::Barrier;
  return arrive(c, call, kTagBarrier, w);
}

namespace {

// Whether `count` x `type` at `buf` touches privatized memory (globals, thread-locals: privatize.hpp).
bool in_private_image(const void* buf, int count, MPI_Datatype type) {
  const privatize::Privatizer* p = privatize::active();
  if (!p) return false;
  const native::Extent ext = native::type_extent(type), span = native::type_true_extent(type);
  const MPI_Aint bytes = (count - 1) * ext.extent + span.extent;
  return p->overlaps(static_cast<const char*>(buf) + span.lb, static_cast<size_t>(bytes > 0 ? bytes : 0));
}

}  // namespace

bool replay_allreduce(Comm& c, const char* call, const void* sbuf, void* rbuf, int count, MPI_Datatype type,
                      MPI_Op op) {
  if (!eligible(c) || count == 0) return false;
  // Under loggp, rendezvous and link contention, which the replay does not time, and NICs a non-member may
  // use meanwhile: every member takes the point-to-point path.
  Engine& e = *g_engine;
  if (!e.replay_times_exact(native::type_size(type) * static_cast<uint64_t>(count)) || e.replay_nic_shared(c.size))
    return false;
  Waiter w;
  w.rank = &g_engine->current();
  w.entry = w.rank->clock;
  w.kind = Kind::Allreduce;
  w.rbuf = rbuf;
  w.count = count;
  w.type = type;
  w.op = op;
  w.commutative = native::op_is_commutative(op);
  w.algo = coll::allreduce_algorithm(c.size, count, type, op);
  // An operation the datatype does not support must fail where the point-to-point run fails (on the rank
  // that first reduces, with its error handler): such a call takes the point-to-point path on every member.
  if (is_predefined_op(op) && !reduction_works(sbuf == MPI_IN_PLACE ? rbuf : sbuf, type, op)) w.must_fall_back = true;
  // With the NICs timed the replay may find that it cannot keep the message path's order (EngineNet) and
  // leave the members to the point-to-point path after it reduced: not with a user's operation (it would run
  // twice), nor when a member's threads could use its NIC meanwhile; and an in-place member's data is
  // reduced in a copy, so that the point-to-point path still finds its contribution.
  const bool may_undo = e.replay_nic_timed();
  if (may_undo && (!is_predefined_op(op) || w.rank->threaded)) w.must_fall_back = true;
  if (w.must_fall_back) return arrive(c, call, kTagAllreduce, w);
  // The last member to arrive reduces every member's buffer from its own fiber, where only its own image of
  // the globals is current: a receive buffer in privatized memory (NPB's global arrays, Fortran module and
  // COMMON variables) is replaced by a heap copy, filled here and copied back on this rank's fiber after the
  // replay. Cheaper than switching images for each access: the buffer is at most the image, and a switch
  // copies or maps the whole image twice.
  const void* in = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
  native::TypedBuffer scratch(count, type, in_private_image(rbuf, count, type) || (may_undo && sbuf == MPI_IN_PLACE));
  if (scratch.get()) w.rbuf = scratch.get();
  if (in != w.rbuf) native::copy(in, count, type, w.rbuf, count, type);
  if (!arrive(c, call, kTagAllreduce, w)) return false;
  if (scratch.get()) native::copy(scratch.get(), count, type, rbuf, count, type);
  return true;
}

}  // namespace xsim

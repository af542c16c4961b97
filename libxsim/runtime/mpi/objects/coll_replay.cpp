// Fast path of blocking collectives: the rendezvous of the local members and the engine side of the
// replay (see coll_replay.hpp; the algorithms' schedules are in coll/replay.cpp).
#include "coll_replay.hpp"

#include <algorithm>
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

// Arguments that decide the schedule must be equal on every member.
bool same_schedule(const Waiter& a, const Waiter& b) {
  if (a.kind != b.kind) return false;
  if (a.kind == Kind::Barrier) return true;
  return a.count == b.count && a.type == b.type && a.commutative == b.commutative && a.algo == b.algo;
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
  Waiter first;              // the first member's arguments
  std::vector<Waiter*> waiting;  // by communicator rank (null: not entered yet)
};

namespace {

// The engine's side of a replay: message timing (network latency, per-pair FIFO order) and statistics. What
// the schedule's messages read and write lives in arrays indexed by communicator rank, filled once from the
// members' records and written back once at the end: a replay over a million ranks sends 20 million
// messages, and a walk over the ranks' records (320 bytes each, and the waiters on the ranks' stacks) for
// every message cost a cache and TLB miss or two each once they no longer fit the caches.
class EngineNet final : public coll::ReplayNet {
 public:
  EngineNet(Engine& e, const std::vector<Waiter*>& ws, bool user_op)
      : e_(e), ws_(ws), user_op_(user_op), world_(ws.size()), recent_(ws.size()), sent_(ws.size()) {
    for (size_t i = 0; i < ws.size(); ++i) {
      world_[i] = ws[i]->rank->world;
      recent_[i] = std::move(ws[i]->rank->recent);  // back in commit(); nothing else sends meanwhile
    }
  }
  SimTime send(int i, int j, SimTime at, uint64_t bytes) override {
    const size_t a = static_cast<size_t>(i);
    const int32_t dst = world_[static_cast<size_t>(j)];
    const SimTime arrive =
        Engine::fifo_clamp(recent_[a], dst, at + e_.min_latency(), at + e_.message_latency(world_[a], dst, bytes));
    ++sent_[a].messages;
    sent_[a].bytes += bytes;
    return arrive;
  }
  SimTime send_overhead() const override { return e_.send_overhead(); }
  SimTime receive(int, SimTime matched) override { return matched + e_.recv_overhead(); }  // Engine::receive_done
  SimTime reduce(int i, const void* in, void* inout, int count, MPI_Datatype type) override {
    const Waiter& w = *ws_[static_cast<size_t>(i)];
    if (user_op_) e_.enter_globals(*w.rank);  // the user's function sees the globals of the rank it works for
    if (!e_.host_timing()) {
      native::reduce_local(in, inout, count, type, w.op);
      return SimTime::zero();
    }
    const int64_t t0 = host_clock_ns(CLOCK_MONOTONIC);  // the message path's charge (coll_reduce_runner)
    native::reduce_local(in, inout, count, type, w.op);
    return e_.host_compute(host_clock_ns(CLOCK_MONOTONIC) - t0);
  }
  // Gives the FIFO records back to the members' records and adds the statistics there.
  void commit() {
    for (size_t i = 0; i < ws_.size(); ++i) {
      Rank& r = *ws_[i]->rank;
      r.recent = std::move(recent_[i]);
      e_.count_replayed_sends(r, sent_[i].messages, sent_[i].bytes);
    }
  }

 private:
  struct Sent {
    uint64_t messages = 0, bytes = 0;
  };
  Engine& e_;
  const std::vector<Waiter*>& ws_;
  bool user_op_;
  std::vector<int32_t> world_;
  std::vector<SmallVec<Rank::RecentSend, 2>> recent_;
  std::vector<Sent> sent_;
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

// Computes every member's exit time (and data) once all have entered.
void replay(std::vector<Waiter*>& ws) {
  Engine& e = *g_engine;
  std::vector<SimTime> t(ws.size());
  for (size_t i = 0; i < ws.size(); ++i) t[i] = ws[i]->entry;
  const Waiter& w0 = *ws[0];
  if (w0.kind == Kind::Barrier) {
    EngineNet net(e, ws, false);
    coll::replay_barrier(net, t);
    net.commit();
  } else {
    const bool user_op = !is_predefined_op(w0.op);
    std::vector<char*> acc(ws.size());
    for (size_t i = 0; i < ws.size(); ++i) acc[i] = static_cast<char*>(ws[i]->rbuf);
    EngineNet net(e, ws, user_op);
    coll::replay_allreduce(net, t, acc.data(), w0.count, w0.type, w0.commutative, w0.algo);
    net.commit();
    if (user_op) e.enter_globals(e.current());
  }
  for (size_t i = 0; i < ws.size(); ++i) ws[i]->exit = t[i];
}

// The calling member's arrival: true when its part is done (clock at its exit time), false: fall back.
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
      for (Waiter* o : rv.waiting) {
        if (!o) continue;
        o->fallback = true;
        o->released = true;
        e.wake(o->rank->world, o->entry);
      }
      rv.waiting.clear();
    }
    if (rv.arrived == c.size) rv.arrived = 0;
    return false;
  }
  rv.waiting[static_cast<size_t>(me)] = &w;
  if (rv.arrived < c.size) {
    e.wait_until([&w] { return w.released; }, BlockInfo{call, -3, tag, c.handle});
    Rank& r = *w.rank;
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
  replay(ws);
  for (Waiter* o : ws) {
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
  // Under loggp with overheads, a NIC or rendezvous the message path times differently: every member takes it.
  if (!g_engine->replay_times_exact(native::type_size(type) * static_cast<uint64_t>(count))) return false;
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
  if (w.must_fall_back) return arrive(c, call, kTagAllreduce, w);
  // The last member to arrive reduces every member's buffer from its own fiber, where only its own image of
  // the globals is current: a receive buffer in privatized memory (NPB's global arrays, Fortran module and
  // COMMON variables) is replaced by a heap copy, filled here and copied back on this rank's fiber after the
  // replay. Cheaper than switching images for each access: the buffer is at most the image, and a switch
  // copies or maps the whole image twice.
  const void* in = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
  native::TypedBuffer scratch(count, type, in_private_image(rbuf, count, type));
  if (scratch.get()) w.rbuf = scratch.get();
  if (in != w.rbuf) native::copy(in, count, type, w.rbuf, count, type);
  if (!arrive(c, call, kTagAllreduce, w)) return false;
  if (scratch.get()) native::copy(scratch.get(), count, type, rbuf, count, type);
  return true;
}

}  // namespace xsim

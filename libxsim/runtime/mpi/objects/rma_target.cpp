// One-sided communication, the target's side (rma.cpp has the origin's and the model's description): the
// engine-applied hook that applies each RMA message at its destination, in arrival order, and answers it.
// Layer: libxsim/runtime/mpi/objects (xsim_mpi).
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "native/datatype.hpp"
#include "rma_internal.hpp"

namespace xsim::rma::detail {

namespace {

[[noreturn]] void target_failure(const Message* m, const std::string& what) {
  static const char* const names[] = {"?", "MPI_Put", "MPI_Get", "MPI_Accumulate", "MPI_Get_accumulate",
                                      "MPI_Compare_and_swap"};
  E().abort_simulation(1, std::string(names[m->tag <= kCas ? m->tag : 0]) + " from rank " + std::to_string(m->src) +
                              " to rank " + std::to_string(m->dst) + " at virtual time " +
                              std::to_string(m->t_arrive.seconds()) + " s: " + what);
}

// Address the runs are relative to, after checking they lie in the target's memory.
char* target_memory(const Message* m, const WinRank& t, const Hdr& h, const std::vector<Run>& runs) {
  if (t.flavor == MPI_WIN_FLAVOR_DYNAMIC) {
    for (const Run& r : runs) {
      uintptr_t a = static_cast<uintptr_t>(h.disp + r.offset), b = a + static_cast<uintptr_t>(r.length);
      bool inside = std::any_of(t.attached.begin(), t.attached.end(),
                                [&](const auto& reg) { return a >= reg.first && b <= reg.second; });
      if (!inside) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "target bytes [0x%lx, 0x%lx) are not in any memory attached to the dynamic window",
                      static_cast<unsigned long>(a), static_cast<unsigned long>(b));
        target_failure(m, buf);
      }
    }
    return reinterpret_cast<char*>(static_cast<uintptr_t>(h.disp));  // an absolute address
  }
  for (const Run& r : runs)
    if (h.disp + r.offset < 0 || h.disp + r.offset + r.length > t.size)
      target_failure(m, "target bytes outside the window");
  return t.base + h.disp;
}

// target = origin op target, element by element (MPI_REPLACE: origin; MPI_NO_OP: unchanged).
void accumulate(char* base, const std::vector<Run>& runs, const char* in, uint64_t n, MPI_Datatype basic, MPI_Op op) {
  if (op == MPI_NO_OP || n == 0) return;
  if (op == MPI_REPLACE) {
    native::scatter_runs(in, runs, base);
    return;
  }
  std::vector<char> cur(n);
  native::gather_runs(base, runs, cur.data());
  const uint64_t es = native::type_size(basic);
  const int count = static_cast<int>(n / es);
  if (native::type_is_contiguous(basic)) {
    native::reduce_local(in, cur.data(), count, basic, op);
  } else {  // padded element types (MPI_DOUBLE_INT...): reduce in their memory layout
    void *raw_a, *raw_b;
    void* a = native::alloc_typed_buffer(count, basic, &raw_a);
    void* b = native::alloc_typed_buffer(count, basic, &raw_b);
    native::unpack(in, n, a, count, basic);
    native::unpack(cur.data(), n, b, count, basic);
    native::reduce_local(a, b, count, basic, op);
    native::pack(b, count, basic, cur.data());
    native::free_typed_buffer(raw_a);
    native::free_typed_buffer(raw_b);
  }
  native::scatter_runs(cur.data(), runs, base);
}

// Sends `op` back from the message's destination to its source, leaving at its arrival time.
void answer(const Message* m, const Hdr& h, Op op, const char* data, uint64_t n) {
  char* at = nullptr;
  Message* r = make(op, m->ctx, h, nullptr, n, &at);
  if (n) std::memcpy(at, data, n);
  E().send_applied_from(r, m->dst, m->src, m->t_arrive, n);
}

void grant(const Message* m, WinRank& t, const LockWait& lw, SimTime now) {
  if (lw.type == MPI_LOCK_EXCLUSIVE)
    t.exclusive_held = true;
  else
    ++t.shared_holders;
  Hdr h;
  h.origin = lw.origin;
  h.target = t.rank;
  h.lock_type = lw.type;
  Message* g = make(kGrant, m->ctx, h, nullptr, 0, nullptr);
  E().send_applied_from(g, t.world, lw.origin_world, now, 0);
}

bool grantable(const WinRank& t, int type) {
  return type == MPI_LOCK_EXCLUSIVE ? !t.exclusive_held && t.shared_holders == 0 : !t.exclusive_held;
}

// The data operations: put, get, accumulate, get-accumulate, compare-and-swap; each answered at once.
void apply_data(Message* m, WinRank& me, const Hdr& h, const std::vector<Run>& runs, const char* data) {
  switch (m->tag) {
    case kPut:
      native::scatter_runs(data, runs, target_memory(m, me, h, runs));
      answer(m, h, kAck, nullptr, 0);
      break;
    case kGet: {
      std::vector<char> out(static_cast<size_t>(native::runs_bytes(runs)));
      native::gather_runs(target_memory(m, me, h, runs), runs, out.data());
      answer(m, h, kReply, out.data(), out.size());
      break;
    }
    case kAcc:
      accumulate(target_memory(m, me, h, runs), runs, data, h.data, native::type_from_wire(h.basic),
                 native::op_from_wire(h.mop));
      answer(m, h, kAck, nullptr, 0);
      break;
    case kGetAcc: {
      char* base = target_memory(m, me, h, runs);
      std::vector<char> old(static_cast<size_t>(native::runs_bytes(runs)));
      native::gather_runs(base, runs, old.data());
      accumulate(base, runs, data, h.data, native::type_from_wire(h.basic), native::op_from_wire(h.mop));
      answer(m, h, kReply, old.data(), old.size());
      break;
    }
    default: {  // kCas
      char* base = target_memory(m, me, h, runs);
      const size_t n = static_cast<size_t>(native::runs_bytes(runs));
      std::vector<char> old(n);
      native::gather_runs(base, runs, old.data());
      if (std::memcmp(old.data(), data + n, n) == 0) native::scatter_runs(data, runs, base);
      answer(m, h, kReply, old.data(), n);
      break;
    }
  }
}

// A reply at the origin: its data goes where the get-like operation asked, its request (if any) completes.
void apply_reply(WinRank& me, const Hdr& h, const char* data, SimTime now) {
  Pending& p = g_pending[h.token & 0xffffffffu];
  if (p.live && p.gen == static_cast<uint32_t>(h.token >> 32)) {
    native::scatter_runs(data, p.runs, p.addr);
    if (p.request >= 0 && E().valid_request(p.request) && E().request(p.request).gen == p.request_gen) {
      Request& q = E().request(p.request);
      q.complete = true;
      q.completion = now;
      if (q.user_freed) E().release_request(p.request);
    }
    p.live = false;
    p.runs = {};
    ++p.gen;
    g_pending_free.push_back(static_cast<uint32_t>(h.token & 0xffffffffu));
  }
  add(me.pending, h.target, -1);
  add(me.pending_get, h.target, -1);
  --me.pending_total;
  --me.pending_get_total;
  E().wake(me.world, now);
}

// Passive target synchronisation: a lock request queues at the target in arrival order, a grant reaches the
// origin, an unlock grants the queued requests that have become compatible.
void apply_lock(Message* m, WinRank& me, const Hdr& h, SimTime now) {
  switch (m->tag) {
    case kLock: {
      LockWait lw{m->src, h.origin, h.lock_type};
      if (me.lock_queue.empty() && grantable(me, lw.type))
        grant(m, me, lw, now);
      else
        me.lock_queue.push_back(lw);
      break;
    }
    case kGrant:
      if (auto it = me.locks.find(h.target); it != me.locks.end())
        it->second.granted = true;
      else if (me.lock_all)
        ++me.lock_all_granted;
      E().wake(me.world, now);
      break;
    default:  // kUnlock
      if (h.lock_type == MPI_LOCK_EXCLUSIVE)
        me.exclusive_held = false;
      else if (me.shared_holders > 0)
        --me.shared_holders;
      while (!me.lock_queue.empty() && grantable(me, me.lock_queue.front().type)) {
        LockWait lw = me.lock_queue.front();
        me.lock_queue.pop_front();
        grant(m, me, lw, now);
      }
      break;
  }
}

}  // namespace

void hook(Message* m) {
  Hdr h;
  std::memcpy(&h, m->payload(), sizeof h);
  std::vector<Run> runs(h.nruns);
  if (h.nruns) std::memcpy(runs.data(), m->payload() + sizeof h, h.nruns * sizeof(Run));
  const char* data = m->payload() + sizeof h + h.nruns * sizeof(Run);
  const SimTime now = m->t_arrive;
  WinRank* me = nullptr;
  if (auto wi = g_by_id.find(m->ctx); wi != g_by_id.end())
    if (auto it = wi->second->local.find(m->dst); it != wi->second->local.end()) me = &it->second;
  if (!me) {  // the window is gone here (a late unlock or post after MPI_Win_free): nothing to do
    Message::destroy(m);
    return;
  }
  try {
    switch (m->tag) {
      case kPut:
      case kGet:
      case kAcc:
      case kGetAcc:
      case kCas:
        apply_data(m, *me, h, runs, data);
        break;
      case kAck:
        add(me->pending, h.target, -1);
        --me->pending_total;
        E().wake(me->world, now);
        break;
      case kReply:
        apply_reply(*me, h, data, now);
        break;
      case kLock:
      case kGrant:
      case kUnlock:
        apply_lock(m, *me, h, now);
        break;
      case kPost:  // from target h.target to this origin
        ++me->posts[h.target];
        E().wake(me->world, now);
        break;
      case kComplete:  // from origin h.origin to this target
        ++me->completes[h.origin];
        E().wake(me->world, now);
        break;
      default:
        break;
    }
  } catch (const native::MpiError& err) {
    target_failure(m, err.what());
  }
  Message::destroy(m);
}

}  // namespace xsim::rma::detail

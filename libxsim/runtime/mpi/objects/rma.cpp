// One-sided communication inside the simulation (rma.hpp; the model is docs/rma.md).
// Every operation is one engine-applied message from the origin to the target carrying the target layout
// as (offset, length) runs (native/flatten.hpp) and the packed origin data. The target's native process
// applies it at its arrival time, in arrival order (t_arrive, source, send order), and answers with an
// acknowledgement (put, accumulate) or a reply carrying data (get, get-accumulate, fetch-and-op,
// compare-and-swap), both leaving at the arrival time. The origin counts what it has not heard back about;
// fence, flush, unlock and free wait for those counts to reach zero. Lock requests queue at the target in
// arrival order; MPI_Win_post and MPI_Win_complete are small messages; fence adds a barrier.
// Layer: libxsim/runtime/mpi/objects (xsim_mpi).
#include "rma.hpp"
#include "rma_internal.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "api_support.hpp"
#include "coll/collectives.hpp"
#include "native/datatype.hpp"
#include "native/flatten.hpp"
#include "handles.hpp"
#include "sim_transport.hpp"

namespace xsim::rma {

namespace detail {

using handles::Kind;

std::vector<Window*> g_wins;
std::vector<uint32_t> g_free_wins;
std::unordered_map<uint64_t, Window*> g_by_id;

std::vector<Pending> g_pending;
std::vector<uint32_t> g_pending_free;


std::string win_name(const Window& w) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "window 0x%08llx", handles::shown(Kind::Win, w.handle));
  return buf;
}

Message* make(Op op, uint64_t win, const Hdr& h, const std::vector<Run>* runs, uint64_t data, char** data_at) {
  const uint64_t nr = runs ? runs->size() : 0;
  Message* m = Message::create(sizeof(Hdr) + nr * sizeof(Run) + data);
  m->ctx = win;
  m->tag = op;
  m->src_in_comm = kFamilyRma;
  Hdr hh = h;
  hh.nruns = nr;
  hh.data = data;
  char* p = m->payload();
  std::memcpy(p, &hh, sizeof hh);
  if (nr) std::memcpy(p + sizeof hh, runs->data(), nr * sizeof(Run));
  if (data_at) *data_at = p + sizeof hh + nr * sizeof(Run);
  return m;
}


void check_rank(const Window& w, int rank) {
  if (rank < 0 || rank >= w.comm->size)
    fail(MPI_ERR_RANK, "invalid target rank " + std::to_string(rank) + " (" + win_name(w) + " has " +
                           std::to_string(w.comm->size) + " ranks)");
}

bool predefined_op(MPI_Op op) {
  for (MPI_Op p : {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND, MPI_BAND, MPI_LOR, MPI_BOR, MPI_LXOR, MPI_BXOR,
                   MPI_MINLOC, MPI_MAXLOC, MPI_REPLACE, MPI_NO_OP})
    if (op == p) return true;
  return false;
}

void add(std::unordered_map<int32_t, int64_t>& m, int32_t k, int64_t d) {
  int64_t& v = m[k];
  v += d;
  if (v == 0) m.erase(k);
}
int64_t get(const std::unordered_map<int32_t, int64_t>& m, int32_t k) {
  auto it = m.find(k);
  return it == m.end() ? 0 : it->second;
}

}  // namespace detail

using namespace detail;
using native::Run;

namespace {

using handles::Kind;

// ---- at the origin -------------------------------------------------------------------------------------

void send_small(Window& w, WinRank& me, Op op, int target, int lock_type) {
  Hdr h;
  h.origin = op == kPost ? target : me.rank;
  h.target = op == kPost ? me.rank : target;
  h.lock_type = lock_type;
  E().send_applied(make(op, w.id, h, nullptr, 0, nullptr), world_of(w, target), 0);
}

BlockInfo why(const Window& w, const char* call, int peer = -3) { return BlockInfo{call, peer, kAnyTag, w.comm->handle}; }

bool may_access(const WinRank& me, int target) {
  return me.fence_epoch || me.lock_all || me.locks.count(target) ||
         (me.access_epoch && std::find(me.access_group.begin(), me.access_group.end(), target) != me.access_group.end());
}

uint32_t new_pending() {
  if (!g_pending_free.empty()) {
    uint32_t i = g_pending_free.back();
    g_pending_free.pop_back();
    return i;
  }
  g_pending.emplace_back();
  return static_cast<uint32_t>(g_pending.size() - 1);
}

void barrier(Window& w, const char* call) {
  SimTransport t(*w.comm, call);
  coll::barrier(t);
}

void* alloc_zeroed(size_t bytes) {
  void* p = nullptr;
  if (posix_memalign(&p, 64, std::max<size_t>(bytes, 1)) != 0) return nullptr;
  std::memset(p, 0, std::max<size_t>(bytes, 1));
  return p;
}

}  // namespace

void install_hook() { E().set_applied_hook(kFamilyRma, &hook); }

Window* lookup(MPI_Win h) {
  uint32_t i = 0;
  if (!handles::decode(Kind::Win, h, &i) || i >= g_wins.size() || !g_wins[i]) return nullptr;
  Window* w = g_wins[i];
  return w->local.count(E().current().world) ? w : nullptr;
}

Window& check(MPI_Win h) {
  if (h == MPI_WIN_NULL) fail(MPI_ERR_WIN, "the window is MPI_WIN_NULL");
  Window* w = lookup(h);
  if (!w) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "invalid window handle 0x%08llx", handles::shown(Kind::Win, h));
    fail(MPI_ERR_WIN, buf);
  }
  return *w;
}

WinRank& mine(Window& w) { return w.local.at(E().current().world); }

namespace {

// A shared window's members must be on one simulated node, and in one native process.
void check_shared_members(Engine& e, const std::vector<int32_t>& members) {
  for (int32_t m : members) {
    if (e.node_of(m) != e.node_of(members[0]))
      fail(MPI_ERR_RMA_SHARED, "the ranks of the communicator are on different simulated nodes (ranks " +
                                   std::to_string(members[0]) + " and " + std::to_string(m) +
                                   "): only ranks of one node can share memory (use MPI_Comm_split_type with "
                                   "MPI_COMM_TYPE_SHARED)");
    if (e.owner_of(m) != e.owner_of(members[0]))
      fail(MPI_ERR_RMA_SHARED, "the ranks of this node live in different native processes (ranks " +
                                   std::to_string(members[0]) + " and " + std::to_string(m) +
                                   "): xsim shares memory only inside one process; the default block placement "
                                   "keeps every node in one process");
  }
}

// The window of creation `id`: the one object its local members share, made (with a handle) by the first.
Window& window_of_id(uint64_t id, int flavor) {
  Window*& slot = g_by_id[id];
  if (!slot) {
    slot = new Window();
    slot->id = id;
    slot->flavor = flavor;
    uint32_t idx;
    if (!g_free_wins.empty()) {
      idx = g_free_wins.back();
      g_free_wins.pop_back();
      g_wins[idx] = slot;
    } else {
      idx = static_cast<uint32_t>(g_wins.size());
      g_wins.push_back(slot);
    }
    slot->handle = handles::make<MPI_Win>(Kind::Win, idx);
  }
  return *slot;
}

// The calling rank's part of the window: its memory as the flavor says.
WinRank& join_window(Window& w, int flavor, void* base, MPI_Aint size, int disp_unit) {
  const int32_t world = E().current().world;
  WinRank& me = w.local[world];
  me.world = world;
  me.rank = w.comm->rank_of_world(world);
  me.flavor = flavor;
  me.disp_unit = disp_unit;
  me.size = size;
  if (flavor == MPI_WIN_FLAVOR_ALLOCATE) {
    me.base = static_cast<char*>(alloc_zeroed(static_cast<size_t>(size)));
    if (!me.base) fail(MPI_ERR_NO_MEM, "cannot allocate " + std::to_string(size) + " bytes of window memory");
    me.owns_base = true;
  } else if (flavor == MPI_WIN_FLAVOR_CREATE) {
    me.base = static_cast<char*>(base);
  } else if (flavor == MPI_WIN_FLAVOR_DYNAMIC) {
    me.base = nullptr;
    me.size = 0;
    me.disp_unit = 1;
  }
  return me;
}

// A shared window's node segment, allocated by the first local member past the creation exchange; every
// member's memory is its slice.
char* shared_slice(Window& w, int members, int rank) {
  if (!w.segment) {
    w.seg_offset.resize(static_cast<size_t>(members));
    int64_t total = 0;
    for (int i = 0; i < members; ++i) {
      w.seg_offset[static_cast<size_t>(i)] = total;
      total += w.sizes[static_cast<size_t>(i)];
    }
    w.segment = static_cast<char*>(alloc_zeroed(static_cast<size_t>(total)));
    if (!w.segment) fail(MPI_ERR_NO_MEM, "cannot allocate " + std::to_string(total) + " bytes of shared window memory");
  }
  return w.segment + w.seg_offset[static_cast<size_t>(rank)];
}

}  // namespace

MPI_Win create(Comm& c, int flavor, void** base, MPI_Aint size, int disp_unit, const char* call) {
  install_hook();
  Engine& e = E();
  if (c.is_inter) fail(MPI_ERR_COMM, std::string(call) + " on an intercommunicator");
  if (size < 0) fail(MPI_ERR_SIZE, "negative window size " + std::to_string(size));
  if (disp_unit <= 0) fail(MPI_ERR_DISP, "displacement unit " + std::to_string(disp_unit) + " (must be positive)");
  std::vector<int32_t> members(static_cast<size_t>(c.size));
  for (int i = 0; i < c.size; ++i) members[static_cast<size_t>(i)] = c.world_of(i);
  if (flavor == MPI_WIN_FLAVOR_SHARED) check_shared_members(e, members);
  const uint64_t id = comm_next_id(c, 0x3a1);
  Window& w = window_of_id(id, flavor);
  w.comm = comm_join(id, members);  // the same object for every local member
  ++w.refs;
  WinRank& me = join_window(w, flavor, flavor == MPI_WIN_FLAVOR_CREATE ? *base : nullptr, size, disp_unit);
  // MPICH's creation exchange: every member learns every member's size and displacement unit.
  int64_t mine_info[2] = {me.size, me.disp_unit};
  std::vector<int64_t> all(static_cast<size_t>(c.size) * 2);
  {
    SimTransport t(*w.comm, call);
    coll::allgather(t, mine_info, 2, MPI_INT64_T, all.data(), 2, MPI_INT64_T);
  }
  if (w.sizes.empty()) {
    w.sizes.resize(static_cast<size_t>(c.size));
    w.disp_units.resize(static_cast<size_t>(c.size));
    for (int i = 0; i < c.size; ++i) {
      w.sizes[static_cast<size_t>(i)] = all[static_cast<size_t>(i) * 2];
      w.disp_units[static_cast<size_t>(i)] = static_cast<int32_t>(all[static_cast<size_t>(i) * 2 + 1]);
    }
  }
  if (flavor == MPI_WIN_FLAVOR_SHARED) me.base = shared_slice(w, c.size, me.rank);
  if (flavor == MPI_WIN_FLAVOR_ALLOCATE || flavor == MPI_WIN_FLAVOR_SHARED) *base = me.base;
  return w.handle;
}

void free_window(Window& w, const char* call) {
  WinRank& me = mine(w);
  if (!me.locks.empty() || me.lock_all || me.access_epoch || me.exposure_epoch)
    fail(MPI_ERR_RMA_SYNC, std::string(call) + " while an access or exposure epoch is open on " + win_name(w));
  E().wait_until([&] { return me.pending_total == 0; }, why(w, call));
  barrier(w, call);
  if (me.owns_base) std::free(me.base);
  w.local.erase(me.world);  // `me` is gone
  comm_release(w.comm);
  if (--w.refs > 0) return;
  std::free(w.segment);
  g_by_id.erase(w.id);
  uint32_t idx = 0;
  handles::decode(Kind::Win, w.handle, &idx);
  g_wins[idx] = nullptr;
  g_free_wins.push_back(idx);
  delete &w;
}

// ---- synchronization -----------------------------------------------------------------------------------

void fence(Window& w, int assert_flags) {
  WinRank& me = mine(w);
  if (!me.locks.empty() || me.lock_all || me.access_epoch || me.exposure_epoch)
    fail(MPI_ERR_RMA_SYNC, "MPI_Win_fence during a passive-target or post/start epoch on " + win_name(w));
  E().wait_until([&] { return me.pending_total == 0; }, why(w, "MPI_Win_fence"));
  barrier(w, "MPI_Win_fence");
  me.fence_epoch = !(assert_flags & MPI_MODE_NOSUCCEED);
}

void lock(Window& w, int type, int rank, int assert_flags) {
  if (type != MPI_LOCK_SHARED && type != MPI_LOCK_EXCLUSIVE)
    fail(MPI_ERR_LOCKTYPE, "lock type " + std::to_string(type) + " (must be MPI_LOCK_SHARED or MPI_LOCK_EXCLUSIVE)");
  if (rank == MPI_PROC_NULL) return;
  check_rank(w, rank);
  WinRank& me = mine(w);
  if (me.lock_all || me.locks.count(rank))
    fail(MPI_ERR_RMA_SYNC, "rank " + std::to_string(rank) + " of " + win_name(w) + " is already locked by this rank");
  LockHeld& l = me.locks[rank];
  l.type = type;
  l.nocheck = (assert_flags & MPI_MODE_NOCHECK) != 0;
  if (l.nocheck) {
    l.granted = true;
    return;
  }
  send_small(w, me, kLock, rank, type);
  E().wait_until([&] { return l.granted; }, why(w, "MPI_Win_lock", rank));
}

void unlock(Window& w, int rank) {
  if (rank == MPI_PROC_NULL) return;
  check_rank(w, rank);
  WinRank& me = mine(w);
  auto it = me.locks.find(rank);
  if (it == me.locks.end())
    fail(MPI_ERR_RMA_SYNC, "rank " + std::to_string(rank) + " of " + win_name(w) + " is not locked by this rank");
  E().wait_until([&] { return get(me.pending, rank) == 0; }, why(w, "MPI_Win_unlock", rank));
  if (!it->second.nocheck) send_small(w, me, kUnlock, rank, it->second.type);
  me.locks.erase(it);
}

void lock_all(Window& w, int assert_flags) {
  WinRank& me = mine(w);
  if (me.lock_all || !me.locks.empty())
    fail(MPI_ERR_RMA_SYNC, "MPI_Win_lock_all while this rank already holds locks on " + win_name(w));
  me.lock_all = true;
  me.lock_all_nocheck = (assert_flags & MPI_MODE_NOCHECK) != 0;
  me.lock_all_granted = 0;
  if (me.lock_all_nocheck) return;
  const int n = w.comm->size;
  for (int t = 0; t < n; ++t) send_small(w, me, kLock, t, MPI_LOCK_SHARED);
  E().wait_until([&] { return me.lock_all_granted == n; }, why(w, "MPI_Win_lock_all"));
}

void unlock_all(Window& w) {
  WinRank& me = mine(w);
  if (!me.lock_all) fail(MPI_ERR_RMA_SYNC, "MPI_Win_unlock_all without MPI_Win_lock_all on " + win_name(w));
  E().wait_until([&] { return me.pending_total == 0; }, why(w, "MPI_Win_unlock_all"));
  if (!me.lock_all_nocheck)
    for (int t = 0; t < w.comm->size; ++t) send_small(w, me, kUnlock, t, MPI_LOCK_SHARED);
  me.lock_all = false;
  me.lock_all_granted = 0;
}

void flush(Window& w, int rank, bool local, const char* call) {
  WinRank& me = mine(w);
  if (rank == MPI_PROC_NULL) return;
  const bool all = rank == kAllTargets;
  if (!all) {
    check_rank(w, rank);
    if (!me.lock_all && !me.locks.count(rank))
      fail(MPI_ERR_RMA_SYNC, std::string(call) + " outside a passive-target epoch on rank " + std::to_string(rank));
  } else if (!me.lock_all && me.locks.empty()) {
    fail(MPI_ERR_RMA_SYNC, std::string(call) + " outside a passive-target epoch");
  }
  E().wait_until(
      [&] {
        if (!all) return get(local ? me.pending_get : me.pending, rank) == 0;
        return (local ? me.pending_get_total : me.pending_total) == 0;
      },
      why(w, call, all ? -3 : rank));
}

void post(Window& w, const std::vector<int32_t>& group, int assert_flags) {
  WinRank& me = mine(w);
  if (me.exposure_epoch) fail(MPI_ERR_RMA_SYNC, "MPI_Win_post while an exposure epoch is open on " + win_name(w));
  me.exposure_epoch = true;
  me.exposure_group = group;
  if (assert_flags & MPI_MODE_NOCHECK) return;
  for (int32_t o : group) send_small(w, me, kPost, o, 0);
}

void start(Window& w, const std::vector<int32_t>& group, int assert_flags) {
  WinRank& me = mine(w);
  if (me.access_epoch) fail(MPI_ERR_RMA_SYNC, "MPI_Win_start while an access epoch is open on " + win_name(w));
  me.access_epoch = true;
  me.access_group = group;
  if (assert_flags & MPI_MODE_NOCHECK) return;
  E().wait_until(
      [&] {
        for (int32_t t : group)
          if (me.posts[t] <= 0) return false;
        return true;
      },
      why(w, "MPI_Win_start", group.size() == 1 ? group[0] : -3));
  for (int32_t t : group)
    if (--me.posts[t] == 0) me.posts.erase(t);
}

void complete(Window& w) {
  WinRank& me = mine(w);
  if (!me.access_epoch) fail(MPI_ERR_RMA_SYNC, "MPI_Win_complete without MPI_Win_start on " + win_name(w));
  E().wait_until(
      [&] {
        for (int32_t t : me.access_group)
          if (get(me.pending_get, t) != 0) return false;
        return true;
      },
      why(w, "MPI_Win_complete"));
  // Each completion message follows the operations to its target (per-pair order): the target has applied
  // them all when it sees it.
  for (int32_t t : me.access_group) send_small(w, me, kComplete, t, 0);
  me.access_epoch = false;
  me.access_group.clear();
}

namespace {
bool all_completed(WinRank& me) {
  for (int32_t o : me.exposure_group)
    if (me.completes[o] <= 0) return false;
  return true;
}
void close_exposure(WinRank& me) {
  for (int32_t o : me.exposure_group)
    if (--me.completes[o] == 0) me.completes.erase(o);
  me.exposure_epoch = false;
  me.exposure_group.clear();
}
}  // namespace

void wait(Window& w) {
  WinRank& me = mine(w);
  if (!me.exposure_epoch) fail(MPI_ERR_RMA_SYNC, "MPI_Win_wait without MPI_Win_post on " + win_name(w));
  E().wait_until([&] { return all_completed(me); }, why(w, "MPI_Win_wait"));
  close_exposure(me);
}

bool test(Window& w) {
  WinRank& me = mine(w);
  if (!me.exposure_epoch) fail(MPI_ERR_RMA_SYNC, "MPI_Win_test without MPI_Win_post on " + win_name(w));
  E().refresh_arrivals();
  E().charge_poll();
  if (!all_completed(me)) return false;
  close_exposure(me);
  return true;
}

void sync(Window&) { E().refresh_arrivals(); }

std::vector<int32_t> ranks_of_group(Window& w, MPI_Group group) {
  Group* g = group_lookup(group);
  if (!g) fail(MPI_ERR_GROUP, "invalid group handle");
  std::vector<int32_t> out(static_cast<size_t>(g->size));
  for (int i = 0; i < g->size; ++i) {
    int32_t r = w.comm->rank_of_world(g->world_of(i));
    if (r < 0)
      fail(MPI_ERR_RANK, "group member " + std::to_string(i) + " (world rank " + std::to_string(g->world_of(i)) +
                             ") is not in the group of " + win_name(w));
    out[static_cast<size_t>(i)] = r;
  }
  return out;
}

// ---- operations ----------------------------------------------------------------------------------------

int operate(Window& w, Op op, Buf origin, Buf result, const void* compare, int target, MPI_Aint disp, Buf tgt,
            MPI_Op mop, bool request, const char* call) {
  Engine& e = E();
  WinRank& me = mine(w);
  const bool fetches = op == kGet || op == kGetAcc || op == kCas;
  const bool sends_data = op == kPut || op == kAcc || op == kCas || (op == kGetAcc && mop != MPI_NO_OP);
  for (const Buf* b : {&origin, &result, &tgt}) {
    if (b->type == MPI_DATATYPE_NULL && b->count == 0) continue;
    check_count(b->count);
  }
  if (sends_data) check_type(origin.type);
  if (fetches) check_type(result.type);
  check_type(tgt.type);
  if (target != MPI_PROC_NULL) check_rank(w, target);
  if (op == kAcc || op == kGetAcc || op == kCas) {
    if (op != kCas) {
      if (mop == MPI_OP_NULL || !predefined_op(mop))
        fail(MPI_ERR_OP, "one-sided accumulate operations take a predefined operation or MPI_REPLACE/MPI_NO_OP");
    }
  }
  auto finish_now = [&] { return request ? e.new_send_request(true) : -1; };
  if (target == MPI_PROC_NULL) return finish_now();
  if (!may_access(me, target))
    fail(MPI_ERR_RMA_SYNC, std::string(call) + " to rank " + std::to_string(target) +
                               " outside an access epoch (no fence, lock or start covers it) on " + win_name(w));
  const int64_t tbytes = static_cast<int64_t>(native::type_size(tgt.type)) * tgt.count;
  const int64_t obytes = sends_data ? static_cast<int64_t>(native::type_size(origin.type)) * origin.count : 0;
  const int64_t rbytes = fetches ? static_cast<int64_t>(native::type_size(result.type)) * result.count : 0;
  if (sends_data && op != kCas && obytes != tbytes)
    fail(MPI_ERR_ARG, "the origin data (" + std::to_string(obytes) + " bytes) and the target layout (" +
                          std::to_string(tbytes) + " bytes) differ in size");
  if (fetches && rbytes != tbytes)
    fail(MPI_ERR_ARG, "the result buffer (" + std::to_string(rbytes) + " bytes) and the target layout (" +
                          std::to_string(tbytes) + " bytes) differ in size");
  Hdr h;
  h.origin = me.rank;
  h.target = target;
  h.mop = native::op_to_wire(mop);
  if (op == kAcc || op == kGetAcc || op == kCas) {
    const MPI_Datatype basic = native::basic_type(tgt.type);
    if (basic == MPI_DATATYPE_NULL)
      fail(MPI_ERR_TYPE, std::string(call) + ": the target datatype must consist of one predefined type");
    h.basic = native::type_to_wire(basic);
    if (sends_data && native::basic_type(origin.type) != basic)
      fail(MPI_ERR_TYPE, std::string(call) + ": the origin and target datatypes consist of different predefined types");
    if (op == kCas && tgt.count != 1) fail(MPI_ERR_COUNT, "MPI_Compare_and_swap works on one element");
  }
  if (tbytes == 0) return finish_now();
  std::vector<Run> runs = native::flatten(tgt.type, tgt.count);
  if (me.flavor == MPI_WIN_FLAVOR_DYNAMIC) {
    h.disp = static_cast<int64_t>(disp);
  } else {
    h.disp = static_cast<int64_t>(disp) * w.disp_units[static_cast<size_t>(target)];
    const int64_t size = w.sizes[static_cast<size_t>(target)];
    for (const Run& r : runs)
      if (h.disp + r.offset < 0 || h.disp + r.offset + r.length > size)
        fail(MPI_ERR_RMA_RANGE, std::string(call) + ": target bytes [" + std::to_string(h.disp + r.offset) + ", " +
                                    std::to_string(h.disp + r.offset + r.length) + ") outside the " +
                                    std::to_string(size) + " bytes rank " + std::to_string(target) + " exposes");
  }
  int req = -1;
  if (fetches) {
    uint32_t idx = new_pending();
    Pending& p = g_pending[idx];
    p.live = true;
    p.addr = static_cast<char*>(const_cast<void*>(result.addr));
    p.runs = native::flatten(result.type, result.count);
    if (request) {
      req = e.new_send_request(false);
      p.request = req;
      p.request_gen = e.request(req).gen;
    } else {
      p.request = -1;
    }
    h.token = (static_cast<uint64_t>(p.gen) << 32) | idx;
  } else if (request) {
    req = e.new_send_request(true);  // local completion: the data is copied now
  }
  const uint64_t data = op == kCas ? static_cast<uint64_t>(2 * tbytes) : static_cast<uint64_t>(obytes);
  char* at = nullptr;
  Message* m = make(op, w.id, h, &runs, data, &at);
  if (op == kCas) {
    native::pack(origin.addr, 1, origin.type, at);
    native::pack(compare, 1, origin.type, at + tbytes);
  } else if (data) {
    native::pack(origin.addr, origin.count, origin.type, at);
  }
  add(me.pending, target, 1);
  ++me.pending_total;
  if (fetches) {
    add(me.pending_get, target, 1);
    ++me.pending_get_total;
  }
  e.send_applied(m, world_of(w, target), data);
  return req;
}

}  // namespace xsim::rma

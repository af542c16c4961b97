// Nonblocking collectives (docs/architecture.md §2 "Collectives"). A collective started by MPI_I<coll> runs the same
// point-to-point algorithm as its blocking form, on a small fiber of its own that belongs to the calling
// rank. Its waits never block: when a step needs messages that have not arrived yet, the fiber suspends
// and the rank goes on with its work. The rank's completion calls (MPI_Wait*, MPI_Test*, MPI_Probe,
// MPI_Iprobe, and every blocking receive) resume it once those messages are there, through the engine's
// progress hook — the progress model of MPICH without an asynchronous progress thread: a step happens at
// the virtual time of the MPI call that makes it, so overlap is as good as the application's calls allow.
// Each nonblocking collective gets its own message context, derived from the communicator and the rank's
// count of nonblocking collectives started on it (equal on every member, since all members start them in
// the same order), so concurrent collectives never match each other's messages nor the blocking ones'.
// Layer: libxsim/runtime/mpi/objects (xsim_mpi). Everything runs on the owning rank's fiber or the collective's own.
#include <boost/context/fiber.hpp>
#include <boost/context/stack_context.hpp>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <unordered_map>
#include <vector>

#include "api_support.hpp"
#include "fiber_switch.hpp"
#include "coll/collectives.hpp"
#include "native/datatype.hpp"

namespace ctx = boost::context;

namespace xsim {

namespace {

// Stacks of the collectives' fibers, recycled: a program that starts millions of nonblocking collectives
// allocates only as many stacks as it has in flight at once. Pages are committed as they are touched.
class NbcStacks {
 public:
  static constexpr size_t kSize = 256 * 1024;
  ~NbcStacks() {
    for (void* base : free_) std::free(base);
  }
  ctx::stack_context allocate() {
    void* base;
    if (!free_.empty()) {
      base = free_.back();
      free_.pop_back();
    } else {
      base = std::malloc(kSize);
      if (!base) throw std::bad_alloc();
    }
    ctx::stack_context sc;
    sc.size = kSize;
    sc.sp = static_cast<char*>(base) + kSize;
    return sc;
  }
  void deallocate(ctx::stack_context& sc) {
    char* base = static_cast<char*>(sc.sp) - kSize;
    asan_unpoison(base, kSize);  // the next collective's frames start clean
    free_.push_back(base);
  }

 private:
  std::vector<void*> free_;
};
NbcStacks g_stacks;

struct StackRef {  // the StackAllocator the fiber constructor takes, over the shared pool
  FiberStack* seen;  // where ASan learns the stack's bounds
  ctx::stack_context allocate() {
    ctx::stack_context sc = g_stacks.allocate();
    set_stack(*seen, static_cast<char*>(sc.sp) - sc.size, sc.size);
    return sc;
  }
  void deallocate(ctx::stack_context& sc) { g_stacks.deallocate(sc); }
};

struct Nbc {
  Comm* comm;
  uint64_t context;                 // message context of this collective
  int me;                           // rank in the communicator
  int request;                      // the engine request the application holds
  const char* call;
  std::function<void(coll::Transport&)> body;
  ctx::fiber fiber;                 // the algorithm, suspended; empty once it has finished
  ctx::fiber owner;                 // the rank's own fiber while the algorithm runs
  std::vector<int> waiting;         // requests the algorithm waits for
  int error = MPI_SUCCESS;
  bool finished = false;
  [[no_unique_address]] FiberStack stack;   // the algorithm's stack, as ASan sees it
  FiberStack* owner_stack = nullptr;        // the stack that resumed it (set under ASan only)
};

// Active collectives of each local rank, in the order they were started.
std::unordered_map<int32_t, std::vector<std::unique_ptr<Nbc>>> g_active;
// Nonblocking collectives each rank has started on each communicator: (world rank, comm id) -> count.
struct PairHash {
  size_t operator()(const std::pair<int32_t, uint64_t>& p) const {
    return std::hash<uint64_t>()(p.second * 0x9e3779b97f4a7c15ull ^ static_cast<uint64_t>(p.first));
  }
};
std::unordered_map<std::pair<int32_t, uint64_t>, uint64_t, PairHash> g_started;

uint64_t mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Blocking contexts are 2*id and 2*id+1 with id < 2^62: they never have the top bit set; these always do.
uint64_t nbc_context(const Comm& c, uint64_t n) { return (1ull << 63) | mix(mix(c.id) ^ (n + 1)); }

// The algorithm's view of the communicator: sends and receives on the collective's context; waitall
// suspends the fiber until every request has completed.
class NbcTransport final : public coll::Transport {
 public:
  explicit NbcTransport(Nbc& n) : n_(n) {}
  int rank() const override { return n_.me; }
  int size() const override { return n_.comm->size; }
  int isend(const void* buf, int count, MPI_Datatype type, int dest, int tag) override {
    int id = g_engine->send(buf, count, type, n_.comm->world_of(dest), tag, n_.context, n_.me, -1);
    return id >= 0 ? id : g_engine->new_send_request(true);  // a rendezvous send completes later
  }
  int irecv(void* buf, int count, MPI_Datatype type, int source, int tag) override {
    return g_engine->post_recv(buf, count, type, source, tag, n_.context,
                               source < 0 ? -1 : static_cast<int32_t>(n_.comm->world_of(source)));
  }
  void waitall(int count, const int* ids) override {
    n_.waiting.assign(ids, ids + count);
    while (!all_complete()) {
      switch_leave(&n_.stack, n_.owner_stack);
      n_.owner = std::move(n_.owner).resume();
      switch_arrive(n_.stack);
    }
    n_.waiting.clear();
    for (int i = 0; i < count; ++i) {
      int err = g_engine->request(ids[i]).error();
      g_engine->release_request(ids[i]);
      if (err != MPI_SUCCESS && n_.error == MPI_SUCCESS) n_.error = err;
    }
  }

 private:
  bool all_complete() const {
    for (int id : n_.waiting)
      if (!g_engine->request(id).complete) return false;
    return true;
  }
  Nbc& n_;
};

bool ready(const Nbc& n) {
  for (int id : n.waiting)
    if (!g_engine->request(id).complete) return false;
  return true;
}

// Runs the collective's fiber until it suspends or finishes.
void step(Nbc& n) {
#if XSIM_ASAN
  Rank& r = g_engine->current();
  FiberStack* from = &r.running_stack();
  n.owner_stack = from;
  switch_leave(from, &n.stack);
  r.on = &n.stack;  // a switch to the scheduler from inside the algorithm leaves from this stack
  n.fiber = std::move(n.fiber).resume();
  r.on = from == &r.stack ? nullptr : from;
  switch_arrive(*from);
#else
  n.fiber = std::move(n.fiber).resume();
#endif
}

void complete(Rank& r, Nbc& n) {
  Request& q = g_engine->request(n.request);
  q.complete = true;
  q.completion = r.clock;
  q.set_error(n.error);
  q.state = nullptr;
  --r.pending_progress;
  comm_release(n.comm);
  if (q.user_freed) g_engine->release_request(n.request);
}

// The engine's progress hook: resumes every collective of rank `r` whose awaited messages are there.
void progress(Rank& r) {
  auto it = g_active.find(r.world);
  if (it == g_active.end()) return;
  auto& list = it->second;
  for (size_t i = 0; i < list.size();) {
    Nbc& n = *list[i];
    if (ready(n)) step(n);
    if (n.finished) {
      complete(r, n);
      list.erase(list.begin() + static_cast<long>(i));
    } else {
      ++i;
    }
  }
}

}  // namespace

MPI_Request start_nbc(Comm& c, const char* call, std::function<void(coll::Transport&)> body) {
  Engine& e = *g_engine;
  Rank& r = e.current();
  e.set_progress_hook(&progress);
  auto owned = std::make_unique<Nbc>();
  Nbc& n = *owned;
  n.comm = &c;
  ++c.local_refs;  // MPI_Comm_free may come before completion
  n.context = nbc_context(c, g_started[{r.world, c.id}]++);
  n.me = my_rank_in(c);
  n.request = e.new_request(Request::Kind::Coll);
  n.call = call;
  n.body = std::move(body);
  Request& q = e.request(n.request);
  q.comm = c.handle;
  q.state = &n;
  n.fiber = ctx::fiber(std::allocator_arg, StackRef{&n.stack}, [&n](ctx::fiber&& owner) {
    switch_first(nullptr);
    n.owner = std::move(owner);
    NbcTransport t(n);
    try {
      n.body(t);
    } catch (const MpiErr& err) {
      n.error = err.code;
    } catch (const native::MpiError& err) {
      n.error = err.code;
    }
    n.finished = true;
    switch_leave(nullptr, n.owner_stack);  // this fiber ends
    return std::move(n.owner);
  });
  ++r.pending_progress;
  step(n);  // the first step happens now, at the call's virtual time
  MPI_Request handle = to_handle(n.request);
  if (n.finished) {  // e.g. a single-rank communicator
    complete(r, n);
  } else {
    g_active[r.world].push_back(std::move(owned));
  }
  return handle;
}

void request_error_failed(int err) {
  if (err == MPI_ERR_TRUNCATE)
    fail(MPI_ERR_TRUNCATE, "message truncated: the receive buffer is smaller than the message");
  if (err == kErrRevoked && (kErrRevoked != kErrProcFailed || !g_engine || g_engine->last_detected().world < 0))
    fail(err, "the communicator was revoked (MPIX_Comm_revoke)");
  if (err == kErrProcFailed && g_engine) {
    const Engine::Detected& d = g_engine->last_detected();
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "process failure: rank %lld failed at virtual time %.9f s (injected by -xsim-fault), detected "
                  "at %.9f s",
                  static_cast<long long>(d.world), d.failed.seconds(), d.detected.seconds());
    fail(err, buf);
  }
  fail(err, "the operation failed");
}

}  // namespace xsim

#include "engine.hpp"

#include <cxxabi.h>
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <stdexcept>
#include <new>

#include "copy_bytes.hpp"
#include "host_clock.hpp"
#include "native/datatype.hpp"
#include "xsim/netmodel/hierarchy.hpp"
#include "native/exchange.hpp"
#include "observer.hpp"
#include "options.hpp"
#include "privatize.hpp"
#include "progress.hpp"
#include "xsim/units.hpp"

namespace xsim {

Engine* g_engine = nullptr;

// Defined by the API layer: a communicator's name for reports ("MPI_COMM_WORLD", "comm 0x84000002").
std::string describe_comm(MPI_Comm c);
// Defined in comm.cpp: frees a rank's RankExtra (its MPI_COMM_SELF, error handlers) at teardown.
void rank_extra_free(Rank& r);

constexpr int kDeadlockExitCode = 3;

namespace {
// Small messages (every control message, collectives on a few elements) come from two free lists instead of
// malloc: blocks of one cache line (payload up to Message::kLinePayload bytes) and of two (up to 72 bytes).
// Most simulated messages are small, and a freed block is reused hot by the next send of its size. Blocks
// are carved 64-byte aligned from slabs, in address order; the lists keep what the peak of messages in
// flight needed.
struct FreeBlock {
  FreeBlock* next;
};
constexpr uint64_t kSmallBlock[2] = {64, 128};
constexpr uint64_t kSmallPayload = kSmallBlock[1] - sizeof(Message);
constexpr size_t kSlabBytes = size_t{64} << 10;
FreeBlock* g_free_small[2] = {nullptr, nullptr};
// Ends the run naming the rank and the call (api_support.hpp's guarded). Out of line: keeps create small.
[[noreturn, gnu::cold, gnu::noinline]] void message_alloc_failed(uint64_t bytes) {
  throw std::runtime_error("out of memory: cannot allocate a message of " + std::to_string(bytes) + " bytes");
}
// Refills free list `c` with a new slab of blocks (first block first); returns its first block.
[[gnu::noinline]] FreeBlock* refill_small(int c) {
  char* slab = static_cast<char*>(std::aligned_alloc(64, kSlabBytes));
  if (!slab) message_alloc_failed(kSmallBlock[c] - sizeof(Message));
  for (size_t at = kSlabBytes; at >= kSmallBlock[c]; at -= kSmallBlock[c]) {
    auto* b = reinterpret_cast<FreeBlock*>(slab + at - kSmallBlock[c]);
    b->next = g_free_small[c];
    g_free_small[c] = b;
  }
  return g_free_small[c];
}
// Message::create, inline into the engine's own sends. The size and the kind (kData) are written as one word.
[[gnu::always_inline]] inline Message* make_message(uint64_t bytes) {
  void* p;
  if (bytes <= kSmallPayload) [[likely]] {
    const int c = bytes > Message::kLinePayload;
    FreeBlock* b = g_free_small[c];
    if (!b) [[unlikely]] b = refill_small(c);
    g_free_small[c] = b->next;
    p = b;
  } else {
    p = bytes <= Message::kMaxBytes ? std::malloc(sizeof(Message) + bytes) : nullptr;
    if (!p) [[unlikely]] message_alloc_failed(bytes);
  }
  Message* m = static_cast<Message*>(p);
  m->size_kind = bytes;  // kind kData
  return m;
}
}  // namespace

Message* Message::create(uint64_t bytes) { return make_message(bytes); }
void Message::destroy(Message* m) {
  const uint64_t bytes = m->bytes();
  if (bytes <= kSmallPayload) [[likely]] {
    const int c = bytes > kLinePayload;
    auto* b = reinterpret_cast<FreeBlock*>(m);
    b->next = g_free_small[c];
    g_free_small[c] = b;
  } else {
    std::free(m);
  }
}

namespace {

// Arrival order: earliest t_arrive first; ties by lowest source, then send order (DESIGN.md §2).
struct LaterArrival {
  bool operator()(const Message* a, const Message* b) const {
    if (a->t_arrive != b->t_arrive) return a->t_arrive > b->t_arrive;
    if (a->src != b->src) return a->src > b->src;
    return a->seq > b->seq;
  }
};

struct PoolStack {
  StackPool* pool;
  size_t index;
  boost::context::stack_context allocate() {
    boost::context::stack_context sc;
    sc.size = pool->usable_size();
    sc.sp = pool->top(index);
    return sc;
  }
  void deallocate(boost::context::stack_context&) noexcept {}  // the engine releases the pages
};

// A fiber that ended through exit() can never be resumed or unwound: its continuation object is dropped
// here without running its destructor (which would try to unwind the abandoned application stack).
void forget(boost::context::fiber&& f) {
  alignas(boost::context::fiber) static unsigned char grave[sizeof(boost::context::fiber)];
  new (grave) boost::context::fiber(std::move(f));
}

// The stack pointer a suspended fiber saved (where the switch back to it starts reading): Boost.Context's
// fiber holds exactly its fcontext_t, that pointer. Read for prefetching only.
const char* saved_stack_pointer(const boost::context::fiber& f) {
  static_assert(sizeof(boost::context::fiber) == sizeof(void*), "Boost.Context's fiber is one fcontext_t");
  const char* p;
  std::memcpy(&p, static_cast<const void*>(&f), sizeof p);
  return p;
}
// Loads one byte (of a suspended rank's stack: not instrumented, the sanitizer's view of that stack is stale).
[[gnu::no_sanitize_address]] inline void touch(const char* p) {
  char v = *reinterpret_cast<const volatile char*>(p);
  asm volatile("" : : "r"(v));
}
// The part of a suspended rank's stack prefetched before it resumes (bench/README.md "stackwin"): what a
// resume touches before it blocks again. That is the frames it returns through, from its saved stack
// pointer up to the application frame that made the MPI call, and the frames its next calls write below the
// saved pointer. Every line more than that costs time at scale, so the window follows the rank: from
// kStackBelow bytes below the saved pointer up to kStackAboveEntry bytes above the stack pointer at the
// entry of its outermost MPI call (the MPI function's own frame and the caller's nearest locals), at most
// kStackMaxAbove bytes above the saved pointer; kStackAbove bytes above it when the rank is not inside an
// MPI call (the entry lies below the saved pointer, or too far above it).
constexpr ptrdiff_t kStackBelow = 128;
constexpr ptrdiff_t kStackAboveEntry = 384;
constexpr ptrdiff_t kStackAbove = 640;
constexpr ptrdiff_t kStackMaxAbove = 2048;
// Below kLargeScaleRanks local ranks (the automatic large-scale mode, options.hpp) records and stack tops
// stay in the caches (1,024 ranks: ~1.3 MiB): prefetches and deferred delivery would only be extra work.

bool matches(const Request& q, const Message* m) {
  return q.ctx == m->ctx && (q.source == kAnySource || q.source == m->src_in_comm) &&
         (q.tag == kAnyTag || q.tag == m->tag);
}

int64_t ack_token(int id, uint32_t gen) { return (static_cast<int64_t>(id) << 32) | gen; }

// Observation hooks (observer.hpp, progress.hpp), out of line and cold: without an observer the hot paths
// keep only a test of a null pointer, and their own code stays as compact as before.
[[gnu::noinline, gnu::cold]] void notify_sent(Observer* o, Rank& r, const Message& m) { o->sent(r, m); }
[[gnu::noinline, gnu::cold]] void notify_received(Observer* o, Rank& r, const Message& m) { o->received(r, m); }

}  // namespace

Engine::Engine(const Options& opt, std::unique_ptr<net::Network> net, std::unique_ptr<proc::ProcessorModel> cpu,
               int proc, int nprocs, AppMain app_main, int argc, char** argv, char** envp,
               std::vector<int32_t> core_of_rank, int64_t cores_per_node)
    : opt_(opt), net_(std::move(net)), cpu_(std::move(cpu)), host_timing_(cpu_->uses_host_time()), proc_(proc),
      nprocs_(nprocs), nranks_(opt.np > 0 ? opt.np : nprocs), app_main_(app_main), argc_(argc), argv_(argv),
      envp_(envp), core_of_rank_(std::move(core_of_rank)), cores_per_node_(std::max<int64_t>(1, cores_per_node)) {
  // Ownership: contiguous blocks of ranks. With the default placement (rank r on core r) the blocks are
  // cut at node boundaries, so that on-node traffic stays inside one native process and the lookahead
  // between processes is the latency of the outermost network.
  const bool node_aligned = core_of_rank_.empty();
  proc_first_ = block_starts(nranks_, nprocs_, node_aligned, cores_per_node_);
  first_local_ = first_rank_of(proc_);
  int64_t nlocal = first_rank_of(proc_ + 1) - first_local_;
  ranks_.resize(static_cast<size_t>(nlocal));
  stacks_ = std::make_unique<StackPool>(static_cast<size_t>(nlocal),
                                        StackPool::effective_size(opt.stack_size, static_cast<size_t>(nlocal)));
  min_latency_ = net_->min_latency();
  if (min_latency_ <= SimTime::zero())
    throw std::runtime_error("the network's minimum latency must be positive");
  if (nprocs_ > 1) {
    lookahead_ = min_latency_;
    if (node_aligned)
      if (auto* h = dynamic_cast<const net::Hierarchy*>(net_.get()); h && h->levels() > 1)
        lookahead_ = max(lookahead_, h->min_latency_across(0));
    exchange_ = std::make_unique<native::Exchange>(nprocs_);
  }
  for (int64_t i = 0; i < nlocal; ++i) {
    Rank& r = ranks_[static_cast<size_t>(i)];
    r.world = static_cast<int32_t>(first_local_ + i);
    r.index = static_cast<int32_t>(i);
    enqueue(r, SimTime::zero());
  }
  unfinished_local_ = nlocal;
  large_scale_ = opt.large_scale == LargeScaleMode::on ||
              (opt.large_scale == LargeScaleMode::automatic && nlocal >= kLargeScaleRanks);
  poll_cost_ = opt.poll_cost;
}

std::vector<int64_t> Engine::block_starts(int64_t nranks, int nprocs, bool node_aligned, int64_t cores_per_node) {
  std::vector<int64_t> first(static_cast<size_t>(nprocs) + 1);
  const int64_t nodes = (nranks + cores_per_node - 1) / cores_per_node;
  for (int p = 0; p <= nprocs; ++p)
    first[static_cast<size_t>(p)] =
        node_aligned ? std::min(nranks, p * nodes / nprocs * cores_per_node) : p * nranks / nprocs;
  return first;
}

Engine::~Engine() {
  for (unsigned k = 0; k < pending_count_; ++k) Message::destroy(pending_[(pending_head_ + k) & (kPending - 1)]);
  for (Message* m : applied_) Message::destroy(m);
  for (Rank& r : ranks_) {
    for (Message* m : r.arrivals) Message::destroy(m);
    for (Message* m : r.unexpected) Message::destroy(m);
    if (r.fiber) forget(std::move(r.fiber));  // never unwind application stacks at teardown
    rank_extra_free(r);
  }
}

int64_t Engine::now_ns() const { return host_clock_ns(CLOCK_MONOTONIC); }

// ----------------------------------------------------------------------------------------------------
// Scheduler

void Engine::clean_heap_top() {
  while (!queue_.empty()) {
    const RunQueue::Entry& e = queue_.top();
    const Rank& r = ranks_[static_cast<size_t>(e.index)];
    if (r.queued && r.queue_gen == e.gen) return;
    queue_.pop();
  }
}

SimTime Engine::local_next_key() {
  clean_heap_top();
  SimTime next = queue_.empty() ? SimTime::infinity() : SimTime::from_ps(queue_.top_key());
  return applied_.empty() ? next : min(next, applied_.front()->t_arrive);
}

void Engine::run_window(SimTime window_end) {
  window_end_ = window_end;
  for (;;) {
    if (pending_count_) drain_pending();  // every decision below sees all sent messages
    clean_heap_top();
    if (!applied_.empty() && applied_.front()->t_arrive < window_end &&
        (queue_.empty() || applied_.front()->t_arrive.ps() <= queue_.top_key())) {
      apply_next();  // engine-applied messages go first on ties: a rank resumed at T sees all of them up to T
      continue;
    }
    if (queue_.empty() || queue_.top_key() >= window_end.ps()) break;
    SimTime key = SimTime::from_ps(queue_.top_key());
    Rank& r = ranks_[static_cast<size_t>(queue_.top().index)];
    queue_.pop();
    r.queued = false;
    if (watched_) [[unlikely]]
      watch_resume(r, key);
    else if (r.clock < key)
      r.clock = key;  // a blocked rank sits idle until its next arrival
    if (large_scale_) prefetch_next();
    resume(r);
  }
}

// run_window's step before resuming `r` at `key` when an observer or the progress line is on.
[[gnu::noinline, gnu::cold]] void Engine::watch_resume(Rank& r, SimTime key) {
  if (r.clock < key) {
    if (observer_) observer_->idle(r, r.clock, key);
    r.clock = key;
  }
  if (progress_) progress_->on_resume(key);
}

void Engine::resume(Rank& r) {
  if (priv_) priv_->enter(static_cast<size_t>(r.index));  // the rank's own globals
  current_ = &r;
  ++switches_;
#if XSIM_ASAN
  if (r.state == RankState::NotStarted) {
    const size_t i = static_cast<size_t>(r.index);
    set_stack(r.stack, static_cast<char*>(stacks_->top(i)) - stacks_->usable_size(), stacks_->usable_size());
  }
  switch_leave(&scheduler_stack_, &r.running_stack());
#endif
  if (r.state == RankState::NotStarted) start_fiber(r);
  r.state = RankState::Running;
  leaving_ = nullptr;
  boost::context::fiber back_fiber = std::move(r.fiber).resume();
  // Back on the scheduler's stack, from whichever rank switched here: `r`, or a rank that `r` (or one
  // after it) switched to directly (switch_out).
  Rank& back = *leaving_;
  back.fiber = std::move(back_fiber);
  switch_arrive(scheduler_stack_);
  current_ = nullptr;
  check_canary(back);
  if (back.state == RankState::Done) {
    if (back.exited_via_exit) forget(std::move(back.fiber));
    back.fiber = boost::context::fiber();
    stacks_->release(static_cast<size_t>(back.index));
  }
}

void Engine::prefetch_next() {
  // Measured with bench/switch (bench/README.md): at 16,384 ranks and more, resuming a rank missed the TLB
  // and the cache on its saved stack and its record. A prefetch that misses the TLB is dropped on this
  // hardware, so the next rank's stack is first touched with one load (the page walk then overlaps the
  // current rank's work), then the window of its stack that the resume will touch is prefetched (see
  // kStackBelow). The rank after it gets its first arrival prefetched, the one after that its record.
  if (queue_.empty()) return;
  if (const int32_t c = queue_.peek(0); c >= 0) {
    const Rank& next = ranks_[static_cast<size_t>(c)];
    if (const char* sp = saved_stack_pointer(next.fiber)) {
      touch(sp);
      const intptr_t entry = reinterpret_cast<intptr_t>(next.mpi_entry_sp) - reinterpret_cast<intptr_t>(sp);
      const char* end = sp + (entry > 0 && entry <= kStackMaxAbove - kStackAboveEntry ? entry + kStackAboveEntry
                                                                                     : kStackAbove);
      for (ptrdiff_t k = -kStackBelow; k < 0; k += 64) __builtin_prefetch(sp + k);
      for (const char* p = sp + 64; p < end; p += 64) __builtin_prefetch(p);  // sp's own line: touched
      stacks_->prefetch_canary(static_cast<size_t>(c));  // checked when it leaves
    }
  }
  if (const int32_t d = queue_.peek(1); d >= 0) {
    // Its record was prefetched one resume earlier (below): its first arrival is the first thing it reads
    // when it resumes in a receive.
    const Rank& after = ranks_[static_cast<size_t>(d)];
    if (!after.arrivals.empty()) __builtin_prefetch(after.arrivals.front());
  }
  if (const int32_t e = queue_.peek(2); e >= 0) {
    const char* p = reinterpret_cast<const char*>(&ranks_[static_cast<size_t>(e)]);
#pragma GCC unroll 8
    for (size_t o = 0; o < sizeof(Rank); o += 64) __builtin_prefetch(p + o);
    __builtin_prefetch(p + sizeof(Rank) - 1);
  }
}

bool g_forked_child = false;

void Engine::switch_to_scheduler() {
  int saved_errno = *errno_;  // errno belongs to the native thread: each rank keeps its own across switches
  leaving_ = current_;
#if XSIM_ASAN
  FiberStack& here = current_->running_stack();
  switch_leave(&here, &scheduler_stack_);
  boost::context::fiber f = std::move(scheduler_).resume();
  switch_arrive(here);
#else
  boost::context::fiber f = std::move(scheduler_).resume();
#endif
  take_incoming(std::move(f));
  *errno_ = saved_errno;
}

void Engine::switch_out() {
  clean_heap_top();
  switch_out_clean();
}

void Engine::switch_out_clean() {
  Rank& a = *current_;
  // The scheduler loop's next step (run_window), taken here when it is a plain resume of a started rank:
  // no engine-applied message first, inside the window, nothing watching, the leaving rank's canary intact
  // (else the scheduler reports it).
  if (queue_.empty() || !direct_switch_) return switch_to_scheduler();  // watched, or privatized
  const int64_t key = queue_.top_key();
  if (key >= window_end_.ps() || (!applied_.empty() && applied_.front()->t_arrive.ps() <= key))
    return switch_to_scheduler();
  Rank& b = ranks_[static_cast<size_t>(queue_.top().index)];
  if (b.state == RankState::NotStarted || !stacks_->canary_intact(static_cast<size_t>(a.index)) || due_before(b, key))
    return switch_to_scheduler();
  take_top(b, key);
  if (&b == &a) return;  // the leaving rank is the next one: it goes on
  if (large_scale_) prefetch_next();
  jump_to(a, b);
}

void Engine::start_fiber(Rank& r) {
  stacks_->write_canary(static_cast<size_t>(r.index));
  r.fiber = boost::context::fiber(
      std::allocator_arg, PoolStack{stacks_.get(), static_cast<size_t>(r.index)},
      [this, &r](boost::context::fiber&& sched) {
        switch_first(&scheduler_stack_);
        scheduler_ = std::move(sched);  // only the scheduler starts ranks
        // Each rank gets its own argv, on its own stack.
        size_t total = 0;
        for (int i = 0; i < argc_; ++i) total += std::strlen(argv_[i]) + 1;
        char* strings = static_cast<char*>(__builtin_alloca(total + 1));
        char** av = static_cast<char**>(__builtin_alloca(sizeof(char*) * static_cast<size_t>(argc_ + 1)));
        for (int i = 0; i < argc_; ++i) {
          size_t n = std::strlen(argv_[i]) + 1;
          std::memcpy(strings, argv_[i], n);
          av[i] = strings;
          strings += n;
        }
        av[argc_] = nullptr;
        if (host_timing_) r.host_resume_ns = now_ns();
        int code = 0;
        try {
          code = app_main_(argc_, av, envp_);
        } catch (const std::exception& err) {
          abort_simulation(1, "rank " + std::to_string(r.world) + ": uncaught exception: " + err.what());
        } catch (...) {
          abort_simulation(1, "rank " + std::to_string(r.world) + ": uncaught exception");
        }
        finish_rank(r, code);
        leaving_ = &r;
        switch_leave(nullptr, &scheduler_stack_);  // this fiber ends
        return std::move(scheduler_);
      });
}

void Engine::check_canary(Rank& r) {
  if (!stacks_->canary_intact(static_cast<size_t>(r.index))) {
    std::fprintf(stderr,
                 "xsim: stack overflow in rank %d (stack size %zu KiB): the rank wrote below the end of its "
                 "stack. Raise it with -xsim-stack SIZE (e.g. -xsim-stack %zuK) or XSIM_STACK.\n",
                 r.world, stacks_->usable_size() >> 10, (stacks_->usable_size() >> 10) * 4);
    native::abort_all(1);
  }
}

void Engine::finish_rank(Rank& r, int code) {
  r.state = RankState::Done;
  r.exit_code = code;
  r.finish_time = r.clock;
  --unfinished_local_;
  for (Message* m : r.arrivals) Message::destroy(m);
  for (Message* m : r.unexpected) Message::destroy(m);
  r.arrivals.clear();
  r.arrivals.shrink_to_fit();
  r.unexpected.clear();
  r.unexpected.shrink_to_fit();
  r.recent.clear();
  r.recent.shrink_to_fit();
}

void Engine::rank_exit(int code) {
  Rank& r = *current_;
  r.exited_via_exit = true;
  finish_rank(r, code);
  switch_to_scheduler();
  __builtin_unreachable();
}

void Engine::abort_simulation(int code, const std::string& why) {
  std::fflush(stdout);
  std::fprintf(stderr, "xsim: %s\n", why.c_str());
  native::abort_all(code);
}

long Engine::rank_of_stack_address(const void* addr) const { return stacks_->slot_of(addr); }

bool Engine::current_stack_overflowed(const void* sp) const {
  if (!current_) return false;
  size_t i = static_cast<size_t>(current_->index);
  const char* top = static_cast<const char*>(stacks_->top(i));
  const char* p = static_cast<const char*>(sp);
  return p < top - stacks_->usable_size() || p > top || !stacks_->canary_intact(i);
}

// ----------------------------------------------------------------------------------------------------
// Time

void Engine::charge_host_time(Rank& r) {
  int64_t now = now_ns();
  SimTime c = cpu_->compute_time(now - r.host_resume_ns);
  r.clock += c;
  r.stats.compute += c;
  clock_moved();
}

void Engine::charge_compute(SimTime t) {
  Rank& r = *current_;
  r.still_clock_reads = 0;  // the clock moves, though the MPI entry clock below hides it from read_clock
  r.clock += t;
  r.stats.compute += t;
  r.mpi_entry_clock += t;  // not MPI time
  clock_moved();
}

SimTime Engine::read_clock() {
  Rank& r = *current_;
  if (r.mpi_depth > 0) return r.clock;  // from inside an MPI call (a callback): not the application's loop
  const SimTime before = r.clock;
  const bool still = before == r.mpi_entry_clock;  // the rank's last MPI call did not move the clock
  mpi_enter();  // charges the compute time since then
  if (!still || r.clock != before) {
    r.still_clock_reads = 0;
  } else if (r.still_clock_reads < kClockPollReads) {
    ++r.still_clock_reads;
  } else {
    if (!clock_poll_noted_) {
      clock_poll_noted_ = true;
      std::fprintf(stderr,
                   "xsim: rank %d has read the clock %u times in a row at virtual time %.9f s without it moving "
                   "(with the processor model none computation takes no virtual time): if it waits for the "
                   "clock to advance it would never finish, so from now on each such read advances its clock "
                   "by the poll cost (%s, -xsim-poll-cost), as MPI_Test does. Use the processor model scaled "
                   "or xsim_compute() for timings of computation.\n",
                   r.world, kClockPollReads, r.clock.seconds(), format_time(poll_step()).c_str());
    }
    const SimTime step = poll_step();
    r.clock += step;
    r.stats.mpi += step;
    r.mpi_entry_clock = r.clock;  // counted as MPI time above; the next read still sees a clock standing still
    clock_moved();
  }
  const SimTime t = r.clock;
  mpi_leave();
  return t;
}

void Engine::yield_if_ahead() { yield_inline(); }

void Engine::yield_behind(Rank& r) {
  r.state = RankState::Runnable;
  enqueue(r, r.clock);
  switch_out();
}

void Engine::block(const BlockInfo& why) {
  Rank& r = *current_;
  r.block = why;
  r.state = RankState::Blocked;
  if (!r.arrivals.empty()) enqueue(r, r.arrivals.front()->t_arrive);
  switch_out();
  if (deadlock_reporting_) {
    print_stack_of_current();
    switch_to_scheduler();
  }
}

// ----------------------------------------------------------------------------------------------------
// Messages


void Engine::send(const void* buf, int count, MPI_Datatype type, int64_t dst, int tag, uint64_t ctx,
                  int src_in_comm, int sync_req) {
  // The destination's first record line is what the delivery below touches; with many ranks it is often
  // not cached (random destinations): start loading it now, so the miss overlaps the payload copy and the
  // latency computation.
  if (const Rank* d = local_rank(dst)) __builtin_prefetch(d, 1);
  Rank& r = *current_;
  const native::TypeFacts type_facts = native::type_facts(type);  // one look-up per message
  uint64_t bytes = count > 0 ? type_facts.size * static_cast<uint64_t>(count) : 0;
  Message* m = make_message(bytes);
  if (bytes) {
    if (type_facts.contiguous)
      copy_bytes(m->payload(), buf, bytes);
    else
      native::pack(buf, count, type, m->payload());
  }
  SimTime latency = message_latency(r.world, dst, bytes);
  m->t_arrive = fifo_arrival(r, static_cast<int32_t>(dst), r.clock + latency);
  m->seq = r.send_seq++;
  m->ctx = ctx;
  m->ack_token = sync_req >= 0 ? ack_token(sync_req, requests_[static_cast<size_t>(sync_req)].gen) : -1;
  m->src = r.world;
  m->dst = static_cast<int32_t>(dst);
  m->src_in_comm = src_in_comm;
  m->tag = tag;
  ++r.stats.messages;
  r.stats.bytes += bytes;
  ++messages_sent_;
  if (observer_) [[unlikely]] notify_sent(observer_, r, *m);
  if (large_scale_ && static_cast<uint64_t>(m->dst - first_local_) < ranks_.size() && m->t_arrive > r.clock) [[likely]]
    defer_delivery(m);
  else
    route(m);
}

void Engine::defer_delivery(Message* m) {
  if (m->t_arrive < pending_min_) pending_min_ = m->t_arrive;
  constexpr unsigned mask = kPending - 1;
  if (pending_count_ == kPending) {
    Message* oldest = pending_[pending_head_];
    pending_[pending_head_] = m;
    pending_head_ = (pending_head_ + 1) & mask;
    deliver_local(oldest);
  } else {
    pending_[(pending_head_ + pending_count_++) & mask] = m;
  }
  // Half-way through the ring: the destination's record, prefetched by that send, is cached; its first
  // arrival (which push_heap compares with) is not yet.
  if (pending_count_ > kPending / 2) {
    const Message* mid = pending_[(pending_head_ + pending_count_ - 1 - kPending / 2) & mask];
    const Rank& d = ranks_[static_cast<size_t>(mid->dst - first_local_)];
    if (!d.arrivals.empty()) __builtin_prefetch(d.arrivals.front());
  }
}

void Engine::drain_pending() {
  // The first-arrival prefetch here, in defer_delivery and in prefetch_next stays written out: a shared
  // static helper made GCC 12 drop it from the first two (check the disassembly when changing them).
  constexpr unsigned mask = kPending - 1;
  for (unsigned k = 0; k < pending_count_; ++k) {
    const Rank& d = ranks_[static_cast<size_t>(pending_[(pending_head_ + k) & mask]->dst - first_local_)];
    if (!d.arrivals.empty()) __builtin_prefetch(d.arrivals.front());
  }
  // pending_ is emptied first: a delivery never defers again, but keep the ring consistent throughout.
  const unsigned n = pending_count_, head = pending_head_;
  pending_count_ = 0;
  pending_head_ = 0;
  pending_min_ = SimTime::infinity();
  for (unsigned k = 0; k < n; ++k) deliver_local(pending_[(head + k) & mask]);
}

void Engine::send_ack(Rank& r, Message* m, SimTime when) {
  Message* a = make_message(0);
  a->t_arrive = when + message_latency(r.world, m->src, 0);
  a->seq = r.send_seq++;
  a->ctx = m->ctx;
  a->ack_token = m->ack_token;
  a->src = r.world;
  a->dst = m->src;
  a->src_in_comm = -1;
  a->tag = 0;
  a->set_kind(Message::kAck);
  route(a);
}

void Engine::route_remote(Message* m) {
  int p = owner_of(m->dst);
  std::memcpy(exchange_->append(p, sizeof(Message) + m->bytes()), m, sizeof(Message) + m->bytes());
  if (m->t_arrive < out_min_) out_min_ = m->t_arrive;
  Message::destroy(m);
}

void Engine::deliver_local(Message* m) {
  // A message that arrives no later than the clock at which the current rank was found the earliest (zero
  // latency: ranks that share a core) may queue a rank or an applied message before it: ask again.
  if (m->t_arrive <= earliest_clock_) [[unlikely]] forget_earliest();
  if (m->kind() == Message::kApplied) {
    applied_.push_back(m);
    std::push_heap(applied_.begin(), applied_.end(), LaterArrival{});
    return;
  }
  Rank& d = ranks_[static_cast<size_t>(m->dst - first_local_)];
  if (d.state == RankState::Done) {  // nobody will ever receive it
    Message::destroy(m);
    return;
  }
  d.arrivals.push_back(m);
  std::push_heap(d.arrivals.begin(), d.arrivals.end(), LaterArrival{});
  if (d.state == RankState::Blocked && (!d.queued || m->t_arrive < d.queue_key)) enqueue(d, m->t_arrive);
}

SimTime Engine::send_applied(Message* m, int64_t dst, uint64_t model_bytes) {
  Rank& r = *current_;
  SimTime latency = message_latency(r.world, dst, model_bytes);
  m->t_arrive = fifo_arrival(r, static_cast<int32_t>(dst), r.clock + latency);
  m->seq = r.send_seq++;
  m->ack_token = -1;
  m->src = r.world;
  m->dst = static_cast<int32_t>(dst);
  m->set_kind(Message::kApplied);
  ++r.stats.messages;
  r.stats.bytes += model_bytes;
  SimTime t = m->t_arrive;
  route(m);
  return t;
}

SimTime Engine::send_applied_from(Message* m, int64_t src, int64_t dst, SimTime t, uint64_t model_bytes) {
  m->t_arrive = t + message_latency(src, dst, model_bytes);
  // After every message the rank itself sends at the same time: hooks run in an order that does not
  // depend on N, but their count here does (other processes' hooks), so they never tie with rank sends.
  m->seq = (1ull << 63) | applied_seq_++;
  m->ack_token = -1;
  m->src = static_cast<int32_t>(src);
  m->dst = static_cast<int32_t>(dst);
  m->set_kind(Message::kApplied);
  SimTime arrive = m->t_arrive;
  route(m);
  return arrive;
}

void Engine::enter_globals(const Rank& r) {
  if (priv_) priv_->enter(static_cast<size_t>(r.index));
}

void Engine::wake(int64_t world, SimTime t) {
  forget_earliest();  // a hook's or a collective's wake-up may queue a rank at or before the current clock
  Rank* r = local_rank(world);
  if (!r || r->state != RankState::Blocked) return;
  if (!r->queued || t < r->queue_key) enqueue(*r, t);
}

void Engine::apply_next() {
  std::pop_heap(applied_.begin(), applied_.end(), LaterArrival{});
  Message* m = applied_.back();
  applied_.pop_back();
  Rank* d = local_rank(m->dst);
  if (priv_ && d) priv_->enter(static_cast<size_t>(d->index));  // the memory it touches is that rank's
  AppliedHook hook = m->src_in_comm >= 0 && m->src_in_comm < kAppliedFamilies ? applied_hooks_[m->src_in_comm]
                                                                              : nullptr;
  if (hook)
    hook(m);
  else
    Message::destroy(m);
}

void Engine::process_due_arrivals(Rank& r, SimTime upto) {
  while (!r.arrivals.empty() && r.arrivals.front()->t_arrive <= upto) {
    std::pop_heap(r.arrivals.begin(), r.arrivals.end(), LaterArrival{});
    Message* m = r.arrivals.back();
    r.arrivals.pop_back();
    if (m->kind() == Message::kAck) {
      int id = static_cast<int>(m->ack_token >> 32);
      uint32_t gen = static_cast<uint32_t>(m->ack_token & 0xffffffff);
      if (valid_request(id) && requests_[static_cast<size_t>(id)].gen == gen) {
        Request& q = requests_[static_cast<size_t>(id)];
        q.complete = true;
        q.completion = m->t_arrive;
        if (q.user_freed) release_request(id);
      }
      Message::destroy(m);
      continue;
    }
    bool matched = false;
    for (size_t i = 0; i < r.posted.size(); ++i) {
      int id = r.posted[i];
      Request& q = requests_[static_cast<size_t>(id)];
      if (matches(q, m)) {
        r.posted.erase(r.posted.begin() + static_cast<long>(i));
        match_recv(r, q, m, m->t_arrive);
        if (q.user_freed) release_request(id);
        matched = true;
        break;
      }
    }
    if (!matched) r.unexpected.push_back(m);
  }
}

inline void Engine::match_recv(Rank& r, Request& q, Message* m, SimTime when) {
  const native::TypeFacts type_facts = native::type_facts(q.type);  // one look-up per message
  uint64_t capacity = q.count > 0 ? type_facts.size * static_cast<uint64_t>(q.count) : 0;
  uint64_t n = m->bytes();
  if (n > capacity) {
    n = capacity;
    q.set_error(MPI_ERR_TRUNCATE);
  }
  if (n) {
    if (type_facts.contiguous)
      copy_bytes(q.buf, m->payload(), n);
    else
      native::unpack(m->payload(), n, q.buf, q.count, q.type);
  }
  q.st_source = m->src_in_comm;
  q.st_tag = m->tag;
  q.st_bytes = n;
  q.complete = true;
  q.completion = when;
  if (observer_) [[unlikely]] notify_received(observer_, r, *m);
  if (m->ack_token >= 0) send_ack(r, m, when);
  Message::destroy(m);
}

// ----------------------------------------------------------------------------------------------------
// Requests

int Engine::grow_requests() {
  int id = static_cast<int>(requests_.size());
  requests_.emplace_back();
  return id;
}

void Engine::release_matched(Request& q) {
  if (q.msg) Message::destroy(q.msg);  // a matched message nobody received
  q.msg = nullptr;
}

int Engine::post_recv(void* buf, int count, MPI_Datatype type, int source, int tag, uint64_t ctx) {
  ensure_earliest();
  Rank& r = *current_;
  process_arrivals(r, r.clock);
  int id = new_send_request(false);
  Request& q = requests_[static_cast<size_t>(id)];
  q.kind = Request::Kind::Recv;
  q.buf = buf;
  q.count = count;
  q.type = type;
  q.source = source;
  q.tag = tag;
  q.ctx = ctx;
  for (size_t i = 0; i < r.unexpected.size(); ++i) {
    Message* m = r.unexpected[i];
    if (matches(q, m)) {
      r.unexpected.erase(r.unexpected.begin() + static_cast<long>(i));
      match_recv(r, q, m, r.clock);
      return id;
    }
  }
  r.posted.push_back(id);
  return id;
}

void Engine::wait_incomplete(Request& q, const BlockInfo& why) {
  Rank& r = *current_;
  ensure_earliest();
  for (;;) {
    process_arrivals(r, r.clock);
    progress(r);
    if (q.complete) return;
    block_then_note(why);
  }
}

int Engine::wait_any(int n, const int* ids, const BlockInfo& why) {
  Rank& r = *current_;
  bool yielded = false;
  for (;;) {
    int best = -1, any = 0;
    for (int i = 0; i < n; ++i) {
      if (ids[i] < 0) continue;
      ++any;
      const Request& q = requests_[static_cast<size_t>(ids[i])];
      if (q.complete && (best < 0 || q.completion < requests_[static_cast<size_t>(ids[best])].completion))
        best = i;
    }
    if (any == 0) return -1;
    if (best >= 0) {
      const Request& q = requests_[static_cast<size_t>(ids[best])];
      if (r.clock < q.completion) {
        r.clock = q.completion;
        clock_moved();
      }
      return best;
    }
    if (!yielded) {
      ensure_earliest();
      yielded = true;
    } else {
      block_then_note(why);
    }
    process_arrivals(r, r.clock);
    progress(r);
  }
}

bool Engine::test(int id) {
  Rank& r = *current_;
  Request& q = requests_[static_cast<size_t>(id)];
  if (!q.complete) {
    ensure_earliest();
    process_arrivals(r, r.clock);
    progress(r);
  }
  bool done = q.complete;
  charge_poll();
  return done;
}

void Engine::refresh_arrivals() {
  ensure_earliest();
  process_arrivals(*current_, current_->clock);
  progress(*current_);
}

bool Engine::cancel(int id) {
  Rank& r = *current_;
  Request& q = requests_[static_cast<size_t>(id)];
  if (q.kind != Request::Kind::Recv || q.complete) return false;
  auto it = std::find(r.posted.begin(), r.posted.end(), id);
  if (it != r.posted.end()) r.posted.erase(it);
  q.complete = true;
  q.cancelled = true;
  q.completion = r.clock;
  q.st_source = MPI_ANY_SOURCE;
  q.st_tag = MPI_ANY_TAG;
  return true;
}

Message* Engine::probe(int source, int tag, uint64_t ctx, bool blocking, const BlockInfo& why) {
  Rank& r = *current_;
  ensure_earliest();
  Request pattern;
  pattern.source = source;
  pattern.tag = tag;
  pattern.ctx = ctx;
  for (;;) {
    process_arrivals(r, r.clock);
    progress(r);
    for (Message* m : r.unexpected)
      if (matches(pattern, m)) return m;
    if (!blocking) return nullptr;
    block_then_note(why);
  }
}

int Engine::mprobe(int source, int tag, uint64_t ctx, bool blocking, const BlockInfo& why) {
  Message* m = probe(source, tag, ctx, blocking, why);
  if (!m) return -1;
  Rank& r = *current_;
  r.unexpected.erase(std::find(r.unexpected.begin(), r.unexpected.end(), m));
  int id = new_request(Request::Kind::Matched);
  Request& q = requests_[static_cast<size_t>(id)];
  q.msg = m;
  q.complete = true;
  return id;
}

void Engine::mrecv(int id, void* buf, int count, MPI_Datatype type) {
  Rank& r = *current_;
  Request& q = requests_[static_cast<size_t>(id)];
  Message* m = q.msg;
  q.msg = nullptr;
  q.kind = Request::Kind::Recv;
  q.buf = buf;
  q.count = count;
  q.type = type;
  q.source = m->src_in_comm;
  q.tag = m->tag;
  q.ctx = m->ctx;
  match_recv(r, q, m, r.clock);  // the message arrived before it was probed: it completes now
}

int Engine::new_request(Request::Kind kind) {
  int id = new_send_request(false);
  requests_[static_cast<size_t>(id)].kind = kind;
  return id;
}

// ----------------------------------------------------------------------------------------------------
// The run

int Engine::run() {
  g_engine = this;
  errno_ = &errno;  // the thread that runs the ranks
  wall_start_ = static_cast<double>(now_ns()) * 1e-9;
  timespec cpu0;
  host_clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu0);
  int64_t unfinished_total = 0;
  if (nprocs_ == 1) {
    run_window(SimTime::infinity());
    unfinished_total = unfinished_local_;
  } else {
    SimTime w = SimTime::zero();
    std::vector<std::pair<const char*, size_t>> received;  // packed messages, one span per sending process
    std::vector<std::pair<int32_t, Message*>> incoming;    // the messages unpacked, with their destination
    for (;;) {
      SimTime end = (SimTime::infinity() - w) > lookahead_ ? w + lookahead_ : SimTime::infinity();
      run_window(end);
      ++windows_;
      SimTime next = min(local_next_key(), out_min_);
      out_min_ = SimTime::infinity();
      native::Exchange::Result res =
          exchange_->exchange(next.ps(), unfinished_local_, static_cast<int64_t>(messages_sent_), received);
      incoming.clear();
      for (auto [data, n] : received) {
        for (size_t at = 0; at < n;) {
          Message header;
          std::memcpy(static_cast<void*>(&header), data + at, sizeof header);
          const uint64_t bytes = header.bytes();
          Message* m = Message::create(bytes);
          std::memcpy(m, data + at, sizeof(Message) + bytes);
          at += sizeof(Message) + bytes;
          incoming.push_back({m->dst, m});
        }
      }
      // Delivered by destination rank: the ranks' records are then walked in address order instead of at
      // random. The order is free: arrival heaps and the run queue order their entries completely.
      std::sort(incoming.begin(), incoming.end(),
                [](const auto& a, const auto& b) { return a.first < b.first; });
      for (auto [dst, m] : incoming) deliver_local(m);
      unfinished_total = res.unfinished;
      if (progress_) [[unlikely]] progress_->on_window(SimTime::from_ps(res.next_event_ps), res.unfinished, res.messages);
      if (res.unfinished == 0 || res.next_event_ps == SimTime::infinity().ps()) break;
      w = SimTime::from_ps(res.next_event_ps);
    }
  }
  timespec cpu1;
  host_clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu1);
  run_cpu_seconds_ = static_cast<double>(cpu1.tv_sec - cpu0.tv_sec) + static_cast<double>(cpu1.tv_nsec - cpu0.tv_nsec) * 1e-9;
  if (progress_) progress_->finish();
  if (unfinished_total > 0) return report_deadlock(unfinished_total);
  return 0;
}

void Engine::print_stack_of_current() {
  unw_context_t uc;
  unw_cursor_t cur;
  unw_getcontext(&uc);
  unw_init_local(&cur, &uc);
  bool started = false;
  int shown = 0;
  while (unw_step(&cur) > 0 && shown < 16) {
    unw_word_t ip = 0, off = 0;
    char name[512];
    unw_get_reg(&cur, UNW_REG_IP, &ip);
    if (unw_get_proc_name(&cur, name, sizeof name, &off) != 0) std::strcpy(name, "??");
    std::string shown_name = name;
    int status = 0;
    char* dem = abi::__cxa_demangle(name, nullptr, nullptr, &status);
    if (status == 0 && dem) shown_name = dem;
    std::free(dem);
    if (!started) {  // skip the simulator's own frames: start at the application's MPI call
      if (std::strncmp(name, "MPI_", 4) == 0 || std::strncmp(name, "mpi_", 4) == 0 ||
          std::strncmp(name, "PMPI_", 5) == 0)
        started = true;
      else
        continue;
    }
    if (shown_name.find("xsim::Engine::start_fiber") != std::string::npos) break;
    std::fprintf(stderr, "xsim:       #%d 0x%012lx %s+0x%lx\n", shown, static_cast<unsigned long>(ip),
                 shown_name.c_str(), static_cast<unsigned long>(off));
    ++shown;
  }
}

int Engine::report_deadlock(int64_t unfinished_total) {
  std::fflush(stdout);
  if (proc_ == 0)
    std::fprintf(stderr,
                 "xsim: deadlock: no virtual rank can make progress and no message is in flight; %lld of %lld "
                 "ranks have not finished:\n",
                 static_cast<long long>(unfinished_total), static_cast<long long>(nranks_));
  deadlock_reporting_ = true;
  int shown = 0;
  std::map<std::string, int64_t> rest;
  for (Rank& r : ranks_) {
    if (r.state == RankState::Done) continue;
    std::string peer = r.block.peer == kAnySource ? "MPI_ANY_SOURCE"
                       : r.block.peer == -3       ? "several"
                                                  : std::to_string(r.block.peer);
    std::string tag = r.block.tag == kAnyTag ? "MPI_ANY_TAG" : std::to_string(r.block.tag);
    if (r.state != RankState::Blocked) {
      std::fprintf(stderr, "xsim:   rank %d: not blocked (state %d) at virtual time %.9f s\n", r.world,
                   static_cast<int>(r.state), r.clock.seconds());
      continue;
    }
    if (shown < 16) {
      // A peer of MPI_COMM_WORLD on this process that has already ended: say so (it is the usual cause).
      std::string gone;
      if (r.block.comm == MPI_COMM_WORLD && r.block.peer >= 0)
        if (const Rank* p = local_rank(r.block.peer); p && p->state == RankState::Done)
          gone = "; rank " + std::to_string(p->world) + " has already ended" +
                 (p->mpi_finalized ? "" : " without calling MPI_Finalize");
      std::fprintf(stderr, "xsim:   rank %d at virtual time %.9f s: blocked in %s (peer %s, tag %s, %s)%s\n",
                   r.world, r.clock.seconds(), r.block.call, peer.c_str(), tag.c_str(),
                   describe_comm(r.block.comm).c_str(), gone.c_str());
      std::fflush(stderr);
      resume(r);  // the rank prints its own stack and comes straight back
      ++shown;
    } else {
      ++rest[r.block.call];
    }
  }
  for (auto& [call, n] : rest)
    std::fprintf(stderr, "xsim:   ... and %lld more ranks on native process %d blocked in %s\n",
                 static_cast<long long>(n), proc_, call.c_str());
  // Ranks that returned from main (or called exit) without MPI_Finalize: whoever waits for them waits forever.
  int64_t unfinalized = 0;
  for (const Rank& r : ranks_) {
    if (r.state != RankState::Done || !r.mpi_initialized || r.mpi_finalized) continue;
    if (++unfinalized <= 16)
      std::fprintf(stderr,
                   "xsim:   rank %d ended at virtual time %.9f s with exit code %d without calling MPI_Finalize\n",
                   r.world, r.finish_time.seconds(), r.exit_code);
  }
  if (unfinalized > 16)
    std::fprintf(stderr, "xsim:   ... and %lld more ranks on native process %d ended without calling MPI_Finalize\n",
                 static_cast<long long>(unfinalized - 16), proc_);
  std::fflush(stderr);
  return kDeadlockExitCode;
}

}  // namespace xsim

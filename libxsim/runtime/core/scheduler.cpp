// Engine (engine.hpp), the scheduler: resuming ranks in virtual-time order inside the window, switching
// between their fibers (directly from rank to rank when nothing else must happen in between), starting and
// ending them, the stack checks, and the rules of a rank's clock (compute time charged on entry to MPI,
// reads of the clock, yielding and blocking).
#include "engine.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

#include "engine_internal.hpp"
#include "host_clock.hpp"
#include "native/exchange.hpp"
#include "observer.hpp"
#include "options.hpp"
#include "privatize.hpp"
#include "progress.hpp"
#include "xsim/units.hpp"

namespace xsim {

namespace {

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
// stay in the caches: prefetches and deferred delivery would only be extra work (256 ranks: the same speed
// or 10% slower with the mode on; 512 and 1,024 ranks: 15-35% faster; bench/README.md "Prefetch or load").

}  // namespace

void forget(boost::context::fiber&& f) {
  alignas(boost::context::fiber) static unsigned char grave[sizeof(boost::context::fiber)];
  new (grave) boost::context::fiber(std::move(f));
}

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
  // The canary: when the rank ends, and at every return where the switch check reads it (stack_pool.hpp).
  if (back.state == RankState::Done || !stacks_->switch_check_ok(static_cast<size_t>(back.index))) check_canary(back);
  if (back.state == RankState::Done) {
    if (back.exited_via_exit) forget(std::move(back.fiber));
    back.fiber = boost::context::fiber();
    stacks_->release(static_cast<size_t>(back.index));
  }
}

void Engine::prefetch_next() {
  // Measured with bench/switch (bench/README.md): at 16,384 ranks and more, resuming a rank missed the TLB
  // and the cache on its saved stack and its record. The window of the next rank's stack that the resume
  // will touch is prefetched (see kStackBelow). The rank after it gets its first arrival prefetched, the one
  // after that its record.
  if (queue_.empty()) return;
  if (const int32_t c = queue_.peek(0); c >= 0) prefetch_resume(ranks_[static_cast<size_t>(c)]);
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

void Engine::prefetch_resume(const Rank& next) {
  if (const char* sp = saved_stack_pointer(next.fiber)) {
    // Prefetched, not loaded: a load waits at retirement for the page walk and the miss, and a switch is
    // shorter than that wait (bench/README.md "Prefetch or load": a load here made switches and the token
    // ring 15-40% slower on the development machine than the prefetch).
    __builtin_prefetch(sp);  // the saved registers: read first
    const intptr_t entry = reinterpret_cast<intptr_t>(next.mpi_entry_sp) - reinterpret_cast<intptr_t>(sp);
    const char* end = sp + (entry > 0 && entry <= kStackMaxAbove - kStackAboveEntry ? entry + kStackAboveEntry
                                                                                   : kStackAbove);
    for (ptrdiff_t k = -kStackBelow; k < 0; k += 64) __builtin_prefetch(sp + k);
    for (const char* p = sp + 64; p < end; p += 64) __builtin_prefetch(p);
    // Without guard pages its canary is checked when it leaves, at the other end of its stack: touched (as
    // fast as a prefetch or faster in the token ring and bench/switch; it is a page of the stack below, which
    // ran just before when ranks run in order).
    if (!stacks_->has_guard_pages())
      touch(reinterpret_cast<const char*>(stacks_->canary_address(static_cast<size_t>(next.index))));
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
  if (b.state == RankState::NotStarted || !stacks_->switch_check_ok(static_cast<size_t>(a.index)) || due_before(b, key))
    return switch_to_scheduler();
  take_top(b, key);
  if (&b == &a) return;  // the leaving rank is the next one: it goes on
  if (large_scale_) prefetch_next();
  jump_to(a, b);
}

void Engine::start_fiber(Rank& r) {
  stacks_->write_canary(static_cast<size_t>(r.index));
  r.fiber = boost::context::fiber(
      std::allocator_arg, FixedStack{stacks_->top(static_cast<size_t>(r.index)), stacks_->usable_size()},
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
  if (varied_) [[unlikely]] {
    charge_varied(r, c);
    return;
  }
  r.clock += c;
  r.stats.compute += c;
  clock_moved();
}

// docs/noise.md: the node's time factor first, then its drift over the windows the computation spans from
// its start, then the node's detours stretch the result. A zero charge moves nothing (a rank that only
// calls MPI is not delayed by noise).
SimTime Engine::charge_varied(Rank& r, SimTime c) {
  if (c <= SimTime::zero()) return SimTime::zero();
  const double f = node_speed(r.index);
  if (f != 1.0) c = proc::NodeModel{1.0, 1.0, proc::NodeHost::number, f}.scale(c);
  const SimTime start = r.clock;
  const auto node = static_cast<uint64_t>(node_of(r.world));
  if (opt_.node_drift.on()) [[unlikely]]
    c = proc::drift_finish(opt_.node_drift, opt_.seed, node, start, c) - start;
  SimTime end = start + c;
  if (noise_) {
    end = noise_->finish(node, start, c);
    noise_time_[static_cast<size_t>(r.index)] += end - start - c;
    if (observer_ && end - start > c) [[unlikely]]  // the trace shows each detour as a region
      for (const proc::Detour& d : noise_->detours(node, start, end)) observer_->detour(r, d.start, d.end());
  }
  r.clock = end;
  r.stats.compute += end - start;
  clock_moved();
  return end - start;
}

SimTime Engine::host_compute(int64_t host_ns) const { return cpu_->compute_time(host_ns); }
SimTime Engine::explicit_compute(SimTime t) const { return cpu_->explicit_time(t); }

void Engine::charge_compute(SimTime t) {
  Rank& r = *current_;
  r.still_wtime_reads = r.still_libc_reads = 0;  // the clock moves, though the MPI entry clock hides it
  if (varied_) [[unlikely]] {
    r.mpi_entry_clock += charge_varied(r, t);  // not MPI time
    return;
  }
  r.clock += t;
  r.stats.compute += t;
  r.mpi_entry_clock += t;  // not MPI time
  clock_moved();
}

SimTime Engine::read_clock(bool libc) {
  Rank& r = *current_;
  if (r.mpi_depth > 0) return r.clock;  // from inside an MPI call (a callback): not the application's loop
  const SimTime before = r.clock;
  const bool still = before == r.mpi_entry_clock;  // the rank's last MPI call did not move the clock
  mpi_enter();  // charges the compute time since then
  if (!still || r.clock != before) {
    r.still_wtime_reads = r.still_libc_reads = 0;
  } else if (!libc && r.still_wtime_reads < kClockPollReads) {
    ++r.still_wtime_reads;
  } else if (libc && r.still_libc_reads < kLibcClockPollReads) {
    ++r.still_libc_reads;
  } else {
    if (!clock_poll_noted_) {
      clock_poll_noted_ = true;
      std::fprintf(stderr,
                   "xsim: rank %d has read the clock %u times in a row at virtual time %.9f s without it moving "
                   "(with the processor model none computation takes no virtual time): if it waits for the "
                   "clock to advance it would never finish, so from now on each such read advances its clock "
                   "by the poll cost (%s, -xsim-poll-cost), as MPI_Test does. Use the processor model scaled "
                   "or xsim_compute() for timings of computation.\n",
                   r.world, libc ? kLibcClockPollReads : kClockPollReads, r.clock.seconds(),
                   format_time(poll_step()).c_str());
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
  if (r.threaded) [[unlikely]] return threads_yield(r);  // queued at its earliest thread's time
  r.state = RankState::Runnable;
  enqueue(r, r.clock);
  switch_out();
}


void Engine::fail_now(Rank& r) {
  const SimTime t = fail_time(r.world);
  // The rank stops here: it is gone at its failure time, its messages are dropped (finish_rank), its stack
  // released; the C++ frames on it are never unwound (as for exit()).
  if (observer_) [[unlikely]] observer_->failed(r);  // at its clock: the failure time, or its next MPI call after
  ++failed_local_;
  r.exited_via_exit = true;
  r.mpi_finalized = true;  // not "ended without MPI_Finalize": it failed
  finish_rank(r, 0);
  r.finish_time = t;
  r.clock = t;
  switch_to_scheduler();
  __builtin_unreachable();
}

void Engine::block_rank(Rank& r, const BlockInfo& why, bool timed) {
  r.block = why;
  r.state = RankState::Blocked;
  if (timed || (faulty_ && (detect_wake_ != SimTime::infinity() || may_fail(r.world)))) [[unlikely]] {
    block_timed(r);  // also wake for its own failure, to detect a peer's, or at a deadline
  } else {
    if (!r.arrivals.empty()) enqueue(r, r.arrivals.front()->t_arrive);
    switch_out();
  }
  if (deadlock_reporting_) {
    print_stack_of_current();
    switch_to_scheduler();
  }
}

void Engine::block_timed(Rank& r) {  // queued at its own failure, a detection or a deadline, or an arrival
  SimTime key = failure_key(r);
  if (!r.arrivals.empty()) key = min(key, r.arrivals.front()->t_arrive);
  if (key != SimTime::infinity()) enqueue(r, max(key, r.clock));
  switch_out();
  fail_if_due(r);
}

}  // namespace xsim

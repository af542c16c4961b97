// Engine (engine.hpp): a rank's application threads as fibers (rank_threads.hpp has the rules). The inner
// switch between two threads of the running rank swaps the rank record's per-thread fields and jumps from
// one thread's stack to the other's; the engine's own switches (to the scheduler, rank to rank) carry
// whichever thread is running, as they carry a rank without threads.
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "engine.hpp"
#include "engine_internal.hpp"
#include "native/exchange.hpp"
#include "rank_threads.hpp"

namespace xsim {

std::atomic<bool> g_threaded_ranks{false};

namespace {

void save(const Rank& r, RankThread& t) {
  t.clock = r.clock;
  t.mpi_entry_clock = r.mpi_entry_clock;
  t.mpi_entry_sp = r.mpi_entry_sp;
  t.mpi_depth = r.mpi_depth;
  t.host_resume_ns = r.host_resume_ns;
  t.still_wtime_reads = r.still_wtime_reads;
  t.still_libc_reads = r.still_libc_reads;
  t.block = r.block;
}

void load(Rank& r, const RankThread& t) {
  r.clock = t.clock;
  r.mpi_entry_clock = t.mpi_entry_clock;
  r.mpi_entry_sp = t.mpi_entry_sp;
  r.mpi_depth = t.mpi_depth;
  r.host_resume_ns = t.host_resume_ns;
  r.still_wtime_reads = t.still_wtime_reads & 0x3ff;
  r.still_libc_reads = t.still_libc_reads & 0x3fffff;
  r.block = t.block;
}

// Earlier clock first, ties by creation order.
bool before(const RankThread& a, const RankThread& b) {
  return a.clock < b.clock || (a.clock == b.clock && a.id < b.id);
}

const char* state_name(RankThread::State s) {
  switch (s) {
    case RankThread::State::Running: return "running";
    case RankThread::State::Ready: return "ready";
    case RankThread::State::WaitMpi: return "waiting in MPI";
    case RankThread::State::WaitSync: return "waiting";
    case RankThread::State::Done: return "ended";
  }
  return "?";
}

// "thread 2: waiting in pthread_mutex_lock" (deadlock reports).
std::string describe(const RankThread& t) {
  std::string s = "thread " + std::to_string(t.id) + (t.id == 0 ? " (main)" : "") + ": " + state_name(t.state);
  if (t.state == RankThread::State::WaitSync && t.sync_what) s += std::string(" in ") + t.sync_what;
  if (t.state == RankThread::State::WaitMpi && t.block.call) s += std::string(" in ") + t.block.call;
  return s;
}

void free_stack(RankThread& t) {
  if (t.ctx) forget(std::move(t.ctx));  // never unwind a thread's frames (the main thread's too)
  if (!t.stack_base) return;
  lsan_forget_root_region(t.stack_base, t.stack_len);
  munmap(t.stack_base, t.stack_len);
  t.stack_base = nullptr;
}

}  // namespace

RankThreads& Engine::threads_of(const Rank& r) { return *threads_.find(r.index)->second; }

void Engine::threads_enable(int level) {
  Rank& r = *current_;
  if (r.threaded) return;
  auto g = std::make_unique<RankThreads>();
  auto main = std::make_unique<RankThread>();
  main->state = RankThread::State::Running;
  main->id = 0;
  g->running = main.get();
  g->all.push_back(std::move(main));
  g->level = level;
  threads_.emplace(r.index, std::move(g));
  r.threaded = true;
  enter_hooks_ = leave_hooks_ = true;
  g_threaded_ranks.store(true, std::memory_order_relaxed);
}

int Engine::thread_level() const {
  if (!current_ || !current_->threaded) return -1;
  return threads_.find(current_->index)->second->level;
}

RankThread* Engine::thread_running() {
  if (!current_ || !current_->threaded) return nullptr;
  return threads_of(*current_).running;
}

RankThread* Engine::rank_thread(const void* handle) {
  if (!current_ || !current_->threaded) return nullptr;
  for (auto& t : threads_of(*current_).all)
    if (t.get() == handle) return t.get();
  return nullptr;
}

void Engine::threads_switch(Rank& r, RankThreads& g, RankThread& from, RankThread& to) {
  save(r, from);
  from.saved_errno = *errno_;
  load(r, to);
  *errno_ = to.saved_errno;
  to.state = RankThread::State::Running;
  g.running = &to;
  g.switch_from = &from;
  forget_earliest();  // the clock changed hands: "earliest at this clock" must be found again
  r.queue_key = SimTime::from_ps(-1);  // nor is the rank at its queue key when a thread comes back (block_then_note)
#if XSIM_ASAN
  FiberStack* here = &r.running_stack();
  from.asan_on = r.on;
  r.on = to.asan_on;
  switch_leave(here, &r.running_stack());
  boost::context::fiber f = std::move(to.ctx).resume();
  switch_arrive(*here);
#else
  boost::context::fiber f = std::move(to.ctx).resume();
#endif
  // Back on `from`'s stack: an inner switch of this rank brought us here (the engine's own switches never
  // resume a thread suspended by an inner switch).
  g.switch_from->ctx = std::move(f);
}

RankThread* Engine::threads_pick(RankThreads& g, const RankThread* me, bool only_earlier) {
  RankThread* best = nullptr;
  for (auto& p : g.all) {
    RankThread* t = p.get();
    if (t == me) continue;
    const bool runnable = t->state == RankThread::State::Ready ||
                          (t->state == RankThread::State::WaitMpi && t->seen != g.progress);
    if (!runnable) continue;
    if (only_earlier && !before(*t, *me)) continue;
    if (!best || before(*t, *best)) best = t;
  }
  return best;
}

namespace {

// Siblings waiting in MPI whose clocks are before `t` (the running thread's clock).
bool waiting_before(const RankThreads& g, SimTime t) {
  for (auto& p : g.all)
    if (p->state == RankThread::State::WaitMpi && p->clock < t) return true;
  return false;
}

}  // namespace

void Engine::threads_run_earlier(Rank& r) {
  RankThreads& g = threads_of(r);
  RankThread& me = *g.running;
  save(r, me);  // its clock as it stands now, for the comparison (a switch back to it loads the same record)
  while (RankThread* t = threads_pick(g, &me, true)) {
    me.state = RankThread::State::Ready;
    threads_switch(r, g, me, *t);
  }
}

void Engine::threads_enter(Rank& r) {
  threads_run_earlier(r);
  // A message due before this thread's clock may be what a sibling waiting in MPI from an earlier time needs:
  // the rank first goes back to the first such message, if any (threads_yield), so that the sibling answers
  // in virtual-time order. Whether one is due is known only once the rank is the earliest of its process
  // at that time (a message from another native process is delivered at a window's start), so the yield
  // is made whenever such a sibling exists: its outcome, unlike the arrivals seen now, is the same for any N.
  if (waiting_before(threads_of(r), r.clock)) threads_yield(r);
}

void Engine::threads_yield(Rank& r) {
  // The rank is queued at its running thread's clock, or earlier: at its next arrival while a sibling waits
  // in MPI from before that clock (and queued as blocked then: deliver_local and wake lower its key when an
  // earlier message comes). Resumed before its running thread's clock, it is the earliest of the
  // process at that time, every arrival up to it known: the waiting siblings look again at that time (their
  // clocks raised to it, as a blocked rank's is to its next arrival), before the running thread goes on.
  RankThreads& g = threads_of(r);
  for (;;) {
    threads_run_earlier(r);
    SimTime key = r.clock;
    const bool waiting = waiting_before(g, key);
    if (waiting && !r.arrivals.empty() && r.arrivals.front()->t_arrive < key) key = r.arrivals.front()->t_arrive;
    // With a sibling waiting, the rank is queued as a blocked rank is (its state says so): a delivery or a
    // wake-up before its key lowers it (deliver_local, wake), at no cost to the message path.
    r.state = waiting ? RankState::Blocked : RankState::Runnable;
    enqueue(r, key);
    switch_out();
    const SimTime at = r.queue_key;  // the key it was resumed at
    if (at >= r.clock || !waiting_before(g, r.clock)) return;
    for (auto& p : g.all)
      if (p->state == RankThread::State::WaitMpi && p->clock < at) p->clock = at;
    ++g.progress;
  }
}

void Engine::threads_note_progress(const Rank& r) { ++threads_of(r).progress; }

void Engine::threads_block(Rank& r, const BlockInfo& why, bool timed) {
  RankThreads& g = threads_of(r);
  RankThread& me = *g.running;
  me.state = RankThread::State::WaitMpi;
  me.seen = g.progress;
  r.block = why;
  if (RankThread* t = threads_pick(g, &me, false)) {
    threads_switch(r, g, me, *t);
    return;  // the caller looks again
  }
  me.state = RankThread::State::Running;
  block_rank(r, why, timed);  // no sibling can run: the rank waits for an arrival
  ++g.progress;
}

void Engine::threads_wait_engine(Rank& r, RankThreads& g) {
  // `me` waits for a sibling, and every sibling that could run waits in MPI: the rank blocks in the engine on
  // their behalf, and they look again once it is woken (at their clock raised to the wake-up time, as a
  // blocked rank's is).
  RankThread* waiting = nullptr;
  for (auto& p : g.all)
    if (p->state == RankThread::State::WaitMpi && (!waiting || before(*p, *waiting))) waiting = p.get();
  if (!waiting) threads_deadlock(r, g);
  const SimTime mine = r.clock;
  block_rank(r, waiting->block, false);
  const SimTime woke = r.clock;
  r.clock = mine;
  for (auto& p : g.all)
    if (p->state == RankThread::State::WaitMpi && p->clock < woke) p->clock = woke;
  ++g.progress;
}

bool Engine::thread_wait(const char* what, bool may_time_out) {
  Rank& r = *current_;
  RankThreads& g = threads_of(r);
  RankThread& me = *g.running;
  me.state = RankThread::State::WaitSync;
  me.sync_what = what;
  for (;;) {
    if (RankThread* t = threads_pick(g, &me, false)) {
      threads_switch(r, g, me, *t);  // back when woken (Ready, then picked)
      return true;
    }
    bool any_mpi = false;
    for (auto& p : g.all) any_mpi |= p->state == RankThread::State::WaitMpi;
    if (!any_mpi && may_time_out) {
      me.state = RankThread::State::Running;
      return false;
    }
    threads_wait_engine(r, g);
  }
}

void Engine::thread_wake(RankThread* t) {
  if (t->state != RankThread::State::WaitSync) return;
  t->state = RankThread::State::Ready;
  if (t->clock < current_->clock) t->clock = current_->clock;  // it goes on no earlier than its waker
}

void Engine::thread_yield() {
  Rank& r = *current_;
  RankThreads& g = threads_of(r);
  RankThread& me = *g.running;
  if (RankThread* t = threads_pick(g, &me, false)) {
    me.state = RankThread::State::Ready;
    threads_switch(r, g, me, *t);
  }
}

RankThread* Engine::thread_create(void* (*start)(void*), void* arg, size_t stack_size, bool detached) {
  Rank& r = *current_;
  RankThreads& g = threads_of(r);
  // Finished detached threads are freed here (never from their own stack).
  for (size_t i = 0; i < g.all.size();) {
    RankThread& t = *g.all[i];
    if (t.detached && t.state == RankThread::State::Done && &t != g.running) {
      free_stack(t);
      g.all.erase(g.all.begin() + static_cast<long>(i));
    } else {
      ++i;
    }
  }
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t usable = (stack_size + page - 1) / page * page;
  const size_t len = usable + page;
  void* base = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED || mprotect(base, page, PROT_NONE) != 0) {  // guard page: an overflow faults
    const int err = errno;
    if (base != MAP_FAILED) munmap(base, len);
    static bool told = false;
    if (!told) {
      told = true;
      std::fprintf(stderr,
                   "xsim: rank %d: no stack for a new thread (%zu KiB: %s): pthread_create returns EAGAIN. Each "
                   "thread of a rank takes two memory mappings; vm.max_map_count (sysctl) bounds them per native "
                   "process. Use more native processes, fewer threads, or a smaller stack size in the thread's "
                   "attributes.\n",
                   r.world, usable >> 10, std::strerror(err));
    }
    return nullptr;
  }
  lsan_root_region(base, len);
  auto t = std::make_unique<RankThread>();
  t->id = g.next_id++;
  t->state = RankThread::State::Ready;
  t->detached = detached;
  t->start = start;
  t->arg = arg;
  t->stack_base = base;
  t->stack_len = len;
  save(r, *t);  // starts at its creator's clock, outside MPI
  t->mpi_depth = 0;
  t->block = BlockInfo{};
  t->still_wtime_reads = t->still_libc_reads = 0;
  t->mpi_entry_clock = t->clock;
  char* top = static_cast<char*>(base) + len;
  set_stack(t->fstack, static_cast<char*>(base) + page, usable);
#if XSIM_ASAN
  t->asan_on = &t->fstack;
#endif
  RankThread* self = t.get();
  // The stack is unmapped by free_stack; the thread never returns through Boost.Context's end of a fiber.
  t->ctx = boost::context::fiber(
      std::allocator_arg, FixedStack{top, usable}, [this, self, &r](boost::context::fiber&& from) {
        RankThreads& grp = threads_of(r);
#if XSIM_ASAN
        switch_first(nullptr);
#endif
        grp.switch_from->ctx = std::move(from);
        if (host_timing_) r.host_resume_ns = now_ns();
        void* result = self->start(self->arg);
        thread_exit(result);  // never returns: Boost.Context's end of a fiber is not used
        return boost::context::fiber();
      });
  g.all.push_back(std::move(t));
  return self;
}

void Engine::thread_exit(void* result) {
  Rank& r = *current_;
  mpi_enter();  // charges its last stretch of computation
  RankThreads& g = threads_of(r);
  RankThread& me = *g.running;
  me.result = result;
  me.finish = r.clock;
  me.state = RankThread::State::Done;
  if (me.joiner) thread_wake(me.joiner);
  RankThread* next = threads_pick(g, &me, false);
  if (!next)  // a sibling waiting in MPI looks again (and blocks the rank if it must)
    for (auto& p : g.all)
      if (p->state == RankThread::State::WaitMpi && (!next || before(*p, *next))) next = p.get();
  if (!next) threads_deadlock(r, g);
  load(r, *next);
  *errno_ = next->saved_errno;
  next->state = RankThread::State::Running;
  g.running = next;
  g.switch_from = &me;
  forget_earliest();
  r.queue_key = SimTime::from_ps(-1);  // as threads_switch
#if XSIM_ASAN
  r.on = next->asan_on;
  switch_leave(nullptr, &r.running_stack());  // this thread's stack ends
#endif
  std::move(next->ctx).resume();  // never comes back: the thread has ended
  __builtin_unreachable();
}

int Engine::thread_join(RankThread* t, void** result) {
  Rank& r = *current_;
  RankThreads& g = threads_of(r);
  RankThread& me = *g.running;
  if (t == &me) return EDEADLK;
  if (t->detached || (t->joiner && t->joiner != &me)) return EINVAL;
  while (t->state != RankThread::State::Done) {
    t->joiner = &me;
    thread_wait("pthread_join");
  }
  if (r.clock < t->finish) {
    r.clock = t->finish;
    clock_moved();
  }
  if (result) *result = t->result;
  free_stack(*t);
  for (size_t i = 0; i < g.all.size(); ++i)
    if (g.all[i].get() == t) {
      g.all.erase(g.all.begin() + static_cast<long>(i));
      break;
    }
  return 0;
}

int Engine::thread_detach(RankThread* t) {
  if (t->detached) return EINVAL;
  t->detached = true;
  return 0;
}

void Engine::threads_deadlock(Rank& r, RankThreads& g) {
  std::fflush(stdout);
  std::string list;
  for (auto& p : g.all)
    if (p->state != RankThread::State::Done)
      list += "\n  " + describe(*p) + (p.get() == g.running ? " (the last to run)" : "");
  std::fprintf(stderr,
               "xsim: deadlock in rank %d: all of its threads wait for one another (no thread can run, none waits "
               "for a message):%s\n",
               r.world, list.c_str());
  std::fflush(stderr);
  native::abort_all(1);
}

std::string Engine::threads_summary(const Rank& r) {
  RankThreads& g = threads_of(r);
  std::string s = "; in its thread " + std::to_string(g.running->id);
  for (auto& p : g.all)
    if (p.get() != g.running && p->state != RankThread::State::Done) s += ", " + describe(*p);
  return s;
}

void Engine::free_rank_threads() {
  for (auto& [index, g] : threads_)
    for (auto& t : g->all) free_stack(*t);
  threads_.clear();
}

}  // namespace xsim

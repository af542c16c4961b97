// A virtual rank's application threads as fibers (MPI_THREAD_MULTIPLE; docs/applications.md "Threads").
// A rank that asks MPI_Init_thread for more than MPI_THREAD_FUNNELED becomes `threaded`: every thread its
// application then creates with pthread_create (process/libc_pthread.cpp) is a fiber of the rank, with its own
// stack and its own virtual clock, run by the rank's own small scheduler on the rank's native thread. The
// engine still sees one rank: the running thread's clock, MPI nesting and block reason are the rank
// record's while it runs (swapped on every switch between the rank's threads), so matching, requests and
// the network see a rank as before. Layer: libxsim/runtime/core (xsim_core). Single-threaded, like the fibers.
//
// Rules (engine side, rank_threads.cpp):
// - Earliest first: when a thread enters MPI (outermost call) or yields, a sibling that is ready at an
//   earlier virtual time, or that waits in MPI and may have been served since it last looked, runs first.
//   So the rank's MPI operations happen in virtual-time order across its threads, as the one-thread engine
//   assumes (a rank's queue key never overstates its earliest possible send).
// - A thread that must wait in MPI (Engine::block) lets a sibling run; the rank blocks in the engine only
//   when none can: then each waiting thread looks again after the rank is woken.
// - Waiting siblings: while a sibling waits in MPI from a time before the running thread's clock, the rank
//   is queued (at every yield, and at every MPI entry of the running thread) no later than its next
//   arrival, and a delivery lowers that key as it does a blocked rank's. Resumed at an arrival before the
//   running thread's clock, the waiting siblings look again at that time first. So a thread that waits for
//   a message answers at its arrival, even while a sibling computes far ahead: no rank decides at a later
//   time without that answer (test thread_multiple_answer).
// - "Served since it last looked": the rank's progress count, bumped by each processed arrival, each
//   engine wake-up and each completed outermost MPI call of the rank (so two waiting threads never look in
//   turn forever).
// - Synchronisation between threads (mutexes, condition variables, barriers, semaphores, join) costs no
//   virtual time: a woken thread's clock becomes the waker's if that is later.
#pragma once
#include <boost/context/fiber.hpp>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "fiber_switch.hpp"
#include "records.hpp"
#include "xsim/simtime.hpp"

namespace xsim {

struct RankThread {
  enum class State : uint8_t { Running, Ready, WaitMpi, WaitSync, Done };
  State state = State::Ready;
  bool detached = false;
  int id = 0;                          // 0: the rank's main thread; then 1, 2, .. in creation order
  boost::context::fiber ctx;           // the suspended thread (switched away from by an inner switch)
  uint64_t seen = 0;                   // WaitMpi: the rank's progress count when it last looked
  // The rank record's per-thread fields while this thread is not the running one.
  SimTime clock, mpi_entry_clock, finish;
  const char* mpi_entry_sp = nullptr;
  int mpi_depth = 0;
  int64_t host_resume_ns = 0;
  uint32_t still_wtime_reads = 0, still_libc_reads = 0;
  BlockInfo block;
  int saved_errno = 0;
  const char* sync_what = nullptr;     // WaitSync: the call it waits in (deadlock report)
  RankThread* joiner = nullptr;        // the thread waiting in pthread_join for this one
  void* (*start)(void*) = nullptr;
  void* arg = nullptr;
  void* result = nullptr;
  void* stack_base = nullptr;          // mmap'd: guard page, then the stack (null for the main thread)
  size_t stack_len = 0;
  FiberStack fstack;                   // ASan's view of its stack (empty without ASan)
#if XSIM_ASAN
  FiberStack* asan_on = nullptr;       // the rank record's `on` while this thread runs
#endif
};

// Some rank of this process is threaded (the pthread interposers' first, cheap test).
extern std::atomic<bool> g_threaded_ranks;

struct RankThreads {
  std::vector<std::unique_ptr<RankThread>> all;  // [0]: the main thread; finished ones stay until joined
  RankThread* running = nullptr;
  RankThread* switch_from = nullptr;   // the thread an inner switch leaves (its continuation arrives with it)
  uint64_t progress = 0;
  int next_id = 1;
  int level = 0;                       // the thread level MPI_Init_thread granted
};

}  // namespace xsim

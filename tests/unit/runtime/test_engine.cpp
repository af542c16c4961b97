// Unit tests for the engine (libxsim/runtime/core/engine.*): the time-ordered scheduler,
// message matching in virtual arrival order, polling, synchronous sends, truncation, deadlock detection,
// scale and determinism. The Engine is driven directly (no MPI entry points): each test's application is
// a plain function run once per virtual rank on its own fiber; parameters and results travel through
// file-static variables (tests run sequentially, one Engine at a time).
//
// Network used throughout: ethernet star, 25 us per link, 1 Gbps, so
//   L(s bytes) = 2 * 25 us + 8 s ns = 50,000,000 ps + 8,000 ps * s.
// Poll cost: the default 100 ns. Processor model: none (deterministic).
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine.hpp"
#include "options.hpp"
#include "xsim/netmodel/network.hpp"
#include "xsim/procmodel/processor_model.hpp"
#include "xsim/simtime.hpp"

using xsim::BlockInfo;
using xsim::Engine;
using xsim::kAnySource;
using xsim::kAnyTag;
using xsim::SimTime;

namespace {

// ---- the native MPI (the engine's datatype code calls PMPI_Type_size etc.) ---------------------------

class MpiEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    int initialized = 0, provided = 0;
    MPI_Initialized(&initialized);
    if (!initialized) {
      ASSERT_EQ(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SINGLE, &provided), MPI_SUCCESS);
    }
  }
  void TearDown() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
  }
};

[[maybe_unused]] ::testing::Environment* const g_mpi_env =
    ::testing::AddGlobalTestEnvironment(new MpiEnvironment);

// ---- helpers ------------------------------------------------------------------------------------------

constexpr uint64_t kCtx = 2;
constexpr int64_t kUs = 1'000'000;  // picoseconds per microsecond
constexpr int64_t kNs = 1'000;      // picoseconds per nanosecond

// Ethernet star latency of an s-byte message, in picoseconds.
constexpr int64_t L(int64_t bytes) { return 50'000'000 + 8'000 * bytes; }

struct RunResult {
  int rc = -1;
  std::vector<int64_t> finish_ps;  // each rank's clock when it finished
  std::vector<int> exit_codes;
  uint64_t switches = 0;  // context switches (Engine::context_switches): the scheduler's work, deterministic
};

// Runs `app` on `np` virtual ranks in one native process and returns what happened.
RunResult run_sim(int np, xsim::AppMain app) {
  xsim::Options opt;  // outlives the engine, which keeps a reference to it
  opt.np = np;
  opt.cpu = xsim::CpuModel::none;
  opt.stack_size = 256 * 1024;
  opt.model = xsim::NetModel::analytic;  // these tests check paper 004's model (loggp: tests/mpi loggp_*)
  static char arg0[] = "test_engine";
  static char* argv[] = {arg0, nullptr};
  static char* envp[] = {nullptr};
  RunResult res;
  {
    Engine eng(opt, xsim::net::make_star(np, SimTime::from_ns(25'000), 1'000'000'000),
               xsim::proc::make_none_model(), /*proc*/ 0, /*nprocs*/ 1, app, 1, argv, envp);
    res.rc = eng.run();
    res.switches = eng.context_switches();
    for (const xsim::Rank& r : eng.ranks()) {
      res.finish_ps.push_back(r.state == xsim::RankState::Done ? r.finish_time.ps() : -1);
      res.exit_codes.push_back(r.exit_code);
    }
  }
  xsim::g_engine = nullptr;
  return res;
}

// [rank] shorthands
Engine& E() { return *xsim::g_engine; }
int me() { return E().current().world; }
int64_t now() { return E().current().clock.ps(); }
void compute_ps(int64_t ps) { E().charge_compute(SimTime::from_ps(ps)); }
void send_ints(const int* buf, int n, int dst, int tag, int sync_req = -1) {
  E().send(buf, n, MPI_INT, dst, tag, kCtx, me(), sync_req);
}
int irecv(int* buf, int n, int src, int tag) { return E().post_recv(buf, n, MPI_INT, src, tag, kCtx); }
void wait(int id) { E().wait(id, BlockInfo{"test", -1, -1, MPI_COMM_WORLD}); }

// =====================================================================================================
// 2. Send/receive timing

struct {
  int64_t recv_delay_ps;   // receiver computes this long before posting
  int64_t sender_before_compute_ps, sender_after_send_ps;
  int64_t recv_completion_ps, recv_clock_ps;
  int value, st_source, st_tag;
  uint64_t st_bytes;
} g_p2p;

int app_p2p(int, char**, char**) {
  if (me() == 0) {
    compute_ps(7 * kUs);
    g_p2p.sender_before_compute_ps = now();
    int v = 4242;
    send_ints(&v, 1, 1, 5);
    g_p2p.sender_after_send_ps = now();
  } else {
    if (g_p2p.recv_delay_ps) compute_ps(g_p2p.recv_delay_ps);
    int v = -1;
    int id = irecv(&v, 1, 0, 5);
    wait(id);
    const xsim::Request& q = E().request(id);
    g_p2p.recv_completion_ps = q.completion.ps();
    g_p2p.recv_clock_ps = now();
    g_p2p.value = v;
    g_p2p.st_source = q.st_source;
    g_p2p.st_tag = q.st_tag;
    g_p2p.st_bytes = q.st_bytes;
    E().release_request(id);
  }
  return 0;
}

TEST(EngineTiming, EarlyReceiverCompletesAtArrival) {
  g_p2p = {};
  g_p2p.recv_delay_ps = 0;
  RunResult r = run_sim(2, app_p2p);
  ASSERT_EQ(r.rc, 0);
  // Sent at 7 us: arrives at 7 us + L(4).
  EXPECT_EQ(g_p2p.recv_completion_ps, 7 * kUs + L(4));
  EXPECT_EQ(g_p2p.recv_clock_ps, 7 * kUs + L(4));
  EXPECT_EQ(g_p2p.value, 4242);
  EXPECT_EQ(g_p2p.st_source, 0);
  EXPECT_EQ(g_p2p.st_tag, 5);
  EXPECT_EQ(g_p2p.st_bytes, 4u);
  // The sender is not held up by an eager send.
  EXPECT_EQ(g_p2p.sender_before_compute_ps, 7 * kUs);
  EXPECT_EQ(g_p2p.sender_after_send_ps, 7 * kUs);
  EXPECT_EQ(r.finish_ps[0], 7 * kUs);
  EXPECT_EQ(r.finish_ps[1], 7 * kUs + L(4));
}

TEST(EngineTiming, LateReceiverCompletesAtItsOwnClock) {
  g_p2p = {};
  g_p2p.recv_delay_ps = 100 * kUs;
  RunResult r = run_sim(2, app_p2p);
  ASSERT_EQ(r.rc, 0);
  EXPECT_EQ(g_p2p.recv_completion_ps, 100 * kUs);
  EXPECT_EQ(g_p2p.recv_clock_ps, 100 * kUs);
  EXPECT_EQ(g_p2p.value, 4242);
  EXPECT_EQ(g_p2p.sender_after_send_ps, 7 * kUs);
  EXPECT_EQ(r.finish_ps[1], 100 * kUs);
}

TEST(EngineTiming, ReceiverPostedJustBeforeArrival) {
  g_p2p = {};
  g_p2p.recv_delay_ps = 7 * kUs + L(4) - 1;  // posts 1 ps before the message is there
  RunResult r = run_sim(2, app_p2p);
  ASSERT_EQ(r.rc, 0);
  EXPECT_EQ(g_p2p.recv_completion_ps, 7 * kUs + L(4));
  EXPECT_EQ(g_p2p.recv_clock_ps, 7 * kUs + L(4));
}

// =====================================================================================================
// 3. Per-pair FIFO (non-overtaking) and per-source matching order

constexpr int kBigInts = 262'144;  // 1 MiB of MPI_INT
constexpr int64_t kBigBytes = 4 * kBigInts;

struct {
  int64_t small_completion_ps, small_clock_ps, big_completion_ps;
  uint64_t big_bytes;
  int small_value, big_first;
  std::vector<int> order_first;    // first int of each message, in receive order
  std::vector<uint64_t> order_bytes;
  std::vector<int64_t> order_completion;
} g_fifo;

int app_fifo_overtake(int, char**, char**) {
  if (me() == 0) {
    std::vector<int> big(kBigInts, 0);  // on the heap: the fiber's stack is 256 KiB
    big[0] = 10;
    send_ints(big.data(), kBigInts, 1, 1);  // at 0: arrives at L(1 MiB)
    compute_ps(1'000 * kUs);
    int s = 20;
    send_ints(&s, 1, 1, 2);  // at 1 ms: would arrive at 1 ms + L(4) < L(1 MiB) without FIFO
  } else {
    int s = -1;
    int id = irecv(&s, 1, 0, 2);  // the small one first, by tag
    wait(id);
    g_fifo.small_completion_ps = E().request(id).completion.ps();
    g_fifo.small_clock_ps = now();
    g_fifo.small_value = s;
    E().release_request(id);
    std::vector<int> big(kBigInts, -1);
    id = irecv(big.data(), kBigInts, 0, 1);
    wait(id);
    g_fifo.big_completion_ps = E().request(id).completion.ps();
    g_fifo.big_bytes = E().request(id).st_bytes;
    g_fifo.big_first = big[0];
    E().release_request(id);
  }
  return 0;
}

TEST(EngineFifo, SmallMessageDoesNotOvertakeLargeOne) {
  g_fifo = {};
  RunResult r = run_sim(2, app_fifo_overtake);
  ASSERT_EQ(r.rc, 0);
  const int64_t big_arrival = L(kBigBytes);
  ASSERT_EQ(big_arrival, 8'438'608'000);
  EXPECT_GE(g_fifo.small_completion_ps, big_arrival);
  EXPECT_EQ(g_fifo.small_completion_ps, big_arrival);
  EXPECT_EQ(g_fifo.small_clock_ps, big_arrival);
  EXPECT_EQ(g_fifo.small_value, 20);
  EXPECT_EQ(g_fifo.big_completion_ps, big_arrival);
  EXPECT_EQ(g_fifo.big_bytes, static_cast<uint64_t>(kBigBytes));
  EXPECT_EQ(g_fifo.big_first, 10);
}

// Same source and tag: receives match in send order, whatever the sizes.
int app_fifo_order(int, char**, char**) {
  if (me() == 0) {
    std::vector<int> big(kBigInts, 0);
    big[0] = 30;
    send_ints(big.data(), kBigInts, 1, 3);
    int a = 31, b = 32;
    send_ints(&a, 1, 1, 3);
    compute_ps(5 * kUs);
    send_ints(&b, 1, 1, 3);
  } else {
    std::vector<int> buf(kBigInts, -1);
    for (int i = 0; i < 3; ++i) {
      buf[0] = -1;
      int id = irecv(buf.data(), kBigInts, 0, 3);
      wait(id);
      g_fifo.order_first.push_back(buf[0]);
      g_fifo.order_bytes.push_back(E().request(id).st_bytes);
      g_fifo.order_completion.push_back(E().request(id).completion.ps());
      E().release_request(id);
    }
  }
  return 0;
}

TEST(EngineFifo, SpecificSourceMatchesInSendOrder) {
  g_fifo = {};
  RunResult r = run_sim(2, app_fifo_order);
  ASSERT_EQ(r.rc, 0);
  EXPECT_EQ(g_fifo.order_first, (std::vector<int>{30, 31, 32}));
  EXPECT_EQ(g_fifo.order_bytes, (std::vector<uint64_t>{kBigBytes, 4, 4}));
  // All three are held behind the big one.
  EXPECT_EQ(g_fifo.order_completion, (std::vector<int64_t>{L(kBigBytes), L(kBigBytes), L(kBigBytes)}));
}

// Same pair, but a wildcard-tag receive posted late: the unexpected queue keeps send order.
int app_fifo_order_late(int, char**, char**) {
  if (me() == 0) {
    for (int i = 0; i < 4; ++i) {
      int v = 100 + i;
      send_ints(&v, 1, 1, 10 - i);  // different tags, decreasing
      compute_ps(1 * kNs);
    }
  } else {
    compute_ps(1'000 * kUs);  // everything has arrived
    for (int i = 0; i < 4; ++i) {
      int v = -1;
      int id = irecv(&v, 1, 0, kAnyTag);
      wait(id);
      g_fifo.order_first.push_back(v);
      g_fifo.order_completion.push_back(E().request(id).completion.ps());
      E().release_request(id);
    }
  }
  return 0;
}

TEST(EngineFifo, AnyTagReceivesInSendOrder) {
  g_fifo = {};
  RunResult r = run_sim(2, app_fifo_order_late);
  ASSERT_EQ(r.rc, 0);
  EXPECT_EQ(g_fifo.order_first, (std::vector<int>{100, 101, 102, 103}));
  EXPECT_EQ(g_fifo.order_completion, (std::vector<int64_t>(4, 1'000 * kUs)));
}

// =====================================================================================================
// 4. Wildcard source: earliest virtual arrival, ties by lowest source then send order

struct {
  int64_t recv_delay_ps;
  std::vector<int> sources, values;
  std::vector<int64_t> completions;
  int probe_source = -2;
  int probe_tag = -2;
} g_wild;

void wild_receive(int n) {
  for (int i = 0; i < n; ++i) {
    int v = -1;
    int id = irecv(&v, 1, kAnySource, kAnyTag);
    wait(id);
    g_wild.sources.push_back(E().request(id).st_source);
    g_wild.values.push_back(v);
    g_wild.completions.push_back(E().request(id).completion.ps());
    E().release_request(id);
  }
}

// Rank 1 sends first in host order (it runs before rank 2 and sends do not yield) but later in virtual
// time; rank 2's message is sent later in host order and arrives earlier.
int app_wild_earliest(int, char**, char**) {
  if (me() == 0) {
    if (g_wild.recv_delay_ps) compute_ps(g_wild.recv_delay_ps);
    wild_receive(2);
  } else if (me() == 1) {
    compute_ps(10 * kUs);
    int v = 1;
    send_ints(&v, 1, 0, 11);  // arrives at 10 us + L(4)
  } else {
    int v = 2;
    send_ints(&v, 1, 0, 12);  // arrives at L(4)
  }
  return 0;
}

TEST(EngineWildcard, EarliestArrivalWinsEarlyReceiver) {
  g_wild = {};
  RunResult r = run_sim(3, app_wild_earliest);
  ASSERT_EQ(r.rc, 0);
  EXPECT_EQ(g_wild.sources, (std::vector<int>{2, 1}));
  EXPECT_EQ(g_wild.values, (std::vector<int>{2, 1}));
  EXPECT_EQ(g_wild.completions, (std::vector<int64_t>{L(4), 10 * kUs + L(4)}));
  EXPECT_EQ(r.finish_ps[0], 10 * kUs + L(4));
}

TEST(EngineWildcard, EarliestArrivalWinsLateReceiver) {
  g_wild = {};
  g_wild.recv_delay_ps = 500 * kUs;  // both messages are waiting when the receives are posted
  RunResult r = run_sim(3, app_wild_earliest);
  ASSERT_EQ(r.rc, 0);
  EXPECT_EQ(g_wild.sources, (std::vector<int>{2, 1}));
  EXPECT_EQ(g_wild.completions, (std::vector<int64_t>{500 * kUs, 500 * kUs}));
}

// Equal arrival times: rank 3 sends first in host order (rank 1 yields before sending), yet rank 1's
// message is taken first. Rank 2 sends two messages that arrive together (FIFO): send order.
int app_wild_ties(int, char**, char**) {
  switch (me()) {
    case 0:
      if (g_wild.recv_delay_ps) compute_ps(g_wild.recv_delay_ps);
      wild_receive(5);
      break;
    case 1: {
      compute_ps(32 * kNs);
      E().yield_if_ahead();  // ranks 2 and 3 (at 0) run first
      send_ints(nullptr, 0, 0, 1);  // 0 bytes at 32 ns: arrives at 32 ns + L(0) = L(4)
      break;
    }
    case 2: {
      compute_ps(1 * kUs);
      E().yield_if_ahead();
      int u = 21, v = 22;
      send_ints(&u, 1, 0, 2);  // 4 bytes at 1 us: arrives at 1 us + L(4)
      send_ints(&v, 1, 0, 3);  // same arrival time, sent after
      break;
    }
    case 3: {
      int v = 3;
      send_ints(&v, 1, 0, 4);  // 4 bytes at 0: arrives at L(4)
      int w = 33;
      compute_ps(1 * kUs);
      send_ints(&w, 1, 0, 5);  // 4 bytes at 1 us: ties with rank 2's pair, higher source
      break;
    }
  }
  return 0;
}

TEST(EngineWildcard, TiesByLowestSourceThenSendOrder) {
  g_wild = {};
  RunResult r = run_sim(4, app_wild_ties);
  ASSERT_EQ(r.rc, 0);
  ASSERT_EQ(L(0) + 32 * kNs, L(4));
  EXPECT_EQ(g_wild.sources, (std::vector<int>{1, 3, 2, 2, 3}));
  EXPECT_EQ(g_wild.values, (std::vector<int>{-1, 3, 21, 22, 33}));  // 0-byte message leaves the buffer
  EXPECT_EQ(g_wild.completions,
            (std::vector<int64_t>{L(4), L(4), 1 * kUs + L(4), 1 * kUs + L(4), 1 * kUs + L(4)}));
}

TEST(EngineWildcard, TiesByLowestSourceThenSendOrderLateReceiver) {
  g_wild = {};
  g_wild.recv_delay_ps = 1'000 * kUs;
  RunResult r = run_sim(4, app_wild_ties);
  ASSERT_EQ(r.rc, 0);
  EXPECT_EQ(g_wild.sources, (std::vector<int>{1, 3, 2, 2, 3}));
  EXPECT_EQ(g_wild.values, (std::vector<int>{-1, 3, 21, 22, 33}));
}

// Blocking probe with a wildcard source sees the earliest-arriving message, not the first sent.
int app_wild_probe(int, char**, char**) {
  if (me() == 0) {
    xsim::Message* m = E().probe(kAnySource, kAnyTag, kCtx, true, BlockInfo{"probe", -1, -1, MPI_COMM_WORLD});
    if (m) {
      g_wild.probe_source = m->src_in_comm;
      g_wild.probe_tag = m->tag;
      g_wild.completions.push_back(now());
    }
    wild_receive(2);
  } else if (me() == 1) {
    compute_ps(10 * kUs);
    int v = 1;
    send_ints(&v, 1, 0, 11);
  } else {
    int v = 2;
    send_ints(&v, 1, 0, 12);
  }
  return 0;
}

TEST(EngineWildcard, ProbeSeesEarliestArrival) {
  g_wild = {};
  RunResult r = run_sim(3, app_wild_probe);
  ASSERT_EQ(r.rc, 0);
  EXPECT_EQ(g_wild.probe_source, 2);
  EXPECT_EQ(g_wild.probe_tag, 12);
  ASSERT_EQ(g_wild.completions.size(), 3u);
  EXPECT_EQ(g_wild.completions[0], L(4));  // the probe returned when the message arrived
  EXPECT_EQ(g_wild.sources, (std::vector<int>{2, 1}));
}

// =====================================================================================================
// 5. Scheduler order: (clock, rank)

struct {
  std::vector<int64_t> compute_ps;
  std::vector<int> order;
  std::vector<int64_t> clocks;
} g_sched;

int app_sched(int, char**, char**) {
  compute_ps(g_sched.compute_ps[static_cast<size_t>(me())]);
  int id = E().new_send_request(false);  // never completes
  // refresh_arrivals() yields to every earlier rank first (a wait's rule). A poll (test()) alone need not:
  // it yields only when a message could still reach the rank by its clock (Engine::poll_decided), which on
  // this network (min latency far above the clocks' spread here) it cannot; see PollsAnswerWithoutYielding.
  E().refresh_arrivals();
  bool done = E().test(id);
  E().release_request(id);
  g_sched.order.push_back(done ? -100 - me() : me());
  g_sched.clocks.push_back(now());
  return 0;
}

TEST(EngineScheduler, RanksPassYieldPointInVirtualTimeOrder) {
  g_sched = {};
  g_sched.compute_ps = {50 * kUs, 10 * kUs, 40 * kUs, 10 * kUs, 30 * kUs, 0};
  RunResult r = run_sim(6, app_sched);
  ASSERT_EQ(r.rc, 0);
  EXPECT_EQ(g_sched.order, (std::vector<int>{5, 1, 3, 4, 2, 0}));
  const int64_t poll = 100 * kNs;
  EXPECT_EQ(g_sched.clocks, (std::vector<int64_t>{poll, 10 * kUs + poll, 10 * kUs + poll, 30 * kUs + poll,
                                                  40 * kUs + poll, 50 * kUs + poll}));
}

// The same ranks polling only: a poll yields only when another rank could still make something arrive by the
// poller's clock (its run-queue key + the network's smallest latency <= the clock). Rank 0, at 50 us, yields
// to the ranks not yet started (queued at 0); ranks 1 to 5, their clocks within the smallest latency of
// every key, answer at once, in rank order. Every clock is what it is with a yield at every poll.
int app_poll_only(int, char**, char**) {
  compute_ps(g_sched.compute_ps[static_cast<size_t>(me())]);
  int id = E().new_send_request(false);
  bool done = E().test(id);
  E().release_request(id);
  g_sched.order.push_back(done ? -100 - me() : me());
  g_sched.clocks.push_back(now());
  return 0;
}

TEST(EngineScheduler, PollsAnswerWithoutYielding) {
  g_sched = {};
  g_sched.compute_ps = {50 * kUs, 10 * kUs, 40 * kUs, 10 * kUs, 30 * kUs, 0};
  RunResult r = run_sim(6, app_poll_only);
  ASSERT_EQ(r.rc, 0);
  EXPECT_EQ(g_sched.order, (std::vector<int>{1, 2, 3, 4, 5, 0}));
  const int64_t poll = 100 * kNs;
  EXPECT_EQ(g_sched.clocks, (std::vector<int64_t>{10 * kUs + poll, 40 * kUs + poll, 10 * kUs + poll,
                                                  30 * kUs + poll, poll, 50 * kUs + poll}));
}

// Repeated yields: every rank alternates compute and yield; the global sequence of (clock, rank) seen at
// the yield points must be non-decreasing.
struct {
  std::vector<std::pair<int64_t, int>> seen;
} g_sched2;

int app_sched_many(int, char**, char**) {
  for (int k = 0; k < 20; ++k) {
    compute_ps(((me() * 37 + k * 11) % 13 + 1) * kUs);
    E().yield_if_ahead();
    g_sched2.seen.emplace_back(now(), me());
  }
  return 0;
}

TEST(EngineScheduler, InterleavedYieldsAreTimeOrdered) {
  g_sched2 = {};
  RunResult r = run_sim(8, app_sched_many);
  ASSERT_EQ(r.rc, 0);
  ASSERT_EQ(g_sched2.seen.size(), 160u);
  for (size_t i = 1; i < g_sched2.seen.size(); ++i)
    EXPECT_LE(g_sched2.seen[i - 1], g_sched2.seen[i]) << "at step " << i;
}

// =====================================================================================================
// 6. Test polling

struct {
  int polls;
  int64_t clock_ps, completion_ps;
  int value;
} g_poll;

int app_poll(int, char**, char**) {
  if (me() == 0) {
    int v = 77;
    send_ints(&v, 1, 1, 0);
  } else {
    int v = -1;
    int id = irecv(&v, 1, 0, 0);
    int n = 0;
    for (;;) {
      ++n;
      if (E().test(id)) break;
      if (n > 100'000) break;  // safety net: fail rather than spin forever
    }
    g_poll.polls = n;
    g_poll.clock_ps = now();
    g_poll.completion_ps = E().request(id).completion.ps();
    g_poll.value = v;
    E().release_request(id);
  }
  return 0;
}

TEST(EnginePolling, TestSucceedsOnFirstPollAtOrAfterArrival) {
  g_poll = {};
  RunResult r = run_sim(2, app_poll);
  ASSERT_EQ(r.rc, 0);
  // Polls at 0, 0.1, ..., 50.1 us; the message is there at 50.032 us, so poll 502 (at 50.1 us) sees it.
  EXPECT_EQ(g_poll.polls, 502);
  EXPECT_EQ(g_poll.clock_ps, 50'200'000);
  EXPECT_EQ(g_poll.completion_ps, L(4));
  EXPECT_EQ(g_poll.value, 77);
}

// =====================================================================================================
// 7. Synchronous send

struct {
  int64_t recv_delay_ps;
  int64_t send_done_ps, send_completion_ps, recv_done_ps;
  bool complete_right_after_send;
} g_ssend;

int app_ssend(int, char**, char**) {
  if (me() == 0) {
    int sync = E().new_send_request(false);
    int v = 5;
    send_ints(&v, 1, 1, 0, sync);
    g_ssend.complete_right_after_send = E().request(sync).complete;
    wait(sync);
    g_ssend.send_done_ps = now();
    g_ssend.send_completion_ps = E().request(sync).completion.ps();
    E().release_request(sync);
  } else {
    if (g_ssend.recv_delay_ps) compute_ps(g_ssend.recv_delay_ps);
    int v = -1;
    int id = irecv(&v, 1, 0, 0);
    wait(id);
    g_ssend.recv_done_ps = now();
    E().release_request(id);
  }
  return 0;
}

TEST(EngineSyncSend, LateReceiverAckArrivesAfterMatchPlusL0) {
  g_ssend = {};
  g_ssend.recv_delay_ps = 200 * kUs;
  RunResult r = run_sim(2, app_ssend);
  ASSERT_EQ(r.rc, 0);
  EXPECT_FALSE(g_ssend.complete_right_after_send);
  EXPECT_EQ(g_ssend.recv_done_ps, 200 * kUs);                  // matched at the receiver's post time
  EXPECT_EQ(g_ssend.send_done_ps, 200 * kUs + L(0));           // + the acknowledgement's latency
  EXPECT_EQ(g_ssend.send_completion_ps, 200 * kUs + L(0));
}

TEST(EngineSyncSend, EarlyReceiverAckArrivesAfterArrivalPlusL0) {
  g_ssend = {};
  g_ssend.recv_delay_ps = 0;
  RunResult r = run_sim(2, app_ssend);
  ASSERT_EQ(r.rc, 0);
  EXPECT_EQ(g_ssend.recv_done_ps, L(4));
  EXPECT_EQ(g_ssend.send_done_ps, L(4) + L(0));
  EXPECT_EQ(g_ssend.send_completion_ps, L(4) + L(0));
}

// =====================================================================================================
// 8. Truncation

struct {
  int buf[2];
  int st_error;
  uint64_t st_bytes;
  bool complete;
} g_trunc;

int app_trunc(int, char**, char**) {
  if (me() == 0) {
    int v[2] = {7, 8};
    send_ints(v, 2, 1, 0);
  } else {
    g_trunc.buf[0] = g_trunc.buf[1] = -1;
    int id = irecv(g_trunc.buf, 1, 0, 0);
    wait(id);
    const xsim::Request& q = E().request(id);
    g_trunc.st_error = q.error();
    g_trunc.st_bytes = q.st_bytes;
    g_trunc.complete = q.complete;
    E().release_request(id);
  }
  return 0;
}

TEST(EngineTruncation, LongMessageIntoShortReceive) {
  g_trunc = {};
  RunResult r = run_sim(2, app_trunc);
  ASSERT_EQ(r.rc, 0);
  EXPECT_TRUE(g_trunc.complete);
  EXPECT_EQ(g_trunc.st_error, MPI_ERR_TRUNCATE);
  EXPECT_EQ(g_trunc.st_bytes, 4u);
  EXPECT_EQ(g_trunc.buf[0], 7);
  EXPECT_EQ(g_trunc.buf[1], -1);  // nothing written past the receive buffer
  EXPECT_EQ(r.finish_ps[1], L(8));  // the arrival time is that of the full 8-byte message
}

// =====================================================================================================
// 9. Deadlock

int app_deadlock(int, char**, char**) {
  int v = 0;
  int id = irecv(&v, 1, 1 - me(), 0);
  wait(id);
  return 0;
}

TEST(EngineDeadlock, MutualReceiveIsReported) {
  ::testing::internal::CaptureStderr();
  RunResult r = run_sim(2, app_deadlock);
  std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(r.rc, 3);
  EXPECT_NE(err.find("deadlock"), std::string::npos) << err;
  EXPECT_NE(err.find("rank 0"), std::string::npos) << err;
  EXPECT_NE(err.find("rank 1"), std::string::npos) << err;
}

int app_deadlock_one(int, char**, char**) {
  if (me() == 1) {
    compute_ps(3 * kUs);
    int v = 0;
    int id = irecv(&v, 1, 0, 9);  // rank 0 sends tag 8, never 9
    wait(id);
  } else {
    int v = 1;
    send_ints(&v, 1, 1, 8);
  }
  return 0;
}

TEST(EngineDeadlock, UnmatchedReceiveAfterPeerFinished) {
  ::testing::internal::CaptureStderr();
  RunResult r = run_sim(2, app_deadlock_one);
  std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(r.rc, 3);
  EXPECT_EQ(r.finish_ps[0], 0);    // rank 0 finished
  EXPECT_EQ(r.finish_ps[1], -1);   // rank 1 did not
  EXPECT_NE(err.find("rank 1"), std::string::npos) << err;
}

// =====================================================================================================
// 10. Many ranks

constexpr int kRingRounds = 10;
struct {
  int bad_values;
} g_ring;

int app_ring(int, char**, char**) {
  const int n = static_cast<int>(E().world_size());
  const int r = me();
  const int right = (r + 1) % n, left = (r + n - 1) % n;
  for (int k = 0; k < kRingRounds; ++k) {
    int out = r * 1000 + k, in = -1;
    send_ints(&out, 1, right, k);
    int id = irecv(&in, 1, left, k);
    wait(id);
    E().release_request(id);
    if (in != left * 1000 + k) ++g_ring.bad_values;
  }
  return 0;
}

TEST(EngineScale, ThousandRankRing) {
  g_ring = {};
  RunResult r = run_sim(1000, app_ring);
  ASSERT_EQ(r.rc, 0);
  EXPECT_EQ(g_ring.bad_values, 0);
  ASSERT_EQ(r.finish_ps.size(), 1000u);
  for (size_t i = 0; i < r.finish_ps.size(); ++i)
    ASSERT_EQ(r.finish_ps[i], kRingRounds * L(4)) << "rank " << i;
  EXPECT_EQ(kRingRounds * L(4), 500'320'000);
  // The work the simulation did, counted instead of timed (wall time belongs in bench/, not in a unit test):
  // every rank is resumed once to start and at most once per round (when its receive's message has
  // arrived), so the run takes at most np x (rounds + 1) context switches (11,000 here, exactly that
  // today: each rank waits for its message every round), however fast or busy the machine is.
  EXPECT_GE(r.switches, 1000u) << "every rank is started";
  EXPECT_LE(r.switches, 1000u * (kRingRounds + 1)) << "ranks resumed more often than they block";
}

// =====================================================================================================
// 11. wait_any: earliest completion

struct {
  int first_index, second_index;
  int64_t first_clock, second_clock;
  int first_source;
} g_any;

int app_wait_any(int, char**, char**) {
  if (me() == 0) {
    int a = -1, b = -1;
    int ids[3] = {irecv(&a, 1, 1, 0), -1, irecv(&b, 1, 2, 0)};
    int i = E().wait_any(3, ids, BlockInfo{"waitany", -3, 0, MPI_COMM_WORLD});
    g_any.first_index = i;
    g_any.first_clock = now();
    g_any.first_source = E().request(ids[i]).st_source;
    E().release_request(ids[i]);
    ids[i] = -1;
    g_any.second_index = E().wait_any(3, ids, BlockInfo{"waitany", -3, 0, MPI_COMM_WORLD});
    g_any.second_clock = now();
    E().release_request(ids[g_any.second_index]);
  } else if (me() == 1) {
    compute_ps(20 * kUs);
    int v = 1;
    send_ints(&v, 1, 0, 0);
  } else {
    int v = 2;
    send_ints(&v, 1, 0, 0);
  }
  return 0;
}

TEST(EngineWaitAny, PicksEarliestCompletion) {
  g_any = {};
  RunResult r = run_sim(3, app_wait_any);
  ASSERT_EQ(r.rc, 0);
  EXPECT_EQ(g_any.first_index, 2);
  EXPECT_EQ(g_any.first_source, 2);
  EXPECT_EQ(g_any.first_clock, L(4));
  EXPECT_EQ(g_any.second_index, 0);
  EXPECT_EQ(g_any.second_clock, 20 * kUs + L(4));
}

// =====================================================================================================
// 12. Determinism

struct {
  std::vector<int> sources;            // rank 0's wildcard matches, in order
  std::vector<int64_t> completions;
} g_det;

constexpr int kDetRanks = 16, kDetRounds = 6;

int64_t jitter_ps(int r, int k) {
  uint64_t x = static_cast<uint64_t>(r) * 0x9e3779b97f4a7c15ull + static_cast<uint64_t>(k) * 0xbf58476d1ce4e5b9ull;
  x ^= x >> 29;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return static_cast<int64_t>(x % 40'000) * kNs;  // 0..40 us
}

int app_det(int, char**, char**) {
  const int n = static_cast<int>(E().world_size());
  for (int k = 0; k < kDetRounds; ++k) {
    if (me() == 0) {
      compute_ps(jitter_ps(0, k));
      for (int i = 1; i < n; ++i) {
        int v = -1;
        int id = irecv(&v, 1, kAnySource, k);
        wait(id);
        int src = E().request(id).st_source;
        g_det.sources.push_back(src);
        g_det.completions.push_back(E().request(id).completion.ps());
        E().release_request(id);
        std::vector<int> reply(static_cast<size_t>(1 + v % 64), v);
        send_ints(reply.data(), static_cast<int>(reply.size()), src, k);  // sizes vary: varied latencies
      }
    } else {
      compute_ps(jitter_ps(me(), k));
      int v = me() * 31 + k;
      send_ints(&v, 1, 0, k);
      std::vector<int> reply(64, -1);
      int id = irecv(reply.data(), 64, 0, k);
      // Poll for a while, then wait: mixes test() into the schedule.
      for (int p = 0; p < 50 && !E().test(id); ++p) {
      }
      wait(id);
      E().release_request(id);
    }
  }
  return 0;
}

TEST(EngineDeterminism, SameScenarioTwiceGivesIdenticalClocks) {
  g_det = {};
  RunResult a = run_sim(kDetRanks, app_det);
  ASSERT_EQ(a.rc, 0);
  auto sources_a = g_det.sources;
  auto completions_a = g_det.completions;
  g_det = {};
  RunResult b = run_sim(kDetRanks, app_det);
  ASSERT_EQ(b.rc, 0);
  EXPECT_EQ(a.finish_ps, b.finish_ps);
  EXPECT_EQ(sources_a, g_det.sources);
  EXPECT_EQ(completions_a, g_det.completions);
  ASSERT_EQ(sources_a.size(), static_cast<size_t>((kDetRanks - 1) * kDetRounds));
  // Within a round, rank 0's wildcard receives complete in non-decreasing virtual time.
  for (int k = 0; k < kDetRounds; ++k)
    for (int i = 1; i < kDetRanks - 1; ++i) {
      size_t at = static_cast<size_t>(k * (kDetRanks - 1) + i);
      EXPECT_LE(completions_a[at - 1], completions_a[at]) << "round " << k << " receive " << i;
    }
  for (int64_t t : a.finish_ps) EXPECT_GT(t, 0);
}

}  // namespace

// The message layout (engine.hpp): the size and the kind share one word, small blocks are cache-line aligned
// and a payload of up to Message::kLinePayload bytes lies in the header's line; blocks are recycled by size.
TEST(EngineMessageLayout, SizeAndKindShareAWordAndSmallBlocksAreLineAligned) {
  for (uint64_t bytes : {0ull, 1ull, 8ull, 9ull, 72ull, 73ull, 4096ull}) {
    xsim::Message* m = xsim::Message::create(bytes);
    EXPECT_EQ(m->bytes(), bytes);
    EXPECT_EQ(m->kind(), xsim::Message::kData);
    m->set_kind(xsim::Message::kApplied);
    EXPECT_EQ(m->kind(), xsim::Message::kApplied);
    EXPECT_EQ(m->bytes(), bytes);
    if (bytes <= 72) EXPECT_EQ(reinterpret_cast<uintptr_t>(m) % 64, 0u) << bytes;
    if (bytes <= xsim::Message::kLinePayload)
      EXPECT_LE(reinterpret_cast<uintptr_t>(m->payload() + bytes) - reinterpret_cast<uintptr_t>(m), 64u);
    for (uint64_t i = 0; i < bytes; ++i) m->payload()[i] = static_cast<char>(i);  // the payload is writable
    xsim::Message::destroy(m);
  }
  // A freed small block is the next one of its class; the classes do not mix.
  xsim::Message* a = xsim::Message::create(4);
  xsim::Message::destroy(a);
  xsim::Message* b = xsim::Message::create(40);
  EXPECT_NE(a, b);
  xsim::Message* c = xsim::Message::create(8);
  EXPECT_EQ(a, c);
  xsim::Message::destroy(b);
  xsim::Message::destroy(c);
}

TEST(EngineRequestLayout, ErrorIsReadOnlyWhenFailed) {
  xsim::Request q;
  EXPECT_EQ(q.error(), MPI_SUCCESS);
  EXPECT_FALSE(q.failed);
  q.set_error(MPI_ERR_TRUNCATE);
  EXPECT_TRUE(q.failed);
  EXPECT_EQ(q.error(), MPI_ERR_TRUNCATE);
  q.set_error(MPI_SUCCESS);
  EXPECT_FALSE(q.failed);
  EXPECT_EQ(q.error(), MPI_SUCCESS);
  EXPECT_EQ(alignof(xsim::Request), 64u);
  EXPECT_EQ(alignof(xsim::Rank), 64u);
  EXPECT_EQ(sizeof(xsim::Message), 56u);
}

// Engine: one native process's share of the simulation (docs/architecture.md §2-3): the virtual ranks it owns, their
// clocks and fibers, message matching in virtual arrival order, the time-ordered scheduler and the
// conservative windows that synchronise native processes. Layer: libxsim/runtime/core (xsim_core).
// Fiber contract: the scheduler runs on the native thread's own stack; rank code (the application and
// every MPI entry point) runs on the rank's fiber. Functions marked [rank] may only be called from the
// current rank's fiber; they may switch to the scheduler and come back later in host time.
// Nothing here is thread-safe: one native process = one OS thread.
#pragma once
#include <mpi.h>

#include <boost/context/fiber.hpp>
#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <memory>
#include <string>
#include <set>
#include <unordered_map>
#include <vector>

#include "fiber_switch.hpp"
#include "link_contention.hpp"
#include "rank_threads.hpp"
#include "run_queue.hpp"
#include "records.hpp"
#include "stack_pool.hpp"
#include "xsim/netmodel/network.hpp"
#include "xsim/procmodel/noise_model.hpp"
#include "xsim/procmodel/processor_model.hpp"
#include "xsim/simtime.hpp"

namespace xsim {

struct Options;
class Observer;
class Progress;
namespace native {
class Exchange;
}
namespace privatize {
class Privatizer;
}

using AppMain = int (*)(int, char**, char**);

// True in a child process that a rank forked after MPI_Init (set by startup.cpp's pthread_atfork handler).
// Such a child is not a rank: its exit() and the return of its main end it at once, without the
// simulation's shutdown, and an MPI call in it ends it with a message (api_support.cpp, check_init_state:
// the handler marks the forking rank's MPI as finished in the child, so the guard's cold path sees it).
extern bool g_forked_child;

// The error class of an operation that involves a failed rank (docs/resilience.md): ULFM's, where the MPI
// declares it (MPICH), else MPI_ERR_OTHER.
#ifdef MPIX_ERR_PROC_FAILED
constexpr int kErrProcFailed = MPIX_ERR_PROC_FAILED;
#else
constexpr int kErrProcFailed = MPI_ERR_OTHER;
#endif
// The error class of an operation on a revoked communicator (MPIX_Comm_revoke), likewise.
#ifdef MPIX_ERR_REVOKED
constexpr int kErrRevoked = MPIX_ERR_REVOKED;
#else
constexpr int kErrRevoked = MPI_ERR_OTHER;
#endif

class Engine {
 public:
  // `core_of_rank`: the network endpoint (core) of each virtual rank; empty means rank r sits on core r.
  // `cores_per_node`: cores inside one endpoint of the outermost network (a simulated node). With the
  // default placement, native processes own whole nodes, so the lookahead between them is `node_latency`,
  // the smallest latency between two nodes (network_config.hpp, BuiltNetwork), when it exceeds the
  // network's minimum latency.
  Engine(const Options& opt, std::unique_ptr<net::Network> net, std::unique_ptr<proc::ProcessorModel> cpu,
         int proc, int nprocs, AppMain app_main, int argc, char** argv, char** envp,
         std::vector<int32_t> core_of_rank = {}, int64_t cores_per_node = 1, SimTime node_latency = SimTime());
  ~Engine();

  // Runs the simulation to the end. Returns the process exit code.
  int run();

  // First world rank of each native process (one more entry: the rank count), as the constructor assigns
  // them: contiguous blocks, cut at simulated-node boundaries when `node_aligned` (the default placement).
  static std::vector<int64_t> block_starts(int64_t nranks, int nprocs, bool node_aligned, int64_t cores_per_node);
  // Per-rank globals (privatize.hpp): the engine makes each rank's image current before resuming it.
  // What the MPI layer above provides (start-up sets it; without it, as in the unit tests, nothing is freed
  // and communicators are named by their handle): frees a rank's MPI state at teardown, names a
  // communicator in the deadlock report.
  struct Hooks {
    void (*free_rank_state)(Rank&) = nullptr;
    std::string (*describe_comm)(MPI_Comm) = nullptr;
  };
  void set_hooks(const Hooks& h) { hooks_ = h; }
  void set_privatizer(privatize::Privatizer* p) {
    priv_ = p;
    note_direct_switches();
  }
  const privatize::Privatizer* privatizer() const { return priv_; }

  // --- facts -----------------------------------------------------------------------------------------
  int64_t world_size() const { return nranks_; }
  int proc() const { return proc_; }
  int nprocs() const { return nprocs_; }
  int owner_of(int64_t world) const {
    return static_cast<int>(std::upper_bound(proc_first_.begin(), proc_first_.end(), world) - proc_first_.begin()) - 1;
  }
  int64_t first_rank_of(int p) const { return proc_first_[static_cast<size_t>(p)]; }
  int32_t core_of(int64_t world) const {
    return core_of_rank_.empty() ? static_cast<int32_t>(world) : core_of_rank_[static_cast<size_t>(world)];
  }
  int64_t node_of(int64_t world) const { return core_of(world) / cores_per_node_; }
  bool in_rank() const { return current_ != nullptr; }
  size_t stack_size() const { return stacks_->usable_size(); }  // each rank's usable stack (-xsim-stack)
  const StackPool& stacks() const { return *stacks_; }
  Rank& current() { return *current_; }
  Rank* local_rank(int64_t world) {
    int64_t i = world - first_local_;
    return (i >= 0 && i < static_cast<int64_t>(ranks_.size())) ? &ranks_[i] : nullptr;
  }
  const net::Network& network() const { return *net_; }
  const Options& options() const { return opt_; }
  SimTime lookahead() const { return lookahead_; }

  // --- [rank] time -----------------------------------------------------------------------------------
  // Entering/leaving an MPI call: charges the host time computed since the last call (processor model).
  void mpi_enter() {
    Rank& r = *current_;
    if (r.mpi_depth++ > 0) return;
    r.mpi_entry_sp = stack_pointer();
    if (host_timing_) charge_host_time(r);
    r.mpi_entry_clock = r.clock;
    if (enter_hooks_) [[unlikely]] {  // one test for all: injected failures, threaded ranks, poll skipping
      if (poll_skip_) ++streaks_[static_cast<size_t>(r.index)].calls;
      if (faulty_) fail_if_due(r);
      if (r.threaded) threads_enter(r);  // a sibling thread at an earlier time goes first
    }
  }
  void mpi_leave() {
    Rank& r = *current_;
    if (--r.mpi_depth > 0) return;
    // Unchecked: the MPI time is a sum of disjoint stretches of the rank's clock, never beyond it.
    r.stats.mpi = SimTime::from_ps(r.stats.mpi.ps() + (r.clock - r.mpi_entry_clock).ps());
    if (leave_hooks_) {  // one test for both: the processor model times host computation, threaded ranks
      if (host_timing_) r.host_resume_ns = now_ns();
      if (r.threaded) [[unlikely]] threads_note_progress(r);  // a call completed: waiting siblings look again
    }
  }
  // [rank] Leaving a stretch inside the engine that is not MPI time (a pthread call of a threaded rank).
  void sync_leave() {
    current_->mpi_entry_clock = current_->clock;
    mpi_leave();
  }
  void charge_compute(SimTime t);   // explicit charge (xsim_compute, the kernel models)
  // Node variability (docs/noise.md): the time factor of local rank `index`'s node (-xsim-node-speed), and
  // whether any noise or factor other than 1 applies to this process's charges.
  double node_speed(int32_t index) const { return speed_.empty() ? 1.0 : speed_[static_cast<size_t>(index)]; }
  bool varied() const { return varied_; }
  // The noise that stretched local rank `index`'s computation so far (part of its compute time).
  SimTime noise_of(int32_t index) const {
    return noise_time_.empty() ? SimTime::zero() : noise_time_[static_cast<size_t>(index)];
  }
  proc::NoiseModel* noise() const { return noise_.get(); }
  // Whether the processor model times host computation (scaled), and what `host_ns` of it costs in virtual
  // time (the collectives' reductions: coll/reduce.hpp).
  bool host_timing() const { return host_timing_; }
  SimTime host_compute(int64_t host_ns) const;
  SimTime explicit_compute(SimTime t) const;  // an xsim_compute charge under the node model
  // [rank] Work inside an MPI call that takes virtual time (a collective's reduction): the clock moves on.
  void advance_clock(SimTime t) {
    current_->clock += t;
    clock_moved();
  }
  // [rank] The rank's virtual clock, as the application's clock reads (MPI_Wtime, and gettimeofday and
  // clock_gettime when virtual) return it; an MPI call of its own (the compute time is charged first).
  // A rank that reads the clock kClockPollReads times in a row through MPI_Wtime (`libc` false), or
  // kLibcClockPollReads times through libc's clocks (`libc` true: code other than the application's loop
  // reads those too, the native MPI's libraries and the sanitizers' runtime), while it stands still (no
  // computation, no MPI call that moves it: the processor model none) is taken to be waiting for it to
  // advance, which it never would: from then on each such read advances it by the poll cost, as MPI_Test
  // does, and the native process says so once on stderr. Counted per rank, so the same on any number of
  // processes.
  SimTime read_clock(bool libc = false);
  static constexpr uint32_t kClockPollReads = 256;
  static constexpr uint32_t kLibcClockPollReads = 1u << 20;
  // Yields until this rank is the earliest runnable rank of the process and inside the current window,
  // so that decisions depending on other ranks are final.
  void yield_if_ahead();

  // --- [rank] point-to-point ---------------------------------------------------------------------------
  // Sends `count` x `type` at `buf` to world rank `dst` (the data is copied at once). With `sync_req` >= 0
  // the request completes when the receiver matches the message (synchronous mode). The loggp model
  // (docs/network-model.md) charges the send overhead to the rank's clock first, and sends a message above
  // the eager limit by rendezvous unless `eager_only` (buffered mode): its request (`sync_req`, else a new
  // one) completes when the data has left, after the receiver's clear-to-send. Returns the request to
  // complete (`sync_req` or the rendezvous request), or -1 when the send is complete on return.
  int send(const void* buf, int count, MPI_Datatype type, int64_t dst, int tag, uint64_t ctx, int src_in_comm,
           int sync_req, bool eager_only = false);
  [[gnu::always_inline]] int new_send_request(bool complete) {
    int id;
    if (!free_requests_.empty()) [[likely]] {
      id = free_requests_.back();
      free_requests_.pop_back();
    } else {
      id = grow_requests();
    }
    Request& q = requests_[static_cast<size_t>(id)];
    uint32_t gen = q.gen;
    q = Request{};
    q.gen = gen;
    q.kind = Request::Kind::Send;
    q.complete = complete;
    q.completion = current_ ? current_->clock : SimTime::zero();
    return id;
  }
  // --- [rank] application threads as fibers (rank_threads.hpp; process/libc_pthread.cpp) -------------------
  // Makes the current rank threaded: the threads its application creates from now on are fibers of the rank;
  // `level` is the thread level MPI_Init_thread granted (MPI_Query_thread answers it).
  void threads_enable(int level);
  int thread_level() const;                 // the current rank's granted level if threaded, else -1
  RankThread* thread_running();             // the current rank's running thread, null when not threaded
  RankThread* rank_thread(const void* handle);  // `handle` if it is a live thread of the current rank, else null
  // A new thread of the current rank running start(arg) on its own stack of `stack_size` bytes, ready at the
  // rank's clock (it runs once its creator waits or enters MPI). Null when its stack cannot be mapped.
  RankThread* thread_create(void* (*start)(void*), void* arg, size_t stack_size, bool detached);
  // The running thread waits, taking no virtual time, until thread_wake(it); `what` names the call for a
  // deadlock report. With `may_time_out`, returns false instead of waiting when nothing could ever wake it
  // (no sibling can run or waits for a message); without, that is reported as a deadlock.
  bool thread_wait(const char* what, bool may_time_out = false);
  void thread_wake(RankThread* t);          // a waiting thread is ready again, no earlier than the caller's clock
  void thread_yield();                      // another ready thread of the rank runs first, if any
  [[noreturn]] void thread_exit(void* result);
  int thread_join(RankThread* t, void** result);  // 0, or EDEADLK / EINVAL as pthread_join
  int thread_detach(RankThread* t);

  // --- [rank] injected failures (docs/resilience.md) ---------------------------------------------------
  // When world rank `w` fails (-xsim-fault), or infinity. Every process knows every rank's.
  SimTime fail_time(int64_t w) const {
    if (!may_fail(w)) [[likely]] return SimTime::infinity();  // the usual answer, from a bitmap
    return fail_at_[static_cast<size_t>(w)];
  }
  // Whether world rank `w` has a failure time (faults configured).
  bool may_fail(int64_t w) const {
    if (!faulty_) [[likely]] return false;
    const auto u = static_cast<uint64_t>(w);
    return (fails_[u >> 6] >> (u & 63)) & 1;
  }
  // When a failure of world rank `w` is detected (its failure time plus the detection delay), or infinity.
  SimTime detection_time(int64_t w) const {
    const SimTime t = fail_time(w);
    return t == SimTime::infinity() ? t : t + detect_;
  }
  // If request `q`'s peer has failed and the detection delay has passed by the rank's clock: completes it
  // with kErrProcFailed (at the detection time) and returns true.
  // `group_world`/`group_detect`: a failed member of the collective in progress (set_group_detection).
  bool detect_failure(Request& q, int64_t group_world = -1, SimTime group_detect = SimTime::infinity()) {
    if (current_->clock < first_detect_) [[likely]] return false;  // no failure can have been detected yet
    return detect_failure_slow(q, group_world, group_detect);
  }
  bool detect_failure_slow(Request& q, int64_t group_world, SimTime group_detect);
  // The last failure an operation detected on this process, for its error message.
  struct Detected {
    int64_t world = -1;
    SimTime failed, detected;
  };
  const Detected& last_detected() const { return last_detected_; }
  // [rank] Inside a collective: the earliest detection of a failed member of its communicator (world rank
  // `world`, detected at `t`), which fails any of its waits; world -1 clears it.
  void set_group_detection(int64_t world, SimTime t) {
    group_world_ = world;
    group_detect_ = t;
  }
  bool faults() const { return faulty_; }
  // ULFM revocation (docs/resilience.md). [hook or rank] World rank `world` (a local rank) learns at virtual
  // time `t` that the communicator whose contexts are `p2p_ctx`/`coll_ctx` is revoked: its receives posted
  // on them complete with kErrRevoked at `t` (it is woken), and so does every receive it posts on them later
  // (post_recv, which runs with every revocation up to the rank's clock applied).
  void revoke_contexts(uint64_t p2p_ctx, uint64_t coll_ctx, int64_t world, SimTime t);
  bool revoked(uint64_t ctx, int64_t world) const {
    return revoked_any_ && revoked_.count({ctx, world}) != 0;
  }
  // [rank] Whether the current rank's context `ctx` is revoked by its clock, revocations being engine-applied
  // messages of `family`: checked once the rank is the earliest of its process (every revocation up to its
  // clock applied). Free until a message of that family has reached this process (a message is routed here
  // before any rank's clock reaches its arrival, so none can be due before).
  bool revoked_now(uint64_t ctx, int family) {
    if (!((applied_families_ >> family) & 1) && !revoked_any_) [[likely]] return false;
    ensure_earliest();
    return revoked(ctx, current_->world);
  }
  int64_t failed_ranks() const { return failed_local_; }  // this process's ranks that failed
  int64_t detections() const { return detections_; }       // operations of this process that reported one
  void count_detection() { ++detections_; }                 // one more (an agreement that found a failure)
  // Posts a receive; returns its request id.
  // `source_world`: the source's world rank when it is not a wildcard (failure detection), else -1.
  int post_recv(void* buf, int count, MPI_Datatype type, int source, int tag, uint64_t ctx, int32_t source_world = -1);
  Request& request(int id) { return requests_[static_cast<size_t>(id)]; }
  bool valid_request(int id) const {
    return id >= 0 && static_cast<size_t>(id) < requests_.size() &&
           requests_[static_cast<size_t>(id)].kind != Request::Kind::Free;
  }
  [[gnu::always_inline]] void release_request(int id) {
    Request& q = requests_[static_cast<size_t>(id)];
    if (q.kind == Request::Kind::Matched) [[unlikely]] release_matched(q);
    q.kind = Request::Kind::Free;
    ++q.gen;
    free_requests_.push_back(id);
  }
  // Blocks until request `id` is complete (clock moves to its completion time).
  [[gnu::always_inline]] void wait(int id, const BlockInfo& why) {
    Request& q = requests_[static_cast<size_t>(id)];
    if (faulty_) [[unlikely]] {  // wait_incomplete wakes at a failed peer's detection time
      const int64_t gw = group_world_;
      const SimTime gd = group_detect_;
      if (!q.complete) wait_incomplete(q, why);
      if (!q.complete) detect_failure(q, gw, gd);
    } else if (!q.complete) {
      wait_incomplete(q, why);
    }
    if (current_->clock < q.completion) {
      current_->clock = q.completion;
      clock_moved();
    }
  }
  void wait_incomplete(Request& q, const BlockInfo& why);
  // Blocks until at least one of `ids` (negative entries ignored) is complete; returns its position
  // (earliest completion, ties lowest position), or -1 if all entries are negative.
  int wait_any(int n, const int* ids, const BlockInfo& why);
  // Nonblocking completion check at the current virtual time (charges the poll cost).
  bool test(int id);
  // Whether request `q` has completed by the current rank's clock (a loggp receive can be matched, its
  // completion known, and still end later: receive overhead, contention, rendezvous).
  bool done_by_now(const Request& q) const { return q.complete && q.completion <= current_->clock; }
  bool cancel(int id);
  // Makes every arrival up to the current virtual time visible (yielding first if needed).
  void refresh_arrivals();
  // Probe: finds the first unexpected message matching (source, tag, ctx).
  Message* probe(int source, int tag, uint64_t ctx, bool block, const BlockInfo& why);
  // Nonblocking probe charged with the poll cost (MPI_Iprobe): probe(source, tag, ctx, false, ..), then
  // charge_poll(). Inline up to the usual answer, "nothing": no unexpected message, no arrival due by the
  // rank's clock, no nonblocking collective to progress (the full probe finds nothing then either).
  // The yield is inline too (one frame from MPI_Iprobe to the context jump), and not remembered as
  // ensure_earliest() would: the poll charge moves the clock at once.
  [[gnu::always_inline]] Message* iprobe(int source, int tag, uint64_t ctx) {
    Rank& r = *current_;
    if (poll_skip_) [[unlikely]] skip_polls(r, source, tag, ctx);
    if ((earliest_switch_ != switches_ || earliest_clock_ != r.clock) && !poll_decided(r)) yield_inline();
    Message* m = nullptr;
    if (!r.unexpected.empty() || r.pending_progress ||
        (!r.arrivals.empty() && r.arrivals.front()->t_arrive <= r.clock)) [[unlikely]]
      m = probe(source, tag, ctx, false, BlockInfo{"MPI_Iprobe", source, tag, MPI_COMM_NULL});
    charge_poll();
    if (poll_skip_ && !m) [[unlikely]] note_empty_poll(r, source, tag, ctx);
    return m;
  }
  // Matched probe: like probe, but the message leaves the unexpected queue and is held by a new request
  // of kind Matched (its id is returned; -1 when nonblocking and nothing matches).
  int mprobe(int source, int tag, uint64_t ctx, bool block, const BlockInfo& why);
  // Receives the message held by Matched request `id` into (buf, count, type): `id` becomes a complete
  // receive request (truncation reported in its status as for any receive).
  void mrecv(int id, void* buf, int count, MPI_Datatype type);
  // A request of `kind` (Coll, Persistent) that the API layer completes itself.
  int new_request(Request::Kind kind);
  void charge_poll() {
    current_->clock += poll_cost_;
    clock_moved();
  }
  // [rank] After the running rank's clock moved forward: delivers the pending messages once one of them
  // may be due by it (they must be visible to its arrival checks and run-queue comparisons).
  void clock_moved() {
    if (pending_min_ <= current_->clock) [[unlikely]] drain_pending();
  }

  // Progress of operations the API layer drives (nonblocking collectives): while the current rank's
  // `pending_progress` is non-zero, every completion call (wait, wait_any, test, refresh_arrivals, probe)
  // runs `hook` after making the rank's arrivals visible, at a safe point of the rank's clock. The hook
  // may send and post receives, never block.
  using ProgressHook = void (*)(Rank&);
  void set_progress_hook(ProgressHook hook) { progress_hook_ = hook; }

  // Engine-applied messages (kind kApplied: one-sided operations, shared file pointers; docs/rma.md). They
  // bypass matching: the destination's native process applies each one, in the order (t_arrive, source,
  // send order) interleaved with its ranks in virtual time, by calling its family's hook (which owns it)
  // with no rank current and the destination rank's globals in place. So an operation on a rank's memory
  // takes effect at its arrival time whatever that rank is doing, and identically for any N.
  static constexpr int kAppliedFamilies = 4;
  static constexpr int32_t kRendezvousFamily = kAppliedFamilies;  // the engine's own: clear-to-send
  using AppliedHook = void (*)(Message* m);
  void set_applied_hook(int family, AppliedHook hook) { applied_hooks_[family] = hook; }
  // [rank] Sends `m` (payload, ctx, tag and family filled in) from the current rank to world rank `dst`,
  // leaving at its clock and costing the network latency of `model_bytes` (per-pair FIFO order as for every
  // send). Returns the arrival time.
  SimTime send_applied(Message* m, int64_t dst, uint64_t model_bytes);
  // [hook] Sends `m` on behalf of local world rank `src`, leaving at virtual time `t`.
  SimTime send_applied_from(Message* m, int64_t src, int64_t dst, SimTime t, uint64_t model_bytes);
  // [rank or hook] Sends `m` as from world rank `src`, arriving at `arrive` (no network model, no FIFO order;
  // at least the lookahead after the sender's clock when `dst` lives in another process).
  void send_applied_at(Message* m, int64_t src, int64_t dst, SimTime arrive);
  // [hook] A blocked local rank is resumed at virtual time `t` (to re-check what it waits for).
  void wake(int64_t world, SimTime t);
  // [rank] Blocks until `done()` holds: checked once the rank is the earliest of its process (so every
  // message applied up to its clock has been applied) and again after every wake-up.
  template <class Done>
  void wait_until(Done&& done, const BlockInfo& why) {
    wait_until(done, [] { return SimTime::infinity(); }, why);
  }
  // The same, and the rank also wakes at `deadline()`: the earliest virtual time after its clock at which
  // `done()` may turn true without a message or a wake(), or infinity (the ULFM agreement's deadlines).
  template <class Done, class Deadline>
  void wait_until(Done&& done, Deadline&& deadline, const BlockInfo& why) {
    yield_if_ahead();
    for (;;) {
      process_arrivals(*current_, current_->clock);
      progress(*current_);
      if (done()) return;
      detect_wake_ = deadline();
      block(why, detect_wake_ != SimTime::infinity());  // wakes at the deadline too
      detect_wake_ = SimTime::infinity();
    }
  }

  // --- collective replay (coll_replay.cpp) --------------------------------------------------------------
  // The pieces of a send the fast path of local collectives needs to time a message exactly as send() does.
  // The network latency of `bytes` from world rank `src` to world rank `dst`.
  SimTime message_latency(int64_t src, int64_t dst, uint64_t bytes) const {
    return net_->message_latency(core_of(src), core_of(dst), bytes, transfer_memo_);
  }
  // The arrival of a message from local rank `r` to `dst` leaving at virtual time `now` with network arrival
  // `t`, after every earlier message of the pair (send()'s FIFO rule; updates r's record of recent sends).
  SimTime fifo_arrival_at(Rank& r, int32_t dst, SimTime now, SimTime t) {
    return fifo_clamp(r.recent, dst, now + min_latency_, t);
  }
  // The per-pair FIFO rule on a sender's list of recent sends: a message to `dst` that would arrive at `t`
  // arrives no earlier than the sender's earlier messages to `dst`. Messages between one pair never overtake
  // each other. Only sends whose arrival is later than anything a new send could achieve (`horizon`: now +
  // minimum latency) are remembered, so the list stays tiny.
  static SimTime fifo_clamp(SmallVec<Rank::RecentSend, 2>& rec, int32_t dst, SimTime horizon, SimTime t) {
    size_t k = 0;
    for (size_t i = 0; i < rec.size(); ++i) {
      if (rec[i].t_arrive <= horizon) continue;
      if (rec[i].dst == dst && rec[i].t_arrive > t) t = rec[i].t_arrive;
      rec[k++] = rec[i];
    }
    rec.truncate(k);
    if (t > horizon) rec.push_back({dst, t});
    return t;
  }
  SimTime min_latency() const { return min_latency_; }
  // The loggp terms the replay needs (its barrier models the overheads; docs/collectives.md).
  SimTime send_overhead() const { return os_; }
  SimTime recv_overhead() const { return or_; }
  // Whether the replay's timing is the message path's for messages of up to `bytes` with data: always
  // under the analytic model; under loggp for eager messages without link contention (the overheads, the
  // gap and endpoint contention are the replay's: replay_nic_*; zero-byte messages never touch the NIC).
  bool replay_times_exact(uint64_t bytes) const { return !loggp_ || bytes == 0 || (bytes <= eager_ && !links_); }
  // Whether messages with data between nodes use the nodes' NICs (loggp with endpoint contention or a gap):
  // the replay then times them through the NICs in the message path's order (nodes of one core: injection
  // in the rank's program order, ejection in arrival order) and checks that order as it goes
  // (coll_replay.cpp, EngineNet).
  bool replay_nic_timed() const { return nic_; }
  // With NICs timed, whether a replay could meet another user of a member's NIC: on nodes of several cores,
  // a node-mate (still in the previous collective, say) times the node's sends and arrivals while the member
  // waits, so the member could not restart at its entry time on the point-to-point path if the replay's
  // check failed; and on a communicator smaller than the world, a non-member could send to a member's node
  // (ejection).
  bool replay_nic_shared(int64_t comm_size) const {
    return nic_ && (cores_per_node_ > 1 || (contention_ && comm_size < nranks_));
  }
  // The NIC of local rank `r`'s node (an index into this process's replay_nic_count() NICs), when its links
  // are next free (the replay reads and writes them), whether time_ejection applies, inter_node; the wire
  // latency of `bytes` from world rank `src` to `dst` on another node with its transfer time in `*xfer`, and
  // how long that keeps the sender's NIC busy (Engine::send's NIC branch).
  int32_t replay_nic_of(const Rank& r) const { return nic_of_local_[static_cast<size_t>(r.index)]; }
  size_t replay_nic_count() const { return nics_.size(); }
  SimTime& replay_inject_free(int32_t nic) { return nics_[static_cast<size_t>(nic)].inject_free; }
  SimTime& replay_eject_free(int32_t nic) { return nics_[static_cast<size_t>(nic)].eject_free; }
  bool replay_ejection_timed() const { return contention_; }
  bool replay_inter_node(int64_t a, int64_t b) const { return inter_node(a, b); }
  SimTime replay_wire_latency(int64_t src, int64_t dst, uint64_t bytes, SimTime* xfer) const {
    return route_latency(net_->route(core_of(src), core_of(dst)), bytes, xfer);
  }
  SimTime replay_nic_busy_for(SimTime xfer) const { return max(gap_, contention_ ? xfer : SimTime::zero()); }
  void replay_drain() { drain_pending(); }  // delivers the deferred messages (the replay reads the arrivals)
  // The replay's members wait (blocked) for the last one, while the scheduler goes on: a clear-to-send
  // applied meanwhile would use a member's node NIC out of its virtual-time order (Engine::send orders NIC
  // use by time). So no replay when a member's node has a rendezvous send waiting for its clear-to-send
  // (`replay_nic_busy`), nor, on nodes of several cores, for a communicator that leaves out ranks which
  // could start one meanwhile (`replay_nic_open`).
  bool replay_nic_busy(const Rank& r) const {
    return nic_ && nics_[static_cast<size_t>(nic_of_local_[static_cast<size_t>(r.index)])].awaiting_cts > 0;
  }
  bool replay_nic_open(int64_t comm_size) const { return nic_ && cores_per_node_ > 1 && comm_size < nranks_; }
  // A replay whose members' arrivals are timed (ejection) holds virtual time while its members wait: no rank
  // may time an arrival at or after the earliest member's entry plus the minimum latency before the replay
  // is done or abandoned (coll_replay.cpp), so a poll may no longer look ahead of the run queue's top by up
  // to the minimum latency (poll_decided) while one is held. `on`: one more held, else one fewer.
  void replay_hold(bool on) {
    replay_holds_ += on ? 1 : -1;
    poll_lookahead_ = !faulty_ && replay_holds_ == 0;
  }
  // Counts `messages` replayed data messages of `bytes` in all sent by local rank `r` (statistics, report,
  // send order).
  void count_replayed_sends(Rank& r, uint64_t messages, uint64_t bytes) {
    r.stats.messages += messages;
    r.stats.bytes += bytes;
    r.send_seq += messages;
    messages_sent_ += messages;
  }
  // Makes local rank `r`'s globals current (privatization), for code run on its behalf from another
  // rank's fiber (user-defined reduction operations); enter_globals(current()) restores.
  void enter_globals(const Rank& r);

  // --- [rank] lifecycle ------------------------------------------------------------------------------
  [[noreturn]] void rank_exit(int code);          // exit() called by the application
  [[noreturn]] void abort_simulation(int code, const std::string& why);

  // Crash reporting (signal handler): the rank whose stack contains `addr`, or -1.
  long rank_of_stack_address(const void* addr) const;
  bool is_stack_overflow(const void* addr) const { return stacks_->overflow_slot(addr) >= 0; }
  // True when the running rank's stack pointer `sp` has left its stack or its canary is damaged.
  bool current_stack_overflowed(const void* sp) const;
  int64_t world_of_local(long i) const { return first_local_ + i; }

  uint64_t context_switches() const { return switches_; }
  uint64_t polls_skipped() const { return polls_skipped_; }  // -xsim-poll-skip

  // Observation (observer.hpp, progress.hpp; docs/observability.md): null unless a trace, statistics or the
  // progress line is on; the engine's hooks cost one predictable branch each when they are off.
  void set_observer(Observer* o) {
    observer_ = o;
    watched_ = observer_ || progress_;
    note_direct_switches();
  }
  Observer* observer() const { return observer_; }
  void set_progress(Progress* p) {
    progress_ = p;
    watched_ = observer_ || progress_;
    note_direct_switches();
  }
  int64_t unfinished_local() const { return unfinished_local_; }
  uint64_t messages_sent() const { return messages_sent_; }   // data messages sent by this process's ranks

 private:
  void enqueue(Rank& r, SimTime key) {
    r.queued = true;
    r.queue_key = key;
    ++r.queue_gen;
    queue_.push(key.ps(), r.index, r.queue_gen);
  }
  int grow_requests();                  // a new entry at the end of the request table: its id
  void release_matched(Request& q);     // frees the message a released Matched request still holds
  // [rank] yield_if_ahead(), skipped when the current rank has already been found the earliest of its
  // process at its present clock since it was last resumed. The answer stands until its clock moves or
  // it switches out: its own sends arrive after clock + min latency (deliver_local forgets the answer for
  // a zero-latency one), and only wake() (forgets it too) queues ranks otherwise. Saves the second run-queue
  // look-up of a receive (post_recv, then wait at the same clock).
  void ensure_earliest() {
    if (earliest_switch_ == switches_ && earliest_clock_ == current_->clock) return;
    yield_if_ahead();
    earliest_switch_ = switches_;
    earliest_clock_ = current_->clock;
  }
  void forget_earliest() { earliest_switch_ = ~uint64_t{0}; }
  // [rank] block(), then: a rank resumed at its queue key is the run queue's minimum at its clock (ties by
  // rank, applied messages first, inside the window), so the next ensure_earliest() at that clock is free.
  void block_then_note(const BlockInfo& why) {
    block(why);
    Rank& r = *current_;
    if (r.clock == r.queue_key) {  // (never after an inner switch of a threaded rank: it voids queue_key)
      earliest_switch_ = switches_;
      earliest_clock_ = r.clock;
    }
  }
  void clean_heap_top();
  void switch_to_scheduler();
  // [rank] The current rank leaves (queued or blocked): straight to the next rank to run when the scheduler
  // has nothing else to do first, else to the scheduler.
  void switch_out();
  void switch_out_clean();  // switch_out() when the run queue's top is known to be live
  // [rank] The current rank `a`, queued, leaves for the run queue's top (`index`, at `key`), known to be live,
  // inside the window and before any engine-applied message: directly when nothing else stops it, else
  // through the scheduler.
  [[gnu::always_inline]] void switch_to_top(Rank& a, int64_t key, int32_t index) {
    // switch_out_clean's checks, less those the caller's facts settle: the top is inside the window, no
    // engine-applied message comes before it, and it is not `a` (queued behind it).
    Rank& b = ranks_[static_cast<size_t>(index)];
    if (!direct_switch_ || b.state == RankState::NotStarted || !stacks_->switch_check_ok(static_cast<size_t>(a.index)) ||
        due_before(b, key)) [[unlikely]]
      return switch_to_scheduler();
    take_top(b, key);
    if (large_scale_) prefetch_next();
    jump_to(a, b);
  }
  // [rank] A direct switch's hand-over: the run queue's top `b` (live, at `key`) leaves the queue and becomes
  // the running rank, its clock raised to `key` (a blocked rank sat idle until then).
  [[gnu::always_inline]] void take_top(Rank& b, int64_t key) {
    queue_.pop();
    b.queued = false;
    if (b.clock.ps() < key) b.clock = SimTime::from_ps(key);
    ++switches_;
    b.state = RankState::Running;
  }
  // [rank] Jumps from the current rank `a` to rank `b` (started, taken off the queue, made Running).
  [[gnu::always_inline]] void jump_to(Rank& a, Rank& b) {
    const int saved_errno = *errno_;  // errno belongs to the native thread: each rank keeps its own
    current_ = &b;
    leaving_ = &a;
#if XSIM_ASAN
    FiberStack& here = a.running_stack();
    switch_leave(&here, &b.running_stack());
    boost::context::fiber f = std::move(b.fiber).resume();
    switch_arrive(here);
#else
    boost::context::fiber f = std::move(b.fiber).resume();
#endif
    take_incoming(std::move(f));
    *errno_ = saved_errno;
  }
  // [rank] Whether a poll (MPI_Iprobe, MPI_Test) at r's clock is already decided without yielding: every other
  // rank of the process acts at its run-queue key or later, and a message takes at least the network's
  // smallest latency, so nothing they do can arrive at r by its clock when key + min latency > clock;
  // messages from other processes arrive at the window's end or later, and no engine-applied message is
  // due. A polling rank so keeps running until its clock passes the earliest time anything could reach it,
  // instead of switching out at every poll; the answer, and so every virtual time, is the one yield_inline
  // would have led to. Off (false) with injected failures (detections wake ranks without a message) and
  // for threaded ranks (their sibling threads are ordered by the rank's own rule).
  [[gnu::always_inline]] bool poll_decided(Rank& r) {
    if (!poll_lookahead_ || r.threaded || r.clock >= window_end_ ||
        (!applied_.empty() && applied_.front()->t_arrive <= r.clock)) [[unlikely]]
      return false;
    const RunQueue::Entry* top = live_top();
    return !top || queue_.top_key() > r.clock.ps() - min_latency_.ps();
  }
  // -xsim-poll-skip (Options::poll_skip). Each rank's streak (streaks_, only with the option): its MPI calls
  // so far, and the call, clock and arguments of its last empty MPI_Iprobe. skip_polls: when the current
  // call repeats it (the same source, tag and context; no other MPI call of the rank in between; the clock
  // where that poll left it) kPollStreak times, the rank blocks until its next arrival (or a wake-up) and
  // its clock moves to the first time on its poll grid (t0 + k x poll step) at or after that: every poll
  // before it would have found nothing, since nothing arrived; this one is then answered there as usual.
  // Per rank, so that the decision does not depend on how the ranks of a process interleave (the same for
  // any number of native processes). Not for threaded ranks, nonblocking collectives in progress, or
  // injected failures.
  struct PollStreak {
    uint32_t count = 0;
    uint64_t calls = 0;       // the rank's outermost MPI calls (mpi_enter)
    uint64_t noted_call = 0;  // `calls` at its last empty MPI_Iprobe
    SimTime clock;
    int source = 0, tag = 0;
    uint64_t ctx = 0;
  };
  static constexpr uint32_t kPollStreak = 64;
  void skip_polls(Rank& r, int source, int tag, uint64_t ctx);
  void note_empty_poll(const Rank& r, int source, int tag, uint64_t ctx) {
    PollStreak& s = streaks_[static_cast<size_t>(r.index)];
    s.noted_call = s.calls;
    s.clock = r.clock;
    s.source = source;
    s.tag = tag;
    s.ctx = ctx;
  }
  // yield_if_ahead(), inline up to the jump to the next rank (the usual case); the rest out of line.
  [[gnu::always_inline]] void yield_inline() {
    Rank& r = *current_;
    if (r.clock >= window_end_ || (!applied_.empty() && applied_.front()->t_arrive <= r.clock)) [[unlikely]]
      return yield_behind(r);
    const RunQueue::Entry* top = live_top();
    if (!top) return;
    const int64_t key = queue_.top_key();
    const int32_t index = top->index;
    if (key > r.clock.ps() || (key == r.clock.ps() && index > r.index)) return;
    if (r.threaded) [[unlikely]] return yield_behind(r);  // queued at its earliest thread's clock
    r.state = RankState::Runnable;
    enqueue(r, r.clock);  // behind the top, which stays the (live) top
    // The top is at or before r's clock: inside the window, and before any applied message (both checked
    // against r's clock above).
    switch_to_top(r, key, index);
  }
  // [rank] The current rank `r` is beyond the window, or an engine-applied message comes first (applied
  // first on ties): it queues itself and leaves.
  void yield_behind(Rank& r);
  // The run queue's live top (stale entries before it dropped), or null when it is empty. Inline while the
  // top is live.
  const RunQueue::Entry* live_top() {
    if (queue_.empty()) return nullptr;
    const RunQueue::Entry& e = queue_.top();
    const Rank& t = ranks_[static_cast<size_t>(e.index)];
    if (t.queued && t.queue_gen == e.gen) [[likely]] return &e;
    clean_heap_top();
    return queue_.empty() ? nullptr : &queue_.top();
  }
  // direct_switch_: no observer, no progress line, no privatization (switch_out's conditions that never
  // change during a run, kept in one flag).
  void note_direct_switches() { direct_switch_ = !observer_ && !progress_ && !priv_; }
  void charge_host_time(Rank& r);  // mpi_enter's processor model: the host time since the rank last resumed
  // A charge of `c` to the current clock of `r` under the node's speed factor and noise: returns how far the
  // clock moved (varied_ only; docs/noise.md).
  SimTime charge_varied(Rank& r, SimTime c);
  void setup_variability();
  // Starts loading what the ranks queued after the one about to run will touch when resumed.
  void prefetch_next();
  // Starts loading what resuming `next` touches first: its stack around the saved pointer, its canary.
  void prefetch_resume(const Rank& next);
  // After a switch lands: stores the continuation it brought in the record of whoever left (leaving_).
  // The destination is empty (its continuation was resumed): a swap leaves `f` empty, nothing to destroy.
  void take_incoming(boost::context::fiber&& f) {
    if (leaving_)
      leaving_->fiber.swap(f);  // a rank switched here directly: its continuation
    else
      scheduler_.swap(f);
  }
  void resume(Rank& r);
  void watch_resume(Rank& r, SimTime key);
  void start_fiber(Rank& r);
  void run_window(SimTime window_end);
  void deliver_local(Message* m);
  // A message from the running rank to a local rank, arriving later than the sender's clock: into the
  // pending ring (the oldest is delivered when it is full).
  void defer_delivery(Message* m);
  // Delivers every pending message (oldest first), first prefetching each destination's first arrival.
  void drain_pending();
  // True (after draining) when a pending message might be due by `key` or by rank `b`'s clock: the run
  // queue's top must then be read again. For a direct switch to `b` at `key`.
  bool due_before(const Rank& b, int64_t key) {
    if (pending_min_.ps() > key && pending_min_ > b.clock) [[likely]] return false;
    drain_pending();
    return true;
  }
  void route(Message* m) {
    if (static_cast<uint64_t>(m->dst - first_local_) < ranks_.size())  // one of this process's ranks
      deliver_local(m);
    else
      route_remote(m);
  }
  void route_remote(Message* m);
  // Processes r's arrivals up to `upto` (matching each against the posted receives, else queueing it as
  // unexpected); inline: usually there is none due, and the test is two loads.
  void process_arrivals(Rank& r, SimTime upto) {
    if (!r.arrivals.empty() && r.arrivals.front()->t_arrive <= upto) process_due_arrivals(r, upto);
  }
  void process_due_arrivals(Rank& r, SimTime upto);
  [[gnu::always_inline]] inline void match_recv(Rank& r, int id, Request& q, Message* m, SimTime when);
  void progress(Rank& r) {
    if (r.pending_progress && progress_hook_) progress_hook_(r);
  }
  void send_ack(Rank& r, Message* m, SimTime when);
  SimTime fifo_arrival(Rank& r, int32_t dst, SimTime t) { return fifo_arrival_at(r, dst, r.clock, t); }
  void finish_rank(Rank& r, int code);
  void check_canary(Rank& r);
  int report_deadlock(int64_t unfinished_total);
  // [rank] The current rank waits (blocked) until an arrival or a wake(); `timed`: also until detect_wake_.
  void block(const BlockInfo& why, bool timed = false) {
    if (current_->threaded) [[unlikely]] return threads_block(*current_, why, timed);
    block_rank(*current_, why, timed);
  }
  void block_rank(Rank& r, const BlockInfo& why, bool timed);
  // The threaded ranks' side (rank_threads.cpp).
  std::unordered_map<int32_t, std::unique_ptr<RankThreads>> threads_;  // by local index
  RankThreads& threads_of(const Rank& r);
  void threads_enter(Rank& r);
  void threads_run_earlier(Rank& r);
  void threads_yield(Rank& r);
  void threads_note_progress(const Rank& r);
  void threads_block(Rank& r, const BlockInfo& why, bool timed);
  void threads_switch(Rank& r, RankThreads& g, RankThread& from, RankThread& to);
  RankThread* threads_pick(RankThreads& g, const RankThread* me, bool only_earlier);
  void threads_wait_engine(Rank& r, RankThreads& g);
  [[noreturn]] void threads_deadlock(Rank& r, RankThreads& g);
  std::string threads_summary(const Rank& r);  // "; thread 1 ..., thread 0 (main) waits in .." (deadlock report)
  void free_rank_threads();
  void print_stack_of_current();
  SimTime local_next_key();
  int64_t now_ns() const;

  const Options& opt_;
  Hooks hooks_;
  std::unique_ptr<net::Network> net_;
  std::unique_ptr<proc::ProcessorModel> cpu_;
  bool host_timing_;
  int proc_, nprocs_;
  int64_t nranks_, first_local_;
  AppMain app_main_;
  int argc_;
  char** argv_;
  char** envp_;
  std::vector<Rank> ranks_;
  std::vector<int32_t> core_of_rank_;
  int64_t cores_per_node_ = 1;
  std::vector<int64_t> proc_first_;         // first rank of each native process; proc_first_[nprocs] = M
  std::unique_ptr<StackPool> stacks_;
  privatize::Privatizer* priv_ = nullptr;   // not owned; nullptr: globals are shared
  RunQueue queue_;                          // runnable ranks and blocked ranks with a pending arrival
  Rank* current_ = nullptr;
  boost::context::fiber scheduler_;         // the scheduler's continuation while a rank runs
  bool large_scale_ = false;  // the large-scale mode: prefetch_next on every resume, deferred delivery
  // Deferred delivery (large_scale_): sends to local ranks wait in a ring of kPending before
  // deliver_local, so that the destination's record (prefetched by the send) and its first arrival
  // (prefetched half-way) are cached when the delivery touches them. Invariant: no pending message is due
  // by the running rank's clock, nor by the key of a rank about to resume (pending_min_, a lower bound of
  // their arrivals, stays above both; see clock_moved, due_before and run_window).
  static constexpr unsigned kPending = 16;   // a power of two
  Message* pending_[kPending];
  unsigned pending_head_ = 0, pending_count_ = 0;
  SimTime pending_min_ = SimTime::infinity();  // infinity when none is pending
  Rank* leaving_ = nullptr;                 // who made the last switch: a rank, or null (the scheduler)
  [[no_unique_address]] FiberStack scheduler_stack_;  // learned when the first rank starts (ASan only)
  SimTime window_end_ = SimTime::infinity();
  SimTime lookahead_ = SimTime::infinity();
  SimTime min_latency_;                     // the network's smallest latency (asked once: every send uses it)
  bool poll_lookahead_ = false;             // poll_decided() may answer without a yield (no injected failures,
                                            // no replay held: replay_hold)
  int replay_holds_ = 0;
  bool poll_skip_ = false;                  // -xsim-poll-skip (and no injected failures)
  std::vector<PollStreak> streaks_;          // per local rank, with -xsim-poll-skip only
  uint64_t polls_skipped_ = 0;              // polls -xsim-poll-skip answered by waiting (for the report)
  mutable net::Network::TransferMemo transfer_memo_;  // message_latency's last transfer time
  RequestTable requests_;
  std::vector<int32_t> free_requests_;
  std::unique_ptr<native::Exchange> exchange_;
  ProgressHook progress_hook_ = nullptr;
  std::vector<Message*> applied_;           // engine-applied messages not yet applied: min-heap on arrival order
  AppliedHook applied_hooks_[kAppliedFamilies] = {};
  uint32_t applied_families_ = 0;           // bit f: a message of family f has reached this process
  uint64_t applied_seq_ = 0;                // send order of the messages hooks send (after the ranks' own)
  void apply_next();
  SimTime out_min_ = SimTime::infinity();   // earliest arrival among messages sent off-process this window
  bool deadlock_reporting_ = false;
  int64_t unfinished_local_ = 0;
  uint64_t switches_ = 0, windows_ = 0;
  uint64_t earliest_switch_ = ~uint64_t{0};  // ensure_earliest(): the resume (switches_) and clock at which
  SimTime earliest_clock_ = SimTime::from_ps(-1);  // the current rank was last found the earliest
  uint64_t messages_sent_ = 0;
  Observer* observer_ = nullptr;
  Progress* progress_ = nullptr;
  bool watched_ = false;                    // observer_ or progress_: the scheduler's one test per resume
  bool direct_switch_ = true;               // switch_out may jump rank to rank (note_direct_switches)
  SimTime poll_cost_;                       // opt_.poll_cost: virtual time of each MPI_Test/MPI_Iprobe-like call
  // Noise and node speeds (docs/noise.md): off (varied_ false) without -xsim-noise, -xsim-node-speed and
  // -xsim-node-drift.
  bool varied_ = false;
  std::unique_ptr<proc::NoiseModel> noise_;
  std::vector<double> speed_;               // by local rank: its node's time factor (empty: all 1)
  std::vector<SimTime> noise_time_;         // by local rank: its noise so far (noise_ only; not in the five
                                            // cache lines of its record)
  // Injected failures (docs/resilience.md); all off without -xsim-fault.
  bool faulty_ = false;
  bool enter_hooks_ = false;  // faulty_, poll_skip_, or a rank is threaded (mpi_enter's one test)
  bool leave_hooks_ = false;                // host_timing_, or some rank is threaded (mpi_leave's one test)
  std::vector<SimTime> fail_at_;            // by world rank: its failure time, or infinity (faulty_ only)
  std::vector<uint64_t> fails_;             // by world rank, one bit: it has a failure time (8 KiB per 65,536
                                            // ranks: the idle look-up stays in the cache where fail_at_ would not)
  SimTime detect_;                          // detection delay
  SimTime first_fail_ = SimTime::infinity();    // the earliest failure time of any rank
  SimTime first_detect_ = SimTime::infinity();  // first_fail_ + detect_: nothing is detected before
  SimTime detect_wake_ = SimTime::infinity();  // the wait in progress: when a failure it waits on is detected,
                                               // or wait_until's deadline
  int64_t failed_local_ = 0;
  int64_t detections_ = 0;
  int64_t group_world_ = -1;                // set_group_detection
  SimTime group_detect_ = SimTime::infinity();
  Detected last_detected_;
  // Revoked communicator contexts (revoke_contexts), by (context, local world rank).
  bool revoked_any_ = false;
  std::set<std::pair<uint64_t, int64_t>> revoked_;
  void fail_if_due(Rank& r) {               // [rank] fails `r` (never returns) once its failure time has come
    if (r.clock >= first_fail_ && r.clock >= fail_time(r.world)) [[unlikely]] fail_now(r);
  }
  [[noreturn]] void fail_now(Rank& r);      // [rank] fails `r` at its failure time
  void block_timed(Rank& r);                // block's path that queues `r` at failure_key (and its arrivals)
  SimTime failure_key(const Rank& r) const {  // when a blocked `r` must wake for a failure: its own, or a detection
    return min(fail_time(r.world), detect_wake_);
  }
  // The loggp model (docs/network-model.md); all off with the analytic model.
  bool loggp_ = false;
  SimTime os_, or_, gap_;                   // send and receive overheads (CPU time), NIC gap
  uint64_t eager_ = ~uint64_t{0};           // largest message sent eagerly
  bool contention_ = false;                 // endpoint contention: injection and ejection links serialize
  // -xsim-contention links (also sets contention_): the system network's links, and the smallest latency of
  // a route between two nodes without overheads (no message with data arrives sooner after it left).
  std::unique_ptr<LinkContention> links_;
  SimTime links_wire_min_;
  [[gnu::noinline]] void add_flow(int64_t src, int64_t dst, uint64_t seq, uint64_t bytes, SimTime leave, SimTime arrive);
  // The same for messages between two cores of one node over the inner levels of a hierarchy (null with
  // one level): their flows are this process's alone (a node is never split), so none is exchanged.
  std::unique_ptr<LinkContention> onnode_;
  SimTime onnode_wire_min_;
  bool onnode_flow(int64_t a, int64_t b) const { return !inter_node(a, b) && core_of(a) != core_of(b); }
  [[gnu::noinline]] void add_onnode_flow(int64_t src, int64_t dst, uint64_t seq, uint64_t bytes, SimTime leave,
                                          SimTime arrive);
  [[gnu::noinline]] void onnode_delay(Message* m);  // an on-node message's delay on its node's links
  void mark_done(Message* m, SimTime done);  // the data of m arrives at done > m->t_arrive
  void exchange_flows();                    // a window's flows to and from the other processes
  bool nic_ = false;                        // contention_ or a gap: the nodes' NIC state is kept
  // A simulated node's NIC, for the nodes of this process's ranks: when its injection and ejection links are
  // next free, and its incoming messages not yet timed through the ejection link (min-heap on arrival order).
  struct Incoming {
    SimTime t_arrive;
    int32_t src;
    uint64_t seq;
    Message* m;
    int32_t dst_index;  // local index of the destination: a finished rank's messages are gone (skip them)
    // The heap order: arrival order (time, then sender, then its send order), earliest on top.
    static bool later(const Incoming& a, const Incoming& b) {
      if (a.t_arrive != b.t_arrive) return a.t_arrive > b.t_arrive;
      if (a.src != b.src) return a.src > b.src;
      return a.seq > b.seq;
    }
  };
  struct NodeNic {
    SimTime inject_free, eject_free;
    std::vector<Incoming> incoming;
    uint32_t awaiting_cts = 0;  // rendezvous sends of the node's ranks whose clear-to-send is still to come
  };
  // Whether a send from the current rank must first be the earliest of its process, so that its node's NIC
  // serves sends (and clear-to-sends) in virtual-time order: not needed when the node has one core and no
  // clear-to-send can come (the rank's own sends are in its clock's order).
  bool nic_order_needed() const {
    return cores_per_node_ > 1 ||
           nics_[static_cast<size_t>(nic_of_local_[static_cast<size_t>(current_->index)])].awaiting_cts > 0;
  }
  std::vector<NodeNic> nics_;
  std::vector<int32_t> nic_of_local_;       // local rank index -> its node's entry in nics_
  std::unordered_map<const Message*, SimTime> delayed_;  // Message::delayed(): when its last byte arrives
  // Whether ranks a and b sit on different simulated nodes (one-core nodes: different ranks, no division).
  bool inter_node(int64_t a, int64_t b) const {
    return cores_per_node_ == 1 ? a != b : node_of(a) != node_of(b);
  }
  // net::Network::route_latency, with the transfer time from transfer_memo_ when no size band applies.
  SimTime route_latency(const net::Route& path, uint64_t bytes, SimTime* xfer) const {
    if (!net_->size_bands().empty()) [[unlikely]] return net_->route_latency(path, bytes, xfer);
    *xfer = transfer_memo_.get(bytes, path.min_bandwidth_bps);
    return path.latency + *xfer;
  }
  void setup_loggp();
  int send_rendezvous(Rank& r, Message* m, int req);
  void finalize_incoming(NodeNic& n, SimTime upto);  // times n's incoming messages due by `upto` (ejection)
  void time_ejection(NodeNic& n, Message* m);       // m through n's ejection link, after everything before it
  SimTime receive_done(const Message* m, SimTime when);  // completion of a receive of m matched at `when`
  void handle_cts(Message* m);              // a clear-to-send reached the sender's process
  void complete_rendezvous_recv(Message* m);  // a kRdata arrival
  // What read_clock advances a polling rank's clock by: the poll cost, or 1 ns when that is zero.
  SimTime poll_step() const { return poll_cost_ > SimTime::zero() ? poll_cost_ : SimTime::from_ns(1); }
  bool clock_poll_noted_ = false;           // read_clock's message has been printed
  int* errno_ = nullptr;                    // errno of the thread in run(): saved and restored around every switch
  double wall_start_ = 0;
  double run_cpu_seconds_ = 0;
 public:
  // read by the report
  const std::vector<Rank>& ranks() const { return ranks_; }
  uint64_t windows() const { return windows_; }
  const native::Exchange* exchange() const { return exchange_.get(); }  // null with one native process
  const LinkContention* link_contention() const { return links_.get(); }  // null unless -xsim-contention links
  const LinkContention* onnode_contention() const { return onnode_.get(); }  // null unless links on a hierarchy
  double wall_start() const { return wall_start_; }
  double run_cpu_seconds() const { return run_cpu_seconds_; }  // CPU time of the scheduler thread in run()
};

extern Engine* g_engine;  // the process's engine while a simulation runs, else nullptr

}  // namespace xsim

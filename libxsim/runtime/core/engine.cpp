// Engine (engine.hpp): construction (which ranks this native process owns, their stacks, the lookahead),
// teardown and the run: the loop of conservative windows and the exchange of messages between native
// processes (docs/architecture.md §3). The scheduler, the message path and the deadlock report are in scheduler.cpp,
// messages.cpp and deadlock.cpp. Also libc's clock_gettime for xsim's own host clock (host_clock.hpp).
#include "engine.hpp"

#include <dlfcn.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <stdexcept>
#include <utility>
#include <vector>

#include "engine_internal.hpp"
#include "xsim/netmodel/hierarchy.hpp"
#include "host_clock.hpp"
#include "message_wire.hpp"
#include "native/exchange.hpp"
#include "options.hpp"
#include "progress.hpp"

namespace xsim {

namespace {
using ClockGettime = int (*)(clockid_t, timespec*);

int clock_by_syscall(clockid_t clock, timespec* ts) {
  return static_cast<int>(syscall(SYS_clock_gettime, clock, ts));
}

ClockGettime find_libc_clock() {
  void* f = dlsym(RTLD_NEXT, "clock_gettime");
  return f ? reinterpret_cast<ClockGettime>(f) : clock_by_syscall;
}

// libc's clock_gettime past any interposer, resolved when the library is loaded, before any rank runs.
const ClockGettime g_libc_clock_gettime = find_libc_clock();
}  // namespace

int host_clock_gettime(clockid_t clock, timespec* ts) {
  return (g_libc_clock_gettime ? g_libc_clock_gettime : clock_by_syscall)(clock, ts);
}

Engine* g_engine = nullptr;

Engine::Engine(const Options& opt, std::unique_ptr<net::Network> net, std::unique_ptr<proc::ProcessorModel> cpu,
               int proc, int nprocs, AppMain app_main, int argc, char** argv, char** envp,
               std::vector<int32_t> core_of_rank, int64_t cores_per_node, SimTime node_latency)
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
    lookahead_ = node_aligned ? max(min_latency_, node_latency) : min_latency_;
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
  setup_loggp();
  setup_variability();
  faulty_ = !opt.faults.empty();
  enter_hooks_ = faulty_;
  poll_lookahead_ = !faulty_;
  poll_skip_ = opt.poll_skip && !faulty_;
  if (poll_skip_) {
    streaks_.resize(ranks_.size());
    enter_hooks_ = true;
  }
  leave_hooks_ = host_timing_;
  detect_ = opt.fault_detect;
  if (faulty_) {  // every process knows every rank's failure time (a look-up per wait and per MPI call)
    fail_at_.assign(static_cast<size_t>(nranks_), SimTime::infinity());
    fails_.assign((static_cast<size_t>(nranks_) + 63) / 64, 0);
    for (const auto& [rank, t] : opt.faults)
      if (rank < nranks_) {
        fail_at_[static_cast<size_t>(rank)] = t;
        fails_[static_cast<size_t>(rank) >> 6] |= uint64_t{1} << (rank & 63);
      }
    for (const auto& f : opt.faults) first_fail_ = min(first_fail_, f.second);
    first_detect_ = first_fail_ == SimTime::infinity() ? first_fail_ : first_fail_ + detect_;
  }
}

// Noise and node speeds (docs/noise.md): a node is node_of(world), the network's node when its hierarchy has
// nodes (cores_per_node), else each rank alone. Throws std::invalid_argument on a node missing from a
// speed file (start-up checks that first, with the option's name).
void Engine::setup_variability() {
  noise_ = proc::make_noise_model(opt_.noise, opt_.seed);
  if (noise_) noise_time_.assign(ranks_.size(), SimTime::zero());
  if (opt_.node_speed.kind != proc::NodeSpeedSpec::Kind::none) {
    speed_.resize(ranks_.size());
    for (const Rank& r : ranks_)
      speed_[static_cast<size_t>(r.index)] =
          proc::node_speed_factor(opt_.node_speed, opt_.seed, static_cast<uint64_t>(node_of(r.world)));
  }
  varied_ = noise_ || !speed_.empty() || opt_.node_drift.on();
}

void Engine::setup_loggp() {
  if (opt_.model != NetModel::loggp) return;
  loggp_ = true;
  os_ = opt_.network.send_overhead;
  or_ = opt_.network.recv_overhead;
  gap_ = opt_.network.gap;
  eager_ = eager_limit(opt_);
  contention_ = opt_.contention != Contention::none;
  nic_ = contention_ || gap_ > SimTime::zero();
  if (opt_.contention == Contention::links) {
    // The system network: the outermost level (messages between the cores of one node cross no link of it).
    if (std::string why = LinkContention::unsupported(*net_); !why.empty()) throw std::runtime_error(why);
    const net::Network& system = LinkContention::system_network(*net_);
    links_ = std::make_unique<LinkContention>(system, first_local_, first_local_ + static_cast<int64_t>(ranks_.size()));
    links_wire_min_ = system.min_latency() - system.overheads().send - system.overheads().recv;
    // A window must not be longer than that: a flow of this window then cannot be due in it, and every flow
    // due is known when it is timed (process_due_arrivals).
    if (nprocs_ > 1) lookahead_ = min(lookahead_, links_wire_min_);
    const bool fair = opt_.sharing != Sharing::serial, rtt = opt_.sharing == Sharing::rtt;
    if (fair) links_->share_fairly(links_wire_min_, rtt);
    // Inside the nodes: the inner levels' links, shared by the messages between the cores of one node.
    if (const auto* h = dynamic_cast<const net::Hierarchy*>(net_.get()); h && h->levels() > 1) {
      SimTime wire = SimTime::infinity();
      for (int i = 1; i < h->levels(); ++i)
        if (h->level(i).endpoints() > 1)
          wire = min(wire, h->level(i).min_latency() - h->level(i).overheads().send - h->level(i).overheads().recv);
      if (wire != SimTime::infinity()) {
        onnode_ = std::make_unique<LinkContention>(*net_, first_local_, first_local_ + static_cast<int64_t>(ranks_.size()),
                                                   /*ejection=*/false);
        onnode_wire_min_ = wire;
        if (fair) onnode_->share_fairly(onnode_wire_min_, rtt);
      }
    }
  }
  if (!nic_) return;
  // One NIC per simulated node of this process's ranks (startup.cpp made sure no node is split between
  // processes). Block placement: the nodes are contiguous; otherwise look them up.
  nic_of_local_.resize(ranks_.size());
  if (core_of_rank_.empty()) {
    const int64_t first_node = node_of(first_local_);
    for (size_t i = 0; i < ranks_.size(); ++i)
      nic_of_local_[i] = static_cast<int32_t>(node_of(first_local_ + static_cast<int64_t>(i)) - first_node);
    nics_.resize(ranks_.empty() ? 0 : static_cast<size_t>(nic_of_local_.back()) + 1);
  } else {
    std::unordered_map<int64_t, int32_t> slot;
    for (size_t i = 0; i < ranks_.size(); ++i) {
      auto [it, fresh] = slot.try_emplace(node_of(first_local_ + static_cast<int64_t>(i)), static_cast<int32_t>(nics_.size()));
      if (fresh) nics_.emplace_back();
      nic_of_local_[i] = it->second;
    }
  }
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
  free_rank_threads();
  for (unsigned k = 0; k < pending_count_; ++k) Message::destroy(pending_[(pending_head_ + k) & (kPending - 1)]);
  for (Message* m : applied_) Message::destroy(m);
  for (Rank& r : ranks_) {
    for (Message* m : r.arrivals) Message::destroy(m);
    for (Message* m : r.unexpected) Message::destroy(m);
    if (r.fiber) forget(std::move(r.fiber));  // never unwind application stacks at teardown
    if (hooks_.free_rank_state) hooks_.free_rank_state(r);
  }
}

int64_t Engine::now_ns() const { return host_clock_ns(CLOCK_MONOTONIC); }

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
      if (links_) exchange_flows();
      SimTime next = min(local_next_key(), out_min_);
      out_min_ = SimTime::infinity();
      native::Exchange::Result res =
          exchange_->exchange(next.ps(), unfinished_local_, static_cast<int64_t>(messages_sent_), received);
      incoming.clear();
      for (auto [data, n] : received) wire::unpack(data, n, [&](Message* m) { incoming.push_back({m->dst, m}); });
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
  if (links_) links_->time_upto(SimTime::infinity());  // the rest, for the report's count (every process's)
  if (onnode_) onnode_->time_upto(SimTime::infinity());
  timespec cpu1;
  host_clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu1);
  run_cpu_seconds_ = static_cast<double>(cpu1.tv_sec - cpu0.tv_sec) + static_cast<double>(cpu1.tv_nsec - cpu0.tv_nsec) * 1e-9;
  if (progress_) progress_->finish();
  if (unfinished_total > 0) return report_deadlock(unfinished_total);
  return 0;
}

}  // namespace xsim

// Start-up takeover (docs/architecture.md §1): xsim interposes __libc_start_main so that, in an MPI application,
// the program's main runs once per virtual rank on its own fiber, under the engine. In every other
// process (mpiexec, its proxies, shells: anything whose executable imports no MPI_Init/mpi_init_) the
// takeover stays inert. Also interposes exit() so that it ends only the calling virtual rank (in a child
// process a rank forked, the child: engine.hpp, g_forked_child), and
// installs the crash handler that names the rank. The executable's constructors are held back at program
// start and run by xsim_main: once, or once per rank on the rank's own globals when privatization is on
// (privatize.hpp). Layer: libxsim/runtime/process (xsim_process).
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <signal.h>
#include <ucontext.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <pthread.h>
#include <unistd.h>
#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <limits>
#include <memory>

#include "libc_clocks.hpp"
#include "api_ext.hpp"
#include "api_support.hpp"
#include "coll/reduce.hpp"
#include "comm.hpp"
#include "engine.hpp"
#include "fold_malloc.hpp"
#include "fiber_switch.hpp"  // XSIM_ASAN
#include "host_clock.hpp"
#include "native/datatype.hpp"
#include "native/exchange.hpp"
#include "native_stack.hpp"
#include "network_config.hpp"
#include "observation.hpp"
#include "options.hpp"
#include "privatize.hpp"
#include "report.hpp"
#include "blas_kernels.hpp"
#include "symbol_models.hpp"
#include "xsim/units.hpp"

using namespace xsim;

namespace {

using StartMain = int (*)(int, char**, char**);
using LibcStartMain = int (*)(StartMain, int, char**, void (*)(void), void (*)(void), void (*)(void), void*);

StartMain g_app_main = nullptr;

// What glibc runs in place of the executable's constructors (xsim_main runs them later).
void no_constructors(int, char**, char**) {}

// Every virtual rank's main: a getopt scan of its own, from the start (libc_getopt.cpp: libc's one scan per
// process would be shared by the ranks); with privatization on, the executable's constructors first, on the
// rank's own image, and after main the exit handlers the rank registered (C++ static destructors, atexit).
int rank_main(int argc, char** argv, char** envp) {
  getopt_rank_start();
  privatize::Privatizer* p = privatize::active();
  if (p) privatize::run_constructors(argc, argv, envp);
  int code = g_app_main(argc, argv, envp);
  if (g_forked_child) exit(code);  // a child the rank forked returned from main: it ends, as natively
  if (p) p->run_exit_handlers(static_cast<size_t>(g_engine->current().index));
  return code;
}

bool env_true(const char* name) {
  const char* v = std::getenv(name);
  return v && (!std::strcmp(v, "1") || !std::strcmp(v, "on") || !std::strcmp(v, "yes") || !std::strcmp(v, "true"));
}

// What the executable (or a library of the application's) imports from MPI: an initialisation function (C or
// Fortran), and whether it uses the mpi_f08 bindings (mpi_*_f08*: MPICH's and Open MPI's), which call the native PMPI_* functions past xsim.
struct MpiImports {
  bool init = false;
  bool f08 = false;
};

MpiImports executable_mpi_imports() {
  MpiImports out;
  auto scan = [&out](const char* name) {
    if (!std::strncmp(name, "MPI_Init", 8) || !std::strncmp(name, "mpi_init", 8) ||
        !std::strncmp(name, "MPI_INIT", 8) || !std::strncmp(name, "PMPI_Init", 9))
      out.init = true;
    if (!std::strncmp(name, "mpi_", 4) && std::strstr(name, "_f08")) out.f08 = true;
  };
  privatize::for_each_import("/proc/self/exe", scan);
  // A program whose library starts MPI for it (ScaLAPACK's testers: BLACS calls MPI_Init) is an MPI program too.
  if (!out.init)
    for (const std::string& lib : privatize::application_libraries()) privatize::for_each_import(lib.c_str(), scan);
  return out;
}

const char* signal_name(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV (invalid memory access)";
    case SIGBUS: return "SIGBUS (bus error)";
    case SIGFPE: return "SIGFPE (arithmetic exception)";
    case SIGILL: return "SIGILL (illegal instruction)";
    case SIGABRT: return "SIGABRT (abort)";
    default: return "a fatal signal";
  }
}

void print_backtrace_from(void* ucontext) {
  unw_cursor_t cur;
  if (unw_init_local2(&cur, static_cast<unw_context_t*>(ucontext), UNW_INIT_SIGNAL_FRAME) != 0) return;
  for (int depth = 0; depth < 24; ++depth) {
    unw_word_t ip = 0, off = 0;
    char name[256];
    unw_get_reg(&cur, UNW_REG_IP, &ip);
    if (unw_get_proc_name(&cur, name, sizeof name, &off) != 0) std::strcpy(name, "??");
    std::fprintf(stderr, "xsim:       #%d 0x%012lx %s+0x%lx\n", depth, static_cast<unsigned long>(ip), name,
                 static_cast<unsigned long>(off));
    if (!std::strcmp(name, "main") || !std::strncmp(name, "MAIN__", 6)) break;
    if (unw_step(&cur) <= 0) break;
  }
}

void on_fatal_signal(int sig, siginfo_t* info, void* uctx) {
  Engine* e = g_engine;
  std::fflush(stdout);
  const void* sp = reinterpret_cast<const void*>(static_cast<ucontext_t*>(uctx)->uc_mcontext.gregs[REG_RSP]);
  bool overflow = e && (sig == SIGSEGV || sig == SIGBUS) &&
                  (e->is_stack_overflow(info->si_addr) || (e->in_rank() && e->current_stack_overflowed(sp)));
  if (overflow) {
    long slot = e->in_rank() && e->current_stack_overflowed(sp) ? e->current().index
                                                                  : e->rank_of_stack_address(info->si_addr);
    std::fprintf(stderr,
                 "xsim: stack overflow in rank %lld (stack size %llu KiB). Raise it with -xsim-stack SIZE "
                 "(e.g. -xsim-stack %lluK) or XSIM_STACK.\n",
                 static_cast<long long>(e->world_of_local(slot)),
                 static_cast<unsigned long long>(e->stack_size() >> 10),
                 static_cast<unsigned long long>((e->stack_size() >> 10) * 4));
  } else if (e && e->in_rank()) {
    Rank& r = e->current();
    std::fprintf(stderr, "xsim: rank %d crashed with %s at virtual time %.9f s (address %p); its stack:\n", r.world,
                 signal_name(sig), r.clock.seconds(), info->si_addr);
    print_backtrace_from(uctx);
  } else {
    std::fprintf(stderr, "xsim: the simulator crashed with %s outside any virtual rank (address %p)\n",
                 signal_name(sig), info->si_addr);
    print_backtrace_from(uctx);
  }
  std::fflush(stderr);
  timespec pause{0, 200 * 1000 * 1000};  // let the launcher forward this report before it tears down
  nanosleep(&pause, nullptr);
  signal(sig, SIG_DFL);
  raise(sig);
}

void install_crash_handlers() {
  static char* alt = static_cast<char*>(std::malloc(1 << 16));
  stack_t ss{};
  ss.ss_sp = alt;
  ss.ss_size = 1 << 16;
  sigaltstack(&ss, nullptr);
  struct sigaction sa{};
  sa.sa_sigaction = on_fatal_signal;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) sigaction(sig, &sa, nullptr);
}

double wall_now() {
  timespec ts;
  host_clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Privatization for this native process (docs/architecture.md §7, docs/privatization.md), decided before any rank
// runs, and the check that its ranks fit in memory. On failure returns nullptr with `error` set.
// The stack every rank touches at least: its top page, which holds its start frame and MPI calls of a small
// program (StackPool puts the canary of the stack above on that page too). `hello` touches 4.5 KiB per rank in
// all at 1,048,576 ranks; the report's "stack" line gives what a run's ranks touched (sampled).
constexpr uint64_t kStackTouchedMin = 4 * 1024;

std::unique_ptr<privatize::Privatizer> setup_privatization(const Options& opt, int64_t nlocal, int proc,
                                                           std::string& note, std::string& error) {
  const PrivatizeMode mode = opt.privatize;
  const bool force_copy = mode == PrivatizeMode::copy, force_map = mode == PrivatizeMode::map;
  bool want = false;
  std::vector<privatize::RegionSpec> regions;
  if (mode == PrivatizeMode::off) {
    note = "off (as configured): the ranks of a native process share the executable's globals";
  } else if (mode == PrivatizeMode::automatic && nlocal < 2) {
    note = "off (not needed: at most one virtual rank per native process)";
  } else {
    want = true;
    try {
      regions = privatize::find_regions(opt.privatize_libs);
    } catch (const std::exception& err) {
      error = err.what();
      return nullptr;
    }
    if (mode == PrivatizeMode::automatic) {  // only what may hold the program's own variables
      std::erase_if(regions, [](const privatize::RegionSpec& r) { return !privatize::holds_program_variables(r); });
      if (regions.empty()) {
        want = false;
        note = "off (not needed: the executable has no writable globals of its own)";
      }
    }
  }
  // Memory: a lower bound per rank. Native processes on this host share what it has available.
  const char* local = std::getenv("MPI_LOCALNRANKS");
  const uint64_t sharing = local && std::atoll(local) > 0 ? static_cast<uint64_t>(std::atoll(local)) : 1;
  // XSIM_MEMORY_AVAILABLE (a size) replaces what the host reports: for a host shared with other jobs, and for
  // the tests of this check (README's option table).
  const char* forced = std::getenv("XSIM_MEMORY_AVAILABLE");
  uint64_t host_avail = 0;
  if (forced) {
    try {
      host_avail = parse_size(forced);
    } catch (const std::invalid_argument& e) {
      error = std::string("XSIM_MEMORY_AVAILABLE: ") + e.what();
      return nullptr;
    }
  } else {
    host_avail = privatize::available_memory();
  }
  const uint64_t avail = host_avail / sharing;
  const uint64_t stack = StackPool::effective_size(opt.stack_size, static_cast<size_t>(nlocal));
  const uint64_t base = std::min<uint64_t>(stack, kStackTouchedMin) + sizeof(Rank);
  const uint64_t image = want ? privatize::Privatizer::estimate_per_rank(regions, force_copy, force_map) : 0;
  const long double n = static_cast<long double>(nlocal);
  auto fits = [&](uint64_t per_rank) { return n * static_cast<long double>(per_rank) <= static_cast<long double>(avail); };
  auto need = [&](uint64_t per_rank) {
    long double b = n * static_cast<long double>(per_rank);
    return b > 1.8e19L ? std::string("more than 16 EiB") : privatize::human_size(static_cast<uint64_t>(b));
  };
  std::string have = privatize::human_size(avail) + " available" +
                     (sharing > 1 ? " (MemAvailable shared by the " + std::to_string(sharing) +
                                        " native processes on this host)"
                                  : "");
  auto build = [&]() -> std::unique_ptr<privatize::Privatizer> {
    try {
      return std::make_unique<privatize::Privatizer>(std::move(regions), static_cast<size_t>(nlocal), force_copy,
                                                     force_map);
    } catch (const std::exception& err) {
      error = err.what();
      return nullptr;
    }
  };
  if (fits(base + image)) return want ? build() : nullptr;
  if (want && mode == PrivatizeMode::automatic && fits(base)) {
    std::fprintf(stderr,
                 "xsim: native process %d: privatization is off: the images of %lld ranks would need at least %s "
                 "(%s per rank) on top of %s for stacks and engine state, with %s; the ranks share the "
                 "executable's globals. Run more native processes, or -xsim-privatize=on to insist.\n",
                 proc, static_cast<long long>(nlocal), need(image).c_str(), privatize::human_size(image).c_str(),
                 need(base).c_str(), have.c_str());
    note = "off (auto: the ranks' images would not fit in memory)";
    return nullptr;
  }
  const std::string msg =
      "native process " + std::to_string(proc) + ": " + std::to_string(nlocal) +
      " virtual ranks do not fit in memory: they need at least " + need(base + image) + " (per rank: " +
      privatize::human_size(std::min<uint64_t>(stack, kStackTouchedMin)) + " of stack, " +
      privatize::human_size(sizeof(Rank)) + " of engine state" +
      (want ? ", " + privatize::human_size(image) + " of privatized globals" : std::string()) + "), but only " + have;
  if (opt.memory_check_warn) {  // -xsim-memory-check=warn: the user knows better; say it and go on
    std::fprintf(stderr, "xsim: warning: %s; running anyway (-xsim-memory-check=warn): the host may run out of "
                 "memory during the run.\n", msg.c_str());
    return want ? build() : nullptr;
  }
  error = msg + ". Lower -xsim-np or run more native processes" +
          (want ? std::string(" (or -xsim-privatize=off)") : std::string()) +
          "; -xsim-memory-check=warn runs anyway (the estimate is a lower bound; a smaller run's report gives the "
          "stack its ranks touched).";
  return nullptr;
}

// The first non-zero exit code of any rank, ordered by virtual finish time then rank; same on every process.
// The loggp model's NIC state (endpoint contention, a gap) lives with the node's ranks: every simulated node
// must then sit in one native process. Block placement guarantees it; another placement over several
// processes may split a node. Returns the error to print, or "".
// The options that need -xsim-contention links: -xsim-sharing fair|rtt, and adaptive routing
// (routing=ugal-l|ugal-g on a dragonfly, routing=adaptive on a fat tree), which chooses each message's
// route by the links' queues in virtual time, kept serially on the system network
// (docs/network-model.md "Adaptive routing"). Returns the error to print, or "".
std::string links_option_error(const Options& opt) {
  if (opt.sharing != Sharing::serial && (opt.model != NetModel::loggp || opt.contention != Contention::links))
    return std::string("-xsim-sharing ") + (opt.sharing == Sharing::fair ? "fair" : "rtt") +
           ": shares the links of -xsim-contention links (model loggp); give -xsim-contention links too, or "
           "-xsim-sharing serial";
  const std::vector<NetworkLevel>& levels = opt.network.levels;
  for (size_t i = 0; i < levels.size(); ++i) {
    const std::string& r = levels[i].routing;
    if (r != "ugal-l" && r != "ugal-g" && r != "adaptive") continue;
    const std::string what = "-xsim-mn: routing=" + r + " (" + levels[i].topology + ", level " + std::to_string(i + 1) + ")";
    if (i > 0)
      return what + ": adaptive routing applies to the system network (the first level), whose links messages "
                    "between nodes share; give routing=minimal inside the nodes";
    if (opt.model != NetModel::loggp || opt.contention != Contention::links)
      return what + ": adaptive routing chooses each message's route by the links' queues, which only "
                    "-xsim-contention links keeps (model loggp); give -xsim-contention links, or routing=minimal";
    if (opt.sharing != Sharing::serial)
      return what + ": adaptive routing reads the queues of -xsim-sharing serial; give -xsim-sharing serial, "
                    "or routing=minimal";
  }
  return {};
}

// -xsim-node-speed file:PATH needs a line for every simulated node of the run (docs/noise.md). Returns the
// error to print, or "".
std::string node_speed_error(const Options& opt, const BuiltNetwork& built, int64_t world) {
  if (opt.node_speed.kind != proc::NodeSpeedSpec::Kind::file) return {};
  int64_t last_core = world - 1;
  if (!built.core_of_rank.empty())
    last_core = *std::max_element(built.core_of_rank.begin(), built.core_of_rank.end());
  const int64_t nodes = last_core / std::max<int64_t>(1, built.cores_per_node) + 1;
  if (static_cast<int64_t>(opt.node_speed.factors.size()) >= nodes) return {};
  return "-xsim-node-speed: " + opt.node_speed.file + " holds " + std::to_string(opt.node_speed.factors.size()) +
         " node factors, but the run has " + std::to_string(nodes) + " simulated nodes; give one line per node";
}

std::string split_node_error(const Options& opt, const BuiltNetwork& built, int nprocs) {
  const bool nic = opt.model == NetModel::loggp &&
                   (opt.contention == Contention::endpoint || opt.network.gap > SimTime::zero());
  if (!nic || nprocs == 1 || built.core_of_rank.empty()) return "";
  const int64_t cpn = std::max<int64_t>(1, built.cores_per_node);
  const std::vector<int64_t> blocks = Engine::block_starts(opt.np, nprocs, false, cpn);
  std::vector<int32_t> owner(static_cast<size_t>(built.nodes > 0 ? built.nodes : opt.np), -1);
  for (int p = 0; p < nprocs; ++p)
    for (int64_t r = blocks[static_cast<size_t>(p)]; r < blocks[static_cast<size_t>(p) + 1]; ++r) {
      const int64_t node = built.core(r) / cpn;
      if (static_cast<size_t>(node) >= owner.size()) owner.resize(static_cast<size_t>(node) + 1, -1);
      int32_t& o = owner[static_cast<size_t>(node)];
      if (o >= 0 && o != p)
        return "-xsim-placement " + opt.network.placement + " puts the ranks of simulated node " + std::to_string(node) +
               " on native processes " + std::to_string(o) + " and " + std::to_string(p) +
               "; the loggp model's NIC (-xsim-contention endpoint, a gap) needs each node's ranks in one process: "
               "use -xsim-placement block, one native process, or -xsim-contention none without a gap";
      o = p;
    }
  return "";
}

// The collectives' reductions (coll/reduce.hpp): timed on the host and charged to the calling rank under
// the scaled processor model, as computation between MPI calls is; untimed otherwise (deterministic).
void timed_reduction(const void* in, void* inout, int count, MPI_Datatype type, MPI_Op op) {
  Engine* e = g_engine;
  if (!e || !e->host_timing() || !e->in_rank()) return native::reduce_local(in, inout, count, type, op);
  const int64_t t0 = host_clock_ns(CLOCK_MONOTONIC);
  native::reduce_local(in, inout, count, type, op);
  e->advance_clock(e->host_compute(host_clock_ns(CLOCK_MONOTONIC) - t0));
}

// -xsim-mtbf (docs/resilience.md): each simulated node fails once, at a time drawn from a Weibull
// distribution of mean `mtbf` and shape k (1: exponential) by a generator seeded with -xsim-seed and the
// node's number, so every native process draws the same times, for any number of them. A node's failure
// fails all its ranks; a rank named by -xsim-fault keeps that time. Times beyond the clock's range are none.
void add_random_failures(Options& opt, const BuiltNetwork& built, int64_t world) {
  const int64_t cpn = std::max<int64_t>(1, built.cores_per_node);
  const double k = opt.mtbf_shape, scale = opt.mtbf.seconds() / std::tgamma(1.0 + 1.0 / k);
  std::vector<char> named(static_cast<size_t>(world), 0);
  for (const auto& f : opt.faults) named[static_cast<size_t>(f.first)] = 1;
  for (int64_t r = 0; r < world; ++r) {
    if (named[static_cast<size_t>(r)]) continue;
    uint64_t x = opt.seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(built.core(r) / cpn) + 1;
    for (int i = 0; i < 2; ++i) {  // splitmix64, twice: neighbouring nodes and seeds draw unrelated times
      x += 0x9E3779B97F4A7C15ull;
      x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
      x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
      x ^= x >> 31;
    }
    const double u = (static_cast<double>(x >> 11) + 0.5) * 0x1p-53;  // in (0, 1)
    const double t = scale * std::pow(-std::log(u), 1.0 / k);
    if (t < 9.0e6) opt.faults.emplace_back(r, SimTime::from_ps(static_cast<int64_t>(std::llround(t * 1e12))));
  }
  std::sort(opt.faults.begin(), opt.faults.end());
}

int global_exit_code(const Engine& e) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  int64_t key[2] = {kMax, kMax};
  int code = 0;
  for (const Rank& r : e.ranks()) {
    if (r.exit_code == 0) continue;
    if (r.finish_time.ps() < key[0] || (r.finish_time.ps() == key[0] && r.world < key[1])) {
      key[0] = r.finish_time.ps();
      key[1] = r.world;
      code = r.exit_code;
    }
  }
  if (e.nprocs() == 1) return code;
  int64_t best[2] = {key[0], 0};
  native::allreduce_min(best, 1);
  int64_t rank = key[0] == best[0] ? key[1] : kMax;
  native::allreduce_min(&rank, 1);
  int64_t mine = (key[0] == best[0] && key[1] == rank && rank != kMax) ? code : std::numeric_limits<int64_t>::min();
  native::allreduce_max(&mine, 1);
  return mine == std::numeric_limits<int64_t>::min() ? 0 : static_cast<int>(mine);
}

// The one way out before the run: `say` prints "xsim: MSG" (process 0's, or the one that failed's), and the
// native MPI ends; the exit code is 2 (bad input).
int stop_before_run(bool say, const std::string& msg) {
  if (say) std::fprintf(stderr, "xsim: %s\n", msg.c_str());
  PMPI_Finalize();
  return 2;
}

// The processor model with the node model (docs/real-programs.md "Node model").
std::unique_ptr<proc::ProcessorModel> make_processor_model(const Options& opt) {
  proc::NodeModel node;
  node.memory_factor = opt.node_memory_factor;
  node.compute_factor = opt.node_compute_factor;
  node.host = opt.node_host == NodeHost::memory    ? proc::NodeHost::memory
              : opt.node_host == NodeHost::compute ? proc::NodeHost::compute
              : opt.node_host == NodeHost::number  ? proc::NodeHost::number
                                                   : proc::NodeHost::none;
  node.number = opt.node_host_number;
  return opt.cpu == CpuModel::none ? proc::make_none_model(node) : proc::make_scaled_model(opt.cpu_scale, node);
}

// The checks of the options against the built network, the same on every process: the first error, or "".
std::string run_setup_error(const Options& opt, const BuiltNetwork& built, int64_t world, int nprocs) {
  for (const auto& [rank, t] : opt.faults)
    if (rank >= world)
      return "-xsim-fault: rank " + std::to_string(rank) + " does not exist: the ranks are 0.." +
             std::to_string(world - 1);
  if (std::string links = links_option_error(opt); !links.empty()) return links;
  if (opt.model == NetModel::loggp && opt.contention == Contention::links)
    if (std::string why = LinkContention::unsupported(*built.network); !why.empty()) return why;
  if (std::string speed = node_speed_error(opt, built, world); !speed.empty()) return speed;
  return split_node_error(opt, built, nprocs);
}

// Whether any process failed a step that each does on its own: the lowest failed process prints its error.
bool any_failed(const std::string& error, int proc, int nprocs) {
  int64_t first = error.empty() ? std::numeric_limits<int64_t>::max() : proc;
  if (nprocs > 1) native::allreduce_min(&first, 1);
  if (first == std::numeric_limits<int64_t>::max()) return false;
  if (first == proc) std::fprintf(stderr, "xsim: %s\n", error.c_str());
  return true;
}

// Creates this process's engine, runs the ranks to the end and writes the report: the run's exit code.
int run_simulation(const Options& opt, BuiltNetwork& built, std::unique_ptr<proc::ProcessorModel> cpu,
                   std::unique_ptr<privatize::Privatizer> priv, int proc, int nprocs, int argc, char** argv,
                   char** envp) {
  int code = 0;
  try {
    Engine engine(opt, std::move(built.network), std::move(cpu), proc, nprocs, rank_main, argc, argv, envp,
                  std::move(built.core_of_rank), built.cores_per_node, built.node_latency);
    engine.set_hooks({rank_extra_free, describe_comm});
    coll::set_reduce_runner(&timed_reduction);
    native::set_stack_runner(&run_on_native_stack);  // MPICH's deep datatype calls leave the rank stacks
    engine.set_privatizer(priv.get());
    privatize::set_active(priv.get());
    comm_init_world(engine.world_size());
    ulfm_install(engine);  // revocations may reach any process (api_ulfm.cpp)
    Observing observing = observe_begin(opt, engine);  // trace, statistics, progress line (observation.hpp)
    app_calls_begin(opt.virtual_clocks);  // the application's clocks and random numbers (libc_clocks.hpp)
    t_simulation_thread = true;           // MPI calls from this thread only (api_support.hpp)
    double t0 = wall_now();
    int run_code = engine.run();
    double wall = wall_now() - t0;
    t_simulation_thread = false;
    app_calls_end();
    code = run_code != 0 ? run_code : global_exit_code(engine);
    std::fflush(stdout);
    if (!observe_end(observing, engine) && code == 0) code = 1;  // a requested file could not be written
    write_report(engine, opt, wall, code);
    comm_free_all();  // the communicators the application did not free (or could not: a failed member's)
    privatize::set_active(nullptr);
    priv.reset();  // the process's own image is current again
    g_engine = nullptr;
  } catch (const std::exception& err) {
    std::fflush(stdout);
    std::fprintf(stderr, "xsim: native process %d: %s\n", proc, err.what());
    native::abort_all(1);
  }
  return code;
}

int xsim_main(int argc, char** argv, char** envp) {
  const char* pmi_rank = std::getenv("PMI_RANK");
  bool speaker = !pmi_rank || !std::strcmp(pmi_rank, "0");
  Options opt;
  try {
    opt = parse_options(argc, argv, envp);
  } catch (const ConfigError& err) {
    if (speaker) std::fprintf(stderr, "xsim: %s\n", err.what());
    return 2;
  }
  if (opt.help) {
    if (speaker) std::fputs(help_text().c_str(), stdout);
    return 0;
  }
  int provided = 0;
  PMPI_Init_thread(nullptr, nullptr, MPI_THREAD_SINGLE, &provided);
  // Native errors (a bad datatype or op handed over by the application) come back as codes, so that
  // they reach the virtual communicator's error handler instead of killing the native process.
  PMPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  PMPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  const int proc = native::world_proc(), nprocs = native::world_procs();
  if (opt.np == 0) opt.np = nprocs;
  if (opt.print_config && proc == 0) std::fputs(to_toml(opt).c_str(), stderr);
  if (opt.np > std::numeric_limits<int32_t>::max())
    return stop_before_run(proc == 0, "-xsim-np " + std::to_string(opt.np) + " is too large (at most 2^31-1 ranks)");
  BuiltNetwork built;
  std::unique_ptr<proc::ProcessorModel> cpu;
  try {
    built = build_network(opt.network, opt.np, /*overheads_in_latency=*/opt.model == NetModel::analytic);
    cpu = make_processor_model(opt);
    blas::start(opt, proc);  // -xsim-kernels (blas_kernels.hpp)
  } catch (const std::exception& err) {
    return stop_before_run(proc == 0, err.what());
  }
  // [kernels.symbols] under -xsim-kernels model: the functions are found and patched before any rank
  // exists and before the executable's constructors run (symbol_models.hpp).
  const proc::KernelParams kp = kernel_params(opt.kernels);
  const std::string symbols_error =
      opt.kernels.mode == KernelMode::model
          ? install_symbol_models(opt.kernel_symbols, kp.peak, kp.bandwidth, SimTime::from_ps(std::max<int64_t>(0, kp.overhead_ps)))
          : std::string();
  if (any_failed(symbols_error, proc, nprocs)) return stop_before_run(false, "");
  add_report_lines(&symbol_models_report);
  const int64_t world = opt.np > 0 ? opt.np : nprocs;
  if (opt.mtbf > SimTime::zero()) add_random_failures(opt, built, world);
  if (std::string error = run_setup_error(opt, built, world, nprocs); !error.empty())
    return stop_before_run(proc == 0, error);

  // Before any rank exists: per-rank globals and the memory check. Every process learns whether any failed.
  const std::vector<int64_t> blocks =
      Engine::block_starts(opt.np, nprocs, built.core_of_rank.empty(), std::max<int64_t>(1, built.cores_per_node));
  const int64_t nlocal = blocks[static_cast<size_t>(proc) + 1] - blocks[static_cast<size_t>(proc)];
  std::string priv_note, priv_error;
  std::unique_ptr<privatize::Privatizer> priv = setup_privatization(opt, nlocal, proc, priv_note, priv_error);
  if (priv_error.empty()) priv_error = fold::start(opt.fold, opt.fold_shared);  // memory folding (fold_malloc.cpp)
  if (any_failed(priv_error, proc, nprocs)) return stop_before_run(false, "");
  privatize::set_note(priv_note);
  if (!priv) privatize::run_constructors(argc, argv, envp);  // once, for all ranks

  install_crash_handlers();
  pthread_atfork(nullptr, nullptr, [] {
    g_forked_child = true;
    if (g_engine && g_engine->in_rank()) g_engine->current().mpi_finalized = true;  // see engine.hpp
  });
  const int code = run_simulation(opt, built, std::move(cpu), std::move(priv), proc, nprocs, argc, argv, envp);
  PMPI_Finalize();
  return code;
}

int wrapped_main(int argc, char** argv, char** envp) { return xsim_main(argc, argv, envp); }

}  // namespace

extern "C" __attribute__((visibility("default"))) int __libc_start_main(StartMain main, int argc, char** argv,
                                                                        void (*init)(void), void (*fini)(void),
                                                                        void (*rtld_fini)(void), void* stack_end) {
  auto real = reinterpret_cast<LibcStartMain>(dlvsym(RTLD_NEXT, "__libc_start_main", "GLIBC_2.34"));
  if (!real) real = reinterpret_cast<LibcStartMain>(dlsym(RTLD_NEXT, "__libc_start_main"));
  MpiImports imports = executable_mpi_imports();
  bool take_over = !env_true("XSIM_DISABLE") && (env_true("XSIM_FORCE") || imports.init);
  if (take_over && imports.f08) {  // it would run on the native MPI's world, silently: refuse instead
    std::fprintf(stderr,
                 "xsim: this program uses the Fortran mpi_f08 module, which xsim does not support (the "
                 "mpi_f08 bindings of MPICH and Open MPI call the native MPI directly, past xsim); build it with 'use mpi' or "
                 "mpif.h instead (see fortran/README.md), or run it without xsim (XSIM_DISABLE=1)\n");
    _exit(1);
  }
  if (take_over) {
    g_app_main = main;
    main = wrapped_main;
    // The executable's constructors wait for xsim_main, which knows whether they run once or once per rank.
    // A current start file passes no init function (glibc then runs the constructors itself, which a
    // non-null one replaces); an older one passes the function that runs them.
    privatize::defer_constructors(reinterpret_cast<privatize::InitFn>(init));
    init = reinterpret_cast<void (*)(void)>(no_constructors);
  }
  return real(main, argc, argv, init, fini, rtld_fini, stack_end);
}

extern "C" __attribute__((visibility("default"))) void exit(int status) noexcept {
  // During an abort the native MPI's own abort path may call exit() (MPICH does with one process): that
  // must end the process, not only the virtual rank, or the other ranks would run on (or be reported as
  // deadlocked) and the abort's exit code would be lost.
  if (g_engine && g_engine->in_rank() && !native::aborting()) {
    if (privatize::Privatizer* p = privatize::active())
      p->run_exit_handlers(static_cast<size_t>(g_engine->current().index));  // the rank's atexit & co.
    // A child process the rank forked ends here, as it would natively: the simulation (the other ranks,
    // the report, MPI_Finalize) belongs to the parent.
    if (!g_forked_child) g_engine->rank_exit(status);  // does not return
#if XSIM_ASAN
    // LeakSanitizer's check at exit would report the whole simulation the child inherited (the parent's
    // ranks, messages and engine) as the child's leaks: under ASan the child leaves without it.
    std::fflush(nullptr);
    _exit(status);
#endif
  }
  using ExitFn = void (*)(int);
  static ExitFn real = reinterpret_cast<ExitFn>(dlsym(RTLD_NEXT, "exit"));
  real(status);
  __builtin_unreachable();
}

// A Fortran main program starts by calling libgfortran's _gfortran_set_options, which installs libgfortran's
// own SIGSEGV/SIGBUS/SIGFPE/SIGILL handlers (print a backtrace, re-raise). Each rank's main runs it inside
// the simulation, where those handlers would replace xsim's: a crashing Fortran rank would go unnamed and a
// stack overflow unreported (their handler runs on the overflowed stack). Let it run, then put xsim's back.
extern "C" __attribute__((visibility("default"))) void _gfortran_set_options(int num, const int options[]) {
  using SetOptions = void (*)(int, const int[]);
  static SetOptions real = reinterpret_cast<SetOptions>(dlsym(RTLD_NEXT, "_gfortran_set_options"));
  if (real) real(num, options);
  if (g_engine) install_crash_handlers();
}

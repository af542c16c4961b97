// Options: everything a run can be configured with, as plain data (docs/architecture.md §5).
// Layer: libxsim config. Filled once at start-up from defaults < TOML file < environment < command line,
// validated, then handed to constructors; nothing reads it through globals.
// The network's own types, presets and inline form are in network_spec.hpp (included here).
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kernel_symbols.hpp"
#include "network_spec.hpp"
#include "xsim/procmodel/kernel_model.hpp"
#include "xsim/procmodel/node_drift.hpp"
#include "xsim/procmodel/node_speed.hpp"
#include "xsim/procmodel/noise_model.hpp"
#include "xsim/simtime.hpp"

namespace xsim {

// Bad input throws ConfigError (config_error.hpp, included through network_spec.hpp).
enum class CpuModel { scaled, none };

// The message model (docs/network-model.md). analytic: paper 004's L = sum of link latencies + size / min
// bandwidth, the overheads os/or added to the latency, every message eager, no contention. loggp: os/or are
// CPU time of the sending/receiving rank, a gap per node NIC, eager up to the eager limit and rendezvous
// above it, and the contention model below.
enum class NetModel { analytic, loggp };
// loggp's contention: none; endpoint (each simulated node's injection and ejection link is a serial
// resource); links (also every link of the route is shared by the messages that cross it, in the order they
// left their nodes: docs/network-model.md "Link contention").
enum class Contention { none, endpoint, links };
// links' sharing of a link between the flows that cross it (docs/network-model.md "Fair sharing"): serial
// (one flow at a time, in the order they left their nodes), fair (max-min fair shares of its bandwidth) or
// rtt (max-min shares weighted by the inverse of each flow's route latency, as SimGrid's CM02 model).
enum class Sharing { serial, fair, rtt };
constexpr uint64_t kDefaultEager = 64 * 1024;  // the eager limit when neither -xsim-eager nor a preset sets it

// Per-rank globals (docs/privatization.md). automatic: on where a native process holds several ranks and
// the images fit in memory; on: always (an error when they do not fit); copy / map: on, with that method for
// every data region instead of the choice by size.
enum class PrivatizeMode { automatic, on, off, copy, map };

// Progress line on stderr (docs/observability.md): automatic = when stderr is a terminal.
enum class ProgressMode { automatic, on, off };

// The engine's large-scale mode (libxsim/README.md "Large-scale mode"): prefetching what the next ranks
// to run will touch, and deferred delivery of local messages. Virtual times and results are the same in
// every mode; automatic = from kLargeScaleRanks ranks in the native process, where it pays.
enum class LargeScaleMode { automatic, on, off };
constexpr int64_t kLargeScaleRanks = 512;  // measured: bench/README.md "Prefetch or load"

// Kernel models of BLAS calls (docs/real-programs.md "Kernel models"): exec runs every call; model charges a
// virtual rank's calls the modelled time instead (libxsim/runtime/process/blas_kernels.cpp); audit runs them
// as exec does and reports, per family and shape, their measured time beside the model's.
enum class KernelMode { exec, model, audit };
struct KernelOptions {
  KernelMode mode = KernelMode::exec;  // -xsim-kernels / [kernels] mode
  std::string preset;                  // -xsim-kernel-preset / [kernels] preset ("": none)
  proc::KernelParams params;           // the [kernels] keys and [kernels.FAMILY] tables given (others: -1)
  // [kernels] exec: families run as they are even under model (a program whose control flow reads what they
  // compute, as HPL reads its pivots): the default, none.
  std::vector<proc::Kernel> exec;
};
// The parameters in effect: the preset's, each replaced by the key given.
proc::KernelParams kernel_params(const KernelOptions& k);
// The node model (docs/real-programs.md "Node model"; procmodel/xsim/procmodel/node_model.hpp): which
// measured factor scales host-timed computation and xsim_compute charges. none: neither (the default).
enum class NodeHost { none, memory, compute, number };

// Each field is one option, described once by its row in kOptions (options.cpp): -xsim- name, environment
// twin, TOML table and key, help, parser and printer. A new simple option is a field here and a row there.
struct Options {
  int64_t np = 0;                         // virtual ranks; 0: one per native process
  NetworkSpec network;                    // -xsim-mn, -xsim-placement / [network]
  CpuModel cpu = CpuModel::scaled;        // -xsim-cpu / [cpu] model
  double cpu_scale = 1.0;                 // -xsim-cpu-scale / [cpu] scale: virtual = host time x scale
  // [node] memory_factor, compute_factor (-xsim-node-memory-factor, -xsim-node-compute-factor): all-core /
  // one-core time of a memory-bound and a compute-bound loop (xsim-calibrate --node). Default: 1
  double node_memory_factor = 1.0;
  double node_compute_factor = 1.0;
  NodeHost node_host = NodeHost::none;  // -xsim-node-host / [node] host: which factor applies
  double node_host_number = 1.0;        //   the factor itself when node_host is number
  uint64_t stack_size = 0;  // -xsim-stack / [simulation] stack: bytes per virtual rank; 0: auto (StackPool::auto_size)
  // -xsim-memory-check=refuse|warn / [simulation] memory_check: what start-up does when the ranks' estimated
  // memory (a lower bound: one stack page, engine state, privatized globals) exceeds what the host has
  // available. refuse (the default) stops before the run; warn prints the same numbers and runs.
  bool memory_check_warn = false;
  SimTime poll_cost = SimTime::from_ns(100);  // -xsim-poll-cost: virtual time per Test/Iprobe-like call
  NetModel model = NetModel::loggp;       // -xsim-model / [model] name
  // -xsim-eager / [model] eager: largest message sent eagerly (bytes); larger ones use rendezvous (loggp).
  // -1: the network preset's limit (NetworkSpec::eager), else kDefaultEager.
  int64_t eager = -1;
  Contention contention = Contention::endpoint;  // -xsim-contention / [model] contention (loggp)
  Sharing sharing = Sharing::serial;             // -xsim-sharing / [model] sharing (contention links)
  // Injected process failures (docs/resilience.md): -xsim-fault RANK@TIME[,RANK@TIME...] / [faults] inject.
  // Each (world rank, virtual time), sorted by rank; a rank fails once. Default: none.
  std::vector<std::pair<int64_t, SimTime>> faults;
  SimTime fault_detect;  // -xsim-fault-detect / [faults] detect: a failure's detection delay. Default: 0
  // -xsim-mtbf TIME[:SHAPE] / [faults] mtbf: random node failures, each simulated node failing once at a time
  // drawn from a Weibull distribution of mean TIME and shape SHAPE (1, the default: exponential), with
  // -xsim-seed / [faults] seed. A node's failure fails all its ranks. 0 (the default): none.
  SimTime mtbf;
  double mtbf_shape = 1.0;
  uint64_t seed = 1;  // -xsim-seed / [faults] seed: also the seed of the noise and the node speeds
  // -xsim-noise / [noise] detours: OS noise, detours that stretch each simulated node's computation
  // (docs/noise.md; procmodel/xsim/procmodel/noise_model.hpp). Default: none
  proc::NoiseSpec noise;
  // -xsim-node-speed / [noise] node_speed: a time factor per simulated node (normal:SIGMA or file:PATH;
  // docs/noise.md). Default: none (every node 1)
  proc::NodeSpeedSpec node_speed;
  // -xsim-node-drift / [noise] node_drift: each node's speed varying over time, a new factor every
  // interval (SIGMA:INTERVAL; docs/noise.md, node drift). Default: none
  proc::NodeDriftSpec node_drift;
  // -xsim-virtual-clocks / [simulation] virtual_clocks: a rank's application code reads its virtual time
  // from gettimeofday and clock_gettime (realtime and monotonic clocks), as from MPI_Wtime. Default: on
  bool virtual_clocks = true;
  // MPI-IO storage model (docs/mpi-io.md): each access costs io_latency + bytes / io_bandwidth_bps.
  SimTime io_latency = SimTime::from_ns(100'000);   // -xsim-io-lat / [io] latency. Default: 100 us
  uint64_t io_bandwidth_bps = 8'000'000'000;        // -xsim-io-bw / [io] bandwidth. Default: 1 GB/s
  bool report = true;                     // -xsim-report=on|off: end-of-run report on stderr
  // -xsim-coll-replay=on|off / [simulation] coll_replay: blocking collectives whose ranks are all on this
  // native process are computed by replaying their algorithm's messages on arrays (docs/collectives.md).
  // Default: on
  bool coll_replay = true;
  // -xsim-poll-skip=on|off / [simulation] poll_skip: a rank that repeats the same MPI_Iprobe kPollStreak times
  // in a row with nothing else in between (no other MPI call, no virtual time charged but the polls') blocks
  // until its next arrival, its clock then set to the first poll time at or after it: the virtual times of
  // polling every poll cost, without the polls. Default: off (the loop body runs fewer times).
  bool poll_skip = false;
  PrivatizeMode privatize = PrivatizeMode::automatic;  // -xsim-privatize / [simulation] privatize
  // -xsim-privatize-libs / [simulation] privatize_libs: libraries whose globals are privatized too (file
  // names), "auto" for every library that calls MPI itself; empty: none.
  std::vector<std::string> privatize_libs{"auto"};
  LargeScaleMode large_scale = LargeScaleMode::automatic;  // -xsim-large-scale / [simulation] large_scale
  // [kernels.symbols.NAME]: functions inside the program modelled by name (kernel_symbols.hpp), active
  // under -xsim-kernels model.
  std::vector<SymbolModelSpec> kernel_symbols;
  // -xsim-fold / [memory] fold: heap allocations of at least this many bytes that a virtual rank's
  // application code makes are folded (docs/real-programs.md "Memory folding"). 0 (the default): off.
  uint64_t fold = 0;
  // -xsim-fold SIZE:shared: every folded allocation maps one shared block (memory bounded whatever the
  // ranks write, but their writes alias each other); default (SIZE or SIZE:private): pages a rank writes are
  // its own, so what it writes it reads back (a program's pivots and indices), and memory is what is written.
  bool fold_shared = false;
  bool print_config = false;              // -xsim-print-config: print the effective configuration
  // Observation (docs/observability.md), TOML table [output].
  std::string trace;                      // -xsim-trace / [output] trace: base path of the trace files
                                          // (FILE.otf2 archive, FILE.json Chrome trace). Default: none (off)
  bool trace_otf2 = true;                 // -xsim-trace-format otf2|json|both / [output] trace_format.
  bool trace_json = true;                 //   Default: both
  uint64_t trace_buffer = 64ull << 20;    // -xsim-trace-buffer / [output] trace_buffer: bytes of events a native
                                          // process keeps in memory before moving them to a spill file. 64M
  std::string stats;                      // -xsim-stats / [output] stats: prefix of the statistics files
                                          // (PREFIX.ranks.csv, ...). Default: none (off)
  int64_t stats_matrix = 256;             // -xsim-stats-matrix / [output] stats_matrix: largest number of rows
                                          // of the communication matrix (ranks, else nodes, else rank blocks)
  ProgressMode progress = ProgressMode::automatic;  // -xsim-progress / [output] progress
  KernelOptions kernels;                  // -xsim-kernels, -xsim-kernel-preset / [kernels]
  bool help = false;                      // -xsim-help
  std::string config_file;                // -xsim-config / XSIM_CONFIG
};

// The eager limit in effect: -xsim-eager, else the preset's, else kDefaultEager.
inline uint64_t eager_limit(const Options& o) {
  return o.eager >= 0 ? static_cast<uint64_t>(o.eager) : o.network.eager ? o.network.eager : kDefaultEager;
}

// Builds the effective options. Removes every "-xsim-*" argument (and its value) from argv, compacting it
// in place and updating argc. `envp` supplies the XSIM_* twins. Throws ConfigError on any bad input.
Options parse_options(int& argc, char** argv, char** envp);

// Applies the TOML text of a configuration file over `o`, as parse_options does with -xsim-config before
// the environment and the command line; `name` stands for the file in messages (name:line:column).
// Throws ConfigError on any bad input. (The fuzz target tests/fuzz/fuzz_toml.cpp calls it.)
void load_config_text(Options& o, const std::string& text, const std::string& name);

// Multi-line description of every option with its environment twin and default (for -xsim-help).
std::string help_text();
// Effective configuration as TOML that parse_options would accept back (for -xsim-print-config).
std::string to_toml(const Options& o);

}  // namespace xsim

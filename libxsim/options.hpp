// Options: everything a run can be configured with, as plain data (DESIGN.md §5).
// Layer: libxsim config. Filled once at start-up from defaults < TOML file < environment < command line,
// validated, then handed to constructors; nothing reads it through globals.
// Only options.cpp includes toml++.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "xsim/simtime.hpp"

namespace xsim {

// A configuration or command-line error: the message says what was wrong, where (file:line or option)
// and how to fix it. The runtime prints it and exits with status 2 before any virtual rank starts.
struct ConfigError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One level of a network hierarchy (DESIGN.md §4, docs/network-config.md). Which fields a topology reads:
//   star:         size {endpoints}, latency, bandwidth
//   ring:         size {endpoints}, uni, latency, bandwidth
//   mesh:         size {m0, m1, ...} or dims, latency, bandwidth
//   torus:        as mesh, plus wrap
//   twistedtorus: as torus, plus degree and jump
//   tree:         k, depth, endpoints, latency, bandwidth
//   dragonfly:    p, a, h, g, columns, routing, latency, bandwidth and the terminal/local/global overrides
//   fattree:      m, n, latency, bandwidth
// A level whose size is left out (star, ring, tree without depth/endpoints, mesh/torus/twistedtorus without
// size, dragonfly with g = 0) is sized from the rank count at build time: ceil(np / cores per endpoint).
// At most one level of a network may be sized that way.
struct NetworkLevel {
  // star | ring | mesh | torus | twistedtorus | tree | dragonfly | fattree. Default: "star".
  std::string topology = "star";
  // star, ring: {endpoint count}; mesh, torus, twistedtorus: the dimensions, dimension 0 varying fastest.
  // Default: empty = sized from the rank count.
  std::vector<int64_t> size;
  // mesh, torus, twistedtorus with an empty size: dimensions of the most square factorisation. Default: 0
  // (= 1 for an empty size; unused when size is given).
  int dims = 0;
  // torus, twistedtorus: one 0/1 per dimension, 1 = wrap-around links. Default: empty = all 1.
  std::vector<int> wrap;
  // twistedtorus: toroidal degree g, 0 <= g < dimensions. Default: 1.
  int degree = 1;
  // twistedtorus: jump of each wrapping dimension. Default: empty = all 1.
  std::vector<int> jump;
  // ring: unidirectional (links i -> i+1 only). Default: false (bidirectional).
  bool uni = false;
  // tree: arity (the inline SIZE of a tree). Default: 2.
  int k = 2;
  // tree: depth; the tree has k^depth leaves. Default: 0 = given by endpoints.
  int depth = 0;
  // tree: leaf count (a partial tree below k^depth). Default: 0 = k^depth, or sized from the rank count.
  int64_t endpoints = 0;
  // dragonfly: endpoints per router, routers per group, global links per router. Defaults: 1, 1, 1.
  int p = 1, a = 1, h = 1;
  // dragonfly: groups (<= a*h + 1). Default: 0 = sized from the rank count.
  int g = 0;
  // dragonfly: 0 = all-to-all routers in a group; c > 0 = (a/c) x c grid (Cray Aries). Default: 0.
  int columns = 0;
  // dragonfly: "minimal" or "valiant". Default: "minimal".
  std::string routing = "minimal";
  // fattree: switch ports m (even) and levels n: 2(m/2)^n endpoints. Defaults: 4, 1.
  int m = 4, n = 1;
  // Every link of the level (dragonfly: every link kind not overridden below). Default: 1 us.
  SimTime latency = SimTime::from_ns(1'000);
  // Every link of the level, bits per second (dragonfly: as latency). Default: 10 Gbps.
  uint64_t bandwidth_bps = 10'000'000'000;
  // dragonfly: endpoint-router, intra-group and inter-group links. Default: 0 = latency / bandwidth_bps.
  SimTime terminal_latency, local_latency, global_latency;
  uint64_t terminal_bandwidth_bps = 0, local_bandwidth_bps = 0, global_bandwidth_bps = 0;

  bool operator==(const NetworkLevel&) const = default;
};

// The ethernet preset's single level: a star of 25 us, 1 Gbps links (004 Table I).
inline NetworkLevel ethernet_level() {
  NetworkLevel l;
  l.latency = SimTime::from_ns(25'000);
  l.bandwidth_bps = 1'000'000'000;
  return l;
}

struct NetworkSpec {
  // Preset it came from ("ethernet", ...), or "custom". Default: "ethernet".
  std::string preset = "ethernet";
  // Levels, outermost (system network) first; every endpoint of level i holds one copy of level i+1.
  // Default: the ethernet preset, one star (sized from the rank count) with 25 us links of 1 Gbps.
  std::vector<NetworkLevel> levels{ethernet_level()};
  // Per message, sender side. Default: 0.
  SimTime send_overhead = SimTime::zero();
  // Per message, receiver side. Default: 0.
  SimTime recv_overhead = SimTime::zero();
  // Rank placement: "block" (rank r on core r), "roundrobin" (rank r on node r mod nodes, next free core
  // there) or "file" (placement_file). Default: "block".
  std::string placement = "block";
  // placement "file": one core index per line for ranks 0..np-1 ('#' comments and blank lines allowed).
  // Default: empty.
  std::string placement_file;

  bool operator==(const NetworkSpec&) const = default;
};

enum class CpuModel { scaled, none };

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
constexpr int64_t kLargeScaleRanks = 2048;

struct Options {
  int64_t np = 0;                         // virtual ranks; 0: one per native process
  NetworkSpec network;                    // -xsim-mn, -xsim-placement / [network]
  CpuModel cpu = CpuModel::scaled;        // -xsim-cpu / [cpu] model
  double cpu_scale = 1.0;                 // -xsim-cpu-scale / [cpu] scale: virtual = host time x scale
  uint64_t stack_size = 0;  // -xsim-stack / [simulation] stack: bytes per virtual rank; 0: auto (StackPool::auto_size)
  SimTime poll_cost = SimTime::from_ns(100);  // -xsim-poll-cost: virtual time per Test/Iprobe-like call
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
  PrivatizeMode privatize = PrivatizeMode::automatic;  // -xsim-privatize / [simulation] privatize
  // -xsim-privatize-libs / [simulation] privatize_libs: libraries whose globals are privatized too (file
  // names), "auto" for every library that calls MPI itself; empty: none.
  std::vector<std::string> privatize_libs{"auto"};
  LargeScaleMode large_scale = LargeScaleMode::automatic;  // -xsim-large-scale / [simulation] large_scale
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
  bool help = false;                      // -xsim-help
  std::string config_file;                // -xsim-config / XSIM_CONFIG
};

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

// Named network presets (004 Table I, plus aries; docs/network-config.md has their parameters):
// none, ethernet, multicore-ethernet, mesh2d, mesh3d-dualcore, torus3d-dualcore, twistedtorus3d-dualcore,
// aries. Throws ConfigError for an unknown name, listing the known ones.
NetworkSpec network_preset(const std::string& name);
// The preset names, in the order above.
std::vector<std::string> network_preset_names();
// Parses an inline network spec (-xsim-mn, xsim-net --mn): levels from the system network inward separated
// by '/', each TOPOLOGY[:SIZE][:key=value|:flag]*, or a preset name with optional :key=value overrides
// (grammar in docs/network-config.md). Placement is not part of it (it stays block).
NetworkSpec parse_network_inline(const std::string& spec);
// The inline form of a spec's levels and overheads; parse_network_inline reads it back to the same levels.
std::string format_network_inline(const NetworkSpec& spec, bool with_links = true);
// The inline form of one level (e.g. "torus:4x4x4:wrap=1,0,1:lat=1us:bw=10Gbps"); without links: no lat/bw.
std::string format_network_level(const NetworkLevel& level, bool with_links = true);

}  // namespace xsim

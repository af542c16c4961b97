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

struct NetworkSpec {
  std::string preset = "ethernet";        // preset it came from, or "custom"
  std::string topology = "star";          // only "star" for now; the network issue adds the others
  int64_t endpoints = 0;                  // 0: one endpoint per virtual rank
  SimTime link_latency = SimTime::from_ns(25'000);  // per link
  uint64_t link_bandwidth_bps = 1'000'000'000;      // per link, bits per second
  SimTime send_overhead = SimTime::zero();          // per message, sender side
  SimTime recv_overhead = SimTime::zero();          // per message, receiver side
};

enum class CpuModel { scaled, none };

struct Options {
  int64_t np = 0;                         // virtual ranks; 0: one per native process
  NetworkSpec network;                    // -xsim-mn / [network]
  CpuModel cpu = CpuModel::scaled;        // -xsim-cpu / [cpu] model
  double cpu_scale = 1.0;                 // -xsim-cpu-scale / [cpu] scale: virtual = host time x scale
  uint64_t stack_size = 256 * 1024;       // -xsim-stack / [simulation] stack: bytes per virtual rank
  SimTime poll_cost = SimTime::from_ns(100);  // -xsim-poll-cost: virtual time per Test/Iprobe-like call
  bool report = true;                     // -xsim-report=on|off: end-of-run report on stderr
  bool print_config = false;              // -xsim-print-config: print the effective configuration
  bool help = false;                      // -xsim-help
  std::string config_file;                // -xsim-config / XSIM_CONFIG
};

// Builds the effective options. Removes every "-xsim-*" argument (and its value) from argv, compacting it
// in place and updating argc. `envp` supplies the XSIM_* twins. Throws ConfigError on any bad input.
Options parse_options(int& argc, char** argv, char** envp);

// Multi-line description of every option with its environment twin and default (for -xsim-help).
std::string help_text();
// Effective configuration as TOML that parse_options would accept back (for -xsim-print-config).
std::string to_toml(const Options& o);

// Named network presets (004 Table I as far as a single star goes; the network issue adds the rest).
// Throws ConfigError for an unknown name, listing the known ones.
NetworkSpec network_preset(const std::string& name);
// Parses an inline network spec: a preset name, or "star[:N][:lat=TIME][:bw=BANDWIDTH][:os=TIME][:or=TIME]".
NetworkSpec parse_network_inline(const std::string& spec);

}  // namespace xsim

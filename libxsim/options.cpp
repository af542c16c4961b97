// Options: defaults < TOML file < environment < command line (see options.hpp and docs/architecture.md §5).
// One table, kOptions, describes every option once: its -xsim- name, environment twin, TOML table and key,
// help, and how its value is read (from text, from a TOML value) and shown (help's default, to_toml). The
// command line, the environment, the TOML file, help_text() and to_toml() are loops over it. The network
// (-xsim-mn, -xsim-placement, [network]) has structure of its own: network_spec.cpp (inline form, presets)
// and network_toml.cpp (its TOML tables). Every value is converted and range-checked where it is read, so
// an error can name its origin: "-xsim-np", "XSIM_NP" or "file.toml:LINE:COL: [simulation] np".
#include "options.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <tuple>
#include <type_traits>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

#include "config_toml.hpp"
#include "config_util.hpp"
#include "network_config.hpp"
#include "option_values.hpp"
#include "xsim/units.hpp"

namespace xsim {
namespace {
using namespace cfg;
using namespace option_values;


// ---------------------------------------------------------------------------------------------------
// The option table.

struct OptionDef;

// How an option's value is read and shown.
struct Value {
  // From text: the command line, the environment, and TOML values of the types in `toml`.
  void (*set)(Options& o, std::string_view value, const std::string& where);
  // The text form of the value, "" when it is not set: help's default and, per `form`, the TOML value.
  std::string (*show)(const Options& o);
  // The TOML value types read through `set`: strings as they are, integers as decimal text, booleans as on/off.
  unsigned toml = 0;
  // What the TOML value must be, in "expected ..." messages.
  const char* expect = nullptr;
  // How the shown text stands in TOML: a string, as it is (numbers), or true/false for on/off.
  enum Form { string, bare, boolean } form = string;
  // TOML values whose type differs from the text form (floats, arrays, integers with checks of their own).
  // Returns false for a value it does not take.
  bool (*from_toml)(Options& o, const TomlReader& r, const toml::node& n, const OptionDef& d,
                    const std::string& where) = nullptr;
  // The TOML value, where the shown text does not make it (arrays).
  std::string (*toml_show)(const Options& o) = nullptr;
};
enum : unsigned { kString = 1, kInteger = 2, kBoolean = 4 };

struct OptionDef {
  const char* name;   // after "-xsim-"
  const char* env;    // environment twin
  const char* table;  // TOML table, or nullptr: command line and environment only
  const char* key;    // the key in that table
  const char* arg;    // value syntax shown by help; nullptr for a flag (which also accepts =on/=off)
  const char* help;   // one line
  Value value;
  const char* unset_help = nullptr;  // help's default when the value is not set
  const char* unset_toml = nullptr;  // to_toml's "# KEY not set: ..." when it is not set
};

// Values of common kinds: the Options member F.
template <auto F>
constexpr Value time_value() {
  return {[](Options& o, std::string_view v, const std::string& w) { o.*F = to_time(v, w); },
          [](const Options& o) { return format_time(o.*F); }, kString, "a time string such as \"25us\""};
}
template <auto F>
constexpr Value on_off_value() {
  return {[](Options& o, std::string_view v, const std::string& w) { o.*F = to_bool(v, w); },
          [](const Options& o) { return std::string(o.*F ? "on" : "off"); }, kBoolean, "a boolean (true or false)",
          Value::boolean};
}
template <auto F>  // ProgressMode, LargeScaleMode
constexpr Value auto_mode_value() {
  return {[](Options& o, std::string_view v, const std::string& w) {
            o.*F = to_auto_mode<std::remove_reference_t<decltype(o.*F)>>(v, w);
          },
          [](const Options& o) { return std::string(auto_mode_name(o.*F)); }, kString | kBoolean,
          "\"auto\", \"on\" or \"off\""};
}
template <auto F, const char* What>  // an output file prefix that may be unset
constexpr Value path_value(const char* expect) {
  return {[](Options& o, std::string_view v, const std::string& w) { o.*F = to_output_path(v, w, What); },
          [](const Options& o) { return o.*F; }, kString, expect};
}
constexpr char kTraceWhat[] = "trace file", kStatsWhat[] = "statistics prefix";

// TOML values of other types than the text form.
bool stack_from_toml(Options& o, const TomlReader&, const toml::node& n, const OptionDef&, const std::string& w) {
  if (!n.is_integer()) return false;
  int64_t b = n.as_integer()->get();
  if (b < 0) fail(w, "a stack size must not be negative");
  o.stack_size = check_stack(static_cast<uint64_t>(b), w);
  return true;
}
bool scale_from_toml(Options& o, const TomlReader&, const toml::node& n, const OptionDef&, const std::string& w) {
  if (n.is_floating_point()) o.cpu_scale = check_scale(n.as_floating_point()->get(), w);
  else if (n.is_integer()) o.cpu_scale = check_scale(static_cast<double>(n.as_integer()->get()), w);
  else return false;
  return true;
}
template <double Options::*F>
bool factor_from_toml(Options& o, const TomlReader&, const toml::node& n, const OptionDef&, const std::string& w) {
  if (n.is_floating_point()) o.*F = check_node_factor(n.as_floating_point()->get(), w);
  else if (n.is_integer()) o.*F = check_node_factor(static_cast<double>(n.as_integer()->get()), w);
  else return false;
  return true;
}
bool host_from_toml(Options& o, const TomlReader&, const toml::node& n, const OptionDef&, const std::string& w) {
  double f = 0;
  if (n.is_floating_point()) f = n.as_floating_point()->get();
  else if (n.is_integer()) f = static_cast<double>(n.as_integer()->get());
  else return false;
  o.node_host_number = check_node_factor(f, w);
  o.node_host = NodeHost::number;
  return true;
}
template <double Options::*F>
constexpr Value node_factor_value() {
  return {[](Options& o, std::string_view v, const std::string& w) { o.*F = to_node_factor(v, w); },
          [](const Options& o) { return shortest_double(o.*F); }, 0, "a number", Value::bare, factor_from_toml<F>};
}
bool matrix_from_toml(Options& o, const TomlReader&, const toml::node& n, const OptionDef&, const std::string& w) {
  if (!n.is_integer()) return false;
  int64_t v = n.as_integer()->get();
  if (v < 1 || v > kMaxMatrix) fail(w, "must be between 1 and " + std::to_string(kMaxMatrix) + " (got " + std::to_string(v) + ")");
  o.stats_matrix = v;
  return true;
}
bool libs_from_toml(Options& o, const TomlReader& r, const toml::node& n, const OptionDef& d, const std::string&) {
  const toml::array* a = n.as_array();
  if (!a) return false;
  o.privatize_libs.clear();
  for (const toml::node& e : *a) {
    if (!e.is_string() || e.as_string()->get().empty()) r.wrong_type(e, d.table, d.key, d.value.expect);
    o.privatize_libs.push_back(e.as_string()->get());
  }
  return true;
}


constexpr OptionDef kOptions[] = {
    {"np", "XSIM_NP", "simulation", "np", "M", "number of virtual ranks to simulate",
     {[](Options& o, std::string_view v, const std::string& w) { o.np = to_np(v, w); },
      [](const Options& o) { return o.np ? std::to_string(o.np) : std::string(); }, kInteger, "an integer", Value::bare},
     "one virtual rank per native process", "one virtual rank per native process"},
    {"mn", "XSIM_MN", nullptr, nullptr, "SPEC", "network model: a preset name or an inline spec (see below)",
     {to_network, [](const Options& o) {
        return o.network.preset != "custom" ? o.network.preset : format_network_inline(o.network);
      }}},
    {"placement", "XSIM_PLACEMENT", nullptr, nullptr, "block|roundrobin|file:PATH",
     "placement of virtual ranks on cores (file: one core index per line for ranks 0..np-1)",
     {to_placement, [](const Options& o) {
        return o.network.placement == "file" ? "file:" + o.network.placement_file : o.network.placement;
      }}},
    {"config", "XSIM_CONFIG", nullptr, nullptr, "FILE", "TOML configuration file (schema: -xsim-print-config)",
     {[](Options&, std::string_view, const std::string&) {},  // read before the file is loaded
      [](const Options& o) { return o.config_file; }},
     "none"},
    {"cpu", "XSIM_CPU", "cpu", "model", "none|scaled",
     "processor model: scaled charges host compute time x scale, none charges nothing (deterministic)",
     {[](Options& o, std::string_view v, const std::string& w) { o.cpu = to_cpu(v, w); },
      [](const Options& o) { return std::string(o.cpu == CpuModel::scaled ? "scaled" : "none"); }, kString,
      "a string (\"none\" or \"scaled\")"}},
    {"cpu-scale", "XSIM_CPU_SCALE", "cpu", "scale", "F",
     "factor of the scaled model: virtual time = host time x F (F > 0)",
     {[](Options& o, std::string_view v, const std::string& w) { o.cpu_scale = to_scale(v, w); },
      [](const Options& o) { return shortest_double(o.cpu_scale); }, 0, "a number", Value::bare, scale_from_toml}},
    {"node-host", "XSIM_NODE_HOST", "node", "host", "none|memory|compute|F",
     "node model: host-timed computation and xsim_compute charges x the [node] factor (memory_factor, "
     "compute_factor) or F",
     {to_node_host, node_host_text, kString, "\"none\", \"memory\", \"compute\" or a number", Value::string,
      host_from_toml,
      [](const Options& o) {
        return o.node_host == NodeHost::number ? node_host_text(o) : toml_string(node_host_text(o));
      }}},
    {"node-memory-factor", "XSIM_NODE_MEMORY_FACTOR", "node", "memory_factor", "F",
     "all-core / one-core time of a memory-bound loop (xsim-calibrate --node)",
     node_factor_value<&Options::node_memory_factor>()},
    {"node-compute-factor", "XSIM_NODE_COMPUTE_FACTOR", "node", "compute_factor", "F",
     "all-core / one-core time of a compute-bound loop (xsim-calibrate --node)",
     node_factor_value<&Options::node_compute_factor>()},
    {"stack", "XSIM_STACK", "simulation", "stack", "auto|SIZE",
     "fiber stack size per virtual rank (4K to 1G, whole pages; auto: 8M, less from 2,048 ranks per process, 64K from 262,144)",
     {[](Options& o, std::string_view v, const std::string& w) { o.stack_size = to_stack(v, w); },
      [](const Options& o) { return o.stack_size ? format_size(o.stack_size) : std::string("auto"); }, kString,
      "\"auto\", a size string such as \"256K\" or an integer byte count", Value::string, stack_from_toml}},
    {"memory-check", "XSIM_MEMORY_CHECK", "simulation", "memory_check", "refuse|warn",
     "when the ranks may not fit in the memory the host has available (estimated before the run): refuse to start, "
     "or warn and run (the estimate is a lower bound; the report's stack line measures what ranks touched)",
     {[](Options& o, std::string_view v, const std::string& w) {
        if (v != "refuse" && v != "warn") fail(w, "expected \"refuse\" or \"warn\", got \"" + std::string(v) + "\"");
        o.memory_check_warn = v == "warn";
      },
      [](const Options& o) { return std::string(o.memory_check_warn ? "warn" : "refuse"); }, kString,
      "a string (\"refuse\" or \"warn\")"}},
    {"poll-cost", "XSIM_POLL_COST", "simulation", "poll_cost", "TIME",
     "virtual time charged by each MPI_Test/MPI_Iprobe-like call", time_value<&Options::poll_cost>()},
    {"model", "XSIM_MODEL", "model", "name", "loggp|analytic",
     "message model: loggp (CPU overheads, NIC gap, eager/rendezvous, contention) or analytic (paper 004: "
     "latency + size / bandwidth only)",
     {[](Options& o, std::string_view v, const std::string& w) { o.model = to_model(v, w); },
      [](const Options& o) { return std::string(o.model == NetModel::loggp ? "loggp" : "analytic"); }, kString,
      "a string (\"loggp\" or \"analytic\")"}},
    {"eager", "XSIM_EAGER", "model", "eager", "auto|SIZE",
     "loggp: largest message sent eagerly; larger ones use rendezvous (auto: the preset's limit, else 64K)",
     {[](Options& o, std::string_view v, const std::string& w) { o.eager = to_eager(v, w); },
      [](const Options& o) { return o.eager >= 0 ? format_size(static_cast<uint64_t>(o.eager)) : std::string("auto"); },
      kString | kInteger, "\"auto\", a size string such as \"64K\" or a byte count"}},
    {"contention", "XSIM_CONTENTION", "model", "contention", "none|endpoint|links",
     "loggp: contention model (endpoint: each node's injection and ejection link serializes its messages; "
     "links: also every link of the routes, between nodes and inside them)",
     {[](Options& o, std::string_view v, const std::string& w) { o.contention = to_contention(v, w); },
      [](const Options& o) { return std::string(contention_name(o.contention)); }, kString,
      "a string (\"none\", \"endpoint\" or \"links\")"}},
    {"sharing", "XSIM_SHARING", "model", "sharing", "serial|fair|rtt",
     "links: how the flows crossing a link share it (serial: one after another in the order they left; fair: "
     "max-min fair shares of its bandwidth; rtt: shares weighted by 1 / route latency, as SimGrid's CM02)",
     {[](Options& o, std::string_view v, const std::string& w) { o.sharing = to_sharing(v, w); },
      [](const Options& o) { return std::string(sharing_name(o.sharing)); }, kString,
      "a string (\"serial\", \"fair\" or \"rtt\")"}},
    {"fault", "XSIM_FAULT", "faults", "inject", "RANK@TIME[,...]",
     "inject process failures: each RANK fails at virtual TIME (docs/resilience.md; none: no failure)",
     {[](Options& o, std::string_view v, const std::string& w) { o.faults = to_faults(v, w); },
      faults_text, kString, "a string such as \"3@2ms,5@1s\""},
     "none"},
    {"fault-detect", "XSIM_FAULT_DETECT", "faults", "detect", "TIME",
     "how long after a rank fails an operation that involves it reports MPIX_ERR_PROC_FAILED",
     time_value<&Options::fault_detect>()},
    {"mtbf", "XSIM_MTBF", "faults", "mtbf", "TIME[:SHAPE]",
     "random node failures: mean time between failures per node (Weibull SHAPE, default 1: exponential)",
     {to_mtbf, mtbf_text, kString, "a string such as \"2ms\" or \"3600s:0.7\""}, "none"},
    {"seed", "XSIM_SEED", "faults", "seed", "N",
     "seed of the random node failures (-xsim-mtbf), the noise (-xsim-noise) and the node speeds",
     {[](Options& o, std::string_view v, const std::string& w) {
        o.seed = static_cast<uint64_t>(parse_int(v, w, "the seed", 0, INT64_MAX));
      },
      [](const Options& o) { return std::to_string(o.seed); }, kString | kInteger, "an integer", Value::bare}},
    {"noise", "XSIM_NOISE", "noise", "detours", "SPEC",
     "OS noise per simulated node, stretching computation: periodic:PERIOD:DURATION[:random], "
     "poisson:RATE:DURATION or trace:FILE (docs/noise.md)",
     {to_noise, [](const Options& o) { return o.noise.text; }, kString,
      "a string such as \"periodic:1ms:10us\" or \"poisson:10kHz:20us\""}},
    {"node-speed", "XSIM_NODE_SPEED", "noise", "node_speed", "SPEC",
     "a time factor per simulated node on its computation: normal:SIGMA (seeded) or file:PATH (docs/noise.md)",
     {to_node_speed, [](const Options& o) { return o.node_speed.text; }, kString,
      "a string such as \"normal:0.02\" or \"file:speeds.txt\""}},
    {"node-drift", "XSIM_NODE_DRIFT", "noise", "node_drift", "SIGMA:INTERVAL",
     "a node's speed drifting over time: a new time factor 1 + SIGMA x Z (seeded) every INTERVAL (docs/noise.md)",
     {to_node_drift, [](const Options& o) { return o.node_drift.text; }, kString, "a string such as \"0.02:10ms\""}},
    {"virtual-clocks", "XSIM_VIRTUAL_CLOCKS", "simulation", "virtual_clocks", "on|off",
     "the application's gettimeofday and clock_gettime (realtime, monotonic) read virtual time, like MPI_Wtime",
     on_off_value<&Options::virtual_clocks>()},
    {"io-lat", "XSIM_IO_LAT", "io", "latency", "TIME", "MPI-IO storage latency, charged once per file access",
     time_value<&Options::io_latency>()},
    {"io-bw", "XSIM_IO_BW", "io", "bandwidth", "BANDWIDTH",
     "MPI-IO storage bandwidth: an access of B bytes costs io-lat + B / io-bw",
     {[](Options& o, std::string_view v, const std::string& w) { o.io_bandwidth_bps = to_bandwidth(v, w); },
      [](const Options& o) { return format_bandwidth(o.io_bandwidth_bps); }, kString,
      "a bandwidth string such as \"1GB/s\""}},
    {"report", "XSIM_REPORT", "simulation", "report", "on|off", "print the end-of-run report on stderr",
     on_off_value<&Options::report>()},
    {"coll-replay", "XSIM_COLL_REPLAY", "simulation", "coll_replay", "on|off",
     "fast path of blocking collectives within one native process: replay the algorithm's messages on arrays "
     "(same virtual times and results)",
     on_off_value<&Options::coll_replay>()},
    {"poll-skip", "XSIM_POLL_SKIP", "simulation", "poll_skip", "on|off",
     "a rank that repeats one MPI_Iprobe kPollStreak times in a row, with nothing else in between, waits for its "
     "next arrival instead of polling (the same virtual times; the loop runs fewer times: docs/virtual-clocks.md)",
     on_off_value<&Options::poll_skip>()},
    {"privatize", "XSIM_PRIVATIZE", "simulation", "privatize", "auto|on|off|copy|map",
     "each virtual rank gets its own globals and statics (auto: when a process holds several ranks and they fit)",
     {[](Options& o, std::string_view v, const std::string& w) { o.privatize = to_privatize(v, w); },
      [](const Options& o) { return std::string(privatize_name(o.privatize)); }, kString | kBoolean,
      "\"auto\", \"on\", \"off\", \"copy\" or \"map\""}},
    {"privatize-libs", "XSIM_PRIVATIZE_LIBS", "simulation", "privatize_libs", "auto|none|LIB[,LIB...]",
     "also privatize the globals of these shared libraries (file names, e.g. libfoo.so; auto: those that call MPI)",
     {[](Options& o, std::string_view v, const std::string& w) { o.privatize_libs = to_lib_list(v, w); },
      [](const Options& o) { return o.privatize_libs.empty() ? std::string("none") : join(o.privatize_libs, ","); },
      kString, "an array of library file names such as [\"libfoo.so\"]", Value::string, libs_from_toml,
      [](const Options& o) {  // always: [] (none) differs from the default ["auto"]
        std::vector<std::string> libs;
        for (const auto& l : o.privatize_libs) libs.push_back(toml_string(l));
        return "[" + join(libs) + "]";
      }}},
    {"large-scale", "XSIM_LARGE_SCALE", "simulation", "large_scale", "auto|on|off",
     "prefetching and deferred delivery for many ranks per process (same results; auto: from 512 local ranks)",
     auto_mode_value<&Options::large_scale>()},
    {"fold", "XSIM_FOLD", "memory", "fold", "off|SIZE[:private|:shared]",
     "memory folding: a rank's heap allocations of at least SIZE get address space but memory only where written "
     "(private) or one shared block (shared); messages carry only their first and last 4K (for timing runs; "
     "docs/real-programs.md)",
     {[](Options& o, std::string_view v, const std::string& w) { o.fold = to_fold(v, w, &o.fold_shared); },
      [](const Options& o) {
        return o.fold ? format_size(o.fold) + (o.fold_shared ? ":shared" : "") : std::string("off");
      }, kString | kInteger,
      "\"off\", a size string such as \"1M\" or a byte count"}},
    {"trace", "XSIM_TRACE", "output", "trace", "FILE",
     "trace every rank's MPI calls and messages in virtual time: FILE.otf2 (OTF2) and FILE.json (Chrome/Perfetto)",
     path_value<&Options::trace, kTraceWhat>("a file path string such as \"out/run1\""), "none (off)", "no trace"},
    {"trace-format", "XSIM_TRACE_FORMAT", "output", "trace_format", "otf2|json|both", "which trace files to write",
     {[](Options& o, std::string_view v, const std::string& w) { to_trace_format(v, w, o); },
      [](const Options& o) { return std::string(trace_format_name(o)); }, kString,
      "a string (\"otf2\", \"json\" or \"both\")"}},
    {"trace-buffer", "XSIM_TRACE_BUFFER", "output", "trace_buffer", "SIZE",
     "trace events a native process keeps in memory before moving them to a spill file next to FILE",
     {[](Options& o, std::string_view v, const std::string& w) { o.trace_buffer = to_trace_buffer(v, w); },
      [](const Options& o) { return format_size(o.trace_buffer); }, kString | kInteger,
      "a size string such as \"64M\""}},
    {"stats", "XSIM_STATS", "output", "stats", "PREFIX",
     "write statistics: PREFIX.ranks.csv/.json, PREFIX.functions.csv/.json, PREFIX.matrix.csv/.json",
     path_value<&Options::stats, kStatsWhat>("a file prefix string such as \"out/run1\""), "none (off)",
     "no statistics files"},
    {"stats-matrix", "XSIM_STATS_MATRIX", "output", "stats_matrix", "N",
     "communication matrix rows: per rank up to N ranks, else per simulated node (if at most N), else N rank blocks",
     {[](Options& o, std::string_view v, const std::string& w) {
        o.stats_matrix = parse_int(v, w, "the matrix size", 1, kMaxMatrix);
      },
      [](const Options& o) { return std::to_string(o.stats_matrix); }, 0, "an integer", Value::bare,
      matrix_from_toml}},
    {"progress", "XSIM_PROGRESS", "output", "progress", "auto|on|off",
     "progress line on stderr (virtual time, ranks finished, messages/s); auto: when stderr is a terminal",
     auto_mode_value<&Options::progress>()},
    {"kernels", "XSIM_KERNELS", "kernels", "mode", "exec|model|audit",
     "BLAS calls of the ranks: exec runs them; model charges their modelled time instead, without running them; "
     "audit runs them and reports their measured time beside the model's (docs/real-programs.md)",
     {[](Options& o, std::string_view v, const std::string& w) { o.kernels.mode = to_kernel_mode(v, w); },
      [](const Options& o) {
        return std::string(o.kernels.mode == KernelMode::model ? "model" : o.kernels.mode == KernelMode::audit ? "audit" : "exec");
      },
      kString, "a string (\"exec\", \"model\" or \"audit\")"}},
    {"kernel-preset", "XSIM_KERNEL_PRESET", "kernels", "preset", "NAME",
     "kernel model parameters of a machine: frontera or pupmaya; [kernels] keys given override its values",
     {[](Options& o, std::string_view v, const std::string& w) { o.kernels.preset = to_kernel_preset(v, w); },
      [](const Options& o) { return o.kernels.preset; }, kString, "a string (\"frontera\" or \"pupmaya\")"},
     "none", "none (the [kernels] keys alone)"},
    {"print-config", "XSIM_PRINT_CONFIG", nullptr, nullptr, nullptr, "print the effective configuration as TOML",
     on_off_value<&Options::print_config>()},
    {"help", "XSIM_HELP", nullptr, nullptr, nullptr, "print this help", on_off_value<&Options::help>()},
};

// The TOML tables, in the order messages and help list them. [network] is read by network_toml.cpp; the
// others hold the rows of kOptions that name them.
struct TableDef {
  const char* name;
  const char* keys;  // help's list of its keys; nullptr: the keys of its rows
};
constexpr TableDef kTables[] = {
    {"simulation", nullptr},
    {"cpu", nullptr},
    {"model", nullptr},
    {"network", "preset, placement, placement_file, send_overhead, recv_overhead, gap,\n"
                "    and [[network.level]] tables with topology, size and the level keys"},
    {"io", nullptr},
    {"faults", nullptr},
    {"memory", nullptr},
    {"output", nullptr},
    {"kernels", "mode, preset, peak, bandwidth, overhead, [kernels.FAMILY] tables with efficiency,\n"
                "    half_dim, overhead, and [kernels.symbols.NAME] tables with args, flops, bytes, efficiency,\n"
                "    overhead (docs/real-programs.md)"},
    {"node", nullptr},
    {"noise", nullptr},
};
// The order of the tables in to_toml ([network] last).
constexpr const char* kPrintOrder[] = {"simulation", "output", "cpu",    "node",   "model",
                                       "io",         "faults", "noise", "memory", "kernels"};

std::vector<std::string> table_names() {
  std::vector<std::string> v;
  for (const auto& t : kTables) v.emplace_back(t.name);
  return v;
}

std::vector<std::string> keys_of(std::string_view table) {
  std::vector<std::string> v;
  for (const auto& d : kOptions)
    if (d.table && table == d.table) v.emplace_back(d.key);
  return v;
}

const OptionDef* find_by_name(std::string_view name) {
  for (const auto& d : kOptions)
    if (name == d.name) return &d;
  return nullptr;
}

const OptionDef* find_by_key(std::string_view table, std::string_view key) {
  for (const auto& d : kOptions)
    if (d.table && table == d.table && key == d.key) return &d;
  return nullptr;
}

std::vector<std::string> option_names() {
  std::vector<std::string> v;
  for (const auto& d : kOptions) v.emplace_back(d.name);
  return v;
}

// Where each option was last set ("-xsim-np", "XSIM_MN" with the value, "file.toml:3:1"), for messages
// that cross-check two options.
struct Origins {
  struct Origin {
    std::string where, value;  // value: as given on the command line or in the environment
  } last[std::size(kOptions)];
  void set(const OptionDef& d, std::string where, std::string value = "") {
    last[&d - kOptions] = {std::move(where), std::move(value)};
  }
  std::string of(std::string_view name, const char* unset, bool with_value) const {
    const Origin& o = last[find_by_name(name) - kOptions];
    return o.where.empty() ? unset : with_value && !o.value.empty() ? o.where + " " + o.value : o.where;
  }
};

// ---------------------------------------------------------------------------------------------------
// TOML file.

std::string read_whole_file(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw ConfigError("cannot read config file " + quoted(path) + ": " + std::strerror(errno));
  std::string text;
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  int err = std::ferror(f) ? errno : 0;
  std::fclose(f);
  if (err) throw ConfigError("cannot read config file " + quoted(path) + ": " + std::strerror(err));
  return text;
}

// One TOML value of an option.
void read_value(Options& o, const TomlReader& r, const toml::node& n, const OptionDef& d) {
  const Value& v = d.value;
  const std::string w = TomlReader::where(r.at(n), d.table, d.key);
  if (v.from_toml && v.from_toml(o, r, n, d, w)) return;
  if (n.is_string() && (v.toml & kString)) return v.set(o, n.as_string()->get(), w);
  if (n.is_integer() && (v.toml & kInteger)) return v.set(o, std::to_string(n.as_integer()->get()), w);
  if (n.is_boolean() && (v.toml & kBoolean)) return v.set(o, n.as_boolean()->get() ? "on" : "off", w);
  r.wrong_type(n, d.table, d.key, v.expect);
}

void load_toml(Options& o, Origins& org, const std::string& path, const std::string& text) {
  const TomlReader r(path);
  toml::table root;
  try {
    root = toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    throw ConfigError(r.at(e.source().begin) + ": " + std::string(e.description()) +
                      " (the file must be TOML; see -xsim-print-config for an example)");
  }
  std::string known_tables;
  for (const auto& t : kTables) known_tables += std::string(known_tables.empty() ? "" : ", ") + "[" + t.name + "]";
  const std::vector<std::string> names = table_names();
  for (auto&& [key, node] : root) {
    const std::string_view name = key.str();
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      if (!node.is_table()) {
        std::string home = toml_home_of(name);
        fail(r.at(key.source().begin), "key " + quoted(name) + " must be inside a table" +
                                           (home.empty() ? "; known tables: " + known_tables
                                                         : ": put it under [" + home + "]"));
      }
      fail(r.at(key.source().begin),
           "unknown table [" + std::string(name) + "]; known tables: " + known_tables + suggestion(name, names));
    }
    if (!node.is_table())
      fail(r.at(node), quoted(name) + " must be a table ([" + std::string(name) + "]), got " + TomlReader::type_name(node));
    const toml::table& t = *node.as_table();
    if (name == "network") {
      org.set(*find_by_name("mn"), r.at(t));
      read_network_table(r, t, o.network);
      continue;
    }
    for (auto&& [k, n] : t) {
      const OptionDef* d = find_by_key(name, k.str());
      if (!d && name == "kernels") {  // its parameters and tables: kernels_toml.cpp
        read_kernels_entry(r, k, n, o, keys_of(name));
        continue;
      }
      if (!d) r.unknown_key(k, name, keys_of(name));
      read_value(o, r, n, *d);
      org.set(*d, r.at(n));
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Command line and environment.

struct Setting {
  const OptionDef* def;
  std::string value;
  std::string where;  // "-xsim-np" or "XSIM_NP"
};

std::vector<Setting> take_command_line(int& argc, char** argv) {
  std::vector<Setting> out;
  if (argc <= 0 || argv == nullptr) return out;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    char* a = argv[i];
    std::string_view s = a ? std::string_view(a) : std::string_view();
    if (s.starts_with("--xsim-"))
      throw ConfigError("unknown option " + quoted(s) + ": xsim options take a single dash, e.g. " +
                        std::string(s.substr(1, s.find('=') == std::string_view::npos ? s.npos : s.find('=') - 1)) +
                        " (see -xsim-help)");
    if (!s.starts_with("-xsim-")) {
      argv[kept++] = a;
      continue;
    }
    std::string_view body = s.substr(6);
    size_t eq = body.find('=');
    std::string_view name = body.substr(0, eq);
    const OptionDef* def = find_by_name(name);
    if (!def)
      throw ConfigError("unknown option -xsim-" + std::string(name) + suggestion(name, option_names(), "-xsim-") +
                        " (see -xsim-help for the list)");
    std::string where = "-xsim-" + std::string(name);
    std::string value;
    if (eq != std::string_view::npos) {
      value = std::string(body.substr(eq + 1));
      if (value.empty() && def->arg)
        throw ConfigError(where + " needs a value after '=', e.g. " + where + "=" + def->arg);
      if (value.empty()) value = "on";
    } else if (def->arg) {
      if (i + 1 >= argc || argv[i + 1] == nullptr || std::string_view(argv[i + 1]).starts_with("-xsim-"))
        throw ConfigError(where + " needs a value: " + where + " " + def->arg + " or " + where + "=" + def->arg +
                          " (see -xsim-help)");
      value = argv[++i];
    } else {
      value = "on";
    }
    out.push_back({def, std::move(value), std::move(where)});
  }
  argc = kept;
  argv[argc] = nullptr;
  return out;
}

std::vector<Setting> take_environment(char** envp) {
  std::vector<Setting> out;
  if (!envp) return out;
  for (const auto& d : kOptions) {
    std::string_view env = d.env;
    for (char** e = envp; *e; ++e) {
      std::string_view s(*e);
      if (s.size() > env.size() && s.starts_with(env) && s[env.size()] == '=') {
        std::string_view v = s.substr(env.size() + 1);
        if (!v.empty()) out.push_back({&d, std::string(v), std::string(env)});  // empty: as if unset
      }
    }
  }
  return out;
}
void apply(Options& o, Origins& org, const Setting& s) {
  // Values end up in TOML (-xsim-print-config) and JSON files, which are UTF-8.
  if (!valid_utf8(s.value)) fail(s.where, "the value is not valid UTF-8 text; give it in UTF-8 (or ASCII)");
  s.def->value.set(o, s.value, s.where);
  org.set(*s.def, s.where, s.value);
}

}  // namespace

// ---------------------------------------------------------------------------------------------------

namespace cfg {
std::string toml_home_of(std::string_view key) {
  for (const auto& t : kTables) {
    const bool own = std::string_view(t.name) == "network"   ? is_network_home_key(key)
                     : std::string_view(t.name) == "kernels" ? is_kernels_home_key(key) || find_by_key(t.name, key)
                                                             : find_by_key(t.name, key) != nullptr;
    if (own) return t.name;
  }
  return "";
}
}  // namespace cfg

void load_config_text(Options& o, const std::string& text, const std::string& name) {
  Origins org;
  load_toml(o, org, name, text);
}

Options parse_options(int& argc, char** argv, char** envp) {
  std::vector<Setting> cmd = take_command_line(argc, argv);
  std::vector<Setting> env = take_environment(envp);
  Options o;
  Origins org;

  const Setting* config = nullptr;
  for (const auto* list : {&env, &cmd})
    for (const auto& s : *list)
      if (std::string_view(s.def->name) == "config") config = &s;
  if (config) {
    o.config_file = config->value;
    load_toml(o, org, o.config_file, read_whole_file(o.config_file));
  }
  for (const auto& s : env) apply(o, org, s);
  for (const auto& s : cmd) apply(o, org, s);
  check_kernels(o, org.of("kernels", "[kernels] mode", false));
  const int64_t ranks = o.np;  // 0: one per native process, unknown here (the engine checks then)
  for (const auto& [rank, t] : o.faults)
    if (ranks > 0 && rank >= ranks)
      throw ConfigError(org.of("fault", "-xsim-fault", true) + ": rank " + std::to_string(rank) +
                        " does not exist: the ranks are 0.." + std::to_string(ranks - 1) + " (np by " +
                        org.of("np", "-xsim-np", false) + ")");

  // A node factor chosen but never measured would change nothing: say so rather than run without it.
  for (const auto& [host, name, key] : {std::tuple{NodeHost::memory, "node-memory-factor", "memory_factor"},
                                        std::tuple{NodeHost::compute, "node-compute-factor", "compute_factor"}})
    if (o.node_host == host && org.of(name, "", false).empty())
      throw ConfigError(org.of("node-host", "-xsim-node-host", true) + ": the node's " + key +
                        " is not set; measure it with xsim-calibrate --node --out FILE and load FILE with "
                        "-xsim-config, set [node] " + key + ", or give the factor as a number");

  // With the rank count known, the network must fit it: build it once to report a bad size or placement
  // file now, naming where the network and the rank count came from.
  if (o.np != 0) {
    try {
      (void)resolve_network(o.network, o.np);
      if (o.network.placement == "file") (void)build_network(o.network, o.np);
    } catch (const ConfigError& e) {
      throw ConfigError(std::string(e.what()) + " (network set by " + org.of("mn", "the default network", true) +
                        ", np by " + org.of("np", "-xsim-np", false) + ")");
    }
  }
  return o;
}

std::string help_text() {
  const Options d;
  std::string s =
      "xsim options. Give them on the application's command line as -xsim-NAME VALUE or -xsim-NAME=VALUE\n"
      "(xsim removes them before the application sees argv), or set the environment variable in brackets.\n"
      "Precedence: defaults < config file (-xsim-config) < environment < command line.\n\n";
  for (const auto& o : kOptions) {
    std::string head = "  -xsim-" + std::string(o.name) + (o.arg ? " " + std::string(o.arg) : "");
    std::string env = "[" + std::string(o.env) + "]";
    head.resize(std::max<size_t>(head.size() + 1, 30), ' ');
    env.resize(std::max<size_t>(env.size() + 1, 21), ' ');
    std::string def = o.value.show(d);
    s += head + env + "default: " + (def.empty() ? o.unset_help : def) + "\n";
    s += "        " + std::string(o.help) + "\n";
  }
  s += "\n" + network_spec_help();
  s += "Units: TIME 25us, 1.5ms, 100ns, 2s; BANDWIDTH 1Gbps, 8.8 Gbit/s, 1.25GB/s; SIZE 256K, 1MiB, 4096.\n"
       "Config file: TOML with the tables and keys below; -xsim-print-config prints the effective configuration\n"
       "in that form.\n";
  for (const auto& t : kTables)
    s += "  [" + std::string(t.name) + "] (" + (t.keys ? std::string(t.keys) : join(keys_of(t.name))) + ")\n";
  s += "Full reference: docs/network-config.md; privatization of globals: docs/privatization.md;\n"
       "traces, statistics and pictures: docs/observability.md.\n";
  return s;
}

std::string to_toml(const Options& o) {
  std::string s = "# xsim effective configuration; read it back with -xsim-config FILE\n";
  if (!o.config_file.empty()) {
    std::string f = o.config_file;  // a comment: no control characters
    std::replace_if(f.begin(), f.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7F; }, ' ');
    s += "# (built on config file " + f + ")\n";
  }
  for (const char* table : kPrintOrder) {
    s += "\n[" + std::string(table) + "]\n";
    for (const auto& d : kOptions) {
      if (!d.table || std::string_view(d.table) != table) continue;
      const Value& v = d.value;
      const std::string text = v.show(o);
      if (v.toml_show) s += std::string(d.key) + " = " + v.toml_show(o) + "\n";
      else if (text.empty()) s += "# " + std::string(d.key) + " not set: " + d.unset_toml + "\n";
      else if (v.form == Value::string) s += std::string(d.key) + " = " + toml_string(text) + "\n";
      else if (v.form == Value::boolean) s += std::string(d.key) + " = " + (text == "on" ? "true" : "false") + "\n";
      else s += std::string(d.key) + " = " + text + "\n";
    }
  }
  return s + kernels_to_toml(o) + kernel_symbols_to_toml(o.kernel_symbols) + network_to_toml(o.network);
}

}  // namespace xsim

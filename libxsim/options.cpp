// Options: defaults < TOML file < environment < command line (see options.hpp and DESIGN.md §5).
// The only file that includes toml++. Every value is converted and range-checked where it is read, so an
// error can name its origin: "-xsim-np", "XSIM_NP" or "file.toml:LINE:COL: [simulation] np".
#include "options.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <toml++/toml.h>

#include "xsim/units.hpp"

namespace xsim {
namespace {

constexpr uint64_t kMinStack = 16 * 1024;
constexpr uint64_t kMaxStack = 1024ull * 1024 * 1024;
constexpr int64_t kMaxRanks = INT_MAX;  // ranks and endpoints are C ints in MPI

// ---------------------------------------------------------------------------------------------------
// The option table: one row per option; the command line, the environment and help_text() read it.

enum class Opt { np, mn, config, cpu, cpu_scale, stack, poll_cost, report, print_config, help };

struct OptionDef {
  Opt id;
  const char* name;  // after "-xsim-"
  const char* env;   // environment twin
  const char* arg;   // value placeholder; nullptr for a flag (which also accepts =on/=off)
  const char* help;  // one line
};

constexpr OptionDef kOptions[] = {
    {Opt::np, "np", "XSIM_NP", "M", "number of virtual ranks to simulate"},
    {Opt::mn, "mn", "XSIM_MN", "SPEC", "network model: a preset name or an inline spec (see below)"},
    {Opt::config, "config", "XSIM_CONFIG", "FILE", "TOML configuration file (schema: -xsim-print-config)"},
    {Opt::cpu, "cpu", "XSIM_CPU", "none|scaled",
     "processor model: scaled charges host compute time x scale, none charges nothing (deterministic)"},
    {Opt::cpu_scale, "cpu-scale", "XSIM_CPU_SCALE", "F",
     "factor of the scaled model: virtual time = host time x F (F > 0)"},
    {Opt::stack, "stack", "XSIM_STACK", "SIZE", "fiber stack size per virtual rank (16K to 1G)"},
    {Opt::poll_cost, "poll-cost", "XSIM_POLL_COST", "TIME",
     "virtual time charged by each MPI_Test/MPI_Iprobe-like call"},
    {Opt::report, "report", "XSIM_REPORT", "on|off", "print the end-of-run report on stderr"},
    {Opt::print_config, "print-config", "XSIM_PRINT_CONFIG", nullptr,
     "print the effective configuration as TOML"},
    {Opt::help, "help", "XSIM_HELP", nullptr, "print this help"},
};

constexpr const char* kPresets[] = {"ethernet"};
constexpr const char* kTopologies[] = {"star"};
// Named in DESIGN.md §4/§5 but not implemented yet: recognized so that the message says so.
constexpr const char* kPlannedTopologies[] = {"ring", "mesh", "torus", "twisted-torus", "tree", "dragonfly",
                                              "fat-tree", "fattree"};
constexpr const char* kPlannedPresets[] = {"multicore-ethernet", "multi-core-ethernet", "mesh", "torus",
                                           "twisted-torus"};

// ---------------------------------------------------------------------------------------------------
// Small helpers.

std::string quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw ConfigError(where.empty() ? what : where + ": " + what);
}

template <size_t N>
std::string join(const char* const (&items)[N], const char* sep = ", ") {
  std::string s;
  for (size_t i = 0; i < N; ++i) s += (i ? sep : "") + std::string(items[i]);
  return s;
}

template <size_t N>
bool contains(const char* const (&items)[N], std::string_view s) {
  return std::any_of(std::begin(items), std::end(items), [&](const char* x) { return s == x; });
}

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// "; did you mean X?" for the closest candidate, or "" when none is close.
std::string suggestion(std::string_view given, const std::vector<std::string>& candidates,
                       std::string_view prefix = "") {
  const std::string* best = nullptr;
  size_t best_d = SIZE_MAX;
  for (const auto& c : candidates) {
    size_t d = edit_distance(given, c);
    if (d < best_d) best_d = d, best = &c;
  }
  if (best && best_d <= std::max<size_t>(2, given.size() / 3)) return "; did you mean " + std::string(prefix) + *best + "?";
  return "";
}

// Shortest text that reads back as the same double, always with a '.' or exponent (TOML needs a float).
std::string shortest_double(double f) {
  char buf[64];
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, f);
  std::string s(buf, p);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";  // TOML needs a float, not an integer
  return s;
}

bool parse_bool(std::string_view v, bool& out) {
  std::string s(v);
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  if (s == "on" || s == "true" || s == "yes" || s == "1") return out = true, true;
  if (s == "off" || s == "false" || s == "no" || s == "0") return out = false, true;
  return false;
}

// ---------------------------------------------------------------------------------------------------
// Value conversions and checks shared by all three sources. `where` prefixes every error.

int64_t check_np(int64_t np, const std::string& where) {
  if (np < 1 || np > kMaxRanks)
    fail(where, "the number of virtual ranks must be between 1 and " + std::to_string(kMaxRanks) + " (got " +
                    std::to_string(np) + "), e.g. 4096");
  return np;
}

int64_t to_np(std::string_view v, const std::string& where) {
  int64_t np = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), np);
  if (v.empty() || ec != std::errc() || p != v.data() + v.size())
    fail(where, quoted(v) + " is not a positive integer; give the number of virtual ranks, e.g. 4096");
  return check_np(np, where);
}

SimTime to_time(std::string_view v, const std::string& where) {
  try {
    return parse_time(v);
  } catch (const std::invalid_argument& e) {
    fail(where, e.what());
  }
}

uint64_t to_bandwidth(std::string_view v, const std::string& where) {
  try {
    return parse_bandwidth_bps(v);
  } catch (const std::invalid_argument& e) {
    fail(where, e.what());
  }
}

uint64_t check_stack(uint64_t bytes, const std::string& where) {
  if (bytes < kMinStack || bytes > kMaxStack)
    fail(where, "stack size " + format_size(bytes) + " is out of range; give between 16K and 1G per virtual "
                "rank (e.g. 256K; more for deeply recursive applications)");
  return bytes;
}

uint64_t to_stack(std::string_view v, const std::string& where) {
  try {
    return check_stack(parse_size(v), where);
  } catch (const std::invalid_argument& e) {
    fail(where, e.what());
  }
}

double check_scale(double f, const std::string& where) {
  if (!std::isfinite(f) || !(f > 0.0))
    fail(where, "the cpu scale factor must be a positive finite number (got " + shortest_double(f) +
                    "); e.g. 1.0 charges host time as is, 0.5 simulates a processor twice as fast");
  return f;
}

double to_scale(std::string_view v, const std::string& where) {
  std::string s(v);
  char* end = nullptr;
  errno = 0;
  double f = s.empty() ? 0.0 : std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || errno == ERANGE)
    fail(where, quoted(v) + " is not a number; give a positive factor, e.g. 1.0");
  return check_scale(f, where);
}

CpuModel to_cpu(std::string_view v, const std::string& where) {
  if (v == "scaled") return CpuModel::scaled;
  if (v == "none") return CpuModel::none;
  fail(where, "unknown processor model " + quoted(v) + "; give none or scaled");
}

bool to_bool(std::string_view v, const std::string& where) {
  bool b = false;
  if (!parse_bool(v, b)) fail(where, quoted(v) + " is not on or off (also accepted: true/false, yes/no, 1/0)");
  return b;
}

SimTime check_latency(SimTime t, const std::string& where) {
  if (t <= SimTime::zero())
    fail(where, "link latency is " + format_time(t) +
                    "; the simulator needs a positive link latency (it is the lookahead), e.g. 25us");
  if (t.ps() > std::numeric_limits<int64_t>::max() / 4)
    fail(where, "link latency " + format_time(t) + " is too large; give at most a few days");
  return t;
}

int64_t check_endpoints(int64_t n, const std::string& where, bool allow_zero) {
  if (n < (allow_zero ? 0 : 1) || n > kMaxRanks)
    fail(where, "the endpoint count must be between " + std::string(allow_zero ? "0 (one per virtual rank)" : "1") +
                    " and " + std::to_string(kMaxRanks) + " (got " + std::to_string(n) + ")");
  return n;
}

// ---------------------------------------------------------------------------------------------------
// Network specs.

[[noreturn]] void unsupported_topology(std::string_view name, const std::string& where) {
  fail(where, "network topology " + quoted(name) + " is not supported yet; supported topologies: " +
                  join(kTopologies) + " (presets: " + join(kPresets) + ")");
}

NetworkSpec inline_spec(const std::string& spec) {
  const std::string where = "bad network spec " + quoted(spec);
  const std::string example = " (e.g. star:4096:lat=25us:bw=1Gbps or ethernet:lat=10us)";
  std::vector<std::string_view> fields;
  std::string_view rest = spec;
  for (;;) {
    size_t c = rest.find(':');
    fields.push_back(rest.substr(0, c));
    if (c == std::string_view::npos) break;
    rest.remove_prefix(c + 1);
  }
  std::string_view head = fields[0];
  NetworkSpec ns;
  if (head.empty()) fail(where, "it must start with a preset or topology name" + example);
  if (head == "star") {
    ns.preset = "custom";
    ns.topology = "star";
  } else if (contains(kPresets, head)) {
    ns = network_preset(std::string(head));
  } else if (contains(kPlannedTopologies, head) || contains(kPlannedPresets, head)) {
    unsupported_topology(head, where);
  } else {
    std::vector<std::string> known(std::begin(kPresets), std::end(kPresets));
    known.insert(known.end(), std::begin(kTopologies), std::end(kTopologies));
    fail(where, "unknown network " + quoted(head) + "; known presets: " + join(kPresets) +
                    "; known topologies: " + join(kTopologies) + suggestion(head, known) + example);
  }
  bool have_count = false;
  for (size_t i = 1; i < fields.size(); ++i) {
    std::string_view f = fields[i];
    if (f.empty()) fail(where, "empty field after ':'" + example);
    size_t eq = f.find('=');
    std::string_view key = eq == std::string_view::npos ? std::string_view{} : f.substr(0, eq);
    std::string_view val = eq == std::string_view::npos ? f : f.substr(eq + 1);
    if (eq == std::string_view::npos || key == "n" || key == "endpoints") {
      if (have_count) fail(where, "the endpoint count is given twice");
      int64_t n = 0;
      auto [p, ec] = std::from_chars(val.data(), val.data() + val.size(), n);
      if (val.empty() || ec != std::errc() || p != val.data() + val.size()) {
        if (eq == std::string_view::npos)
          fail(where, "field " + quoted(f) + " is neither an endpoint count nor key=value; keys: lat, bw, os, or" +
                          example);
        fail(where, "endpoint count " + quoted(val) + " is not a positive integer");
      }
      ns.endpoints = check_endpoints(n, where, false);
      have_count = true;
    } else if (key == "lat" || key == "latency") {
      ns.link_latency = check_latency(to_time(val, where), where);
    } else if (key == "bw" || key == "bandwidth") {
      ns.link_bandwidth_bps = to_bandwidth(val, where);
    } else if (key == "os" || key == "send_overhead") {
      ns.send_overhead = to_time(val, where);
    } else if (key == "or" || key == "recv_overhead") {
      ns.recv_overhead = to_time(val, where);
    } else {
      fail(where, "unknown key " + quoted(key) + "; known keys: lat (link latency), bw (link bandwidth), "
                  "os (send overhead), or (receive overhead)" +
                      suggestion(key, {"lat", "bw", "os", "or", "latency", "bandwidth"}) + example);
    }
  }
  return ns;
}

// ---------------------------------------------------------------------------------------------------
// TOML file.

// Where each cross-checked value was last set, for messages.
struct Origins {
  std::string np = "-xsim-np";
  std::string endpoints = "network";
};

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

class TomlLoader {
 public:
  TomlLoader(std::string path, Options& o, Origins& org) : path_(std::move(path)), o_(o), org_(org) {}

  void load() {
    std::string text = read_whole_file(path_);
    toml::table root;
    try {
      root = toml::parse(text, path_);
    } catch (const toml::parse_error& e) {
      throw ConfigError(at(e.source().begin) + ": " + std::string(e.description()) +
                        " (the file must be TOML; see -xsim-print-config for an example)");
    }
    for (auto&& [key, node] : root) {
      std::string_view name = key.str();
      if (name == "simulation") {
        simulation(table(key, node));
      } else if (name == "cpu") {
        cpu(table(key, node));
      } else if (name == "network") {
        network(table(key, node));
      } else if (!node.is_table()) {
        std::string home = home_of(name);
        fail(at(key.source().begin),
             "key " + quoted(name) + " must be inside a table" +
                 (home.empty() ? "; known tables: [simulation], [cpu], [network]" : ": put it under [" + home + "]"));
      } else {
        fail(at(key.source().begin), "unknown table [" + std::string(name) +
                                         "]; known tables: [simulation], [cpu], [network]" +
                                         suggestion(name, {"simulation", "cpu", "network"}));
      }
    }
  }

 private:
  std::string at(const toml::source_position& p) const {
    return path_ + ":" + std::to_string(p.line) + ":" + std::to_string(p.column);
  }
  std::string at(const toml::node& n) const { return at(n.source().begin); }
  static std::string where(const std::string& pos, std::string_view table, std::string_view key) {
    return pos + ": [" + std::string(table) + "] " + std::string(key);
  }

  static const char* type_name(const toml::node& n) {
    switch (n.type()) {
      case toml::node_type::table: return "a table";
      case toml::node_type::array: return "an array";
      case toml::node_type::string: return "a string";
      case toml::node_type::integer: return "an integer";
      case toml::node_type::floating_point: return "a floating-point number";
      case toml::node_type::boolean: return "a boolean";
      case toml::node_type::date: return "a date";
      case toml::node_type::time: return "a time of day";
      case toml::node_type::date_time: return "a date-time";
      default: return "nothing";
    }
  }

  [[noreturn]] void wrong_type(const toml::node& n, std::string_view table, std::string_view key,
                               const std::string& expected) const {
    fail(where(at(n), table, key), "expected " + expected + ", got " + type_name(n));
  }

  static std::string home_of(std::string_view key) {
    for (const char* k : {"np", "stack", "poll_cost", "report"})
      if (key == k) return "simulation";
    for (const char* k : {"model", "scale"})
      if (key == k) return "cpu";
    for (const char* k : {"preset", "topology", "endpoints", "latency", "bandwidth", "send_overhead", "recv_overhead"})
      if (key == k) return "network";
    return "";
  }

  const toml::table& table(const toml::key& key, const toml::node& n) const {
    if (!n.is_table()) fail(at(n), quoted(key.str()) + " must be a table ([" + std::string(key.str()) + "]), got " + type_name(n));
    return *n.as_table();
  }

  [[noreturn]] void unknown_key(const toml::key& key, std::string_view table, std::vector<std::string> known) const {
    std::string list;
    for (size_t i = 0; i < known.size(); ++i) list += (i ? ", " : "") + known[i];
    std::string home = home_of(key.str());
    std::string hint = !home.empty() && home != table ? "; it belongs in [" + home + "]" : suggestion(key.str(), known);
    fail(at(key.source().begin), "unknown key " + quoted(key.str()) + " in [" + std::string(table) +
                                     "]; known keys: " + list + hint);
  }

  std::string_view str(const toml::node& n, std::string_view table, std::string_view key,
                       const std::string& expected) const {
    if (!n.is_string()) wrong_type(n, table, key, expected);
    return n.as_string()->get();
  }
  int64_t integer(const toml::node& n, std::string_view table, std::string_view key) const {
    if (!n.is_integer()) wrong_type(n, table, key, "an integer");
    return n.as_integer()->get();
  }
  SimTime time(const toml::node& n, std::string_view table, std::string_view key) const {
    return to_time(str(n, table, key, "a time string such as \"25us\""), where(at(n), table, key));
  }

  void simulation(const toml::table& t) {
    for (auto&& [key, n] : t) {
      std::string_view k = key.str();
      std::string w = where(at(n), "simulation", k);
      if (k == "np") {
        o_.np = check_np(integer(n, "simulation", k), w);
        org_.np = at(n);
      } else if (k == "stack") {
        if (n.is_integer()) {
          int64_t b = n.as_integer()->get();
          if (b < 0) fail(w, "a stack size must not be negative");
          o_.stack_size = check_stack(static_cast<uint64_t>(b), w);
        } else {
          o_.stack_size = to_stack(str(n, "simulation", k, "a size string such as \"256K\" or an integer byte count"), w);
        }
      } else if (k == "poll_cost") {
        o_.poll_cost = time(n, "simulation", k);
      } else if (k == "report") {
        if (!n.is_boolean()) wrong_type(n, "simulation", k, "a boolean (true or false)");
        o_.report = n.as_boolean()->get();
      } else {
        unknown_key(key, "simulation", {"np", "stack", "poll_cost", "report"});
      }
    }
  }

  void cpu(const toml::table& t) {
    for (auto&& [key, n] : t) {
      std::string_view k = key.str();
      std::string w = where(at(n), "cpu", k);
      if (k == "model") {
        o_.cpu = to_cpu(str(n, "cpu", k, "a string (\"none\" or \"scaled\")"), w);
      } else if (k == "scale") {
        if (n.is_floating_point()) o_.cpu_scale = check_scale(n.as_floating_point()->get(), w);
        else if (n.is_integer()) o_.cpu_scale = check_scale(static_cast<double>(n.as_integer()->get()), w);
        else wrong_type(n, "cpu", k, "a number");
      } else {
        unknown_key(key, "cpu", {"model", "scale"});
      }
    }
  }

  void network(const toml::table& t) {
    NetworkSpec ns = o_.network;
    // The preset is the base whatever its place in the table; the other keys override it.
    if (const toml::node* p = t.get("preset")) {
      std::string w = where(at(*p), "network", "preset");
      std::string_view name = str(*p, "network", "preset", "a preset name string such as \"ethernet\"");
      try {
        ns = network_preset(std::string(name));
      } catch (const ConfigError& e) {
        fail(w, e.what());
      }
    }
    bool from_preset = t.contains("preset");
    for (auto&& [key, n] : t) {
      std::string_view k = key.str();
      std::string w = where(at(n), "network", k);
      if (k == "preset") {
        continue;
      } else if (k == "topology") {
        std::string_view topo = str(n, "network", k, "a topology name string such as \"star\"");
        if (!contains(kTopologies, topo)) {
          if (contains(kPlannedTopologies, topo)) unsupported_topology(topo, w);
          fail(w, "unknown topology " + quoted(topo) + "; supported topologies: " + join(kTopologies));
        }
        ns.topology = std::string(topo);
        if (!from_preset) ns.preset = "custom";
      } else if (k == "endpoints") {
        ns.endpoints = check_endpoints(integer(n, "network", k), w, true);
        org_.endpoints = at(n);
      } else if (k == "latency") {
        ns.link_latency = check_latency(time(n, "network", k), w);
      } else if (k == "bandwidth") {
        ns.link_bandwidth_bps =
            to_bandwidth(str(n, "network", k, "a bandwidth string such as \"1Gbps\""), w);
      } else if (k == "send_overhead") {
        ns.send_overhead = time(n, "network", k);
      } else if (k == "recv_overhead") {
        ns.recv_overhead = time(n, "network", k);
      } else {
        unknown_key(key, "network", {"preset", "topology", "endpoints", "latency", "bandwidth", "send_overhead",
                                     "recv_overhead"});
      }
    }
    o_.network = ns;
  }

  std::string path_;
  Options& o_;
  Origins& org_;
};

// ---------------------------------------------------------------------------------------------------
// Command line and environment.

struct Setting {
  const OptionDef* def;
  std::string value;
  std::string where;  // "-xsim-np" or "XSIM_NP"
};

const OptionDef* find_by_name(std::string_view name) {
  for (const auto& d : kOptions)
    if (name == d.name) return &d;
  return nullptr;
}

std::vector<std::string> option_names() {
  std::vector<std::string> v;
  for (const auto& d : kOptions) v.emplace_back(d.name);
  return v;
}

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
  const std::string& w = s.where;
  switch (s.def->id) {
    case Opt::np: o.np = to_np(s.value, w); org.np = w; break;
    case Opt::mn:
      try {
        o.network = parse_network_inline(s.value);
      } catch (const ConfigError& e) {
        fail(w, e.what());
      }
      org.endpoints = w + " " + s.value;
      break;
    case Opt::config: break;  // handled before the file is loaded
    case Opt::cpu: o.cpu = to_cpu(s.value, w); break;
    case Opt::cpu_scale: o.cpu_scale = to_scale(s.value, w); break;
    case Opt::stack: o.stack_size = to_stack(s.value, w); break;
    case Opt::poll_cost: o.poll_cost = to_time(s.value, w); break;
    case Opt::report: o.report = to_bool(s.value, w); break;
    case Opt::print_config: o.print_config = to_bool(s.value, w); break;
    case Opt::help: o.help = to_bool(s.value, w); break;
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------------

NetworkSpec network_preset(const std::string& name) {
  if (name == "ethernet") {
    NetworkSpec ns;  // the defaults are ethernet: star, 25 us, 1 Gbps
    ns.preset = "ethernet";
    ns.topology = "star";
    ns.link_latency = SimTime::from_ns(25'000);
    ns.link_bandwidth_bps = 1'000'000'000;
    return ns;
  }
  std::vector<std::string> known(std::begin(kPresets), std::end(kPresets));
  throw ConfigError("unknown network preset " + quoted(name) + "; known presets: " + join(kPresets) +
                    suggestion(name, known) +
                    " (multicore-ethernet, mesh, torus and twisted-torus are planned but not available yet)");
}

NetworkSpec parse_network_inline(const std::string& spec) { return inline_spec(spec); }

Options parse_options(int& argc, char** argv, char** envp) {
  std::vector<Setting> cmd = take_command_line(argc, argv);
  std::vector<Setting> env = take_environment(envp);
  Options o;
  Origins org;

  const Setting* config = nullptr;
  for (const auto& s : env)
    if (s.def->id == Opt::config) config = &s;
  for (const auto& s : cmd)
    if (s.def->id == Opt::config) config = &s;
  if (config) {
    o.config_file = config->value;
    TomlLoader(o.config_file, o, org).load();
  }
  for (const auto& s : env) apply(o, org, s);
  for (const auto& s : cmd) apply(o, org, s);

  const NetworkSpec& n = o.network;
  if (n.endpoints != 0 && o.np != 0 && n.endpoints < o.np) {
    std::string msg = n.topology + " network has " + std::to_string(n.endpoints) + " endpoints but -xsim-np is " +
                      std::to_string(o.np) + "; give at least " + std::to_string(o.np) +
                      " endpoints or leave the count out";
    msg += " (endpoints set by " + org.endpoints + ", np by " + org.np + ")";
    throw ConfigError(msg);
  }
  return o;
}

std::string help_text() {
  const Options d;
  auto default_of = [&](Opt id) -> std::string {
    switch (id) {
      case Opt::np: return "one virtual rank per native process";
      case Opt::mn: return "ethernet";
      case Opt::config: return "none";
      case Opt::cpu: return d.cpu == CpuModel::scaled ? "scaled" : "none";
      case Opt::cpu_scale: return shortest_double(d.cpu_scale);
      case Opt::stack: return format_size(d.stack_size);
      case Opt::poll_cost: return format_time(d.poll_cost);
      case Opt::report: return d.report ? "on" : "off";
      case Opt::print_config: return "off";
      case Opt::help: return "off";
    }
    return "";
  };
  std::string s =
      "xsim options. Give them on the application's command line as -xsim-NAME VALUE or -xsim-NAME=VALUE\n"
      "(xsim removes them before the application sees argv), or set the environment variable in brackets.\n"
      "Precedence: defaults < config file (-xsim-config) < environment < command line.\n\n";
  for (const auto& o : kOptions) {
    std::string head = "  -xsim-" + std::string(o.name) + (o.arg ? " " + std::string(o.arg) : "");
    std::string env = "[" + std::string(o.env) + "]";
    head.resize(std::max<size_t>(head.size() + 1, 30), ' ');
    env.resize(std::max<size_t>(env.size() + 1, 21), ' ');
    s += head + env + "default: " + default_of(o.id) + "\n";
    s += "        " + std::string(o.help) + "\n";
  }
  const NetworkSpec eth = network_preset("ethernet");
  s += "\nNetwork spec (-xsim-mn): a preset name, optionally followed by :key=value overrides\n"
       "(e.g. ethernet:lat=10us), or an inline topology:\n"
       "  star[:N][:lat=TIME][:bw=BANDWIDTH][:os=TIME][:or=TIME]\n"
       "  N endpoints (default: one per virtual rank), lat/bw per link, os/or per-message send/receive overhead.\n"
       "Presets: ethernet = star, link latency " + format_time(eth.link_latency) + ", link bandwidth " +
       format_bandwidth(eth.link_bandwidth_bps) + " (the default).\n"
       "Supported topologies: " + join(kTopologies) + ".\n"
       "Units: TIME 25us, 1.5ms, 100ns, 2s; BANDWIDTH 1Gbps, 8.8 Gbit/s, 1.25GB/s; SIZE 256K, 1MiB, 4096.\n"
       "Config file: TOML with tables [simulation] (np, stack, poll_cost, report), [cpu] (model, scale) and\n"
       "[network] (preset, topology, endpoints, latency, bandwidth, send_overhead, recv_overhead);\n"
       "-xsim-print-config prints the effective configuration in that form.\n";
  return s;
}

std::string to_toml(const Options& o) {
  auto str = [](const std::string& v) { return quoted(v); };
  std::string s = "# xsim effective configuration; read it back with -xsim-config FILE\n";
  if (!o.config_file.empty()) {
    std::string f = o.config_file;
    std::replace(f.begin(), f.end(), '\n', ' ');
    s += "# (built on config file " + f + ")\n";
  }
  s += "\n[simulation]\n";
  if (o.np != 0) s += "np = " + std::to_string(o.np) + "\n";
  else s += "# np not set: one virtual rank per native process\n";
  s += "stack = " + str(format_size(o.stack_size)) + "\n";
  s += "poll_cost = " + str(format_time(o.poll_cost)) + "\n";
  s += std::string("report = ") + (o.report ? "true" : "false") + "\n";
  s += "\n[cpu]\n";
  s += "model = " + str(o.cpu == CpuModel::scaled ? "scaled" : "none") + "\n";
  s += "scale = " + shortest_double(o.cpu_scale) + "\n";
  s += "\n[network]\n";
  const NetworkSpec& n = o.network;
  if (n.preset != "custom" && !n.preset.empty()) s += "preset = " + str(n.preset) + "\n";
  s += "topology = " + str(n.topology) + "\n";
  if (n.endpoints != 0) s += "endpoints = " + std::to_string(n.endpoints) + "\n";
  else s += "# endpoints not set: one per virtual rank\n";
  s += "latency = " + str(format_time(n.link_latency)) + "\n";
  s += "bandwidth = " + str(format_bandwidth(n.link_bandwidth_bps)) + "\n";
  s += "send_overhead = " + str(format_time(n.send_overhead)) + "\n";
  s += "recv_overhead = " + str(format_time(n.recv_overhead)) + "\n";
  return s;
}

}  // namespace xsim

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

#include <sys/stat.h>
#include <unistd.h>

#include <toml++/toml.h>

#include "network_config.hpp"
#include "xsim/netmodel/dragonfly.hpp"
#include "xsim/netmodel/network.hpp"
#include "xsim/units.hpp"

namespace xsim {
namespace {

constexpr uint64_t kMinStack = 16 * 1024;
constexpr uint64_t kMaxStack = 1024ull * 1024 * 1024;
constexpr int64_t kMaxRanks = INT_MAX;  // ranks and endpoints are C ints in MPI

// ---------------------------------------------------------------------------------------------------
// The option table: one row per option; the command line, the environment and help_text() read it.

enum class Opt {
  np, mn, placement, config, cpu, cpu_scale, stack, poll_cost, virtual_clocks, io_lat, io_bw, report, coll_replay, privatize, privatize_libs, large_scale, trace, trace_format,
  trace_buffer, stats, stats_matrix, progress, print_config, help
};

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
    {Opt::placement, "placement", "XSIM_PLACEMENT", "block|roundrobin|file:PATH",
     "placement of virtual ranks on cores (file: one core index per line for ranks 0..np-1)"},
    {Opt::config, "config", "XSIM_CONFIG", "FILE", "TOML configuration file (schema: -xsim-print-config)"},
    {Opt::cpu, "cpu", "XSIM_CPU", "none|scaled",
     "processor model: scaled charges host compute time x scale, none charges nothing (deterministic)"},
    {Opt::cpu_scale, "cpu-scale", "XSIM_CPU_SCALE", "F",
     "factor of the scaled model: virtual time = host time x F (F > 0)"},
    {Opt::stack, "stack", "XSIM_STACK", "auto|SIZE",
     "fiber stack size per virtual rank (16K to 1G; auto: 8M, less from 2,048 ranks per process, 256K from 65,536)"},
    {Opt::poll_cost, "poll-cost", "XSIM_POLL_COST", "TIME",
     "virtual time charged by each MPI_Test/MPI_Iprobe-like call"},
    {Opt::virtual_clocks, "virtual-clocks", "XSIM_VIRTUAL_CLOCKS", "on|off",
     "the application's gettimeofday and clock_gettime (realtime, monotonic) read virtual time, like MPI_Wtime"},
    {Opt::io_lat, "io-lat", "XSIM_IO_LAT", "TIME", "MPI-IO storage latency, charged once per file access"},
    {Opt::io_bw, "io-bw", "XSIM_IO_BW", "BANDWIDTH",
     "MPI-IO storage bandwidth: an access of B bytes costs io-lat + B / io-bw"},
    {Opt::report, "report", "XSIM_REPORT", "on|off", "print the end-of-run report on stderr"},
    {Opt::coll_replay, "coll-replay", "XSIM_COLL_REPLAY", "on|off",
     "fast path of blocking collectives within one native process: replay the algorithm's messages on arrays "
     "(same virtual times and results)"},
    {Opt::privatize, "privatize", "XSIM_PRIVATIZE", "auto|on|off|copy|map",
     "each virtual rank gets its own globals and statics (auto: when a process holds several ranks and they fit)"},
    {Opt::privatize_libs, "privatize-libs", "XSIM_PRIVATIZE_LIBS", "auto|none|LIB[,LIB...]",
     "also privatize the globals of these shared libraries (file names, e.g. libfoo.so; auto: those that call MPI)"},
    {Opt::large_scale, "large-scale", "XSIM_LARGE_SCALE", "auto|on|off",
     "prefetching and deferred delivery for many ranks per process (same results; auto: from 2048 local ranks)"},
    {Opt::trace, "trace", "XSIM_TRACE", "FILE",
     "trace every rank's MPI calls and messages in virtual time: FILE.otf2 (OTF2) and FILE.json (Chrome/Perfetto)"},
    {Opt::trace_format, "trace-format", "XSIM_TRACE_FORMAT", "otf2|json|both", "which trace files to write"},
    {Opt::trace_buffer, "trace-buffer", "XSIM_TRACE_BUFFER", "SIZE",
     "trace events a native process keeps in memory before moving them to a spill file next to FILE"},
    {Opt::stats, "stats", "XSIM_STATS", "PREFIX",
     "write statistics: PREFIX.ranks.csv/.json, PREFIX.functions.csv/.json, PREFIX.matrix.csv/.json"},
    {Opt::stats_matrix, "stats-matrix", "XSIM_STATS_MATRIX", "N",
     "communication matrix rows: per rank up to N ranks, else per simulated node (if at most N), else N rank blocks"},
    {Opt::progress, "progress", "XSIM_PROGRESS", "auto|on|off",
     "progress line on stderr (virtual time, ranks finished, messages/s); auto: when stderr is a terminal"},
    {Opt::print_config, "print-config", "XSIM_PRINT_CONFIG", nullptr,
     "print the effective configuration as TOML"},
    {Opt::help, "help", "XSIM_HELP", nullptr, "print this help"},
};

constexpr const char* kTopologies[] = {"star", "ring", "mesh", "torus", "twistedtorus", "tree", "dragonfly",
                                       "fattree"};  // order = TopoBit below

// ---------------------------------------------------------------------------------------------------
// Small helpers.

std::string quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw ConfigError(where.empty() ? what : where + ": " + what);
}

// Whether `s` is well-formed UTF-8 (no overlong forms, surrogates or code points above U+10FFFF).
bool valid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    uint32_t cp = n == 1 ? c : c & (0x7F >> n);
    for (size_t k = 1; k < n; ++k) {
      const auto d = static_cast<unsigned char>(s[i + k]);
      if ((d & 0xC0) != 0x80) return false;
      cp = cp << 6 | (d & 0x3F);
    }
    if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10FFFF ||
        (cp >= 0xD800 && cp <= 0xDFFF))
      return false;
    i += n;
  }
  return true;
}

// A TOML basic string holding `s` (valid UTF-8): quotes, backslashes and control characters escaped.
std::string toml_string(std::string_view s) {
  std::string out = "\"";
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20 || c == 0x7F) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04X", c);
      out += buf;
    } else {
      out += ch;
    }
  }
  return out + "\"";
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
  if (v == "auto") return 0;
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

PrivatizeMode to_privatize(std::string_view v, const std::string& where) {
  bool b = false;
  if (v == "auto") return PrivatizeMode::automatic;
  if (v == "copy") return PrivatizeMode::copy;
  if (v == "map") return PrivatizeMode::map;
  if (parse_bool(v, b)) return b ? PrivatizeMode::on : PrivatizeMode::off;
  fail(where, "unknown privatization mode " + quoted(v) + "; give auto, on, off, copy or map" +
                  suggestion(v, {"auto", "on", "off", "copy", "map"}));
}

const char* privatize_name(PrivatizeMode m) {
  switch (m) {
    case PrivatizeMode::automatic: return "auto";
    case PrivatizeMode::on: return "on";
    case PrivatizeMode::off: return "off";
    case PrivatizeMode::copy: return "copy";
    case PrivatizeMode::map: return "map";
  }
  return "auto";
}

std::vector<std::string> to_lib_list(std::string_view v, const std::string& where) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at <= v.size()) {
    size_t comma = v.find(',', at);
    std::string_view item = v.substr(at, comma == std::string_view::npos ? v.npos : comma - at);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (item.empty()) fail(where, "empty library name in " + quoted(v) + "; give file names separated by commas, e.g. libfoo.so,libbar.so");
    out.emplace_back(item);
    if (comma == std::string_view::npos) break;
    at = comma + 1;
  }
  if (out.size() > 1 && std::find(out.begin(), out.end(), "none") != out.end())
    fail(where, "\"none\" in " + quoted(v) + " must stand alone; give none, auto, or library file names "
                "(auto,libfoo.so privatizes libfoo.so and every library that calls MPI)");
  if (out.size() == 1 && out[0] == "none") out.clear();
  return out;
}

CpuModel to_cpu(std::string_view v, const std::string& where) {
  if (v == "scaled") return CpuModel::scaled;
  if (v == "none") return CpuModel::none;
  fail(where, "unknown processor model " + quoted(v) + "; give none or scaled" + suggestion(v, {"none", "scaled"}));
}

bool to_bool(std::string_view v, const std::string& where) {
  bool b = false;
  if (!parse_bool(v, b)) fail(where, quoted(v) + " is not on or off (also accepted: true/false, yes/no, 1/0)");
  return b;
}

std::string to_output_path(std::string_view v, const std::string& where, const char* what) {
  if (v.empty()) fail(where, std::string("give the ") + what + ", e.g. out/run1");
  if (v.back() == '/') fail(where, quoted(v) + " names a directory; give a file name prefix in it, e.g. " + std::string(v) + "run1");
  // The directory must be there before a long run, not found missing at its end.
  std::string path(v);
  size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  struct stat st;
  if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    fail(where, "directory " + quoted(dir) + " of " + quoted(v) + " does not exist; create it first (mkdir -p " + dir + ")");
  if (access(dir.c_str(), W_OK) != 0) fail(where, "directory " + quoted(dir) + " of " + quoted(v) + " is not writable");
  return path;
}

void to_trace_format(std::string_view v, const std::string& where, Options& o) {
  if (v == "both" || v == "otf2,json" || v == "json,otf2") o.trace_otf2 = o.trace_json = true;
  else if (v == "otf2") o.trace_otf2 = true, o.trace_json = false;
  else if (v == "json") o.trace_otf2 = false, o.trace_json = true;
  else fail(where, "unknown trace format " + quoted(v) + "; give otf2, json or both" + suggestion(v, {"otf2", "json", "both"}));
}

const char* trace_format_name(const Options& o) {
  return o.trace_otf2 && o.trace_json ? "both" : o.trace_otf2 ? "otf2" : "json";
}

uint64_t to_trace_buffer(std::string_view v, const std::string& where) {
  uint64_t b = 0;
  try {
    b = parse_size(v);
  } catch (const std::invalid_argument& e) {
    fail(where, e.what());
  }
  if (b < 4096) fail(where, "trace buffer " + format_size(b) + " is too small; give at least 4K (e.g. 64M)");
  return b;
}

// The modes with the values auto, on and off (ProgressMode, LargeScaleMode): parsing and printing.
template <typename Mode>
Mode to_auto_mode(std::string_view v, const std::string& where) {
  if (v == "auto") return Mode::automatic;
  bool b = false;
  if (!parse_bool(v, b)) fail(where, quoted(v) + " is not auto, on or off" + suggestion(v, {"auto", "on", "off"}));
  return b ? Mode::on : Mode::off;
}

template <typename Mode>
const char* auto_mode_name(Mode m) {
  return m == Mode::automatic ? "auto" : m == Mode::on ? "on" : "off";
}

ProgressMode to_progress(std::string_view v, const std::string& where) { return to_auto_mode<ProgressMode>(v, where); }
const char* progress_name(ProgressMode m) { return auto_mode_name(m); }
LargeScaleMode to_large_scale(std::string_view v, const std::string& where) {
  return to_auto_mode<LargeScaleMode>(v, where);
}
const char* large_scale_name(LargeScaleMode m) { return auto_mode_name(m); }

constexpr int64_t kMaxMatrix = 4096;

SimTime check_latency(SimTime t, const std::string& where) {
  if (t <= SimTime::zero())
    fail(where, "link latency is " + format_time(t) +
                    "; the simulator needs a positive link latency (it is the lookahead), e.g. 25us");
  if (t.ps() > std::numeric_limits<int64_t>::max() / 4)
    fail(where, "link latency " + format_time(t) + " is too large; give at most a few days");
  return t;
}

int64_t parse_int(std::string_view v, const std::string& where, const std::string& what, int64_t lo, int64_t hi) {
  int64_t x = 0;
  std::string_view t = v;
  while (!t.empty() && t.front() == ' ') t.remove_prefix(1);
  while (!t.empty() && t.back() == ' ') t.remove_suffix(1);
  if (!t.empty() && t.front() == '+') t.remove_prefix(1);
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), x);
  if (t.empty() || ec != std::errc() || p != t.data() + t.size())
    fail(where, what + " " + quoted(v) + " is not an integer");
  if (x < lo || x > hi)
    fail(where, what + " must be between " + std::to_string(lo) + " and " + std::to_string(hi) + " (got " +
                    std::to_string(x) + ")");
  return x;
}

// ---------------------------------------------------------------------------------------------------
// Network levels: one key table shared by the inline form (-xsim-mn) and TOML ([[network.level]]).

enum TopoBit : unsigned {
  kStar = 1, kRing = 2, kMesh = 4, kTorus = 8, kTwisted = 16, kTree = 32, kDragonfly = 64, kFatTree = 128
};
constexpr unsigned kGrid = kMesh | kTorus | kTwisted;
constexpr unsigned kAllTopologies = 255;

unsigned topo_bit(std::string_view t) {
  for (size_t i = 0; i < std::size(kTopologies); ++i)
    if (t == kTopologies[i]) return 1u << i;
  return 0;
}

// Accepted spellings: "twisted-torus", "twisted_torus", "fat-tree", "fat_tree".
std::string canonical_topology(std::string_view t) {
  if (t == "twisted-torus" || t == "twisted_torus") return "twistedtorus";
  if (t == "fat-tree" || t == "fat_tree") return "fattree";
  return std::string(t);
}

enum class Kind { integer, int_list, time, bandwidth, boolean, text };

struct LevelKey {
  const char* name;   // TOML key; also accepted inline
  const char* alias;  // short inline spelling, or nullptr
  Kind kind;
  unsigned topologies;
};

constexpr LevelKey kLevelKeys[] = {
    {"size", nullptr, Kind::int_list, kStar | kRing | kGrid | kTree},
    {"endpoints", "n", Kind::integer, kStar | kRing | kTree},
    {"dims", nullptr, Kind::integer, kGrid},
    {"wrap", nullptr, Kind::int_list, kTorus | kTwisted},
    {"degree", nullptr, Kind::integer, kTwisted},
    {"jump", nullptr, Kind::int_list, kTwisted},
    {"uni", nullptr, Kind::boolean, kRing},
    {"k", nullptr, Kind::integer, kTree},
    {"depth", nullptr, Kind::integer, kTree},
    {"p", nullptr, Kind::integer, kDragonfly},
    {"a", nullptr, Kind::integer, kDragonfly},
    {"h", nullptr, Kind::integer, kDragonfly},
    {"g", nullptr, Kind::integer, kDragonfly},
    {"columns", "cols", Kind::integer, kDragonfly},
    {"routing", nullptr, Kind::text, kDragonfly},
    {"m", nullptr, Kind::integer, kFatTree},
    {"n", nullptr, Kind::integer, kFatTree},
    {"latency", "lat", Kind::time, kAllTopologies},
    {"bandwidth", "bw", Kind::bandwidth, kAllTopologies},
    {"terminal_latency", "tlat", Kind::time, kDragonfly},
    {"terminal_bandwidth", "tbw", Kind::bandwidth, kDragonfly},
    {"local_latency", "llat", Kind::time, kDragonfly},
    {"local_bandwidth", "lbw", Kind::bandwidth, kDragonfly},
    {"global_latency", "glat", Kind::time, kDragonfly},
    {"global_bandwidth", "gbw", Kind::bandwidth, kDragonfly},
};

// The key `name` of a `topology` level, or nullptr. `inline_form` also accepts the short aliases.
const LevelKey* find_level_key(std::string_view name, const std::string& topology, bool inline_form) {
  unsigned bit = topo_bit(topology);
  for (const auto& k : kLevelKeys)
    if ((k.topologies & bit) && (name == k.name || (inline_form && k.alias && name == k.alias))) return &k;
  return nullptr;
}

bool is_level_key_anywhere(std::string_view name, bool inline_form) {
  for (const auto& k : kLevelKeys)
    if (name == k.name || (inline_form && k.alias && name == k.alias)) return true;
  return false;
}

std::vector<std::string> level_key_names(const std::string& topology, bool inline_form) {
  std::vector<std::string> v;
  unsigned bit = topo_bit(topology);
  for (const auto& k : kLevelKeys)
    if (k.topologies & bit) {
      if (inline_form && k.alias) v.emplace_back(k.alias);
      else v.emplace_back(k.name);
    }
  return v;
}

std::string join(const std::vector<std::string>& v, const char* sep = ", ") {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
  return s;
}

template <class T>
std::string join_ints(const std::vector<T>& v, const char* sep) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + std::to_string(v[i]);
  return s;
}

// "8x8x8", "8,8,8" or "8" -> {8, 8, 8}.
std::vector<int64_t> parse_int_list(std::string_view v, const std::string& where, const std::string& what,
                                    int64_t lo, int64_t hi) {
  std::vector<int64_t> out;
  size_t start = 0;
  for (size_t i = 0; i <= v.size(); ++i) {
    if (i == v.size() || v[i] == 'x' || v[i] == 'X' || v[i] == ',') {
      std::string_view item = v.substr(start, i - start);
      if (item.empty())
        fail(where, what + " " + quoted(v) + " has an empty entry; give integers separated by 'x' or ','");
      out.push_back(parse_int(item, where, what, lo, hi));
      start = i + 1;
    }
  }
  return out;
}

// Sets one key of a level from its text form. `slot` is what the key sets (for "given twice" checks).
std::string set_level_key(NetworkLevel& lv, const LevelKey& key, std::string_view v, const std::string& where) {
  const std::string_view name = key.name;
  const std::string& t = lv.topology;
  const bool star_or_ring = t == "star" || t == "ring";
  auto integer = [&](int64_t lo, int64_t hi) { return parse_int(v, where, std::string(name), lo, hi); };
  if (name == "size" || (name == "endpoints" && star_or_ring)) {
    std::vector<int64_t> s = parse_int_list(v, where, t == "tree" ? "tree arity" : star_or_ring ? "endpoint count" : "size", t == "tree" ? 2 : 1,
                                            kMaxRanks);
    if ((star_or_ring || t == "tree") && s.size() != 1)
      fail(where, "the size of a " + t + " is one number (" +
                      (t == "tree" ? std::string("its arity k") : std::string("its endpoint count")) + "), got " +
                      quoted(v));
    if (name == "endpoints" && star_or_ring) {
      lv.size = s;
      return "size";
    }
    if (t == "tree") {
      lv.k = static_cast<int>(s[0]);
      return "k";
    }
    lv.size = s;
    return "size";
  }
  if (name == "endpoints") {
    lv.endpoints = integer(1, kMaxRanks);
  } else if (name == "dims") {
    lv.dims = static_cast<int>(integer(1, 16));
  } else if (name == "wrap") {
    lv.wrap.clear();
    for (int64_t x : parse_int_list(v, where, "wrap entry", 0, 1)) lv.wrap.push_back(static_cast<int>(x));
  } else if (name == "degree") {
    lv.degree = static_cast<int>(integer(0, 15));
  } else if (name == "jump") {
    lv.jump.clear();
    for (int64_t x : parse_int_list(v, where, "jump entry", -kMaxRanks, kMaxRanks))
      lv.jump.push_back(static_cast<int>(x));
  } else if (name == "uni") {
    lv.uni = to_bool(v, where);
  } else if (name == "k") {
    lv.k = static_cast<int>(integer(2, kMaxRanks));
  } else if (name == "depth") {
    lv.depth = static_cast<int>(integer(1, 31));
  } else if (name == "p") {
    lv.p = static_cast<int>(integer(1, kMaxRanks));
  } else if (name == "a") {
    lv.a = static_cast<int>(integer(1, kMaxRanks));
  } else if (name == "h") {
    lv.h = static_cast<int>(integer(1, kMaxRanks));
  } else if (name == "g") {
    lv.g = static_cast<int>(integer(1, kMaxRanks));
  } else if (name == "columns") {
    lv.columns = static_cast<int>(integer(0, kMaxRanks));
  } else if (name == "routing") {
    if (v == "min" || v == "minimal") lv.routing = "minimal";
    else if (v == "val" || v == "valiant") lv.routing = "valiant";
    else fail(where, "unknown dragonfly routing " + quoted(v) + "; give minimal (min) or valiant (val)");
  } else if (name == "m") {
    int64_t m = integer(2, 1 << 20);
    if (m % 2) fail(where, "the fat tree's switch port count m must be even (got " + std::to_string(m) + ")");
    lv.m = static_cast<int>(m);
  } else if (name == "n") {
    lv.n = static_cast<int>(integer(1, 32));
  } else if (key.kind == Kind::time) {
    SimTime x = check_latency(to_time(v, where), where);
    if (name == "latency") lv.latency = x;
    else if (name == "terminal_latency") lv.terminal_latency = x;
    else if (name == "local_latency") lv.local_latency = x;
    else lv.global_latency = x;
  } else if (key.kind == Kind::bandwidth) {
    uint64_t x = to_bandwidth(v, where);
    if (name == "bandwidth") lv.bandwidth_bps = x;
    else if (name == "terminal_bandwidth") lv.terminal_bandwidth_bps = x;
    else if (name == "local_bandwidth") lv.local_bandwidth_bps = x;
    else lv.global_bandwidth_bps = x;
  }
  return std::string(name);
}

// Checks that need the whole level; then, when its size is fixed, builds it once so that the netmodel's
// own checks (g <= a*h + 1, columns dividing a, ...) report here, with the level's origin.
void validate_level(const NetworkLevel& lv, const std::string& where) {
  const std::string& t = lv.topology;
  if (topo_bit(t) & kGrid) {
    size_t d = grid_dims(lv);
    if (!lv.size.empty() && lv.dims > 0 && static_cast<size_t>(lv.dims) != lv.size.size())
      fail(where, "dims=" + std::to_string(lv.dims) + " does not match the size " + join_ints(lv.size, "x") +
                      " (" + std::to_string(lv.size.size()) + " dimensions); give one of them");
    if (!lv.wrap.empty() && lv.wrap.size() != d)
      fail(where, "wrap has " + std::to_string(lv.wrap.size()) + " entries but the " + t + " has " +
                      std::to_string(d) + " dimensions; give one 0/1 per dimension");
    if (!lv.jump.empty() && lv.jump.size() != d)
      fail(where, "jump has " + std::to_string(lv.jump.size()) + " entries but the " + t + " has " +
                      std::to_string(d) + " dimensions; give one per dimension");
    if (t == "twistedtorus" && static_cast<size_t>(lv.degree) >= d)
      fail(where, "the toroidal degree must be below the number of dimensions (" + std::to_string(d) +
                      "), got degree=" + std::to_string(lv.degree));
  }
  if (t == "tree" && lv.depth > 0 && lv.endpoints > 0)
    fail(where, "give the tree's depth or its endpoint count, not both");
  if (t == "tree" && lv.depth > 0) {
    int64_t leaves = 1;
    for (int i = 0; i < lv.depth; ++i)
      if ((leaves *= lv.k) > kMaxRanks)
        fail(where, "a " + std::to_string(lv.k) + "-ary tree of depth " + std::to_string(lv.depth) +
                        " has more than 2^31-1 leaves; give a smaller depth");
  }
  if (level_size_derived(lv)) return;
  try {
    (void)build_level(lv);
  } catch (const std::invalid_argument& e) {
    fail(where, e.what());
  } catch (const ConfigError& e) {
    fail(where, e.what());
  }
}

std::string compact(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), ' '), s.end());
  return s;
}

std::vector<std::string> split_levels(std::string_view spec) {
  std::vector<std::string> out;
  std::string cur;
  for (size_t i = 0; i < spec.size(); ++i) {
    char c = spec[i];
    // "/s" at the end of a field is part of a unit ("2GB/s", "8 Gbit/s"), not a level separator.
    if (c == '/' && !(i + 1 < spec.size() && spec[i + 1] == 's' &&
                      (i + 2 == spec.size() || spec[i + 2] == ':' || spec[i + 2] == '/'))) {
      out.push_back(cur);
      cur.clear();
      continue;
    }
    cur += c;
  }
  out.push_back(cur);
  return out;
}

std::vector<std::string_view> split_fields(std::string_view s) {
  std::vector<std::string_view> fields;
  for (;;) {
    size_t c = s.find(':');
    fields.push_back(s.substr(0, c));
    if (c == std::string_view::npos) break;
    s.remove_prefix(c + 1);
  }
  return fields;
}

bool looks_like_size(std::string_view f) {
  return !f.empty() && std::all_of(f.begin(), f.end(), [](char c) {
    return (c >= '0' && c <= '9') || c == 'x' || c == 'X' || c == ',' || c == '-' || c == '+';
  }) && f.front() != 'x' && f.front() != 'X';
}

bool is_preset(std::string_view name) {
  for (const auto& p : network_preset_names())
    if (name == p) return true;
  return false;
}

NetworkSpec inline_spec(const std::string& spec) {
  const std::string where = "bad network spec " + quoted(spec);
  const std::string example =
      " (e.g. star:64:lat=25us:bw=1Gbps, torus:8x8x8/star:2, ethernet:lat=10us; see -xsim-help)";
  const std::vector<std::string> levels = split_levels(spec);
  if (levels.size() > static_cast<size_t>(net::Route::kMaxLevels))
    fail(where, "a network has at most " + std::to_string(net::Route::kMaxLevels) + " levels (got " +
                    std::to_string(levels.size()) + ")");
  NetworkSpec ns;
  ns.preset = "custom";
  ns.levels.clear();
  bool os_set = false, or_set = false;
  auto overhead = [&](std::string_view key, std::string_view val, const std::string& w) {
    bool send = key == "os" || key == "send_overhead";
    bool& set = send ? os_set : or_set;
    if (set) fail(w, std::string(send ? "the send" : "the receive") + " overhead is given twice");
    set = true;
    (send ? ns.send_overhead : ns.recv_overhead) = to_time(val, w);
  };
  auto is_overhead = [](std::string_view k) {
    return k == "os" || k == "or" || k == "send_overhead" || k == "recv_overhead";
  };
  for (size_t li = 0; li < levels.size(); ++li) {
    const std::string w =
        levels.size() > 1 ? where + ", level " + std::to_string(li) + " " + quoted(levels[li]) : where;
    const std::vector<std::string_view> fields = split_fields(levels[li]);
    std::string_view head = fields[0];
    if (head.empty()) {
      if (levels.size() > 1 && fields.size() == 1) fail(w, "empty level between '/'" + example);
      fail(w, "it must start with a preset or topology name" + example);
    }
    NetworkLevel lv;
    const std::string topo = canonical_topology(head);
    if (is_preset(head)) {
      NetworkSpec p = network_preset(std::string(head));
      if (p.levels.size() > 1) {
        std::string expanded = format_network_inline(p);
        if (levels.size() > 1)
          fail(w, "preset " + quoted(head) + " has " + std::to_string(p.levels.size()) +
                      " levels; it cannot be one level of a larger network (it is " + expanded + ")");
        NetworkSpec out = p;
        bool cores_set = false;
        for (size_t i = 1; i < fields.size(); ++i) {
          std::string_view f = fields[i];
          size_t eq = f.find('=');
          std::string_view key = eq == std::string_view::npos ? f : f.substr(0, eq);
          std::string_view val = eq == std::string_view::npos ? std::string_view{} : f.substr(eq + 1);
          if (f.empty()) fail(w, "empty field after ':'" + example);
          if (key == "cores" && eq != std::string_view::npos) {
            if (cores_set) fail(w, "cores is given twice");
            cores_set = true;
            out.levels.back().size = {parse_int(val, w, "cores", 1, kMaxRanks)};
          } else if (is_overhead(key) && eq != std::string_view::npos) {
            overhead(key, val, w);
          } else {
            fail(w, "preset " + quoted(head) + " has " + std::to_string(p.levels.size()) +
                        " levels and takes only cores=N (cores per node), os= and or=; to change anything else "
                        "write the levels out: " + expanded);
          }
        }
        out.send_overhead = ns.send_overhead;
        out.recv_overhead = ns.recv_overhead;
        return out;
      }
      lv = p.levels[0];
      if (levels.size() == 1) ns.preset = std::string(head);
    } else if (topo_bit(topo)) {
      lv.topology = topo;
    } else {
      std::vector<std::string> known = network_preset_names();
      known.insert(known.end(), std::begin(kTopologies), std::end(kTopologies));
      fail(w, "unknown network " + quoted(head) + "; known presets: " + join(network_preset_names()) +
                  "; known topologies: " + join(kTopologies) + suggestion(head, known) + example);
    }
    const std::string& t = lv.topology;
    std::vector<std::string> seen;
    auto mark = [&](const std::string& slot, std::string_view shown) {
      if (std::find(seen.begin(), seen.end(), slot) != seen.end())
        fail(w, (slot == "size" && (t == "star" || t == "ring") ? std::string("the endpoint count")
                                                                   : quoted(shown)) + " is given twice");
      seen.push_back(slot);
    };
    const std::string keys_of = "; keys of a " + t + " level: " + join(level_key_names(t, true)) +
                                ", os (send overhead), or (receive overhead)";
    for (size_t i = 1; i < fields.size(); ++i) {
      std::string_view f = fields[i];
      if (f.empty()) fail(w, "empty field after ':'" + example);
      size_t eq = f.find('=');
      if (eq == std::string_view::npos) {
        if (f == "uni" && t == "ring") {
          mark("uni", f);
          lv.uni = true;
        } else if (looks_like_size(f) && (topo_bit(t) & (kStar | kRing | kGrid | kTree))) {
          mark(set_level_key(lv, *find_level_key("size", t, true), f, w), "size");
        } else {
          std::string expect = (topo_bit(t) & (kStar | kRing)) ? "an endpoint count"
                               : t == "tree"                   ? "the tree's arity"
                               : (topo_bit(t) & kGrid)         ? "a size such as 8x8"
                                                               : "";
          fail(w, "field " + quoted(f) + " is neither " + (expect.empty() ? "" : expect + " nor ") + "key=value" +
                      keys_of);
        }
        continue;
      }
      std::string_view key = f.substr(0, eq), val = f.substr(eq + 1);
      if (is_overhead(key)) {
        overhead(key, val, w);
        continue;
      }
      const LevelKey* k = find_level_key(key, t, true);
      if (!k) {
        std::vector<std::string> known = level_key_names(t, true), long_names = level_key_names(t, false);
        known.insert(known.end(), long_names.begin(), long_names.end());  // both spellings are accepted inline
        known.insert(known.end(), {"os", "or"});
        std::string why = is_level_key_anywhere(key, true) ? "key " + quoted(key) + " does not apply to a " + t + " level"
                                                           : "unknown key " + quoted(key) + " for a " + t + " level";
        fail(w, why + keys_of + suggestion(key, known));
      }
      mark(set_level_key(lv, *k, val, w), key);
    }
    validate_level(lv, w);
    ns.levels.push_back(std::move(lv));
  }
  return ns;
}

std::string inline_time(SimTime t) { return compact(format_time(t)); }
std::string inline_bw(uint64_t b) { return compact(format_bandwidth(b)); }

// ---------------------------------------------------------------------------------------------------
// TOML file.

// Where each cross-checked value was last set, for messages.
struct Origins {
  std::string np = "-xsim-np";
  std::string network = "the default network";
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

  void load() { load_text(read_whole_file(path_)); }

  void load_text(const std::string& text) {
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
      } else if (name == "io") {
        io(table(key, node));
      } else if (name == "network") {
        network(table(key, node));
      } else if (name == "output") {
        output(table(key, node));
      } else if (!node.is_table()) {
        std::string home = home_of(name);
        fail(at(key.source().begin),
             "key " + quoted(name) + " must be inside a table" +
                 (home.empty() ? "; known tables: [simulation], [cpu], [network], [io], [output]" : ": put it under [" + home + "]"));
      } else {
        fail(at(key.source().begin), "unknown table [" + std::string(name) +
                                         "]; known tables: [simulation], [cpu], [network], [io], [output]" +
                                         suggestion(name, {"simulation", "cpu", "network", "io", "output"}));
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
    for (const char* k : {"np", "stack", "poll_cost", "virtual_clocks", "report", "coll_replay", "privatize", "privatize_libs", "large_scale"})
      if (key == k) return "simulation";
    for (const char* k : {"model", "scale"})
      if (key == k) return "cpu";
    for (const char* k : {"trace", "trace_format", "trace_buffer", "stats", "stats_matrix", "progress"})
      if (key == k) return "output";
    for (const char* k : {"preset", "topology", "endpoints", "latency", "bandwidth", "send_overhead", "recv_overhead",
                          "placement", "placement_file", "size", "level"})
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
          o_.stack_size = to_stack(str(n, "simulation", k, "\"auto\", a size string such as \"256K\" or an integer byte count"), w);
        }
      } else if (k == "poll_cost") {
        o_.poll_cost = time(n, "simulation", k);
      } else if (k == "virtual_clocks") {
        if (!n.is_boolean()) wrong_type(n, "simulation", k, "a boolean (true or false)");
        o_.virtual_clocks = n.as_boolean()->get();
      } else if (k == "report") {
        if (!n.is_boolean()) wrong_type(n, "simulation", k, "a boolean (true or false)");
        o_.report = n.as_boolean()->get();
      } else if (k == "coll_replay") {
        if (!n.is_boolean()) wrong_type(n, "simulation", k, "a boolean (true or false)");
        o_.coll_replay = n.as_boolean()->get();
      } else if (k == "privatize") {
        if (n.is_boolean()) o_.privatize = n.as_boolean()->get() ? PrivatizeMode::on : PrivatizeMode::off;
        else o_.privatize = to_privatize(str(n, "simulation", k, "\"auto\", \"on\", \"off\", \"copy\" or \"map\""), w);
      } else if (k == "large_scale") {
        if (n.is_boolean()) o_.large_scale = n.as_boolean()->get() ? LargeScaleMode::on : LargeScaleMode::off;
        else o_.large_scale = to_large_scale(str(n, "simulation", k, "\"auto\", \"on\" or \"off\""), w);
      } else if (k == "privatize_libs") {
        o_.privatize_libs.clear();
        if (n.is_string()) {
          o_.privatize_libs = to_lib_list(n.as_string()->get(), w);
        } else if (const toml::array* a = n.as_array()) {
          for (const toml::node& e : *a) {
            if (!e.is_string() || e.as_string()->get().empty())
              wrong_type(e, "simulation", k, "an array of library file names such as [\"libfoo.so\"]");
            o_.privatize_libs.push_back(e.as_string()->get());
          }
        } else {
          wrong_type(n, "simulation", k, "an array of library file names such as [\"libfoo.so\"]");
        }
      } else {
        unknown_key(key, "simulation", {"np", "stack", "poll_cost", "virtual_clocks", "report", "coll_replay", "privatize", "privatize_libs", "large_scale"});
      }
    }
  }

  void output(const toml::table& t) {
    for (auto&& [key, n] : t) {
      std::string_view k = key.str();
      std::string w = where(at(n), "output", k);
      if (k == "trace") {
        o_.trace = to_output_path(str(n, "output", k, "a file path string such as \"out/run1\""), w, "trace file");
      } else if (k == "trace_format") {
        to_trace_format(str(n, "output", k, "a string (\"otf2\", \"json\" or \"both\")"), w, o_);
      } else if (k == "trace_buffer") {
        if (n.is_integer()) o_.trace_buffer = to_trace_buffer(std::to_string(n.as_integer()->get()), w);
        else o_.trace_buffer = to_trace_buffer(str(n, "output", k, "a size string such as \"64M\""), w);
      } else if (k == "stats") {
        o_.stats = to_output_path(str(n, "output", k, "a file prefix string such as \"out/run1\""), w, "statistics prefix");
      } else if (k == "stats_matrix") {
        int64_t v = integer(n, "output", k);
        if (v < 1 || v > kMaxMatrix) fail(w, "must be between 1 and " + std::to_string(kMaxMatrix) + " (got " + std::to_string(v) + ")");
        o_.stats_matrix = v;
      } else if (k == "progress") {
        if (n.is_boolean()) o_.progress = n.as_boolean()->get() ? ProgressMode::on : ProgressMode::off;
        else o_.progress = to_progress(str(n, "output", k, "\"auto\", \"on\" or \"off\""), w);
      } else {
        unknown_key(key, "output", {"trace", "trace_format", "trace_buffer", "stats", "stats_matrix", "progress"});
      }
    }
  }

  void io(const toml::table& t) {
    for (auto&& [key, n] : t) {
      std::string_view k = key.str();
      std::string w = where(at(n), "io", k);
      if (k == "latency") {
        o_.io_latency = time(n, "io", k);
      } else if (k == "bandwidth") {
        o_.io_bandwidth_bps = to_bandwidth(str(n, "io", k, "a bandwidth string such as \"1GB/s\""), w);
      } else {
        unknown_key(key, "io", {"latency", "bandwidth"});
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

  // The text form of a level key's TOML value, after checking its type.
  std::string level_value_text(const toml::node& n, const LevelKey& k, std::string_view table) const {
    switch (k.kind) {
      case Kind::integer:
        return std::to_string(integer(n, table, k.name));
      case Kind::int_list: {
        const std::string expected = std::string(k.name) == "size"
                                         ? "a size: an integer, an array of integers or a string such as \"8x8x8\""
                                         : "an array of integers such as [1, 0, 1] or a string such as \"1,0,1\"";
        if (n.is_integer()) return std::to_string(n.as_integer()->get());
        if (n.is_string()) return std::string(n.as_string()->get());
        if (!n.is_array()) wrong_type(n, table, k.name, expected);
        std::string s;
        const toml::array& a = *n.as_array();
        if (a.empty()) fail(where(at(n), table, k.name), "the array is empty; " + expected);
        for (size_t i = 0; i < a.size(); ++i) {
          if (!a[i].is_integer()) wrong_type(a[i], table, k.name, "integers in the array");
          s += (i ? "," : "") + std::to_string(a[i].as_integer()->get());
        }
        return s;
      }
      case Kind::time:
        return std::string(str(n, table, k.name, "a time string such as \"25us\""));
      case Kind::bandwidth:
        return std::string(str(n, table, k.name, "a bandwidth string such as \"1Gbps\""));
      case Kind::boolean:
        if (!n.is_boolean()) wrong_type(n, table, k.name, "a boolean (true or false)");
        return n.as_boolean()->get() ? "1" : "0";
      case Kind::text:
        return std::string(str(n, table, k.name, "a string"));
    }
    return "";
  }

  // Reads the level keys of `t` into `lv` (all keys of t except `skip`). `table` names it in messages.
  void level_keys(const toml::table& t, NetworkLevel& lv, std::string_view table,
                  const std::vector<std::string>& skip) const {
    std::vector<std::string> seen;
    for (auto&& [key, n] : t) {
      std::string_view k = key.str();
      if (k == "topology" || std::find(skip.begin(), skip.end(), k) != skip.end()) continue;
      const LevelKey* lk = find_level_key(k, lv.topology, false);
      std::vector<std::string> known = level_key_names(lv.topology, false);
      known.insert(known.begin(), "topology");
      if (!lk) {
        if (is_level_key_anywhere(k, false))
          fail(at(key.source().begin), "key " + quoted(k) + " does not apply to a " + lv.topology + " level in [" +
                                           std::string(table) + "]; keys of a " + lv.topology + " level: " +
                                           join(known));
        std::vector<std::string> all = known;
        all.insert(all.end(), skip.begin(), skip.end());
        unknown_key(key, table, all);
      }
      std::string w = where(at(n), table, k);
      std::string slot = set_level_key(lv, *lk, level_value_text(n, *lk, table), w);
      if (std::find(seen.begin(), seen.end(), slot) != seen.end())
        fail(w, "this sets the " + slot + " of the level a second time");
      seen.push_back(slot);
    }
  }

  std::string topology_of(const toml::node& n, std::string_view table) const {
    std::string w = where(at(n), table, "topology");
    std::string topo = canonical_topology(str(n, table, "topology", "a topology name string such as \"torus\""));
    if (!topo_bit(topo))
      fail(w, "unknown topology " + quoted(topo) + "; known topologies: " + join(kTopologies) +
                  suggestion(topo, std::vector<std::string>(std::begin(kTopologies), std::end(kTopologies))));
    return topo;
  }

  static constexpr const char* kNetworkKeys[] = {"preset", "placement", "placement_file", "send_overhead",
                                                 "recv_overhead", "level"};

  void network(const toml::table& t) {
    NetworkSpec ns = o_.network;
    org_.network = at(t);
    std::vector<std::string> skip(std::begin(kNetworkKeys), std::end(kNetworkKeys));
    bool shorthand = false;
    for (auto&& [key, n] : t)
      if (std::find(skip.begin(), skip.end(), key.str()) == skip.end()) shorthand = true;
    // The preset is the base whatever its place in the table; the other keys override it.
    if (const toml::node* p = t.get("preset")) {
      std::string w = where(at(*p), "network", "preset");
      std::string name(str(*p, "network", "preset", "a preset name string such as \"ethernet\""));
      std::string head = name.substr(0, name.find(':'));
      if (!is_preset(head)) {
        std::vector<std::string> known = network_preset_names();
        fail(w, "unknown network preset " + quoted(head) + "; known presets: " + join(known) + suggestion(head, known));
      }
      NetworkSpec base;
      try {
        base = parse_network_inline(name);
      } catch (const ConfigError& e) {
        fail(w, e.what());
      }
      base.preset = head;
      base.placement = ns.placement;
      base.placement_file = ns.placement_file;
      ns = base;
    }
    const bool from_preset = t.contains("preset");
    if (const toml::node* lv = t.get("level")) {
      if (shorthand) {
        for (auto&& [key, n] : t)
          if (std::find(skip.begin(), skip.end(), key.str()) == skip.end())
            fail(at(key.source().begin), "key " + quoted(key.str()) +
                                             " describes a level; with [[network.level]] tables put it in one of "
                                             "them (the [network] level keys are a shorthand for one level)");
      }
      if (!lv->is_array_of_tables())
        fail(where(at(*lv), "network", "level"),
             "expected an array of tables ([[network.level]] sections), got " + std::string(type_name(*lv)));
      const toml::array& arr = *lv->as_array();
      if (arr.size() > static_cast<size_t>(net::Route::kMaxLevels))
        fail(at(*lv), "a network has at most " + std::to_string(net::Route::kMaxLevels) + " levels (got " +
                          std::to_string(arr.size()) + ")");
      ns.levels.clear();
      for (size_t i = 0; i < arr.size(); ++i) {
        const toml::table& lt = *arr[i].as_table();
        NetworkLevel level;
        if (const toml::node* tn = lt.get("topology")) level.topology = topology_of(*tn, "network.level");
        level_keys(lt, level, "network.level", {});
        validate_level(level, at(lt) + ": [[network.level]] " + std::to_string(i) + " (" +
                                  format_network_level(level, false) + ")");
        ns.levels.push_back(std::move(level));
      }
      if (!from_preset) ns.preset = "custom";
    } else if (shorthand) {
      if (ns.levels.size() != 1)
        fail(at(t), "[network]: the level keys at [network] describe a single-level network, but preset " +
                        quoted(ns.preset) + " has " + std::to_string(ns.levels.size()) +
                        " levels; describe the levels with [[network.level]] tables instead");
      NetworkLevel& level = ns.levels[0];
      if (const toml::node* tn = t.get("topology")) {
        std::string topo = topology_of(*tn, "network");
        if (topo != level.topology) {
          level = NetworkLevel{};  // another topology starts from its own defaults
          level.topology = topo;
        }
        if (!from_preset) ns.preset = "custom";
      }
      level_keys(t, level, "network", skip);
      validate_level(level, at(t) + ": [network] (" + format_network_level(level, false) + ")");
    }
    bool placement_given = false;
    for (auto&& [key, n] : t) {
      std::string_view k = key.str();
      std::string w = where(at(n), "network", k);
      if (k == "placement") {
        std::string v(str(n, "network", k, "a string: \"block\", \"roundrobin\" or \"file\""));
        placement_given = true;
        if (v == "file:" || v.starts_with("file:")) {
          ns.placement = "file";
          ns.placement_file = relative_to_config(v.substr(5));
        } else if (v == "block" || v == "roundrobin" || v == "file") {
          ns.placement = v;
        } else {
          fail(w, "unknown placement " + quoted(v) + "; give block, roundrobin or file (with placement_file)" +
                      suggestion(v, {"block", "roundrobin", "file"}));
        }
      } else if (k == "placement_file") {
        ns.placement_file =
            relative_to_config(std::string(str(n, "network", k, "a file name string")));
      } else if (k == "send_overhead") {
        ns.send_overhead = time(n, "network", k);
      } else if (k == "recv_overhead") {
        ns.recv_overhead = time(n, "network", k);
      }
    }
    if (const toml::node* pf = t.get("placement_file")) {
      if (placement_given && ns.placement != "file")
        fail(where(at(*pf), "network", "placement_file"),
             "placement is " + quoted(ns.placement) + "; a placement file needs placement = \"file\" (or leave "
             "placement out)");
      ns.placement = "file";
    }
    if (ns.placement == "file" && ns.placement_file.empty())
      fail(at(t), "[network] placement = \"file\" needs placement_file = \"PATH\" (one core per line for ranks "
                  "0..np-1)");
    o_.network = ns;
  }

  // A relative placement file is relative to the directory of the config file.
  std::string relative_to_config(const std::string& file) const {
    if (file.empty() || file.front() == '/') return file;
    size_t slash = path_.rfind('/');
    return slash == std::string::npos ? file : path_.substr(0, slash + 1) + file;
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
  // Values end up in TOML (-xsim-print-config) and JSON files, which are UTF-8.
  if (!valid_utf8(s.value)) fail(w, "the value is not valid UTF-8 text; give it in UTF-8 (or ASCII)");
  switch (s.def->id) {
    case Opt::np: o.np = to_np(s.value, w); org.np = w; break;
    case Opt::mn: {
      NetworkSpec n;
      try {
        n = parse_network_inline(s.value);
      } catch (const ConfigError& e) {
        fail(w, e.what());
      }
      n.placement = o.network.placement;  // -xsim-mn sets the levels and overheads, not the placement
      n.placement_file = o.network.placement_file;
      o.network = std::move(n);
      org.network = w + " " + s.value;
      break;
    }
    case Opt::placement:
      if (s.value == "block" || s.value == "roundrobin") {
        o.network.placement = s.value;
        o.network.placement_file.clear();
      } else if (s.value.starts_with("file:") && s.value.size() > 5) {
        o.network.placement = "file";
        o.network.placement_file = s.value.substr(5);
      } else {
        fail(w, "unknown placement " + quoted(s.value) + "; give block, roundrobin or file:PATH" +
                    suggestion(s.value, {"block", "roundrobin"}));
      }
      break;
    case Opt::config: break;  // handled before the file is loaded
    case Opt::cpu: o.cpu = to_cpu(s.value, w); break;
    case Opt::cpu_scale: o.cpu_scale = to_scale(s.value, w); break;
    case Opt::stack: o.stack_size = to_stack(s.value, w); break;
    case Opt::poll_cost: o.poll_cost = to_time(s.value, w); break;
    case Opt::io_lat: o.io_latency = to_time(s.value, w); break;
    case Opt::io_bw: o.io_bandwidth_bps = to_bandwidth(s.value, w); break;
    case Opt::virtual_clocks: o.virtual_clocks = to_bool(s.value, w); break;
    case Opt::report: o.report = to_bool(s.value, w); break;
    case Opt::coll_replay: o.coll_replay = to_bool(s.value, w); break;
    case Opt::privatize: o.privatize = to_privatize(s.value, w); break;
    case Opt::privatize_libs: o.privatize_libs = to_lib_list(s.value, w); break;
    case Opt::large_scale: o.large_scale = to_large_scale(s.value, w); break;
    case Opt::trace: o.trace = to_output_path(s.value, w, "trace file"); break;
    case Opt::trace_format: to_trace_format(s.value, w, o); break;
    case Opt::trace_buffer: o.trace_buffer = to_trace_buffer(s.value, w); break;
    case Opt::stats: o.stats = to_output_path(s.value, w, "statistics prefix"); break;
    case Opt::stats_matrix: o.stats_matrix = parse_int(s.value, w, "the matrix size", 1, kMaxMatrix); break;
    case Opt::progress: o.progress = to_progress(s.value, w); break;
    case Opt::print_config: o.print_config = to_bool(s.value, w); break;
    case Opt::help: o.help = to_bool(s.value, w); break;
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------------

std::vector<std::string> network_preset_names() {
  return {"none", "ethernet", "multicore-ethernet", "mesh2d", "mesh3d-dualcore", "torus3d-dualcore",
          "twistedtorus3d-dualcore", "aries"};
}

NetworkSpec network_preset(const std::string& name) {
  auto level = [](const char* topology, SimTime lat, uint64_t bw) {
    NetworkLevel lv;
    lv.topology = topology;
    lv.latency = lat;
    lv.bandwidth_bps = bw;
    return lv;
  };
  const SimTime us25 = SimTime::from_ns(25'000), us7 = SimTime::from_ns(7'000), us032 = SimTime::from_ns(320);
  NetworkSpec ns;
  ns.preset = name;
  if (name == "none") {
    // Communication practically free: 2 ps per message plus 8 ps per MB; latency stays > 0 (lookahead).
    ns.levels = {level("star", SimTime::from_ps(1), 1'000'000'000'000'000'000ull)};
  } else if (name == "ethernet") {
    ns.levels = {level("star", us25, 1'000'000'000)};
  } else if (name == "multicore-ethernet") {
    NetworkLevel chip = level("star", us032, 12'000'000'000);
    chip.size = {8};
    ns.levels = {level("star", us25, 1'000'000'000), chip};
  } else if (name == "mesh2d") {
    NetworkLevel mesh = level("mesh", us7, 8'800'000'000);
    mesh.dims = 2;
    ns.levels = {mesh};
  } else if (name == "mesh3d-dualcore" || name == "torus3d-dualcore" || name == "twistedtorus3d-dualcore") {
    NetworkLevel sys = level(name == "mesh3d-dualcore" ? "mesh" : name == "torus3d-dualcore" ? "torus" : "twistedtorus",
                             us7, 8'800'000'000);
    sys.dims = 3;
    NetworkLevel chip = level("star", us032, 9'600'000'000);
    chip.size = {2};
    ns.levels = {sys, chip};
  } else if (name == "aries") {
    net::DragonflyParams a = net::aries_dragonfly_params(1, net::DragonflyRouting::minimal);
    NetworkLevel lv = level("dragonfly", a.terminal_latency, a.terminal_bandwidth_bps);
    lv.p = a.p;
    lv.a = a.a;
    lv.h = a.h;
    lv.g = 0;  // sized from the rank count
    lv.columns = a.local_columns;
    lv.terminal_latency = a.terminal_latency;
    lv.terminal_bandwidth_bps = a.terminal_bandwidth_bps;
    lv.local_latency = a.local_latency;
    lv.local_bandwidth_bps = a.local_bandwidth_bps;
    lv.global_latency = a.global_latency;
    lv.global_bandwidth_bps = a.global_bandwidth_bps;
    ns.levels = {lv};
  } else {
    std::vector<std::string> known = network_preset_names();
    throw ConfigError("unknown network preset " + quoted(name) + "; known presets: " + join(known) +
                      suggestion(name, known));
  }
  return ns;
}

NetworkSpec parse_network_inline(const std::string& spec) { return inline_spec(spec); }

std::string format_network_level(const NetworkLevel& lv, bool with_links) {
  const std::string& t = lv.topology;
  std::string s = t;
  unsigned bit = topo_bit(t);
  if (bit & (kStar | kRing)) {
    if (!lv.size.empty()) s += ":" + std::to_string(lv.size[0]);
    if (lv.uni) s += ":uni";
  } else if (bit & kGrid) {
    if (!lv.size.empty()) s += ":" + join_ints(lv.size, "x");
    else if (lv.dims > 0) s += ":dims=" + std::to_string(lv.dims);
    if (!lv.wrap.empty()) s += ":wrap=" + join_ints(lv.wrap, ",");
    if (t == "twistedtorus" && lv.degree != 1) s += ":degree=" + std::to_string(lv.degree);
    if (!lv.jump.empty()) s += ":jump=" + join_ints(lv.jump, ",");
  } else if (t == "tree") {
    s += ":" + std::to_string(lv.k);
    if (lv.depth > 0) s += ":depth=" + std::to_string(lv.depth);
    if (lv.endpoints > 0) s += ":n=" + std::to_string(lv.endpoints);
  } else if (t == "dragonfly") {
    s += ":p=" + std::to_string(lv.p) + ":a=" + std::to_string(lv.a) + ":h=" + std::to_string(lv.h);
    if (lv.g > 0) s += ":g=" + std::to_string(lv.g);
    if (lv.columns > 0) s += ":cols=" + std::to_string(lv.columns);
    if (lv.routing != "minimal") s += ":routing=" + lv.routing;
  } else if (t == "fattree") {
    s += ":m=" + std::to_string(lv.m) + ":n=" + std::to_string(lv.n);
  }
  if (with_links) {
    s += ":lat=" + inline_time(lv.latency) + ":bw=" + inline_bw(lv.bandwidth_bps);
    if (t == "dragonfly") {
      if (lv.terminal_latency != SimTime::zero()) s += ":tlat=" + inline_time(lv.terminal_latency);
      if (lv.terminal_bandwidth_bps) s += ":tbw=" + inline_bw(lv.terminal_bandwidth_bps);
      if (lv.local_latency != SimTime::zero()) s += ":llat=" + inline_time(lv.local_latency);
      if (lv.local_bandwidth_bps) s += ":lbw=" + inline_bw(lv.local_bandwidth_bps);
      if (lv.global_latency != SimTime::zero()) s += ":glat=" + inline_time(lv.global_latency);
      if (lv.global_bandwidth_bps) s += ":gbw=" + inline_bw(lv.global_bandwidth_bps);
    }
  }
  return s;
}

std::string format_network_inline(const NetworkSpec& spec, bool with_links) {
  std::string s;
  for (size_t i = 0; i < spec.levels.size(); ++i) s += (i ? "/" : "") + format_network_level(spec.levels[i], with_links);
  if (with_links && spec.send_overhead != SimTime::zero()) s += ":os=" + inline_time(spec.send_overhead);
  if (with_links && spec.recv_overhead != SimTime::zero()) s += ":or=" + inline_time(spec.recv_overhead);
  return s;
}

void load_config_text(Options& o, const std::string& text, const std::string& name) {
  Origins org;
  TomlLoader(name, o, org).load_text(text);
}

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

  // With the rank count known, the network must fit it: build it once to report a bad size or placement
  // file now, naming where the network and the rank count came from.
  if (o.np != 0) {
    try {
      (void)resolve_network(o.network, o.np);
      if (o.network.placement == "file") (void)build_network(o.network, o.np);
    } catch (const ConfigError& e) {
      throw ConfigError(std::string(e.what()) + " (network set by " + org.network + ", np by " + org.np + ")");
    }
  }
  return o;
}

std::string help_text() {
  const Options d;
  auto default_of = [&](Opt id) -> std::string {
    switch (id) {
      case Opt::np: return "one virtual rank per native process";
      case Opt::mn: return "ethernet";
      case Opt::placement: return "block";
      case Opt::config: return "none";
      case Opt::cpu: return d.cpu == CpuModel::scaled ? "scaled" : "none";
      case Opt::cpu_scale: return shortest_double(d.cpu_scale);
      case Opt::stack: return d.stack_size ? format_size(d.stack_size) : "auto";
      case Opt::poll_cost: return format_time(d.poll_cost);
      case Opt::io_lat: return format_time(d.io_latency);
      case Opt::io_bw: return format_bandwidth(d.io_bandwidth_bps);
      case Opt::virtual_clocks: return d.virtual_clocks ? "on" : "off";
      case Opt::report: return d.report ? "on" : "off";
      case Opt::coll_replay: return d.coll_replay ? "on" : "off";
      case Opt::privatize: return privatize_name(d.privatize);
      case Opt::privatize_libs: return "auto";
      case Opt::large_scale: return large_scale_name(d.large_scale);
      case Opt::trace: return "none (off)";
      case Opt::trace_format: return trace_format_name(d);
      case Opt::trace_buffer: return format_size(d.trace_buffer);
      case Opt::stats: return "none (off)";
      case Opt::stats_matrix: return std::to_string(d.stats_matrix);
      case Opt::progress: return progress_name(d.progress);
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
  s += "\nNetwork spec (-xsim-mn): levels from the system network inward, separated by '/', each\n"
       "  TOPOLOGY[:SIZE][:key=value]...   or a preset name with optional :key=value overrides.\n"
       "  star:N | ring:N[:uni] | mesh:AxB... | torus:AxB...[:wrap=1,0,..] |\n"
       "  twistedtorus:AxB...[:wrap=..][:degree=G][:jump=J0,J1,..] | tree:K[:depth=D|:n=N] |\n"
       "  dragonfly:p=P:a=A:h=H[:g=G][:cols=C][:routing=min|valiant][:tlat=..:tbw=..:llat=..:lbw=..:glat=..:gbw=..] |\n"
       "  fattree:m=M:n=N\n"
       "  every level: lat=TIME bw=BANDWIDTH (default 1 us and 10 Gbps per link); anywhere: os=TIME or=TIME\n"
       "  (per-message send/receive overhead, default 0). A level without a size gets ceil(np / the other\n"
       "  levels' cores) endpoints (mesh/torus: the most square factorisation, dims=D dimensions).\n"
       "  Examples: star:64:lat=25us:bw=1Gbps  torus:4x4x4:wrap=1,0,1  tree:2:depth=6\n"
       "            torus:8x8x8:lat=7us:bw=8.8Gbps/star:2:lat=0.32us:bw=9.6Gbps\n"
       "Presets: none (star 1 ps, 1000000 Tbps), ethernet (star 25 us, 1 Gbps; the default),\n"
       "  multicore-ethernet[:cores=8] (star 25 us 1 Gbps / star of 8 cores 0.32 us 12 Gbps), mesh2d (2-D mesh\n"
       "  7 us 8.8 Gbps), mesh3d-dualcore, torus3d-dualcore, twistedtorus3d-dualcore (3-D network 7 us 8.8 Gbps\n"
       "  / star of 2 cores 0.32 us 9.6 Gbps), aries[:g=G][:routing=valiant] (Cray Aries dragonfly).\n"
       "Supported topologies: " + join(kTopologies) + ".\n"
       "Units: TIME 25us, 1.5ms, 100ns, 2s; BANDWIDTH 1Gbps, 8.8 Gbit/s, 1.25GB/s; SIZE 256K, 1MiB, 4096.\n"
       "Config file: TOML with tables [simulation] (np, stack, poll_cost, virtual_clocks, report, coll_replay,\n"
       "privatize, privatize_libs, large_scale), [cpu] (model, scale), [io] (latency, bandwidth), [network] (preset, placement, placement_file, send_overhead, recv_overhead,\n"
       "and [[network.level]] tables with topology, size and the level keys) and [output] (trace, trace_format,\n"
       "trace_buffer, stats, stats_matrix, progress); -xsim-print-config prints the effective configuration in\n"
       "that form. Full reference: docs/network-config.md; privatization of globals: docs/privatization.md;\n"
       "traces, statistics and pictures: docs/observability.md.\n";
  return s;
}

std::string to_toml(const Options& o) {
  auto str = [](const std::string& v) { return toml_string(v); };
  std::string s = "# xsim effective configuration; read it back with -xsim-config FILE\n";
  if (!o.config_file.empty()) {
    std::string f = o.config_file;  // a comment: no control characters
    std::replace_if(f.begin(), f.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7F; }, ' ');
    s += "# (built on config file " + f + ")\n";
  }
  s += "\n[simulation]\n";
  if (o.np != 0) s += "np = " + std::to_string(o.np) + "\n";
  else s += "# np not set: one virtual rank per native process\n";
  s += "stack = " + str(o.stack_size ? format_size(o.stack_size) : "auto") + "\n";
  s += "poll_cost = " + str(format_time(o.poll_cost)) + "\n";
  s += std::string("virtual_clocks = ") + (o.virtual_clocks ? "true" : "false") + "\n";
  s += std::string("report = ") + (o.report ? "true" : "false") + "\n";
  s += std::string("coll_replay = ") + (o.coll_replay ? "true" : "false") + "\n";
  s += std::string("privatize = ") + str(privatize_name(o.privatize)) + "\n";
  s += "privatize_libs = [";  // always: [] (none) differs from the default ["auto"]
  for (size_t i = 0; i < o.privatize_libs.size(); ++i) s += (i ? ", " : "") + str(o.privatize_libs[i]);
  s += "]\n";
  s += "large_scale = " + str(large_scale_name(o.large_scale)) + "\n";
  s += "\n[output]\n";
  if (!o.trace.empty()) s += "trace = " + str(o.trace) + "\n";
  else s += "# trace not set: no trace\n";
  s += "trace_format = " + str(trace_format_name(o)) + "\n";
  s += "trace_buffer = " + str(format_size(o.trace_buffer)) + "\n";
  if (!o.stats.empty()) s += "stats = " + str(o.stats) + "\n";
  else s += "# stats not set: no statistics files\n";
  s += "stats_matrix = " + std::to_string(o.stats_matrix) + "\n";
  s += "progress = " + str(progress_name(o.progress)) + "\n";
  s += "\n[cpu]\n";
  s += "model = " + str(o.cpu == CpuModel::scaled ? "scaled" : "none") + "\n";
  s += "scale = " + shortest_double(o.cpu_scale) + "\n";
  s += "\n[io]\n";
  s += "latency = " + str(format_time(o.io_latency)) + "\n";
  s += "bandwidth = " + str(format_bandwidth(o.io_bandwidth_bps)) + "\n";
  s += "\n[network]\n";
  const NetworkSpec& n = o.network;
  s += "# inline form: " + format_network_inline(n) + "\n";
  if (n.preset != "custom" && !n.preset.empty()) s += "preset = " + str(n.preset) + "\n";
  s += "placement = " + str(n.placement) + "\n";
  if (n.placement == "file") s += "placement_file = " + str(n.placement_file) + "\n";
  s += "send_overhead = " + str(format_time(n.send_overhead)) + "\n";
  s += "recv_overhead = " + str(format_time(n.recv_overhead)) + "\n";
  auto ints = [](const auto& v) {
    std::string a = "[";
    for (size_t i = 0; i < v.size(); ++i) a += (i ? ", " : "") + std::to_string(v[i]);
    return a + "]";
  };
  for (const NetworkLevel& lv : n.levels) {
    const std::string& t = lv.topology;
    unsigned bit = topo_bit(t);
    s += "\n[[network.level]]\ntopology = " + str(t) + "\n";
    if (bit & (kStar | kRing | kGrid)) {
      if (!lv.size.empty()) s += "size = " + ints(lv.size) + "\n";
      else s += "# size not set: sized from the number of virtual ranks\n";
    }
    if (bit & kRing) s += std::string("uni = ") + (lv.uni ? "true" : "false") + "\n";
    if ((bit & kGrid) && lv.dims > 0) s += "dims = " + std::to_string(lv.dims) + "\n";
    if ((bit & (kTorus | kTwisted)) && !lv.wrap.empty()) s += "wrap = " + ints(lv.wrap) + "\n";
    if (bit & kTwisted) s += "degree = " + std::to_string(lv.degree) + "\n";
    if ((bit & kTwisted) && !lv.jump.empty()) s += "jump = " + ints(lv.jump) + "\n";
    if (bit & kTree) {
      s += "k = " + std::to_string(lv.k) + "\n";
      if (lv.depth > 0) s += "depth = " + std::to_string(lv.depth) + "\n";
      if (lv.endpoints > 0) s += "endpoints = " + std::to_string(lv.endpoints) + "\n";
    }
    if (bit & kDragonfly) {
      s += "p = " + std::to_string(lv.p) + "\na = " + std::to_string(lv.a) + "\nh = " + std::to_string(lv.h) + "\n";
      if (lv.g > 0) s += "g = " + std::to_string(lv.g) + "\n";
      else s += "# g not set: sized from the number of virtual ranks\n";
      s += "columns = " + std::to_string(lv.columns) + "\nrouting = " + str(lv.routing) + "\n";
    }
    if (bit & kFatTree) s += "m = " + std::to_string(lv.m) + "\nn = " + std::to_string(lv.n) + "\n";
    s += "latency = " + str(format_time(lv.latency)) + "\n";
    s += "bandwidth = " + str(format_bandwidth(lv.bandwidth_bps)) + "\n";
    if (bit & kDragonfly) {
      if (lv.terminal_latency != SimTime::zero()) s += "terminal_latency = " + str(format_time(lv.terminal_latency)) + "\n";
      if (lv.terminal_bandwidth_bps) s += "terminal_bandwidth = " + str(format_bandwidth(lv.terminal_bandwidth_bps)) + "\n";
      if (lv.local_latency != SimTime::zero()) s += "local_latency = " + str(format_time(lv.local_latency)) + "\n";
      if (lv.local_bandwidth_bps) s += "local_bandwidth = " + str(format_bandwidth(lv.local_bandwidth_bps)) + "\n";
      if (lv.global_latency != SimTime::zero()) s += "global_latency = " + str(format_time(lv.global_latency)) + "\n";
      if (lv.global_bandwidth_bps) s += "global_bandwidth = " + str(format_bandwidth(lv.global_bandwidth_bps)) + "\n";
    }
  }
  return s;
}

}  // namespace xsim

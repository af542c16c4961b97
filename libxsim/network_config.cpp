// NetworkSpec -> netmodel network + rank placement (see network_config.hpp, docs/network-config.md).
#include "network_config.hpp"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "xsim/netmodel/dragonfly.hpp"
#include "xsim/netmodel/fat_tree.hpp"
#include "xsim/netmodel/hierarchy.hpp"
#include "xsim/netmodel/mesh_torus.hpp"
#include "xsim/netmodel/ring.hpp"
#include "xsim/netmodel/tree.hpp"
#include "xsim/netmodel/twisted_torus.hpp"

namespace xsim {
namespace {

constexpr int64_t kMaxCores = INT32_MAX;
constexpr int64_t kBig = int64_t{1} << 62;  // saturation value for sizes far beyond kMaxCores

int64_t sat_mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r) || r > kBig) return kBig;
  return r;
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

bool is_grid(const std::string& t) { return t == "mesh" || t == "torus" || t == "twistedtorus"; }

std::vector<int> to_ints(const std::vector<int64_t>& v) {
  std::vector<int> r;
  for (int64_t x : v) {
    if (x < 1 || x > INT_MAX) throw ConfigError("size entry " + std::to_string(x) + " is out of range");
    r.push_back(static_cast<int>(x));
  }
  return r;
}

std::string short_form(const NetworkSpec& spec) { return format_network_inline(spec, false); }

std::string level_name(const NetworkSpec& spec, size_t i) {
  std::string s = format_network_level(spec.levels[i], false);
  return spec.levels.size() > 1 ? "network level " + std::to_string(i) + " (" + s + ")" : "network " + s;
}

// The level grown so that it has at least `needed` endpoints (for "use e.g." suggestions).
NetworkLevel grown(NetworkLevel lv, int64_t needed) {
  const std::string& t = lv.topology;
  if (t == "star" || t == "ring") {
    lv.size = {needed};
  } else if (is_grid(t)) {
    if (lv.size.empty()) lv.size = most_square_factors(needed, static_cast<int>(grid_dims(lv)));
    int64_t others = 1;
    for (size_t i = 0; i + 1 < lv.size.size(); ++i) others = sat_mul(others, lv.size[i]);
    lv.size.back() = std::max(lv.size.back(), ceil_div(needed, others));
    lv.dims = 0;
  } else if (t == "tree") {
    if (lv.depth > 0) {
      int64_t leaves = 1;
      lv.depth = 0;
      while (leaves < needed) leaves = sat_mul(leaves, lv.k), ++lv.depth;
    } else {
      lv.endpoints = needed;
    }
  } else if (t == "dragonfly") {
    int64_t g = ceil_div(needed, sat_mul(lv.p, lv.a));
    lv.g = static_cast<int>(std::min<int64_t>(g, INT_MAX));
    if (g > static_cast<int64_t>(lv.a) * lv.h + 1) lv.h = static_cast<int>(std::min<int64_t>(ceil_div(g - 1, lv.a), INT_MAX));
  } else if (t == "fattree") {
    auto count = [](int64_t m, int64_t n) {
      int64_t e = 2;
      for (int64_t i = 0; i < n; ++i) e = sat_mul(e, m / 2);
      return e;
    };
    if (lv.m >= 4) {
      while (lv.n < 32 && count(lv.m, lv.n) < needed) ++lv.n;
    } else {
      while (count(lv.m, lv.n) < needed) lv.m += 2;
    }
  }
  return lv;
}

}  // namespace

std::vector<int64_t> most_square_factors(int64_t n, int dims) {
  if (n < 1 || dims < 1) throw std::invalid_argument("most_square_factors: n and dims must be positive");
  std::vector<int64_t> divisors;
  for (int64_t d = 1; d * d <= n; ++d)
    if (n % d == 0) {
      divisors.push_back(d);
      if (d * d != n) divisors.push_back(n / d);
    }
  std::sort(divisors.begin(), divisors.end());
  std::vector<int64_t> best, cur;
  int64_t best_max = INT64_MAX, best_sum = INT64_MAX;
  // Non-decreasing factors: the last one is the largest.
  std::function<void(int64_t, int, int64_t, int64_t)> search = [&](int64_t rest, int left, int64_t lo, int64_t sum) {
    if (left == 1) {
      if (rest < lo) return;
      if (rest < best_max || (rest == best_max && sum + rest < best_sum)) {
        best = cur;
        best.push_back(rest);
        best_max = rest;
        best_sum = sum + rest;
      }
      return;
    }
    for (int64_t f : divisors) {
      if (f < lo) continue;
      if (f > best_max) break;
      // f^left <= rest, else the later (larger) factors cannot multiply to rest.
      int64_t p = 1;
      bool too_big = false;
      for (int i = 0; i < left && !too_big; ++i) {
        p = sat_mul(p, f);
        too_big = p > rest;
      }
      if (too_big) break;
      if (rest % f) continue;
      cur.push_back(f);
      search(rest / f, left - 1, f, sum + f);
      cur.pop_back();
    }
  };
  search(n, dims, 1, 0);
  return best;
}

bool level_size_derived(const NetworkLevel& lv) {
  const std::string& t = lv.topology;
  if (t == "star" || t == "ring" || is_grid(t)) return lv.size.empty();
  if (t == "tree") return lv.depth == 0 && lv.endpoints == 0;
  if (t == "dragonfly") return lv.g == 0;
  return false;
}

int64_t level_endpoints(const NetworkLevel& lv) {
  const std::string& t = lv.topology;
  if (level_size_derived(lv)) return 0;
  if (t == "star" || t == "ring" || is_grid(t)) {
    int64_t e = 1;
    for (int64_t x : lv.size) e = sat_mul(e, x);
    return e;
  }
  if (t == "tree") {
    if (lv.endpoints > 0) return lv.endpoints;
    int64_t e = 1;
    for (int i = 0; i < lv.depth; ++i) e = sat_mul(e, lv.k);
    return e;
  }
  if (t == "dragonfly") return sat_mul(sat_mul(lv.p, lv.a), lv.g);
  if (t == "fattree") {
    int64_t e = 2;
    for (int i = 0; i < lv.n; ++i) e = sat_mul(e, lv.m / 2);
    return e;
  }
  throw ConfigError("unknown topology \"" + t + "\"");
}

std::unique_ptr<net::Network> build_level(const NetworkLevel& lv, bool routing_tables) {
  const std::string& t = lv.topology;
  if (level_size_derived(lv)) throw ConfigError(t + " level has no size yet (it is sized from the rank count)");
  int64_t e = level_endpoints(lv);
  if (e > kMaxCores)
    throw ConfigError(format_network_level(lv, false) + " has " + (e >= kBig ? "far more than" : std::to_string(e) + ",") +
                      " more than 2^31-1 endpoints; make it smaller");
  if (t == "star") return net::make_star(static_cast<int>(e), lv.latency, lv.bandwidth_bps);
  if (t == "ring") return net::make_ring(static_cast<int>(e), !lv.uni, lv.latency, lv.bandwidth_bps);
  if (is_grid(t)) {
    std::vector<int> dims = to_ints(lv.size);
    std::vector<int> wrap = lv.wrap.empty() ? std::vector<int>(dims.size(), 1) : lv.wrap;
    if (t == "mesh") return net::make_mesh(dims, lv.latency, lv.bandwidth_bps);
    if (t == "torus") return net::make_torus(dims, wrap, lv.latency, lv.bandwidth_bps);
    std::vector<int> jump = lv.jump.empty() ? std::vector<int>(dims.size(), 1) : lv.jump;
    return net::make_twisted_torus(dims, wrap, lv.degree, jump, lv.latency, lv.bandwidth_bps,
                                   routing_tables ? net::TwistedTorusRouting::automatic : net::TwistedTorusRouting::family);
  }
  if (t == "tree") return net::make_tree(lv.k, static_cast<int>(e), lv.latency, lv.bandwidth_bps);
  if (t == "dragonfly") {
    net::DragonflyParams p;
    p.p = lv.p;
    p.a = lv.a;
    p.h = lv.h;
    p.g = lv.g;
    p.local_columns = lv.columns;
    p.routing = lv.routing == "valiant"  ? net::DragonflyRouting::valiant
                : lv.routing == "ugal-l" ? net::DragonflyRouting::ugal_local
                : lv.routing == "ugal-g" ? net::DragonflyRouting::ugal_global
                                         : net::DragonflyRouting::minimal;
    auto lat = [&](SimTime x) { return x == SimTime::zero() ? lv.latency : x; };
    auto bw = [&](uint64_t x) { return x == 0 ? lv.bandwidth_bps : x; };
    p.terminal_latency = lat(lv.terminal_latency);
    p.local_latency = lat(lv.local_latency);
    p.global_latency = lat(lv.global_latency);
    p.terminal_bandwidth_bps = bw(lv.terminal_bandwidth_bps);
    p.local_bandwidth_bps = bw(lv.local_bandwidth_bps);
    p.global_bandwidth_bps = bw(lv.global_bandwidth_bps);
    return net::make_dragonfly(p);
  }
  if (t == "fattree") return net::make_fat_tree(lv.m, lv.n, lv.latency, lv.bandwidth_bps, lv.routing == "adaptive");
  throw ConfigError("unknown topology \"" + t + "\"");
}

NetworkSpec resolve_network(const NetworkSpec& spec, int64_t np, int64_t* cores) {
  NetworkSpec r = spec;
  if (r.levels.empty()) throw ConfigError("the network has no levels; give at least one (e.g. star)");
  if (r.levels.size() > static_cast<size_t>(net::Route::kMaxLevels))
    throw ConfigError("a network has at most " + std::to_string(net::Route::kMaxLevels) + " levels (got " +
                      std::to_string(r.levels.size()) + ")");
  std::vector<size_t> derived;
  int64_t fixed = 1;
  for (size_t i = 0; i < r.levels.size(); ++i) {
    if (level_size_derived(r.levels[i])) derived.push_back(i);
    else fixed = sat_mul(fixed, level_endpoints(r.levels[i]));
  }
  if (derived.size() > 1)
    throw ConfigError(level_name(r, derived[0]) + " and " + level_name(r, derived[1]) +
                      " both take their size from the number of virtual ranks; give the size of all levels but "
                      "one");
  if (!derived.empty()) {
    NetworkLevel& lv = r.levels[derived[0]];
    if (np <= 0)
      throw ConfigError(level_name(r, derived[0]) +
                        " takes its size from the number of virtual ranks, which is not known here; give the "
                        "number of ranks (-xsim-np) or the level's size");
    if (fixed > kMaxCores) fixed = kMaxCores + 1;  // reported below
    int64_t units = ceil_div(np, std::min(fixed, kMaxCores));
    const std::string& t = lv.topology;
    if (t == "star" || t == "ring") {
      lv.size = {units};
    } else if (is_grid(t)) {
      lv.size = most_square_factors(units, static_cast<int>(grid_dims(lv)));
      lv.dims = 0;
    } else if (t == "tree") {
      lv.endpoints = units;
    } else if (t == "dragonfly") {
      int64_t per_group = sat_mul(lv.p, lv.a);
      int64_t g = ceil_div(units, per_group);
      int64_t max_g = static_cast<int64_t>(lv.a) * lv.h + 1;
      if (g > max_g)
        throw ConfigError(level_name(r, derived[0]) + " has at most a*h+1 = " + std::to_string(max_g) +
                          " groups, " + std::to_string(sat_mul(sat_mul(max_g, per_group), fixed)) +
                          " cores, but -xsim-np is " + std::to_string(np) + " (it would need g=" + std::to_string(g) +
                          "); use e.g. " + format_network_level(grown(lv, units), false) + " or fewer ranks");
      lv.g = static_cast<int>(g);
    }
  }
  int64_t total = 1;
  for (const auto& lv : r.levels) total = sat_mul(total, level_endpoints(lv));
  if (total > kMaxCores)
    throw ConfigError(short_form(r) + " has " + (total >= kBig ? std::string("far more than 2^31-1") : std::to_string(total)) +
                      " cores; at most 2^31-1 are possible; make a level smaller");
  if (np > 0 && total < np) {
    int64_t outer = level_endpoints(r.levels[0]);
    int64_t per = total / outer;
    NetworkSpec bigger = r;
    bigger.levels[0] = grown(r.levels[0], ceil_div(np, per));
    throw ConfigError(short_form(r) + " has " + std::to_string(total) + " cores but -xsim-np is " +
                      std::to_string(np) + "; use e.g. " + short_form(bigger) + " or fewer ranks");
  }
  if (cores) *cores = total;
  return r;
}

size_t grid_dims(const NetworkLevel& lv) {
  if (!lv.size.empty()) return lv.size.size();
  if (lv.dims > 0) return static_cast<size_t>(lv.dims);
  if (!lv.wrap.empty()) return lv.wrap.size();
  if (!lv.jump.empty()) return lv.jump.size();
  return 1;
}

std::vector<int32_t> parse_placement(std::istream& in, const std::string& name, int64_t ranks, int64_t cores) {
  std::vector<int32_t> out;
  std::vector<int64_t> line_of_core(static_cast<size_t>(cores), 0);
  std::string line;
  int64_t lineno = 0;
  out.reserve(static_cast<size_t>(ranks));
  while (std::getline(in, line)) {
    ++lineno;
    std::string_view v = line;
    v = v.substr(0, v.find('#'));
    while (!v.empty() && std::strchr(" \t\r", v.front())) v.remove_prefix(1);
    while (!v.empty() && std::strchr(" \t\r", v.back())) v.remove_suffix(1);
    if (v.empty()) continue;
    const std::string at = name + ":" + std::to_string(lineno) + ": ";
    int64_t core = -1;
    bool digits = std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!digits || v.size() > 12)
      throw ConfigError(at + "\"" + std::string(v) + "\" is not a core index; give one integer per line (the core of "
                        "rank " + std::to_string(out.size()) + ")");
    core = std::stoll(std::string(v));
    if (static_cast<int64_t>(out.size()) >= ranks)
      throw ConfigError(at + "more core indices than virtual ranks (" + std::to_string(ranks) +
                        "); the file needs exactly one line per rank 0.." + std::to_string(ranks - 1));
    if (core >= cores)
      throw ConfigError(at + "core " + std::to_string(core) + " is out of range: the network has " +
                        std::to_string(cores) + " cores (0.." + std::to_string(cores - 1) + ")");
    int64_t& first = line_of_core[static_cast<size_t>(core)];
    if (first != 0)
      throw ConfigError(at + "core " + std::to_string(core) + " is given twice (first on line " +
                        std::to_string(first) + "); every rank needs a core of its own");
    first = lineno;
    out.push_back(static_cast<int32_t>(core));
  }
  if (static_cast<int64_t>(out.size()) != ranks)
    throw ConfigError(name + ": " + std::to_string(out.size()) + " core indices for " +
                      std::to_string(ranks) + " virtual ranks; the file needs exactly one line per rank 0.." +
                      std::to_string(ranks - 1));
  return out;
}

namespace {
void set_bands(net::Network& n, const NetworkSpec& r) {
  try {
    n.set_size_bands(r.bands);
  } catch (const std::invalid_argument& e) {
    throw ConfigError("[[network.band]]: " + std::string(e.what()));
  }
}
}  // namespace

BuiltNetwork build_network(const NetworkSpec& spec, int64_t np, bool overheads_in_latency) {
  BuiltNetwork b;
  int64_t total = 0;
  b.resolved = resolve_network(spec, np, &total);
  const NetworkSpec& r = b.resolved;
  const net::Overheads ovh = overheads_in_latency ? net::Overheads{r.send_overhead, r.recv_overhead} : net::Overheads{};
  std::vector<std::unique_ptr<net::Network>> levels;
  for (size_t i = 0; i < r.levels.size(); ++i) {
    try {
      levels.push_back(build_level(r.levels[i]));
    } catch (const std::invalid_argument& e) {
      throw ConfigError(level_name(r, i) + ": " + e.what());
    }
    levels.back()->set_overheads(ovh);  // so that min_latency() includes them
  }
  if (levels.size() == 1) {
    b.network = std::move(levels[0]);
    set_bands(*b.network, r);
  } else {
    std::unique_ptr<net::Hierarchy> h;
    try {
      h = std::make_unique<net::Hierarchy>(std::move(levels));
    } catch (const std::invalid_argument& e) {
      throw ConfigError("network " + short_form(r) + ": " + e.what());
    }
    h->set_overheads(ovh);
    set_bands(*h, r);
    b.node_latency = h->min_latency_across(0);
    b.network = std::move(h);
  }
  b.nodes = level_endpoints(r.levels[0]);
  b.cores_per_node = total / b.nodes;
  const int64_t ranks = np > 0 ? np : total;

  if (r.placement == "block" || r.placement.empty()) return b;
  if (r.placement == "roundrobin") {
    b.core_of_rank.resize(static_cast<size_t>(ranks));
    for (int64_t rank = 0; rank < ranks; ++rank)
      b.core_of_rank[static_cast<size_t>(rank)] =
          static_cast<int32_t>((rank % b.nodes) * b.cores_per_node + rank / b.nodes);
    return b;
  }
  if (r.placement != "file")
    throw ConfigError("unknown placement \"" + r.placement + "\"; give block, roundrobin or file");
  const std::string& path = r.placement_file;
  if (path.empty()) throw ConfigError("placement \"file\" needs a placement file (one core index per line)");
  std::ifstream in(path);
  if (!in) throw ConfigError("cannot read placement file \"" + path + "\": " + std::strerror(errno));
  b.core_of_rank = parse_placement(in, path, ranks, total);
  return b;
}

}  // namespace xsim

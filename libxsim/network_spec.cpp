// Network specs: the level key table, the inline grammar (-xsim-mn), the presets and the inline form's
// printer (see network_spec.hpp, network_keys.hpp and docs/network-config.md).
#include "network_spec.hpp"

#include <algorithm>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "config_util.hpp"
#include "network_config.hpp"
#include "network_keys.hpp"
#include "xsim/netmodel/dragonfly.hpp"
#include "xsim/netmodel/network.hpp"
#include "xsim/units.hpp"

namespace xsim::cfg {
namespace {

constexpr const char* kTopologies[] = {"star", "ring", "mesh", "torus", "twistedtorus", "tree", "dragonfly",
                                       "fattree"};  // order = TopoBit

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
    {"routing", nullptr, Kind::text, kDragonfly | kFatTree},
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

// routing=: a dragonfly's minimal, valiant, ugal-l or ugal-g; a fat tree's minimal (static d-mod-k) or
// adaptive (docs/network-model.md "Adaptive routing").
std::string parse_routing(const std::string& topology, std::string_view v, const std::string& where) {
  if (v == "min" || v == "minimal") return "minimal";
  if (topology == "dragonfly") {
    if (v == "val" || v == "valiant") return "valiant";
    if (v == "ugal-l" || v == "ugal-g") return std::string(v);
    fail(where, "unknown dragonfly routing " + quoted(v) + "; give minimal (min), valiant (val), ugal-l or ugal-g");
  }
  if (v == "static" || v == "dmodk") return "minimal";
  if (v == "adaptive") return "adaptive";
  fail(where, "unknown fat tree routing " + quoted(v) + "; give minimal (static d-mod-k up ports) or adaptive");
}

SimTime check_latency(SimTime t, const std::string& where) {
  if (t <= SimTime::zero())
    fail(where, "link latency is " + format_time(t) +
                    "; the simulator needs a positive link latency (it is the lookahead), e.g. 25us");
  if (t.ps() > std::numeric_limits<int64_t>::max() / 4)
    fail(where, "link latency " + format_time(t) + " is too large; give at most a few days");
  return t;
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

}  // namespace

std::vector<std::string> topology_names() { return {std::begin(kTopologies), std::end(kTopologies)}; }

unsigned topo_bit(std::string_view t) {
  for (size_t i = 0; i < std::size(kTopologies); ++i)
    if (t == kTopologies[i]) return 1u << i;
  return 0;
}

std::string canonical_topology(std::string_view t) {
  if (t == "twisted-torus" || t == "twisted_torus") return "twistedtorus";
  if (t == "fat-tree" || t == "fat_tree") return "fattree";
  return std::string(t);
}

bool is_preset(std::string_view name) {
  for (const auto& p : network_preset_names())
    if (name == p) return true;
  return false;
}

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
    lv.routing = parse_routing(lv.topology, v, where);
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
    (void)build_level(lv, /*routing_tables=*/false);  // the parameters' checks, not the tables
  } catch (const std::invalid_argument& e) {
    fail(where, e.what());
  } catch (const ConfigError& e) {
    fail(where, e.what());
  }
}

}  // namespace xsim::cfg

namespace xsim {
using namespace cfg;
namespace {

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

std::string inline_time(SimTime t) { return compact(format_time(t)); }
std::string inline_bw(uint64_t b) { return compact(format_bandwidth(b)); }

}  // namespace

std::vector<std::string> network_preset_names() {
  return {"none", "ethernet", "multicore-ethernet", "mesh2d", "mesh3d-dualcore", "torus3d-dualcore",
          "twistedtorus3d-dualcore", "aries", "bgq", "frontera", "pupmaya"};
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
    // Cray MPICH on Aries (and Gemini) switches from eager to rendezvous above MPICH_GNI_MAX_EAGER_MSG_SIZE,
    // 8,192 bytes by default (docs/network-model.md cites the sources).
    ns.eager = 8192;
  } else if (name == "bgq") {
    // IBM Blue Gene/Q as in Sequoia: 98,304 nodes on a 5-D torus 16x12x16x16x2 with 2 GB/s links, one rank
    // per node (paper 000 §IV-B2). Per hop 18.2 ns and os = or = 347.9 ns are fitted to the published 8-byte
    // end-to-end latencies, 718 ns to a nearest neighbour (1 hop) and 1,264 ns to the farthest node (31
    // hops): 695.8 ns + 4 ns (8 B at 2 GB/s) + h x 18.2 ns (docs/network-model.md).
    NetworkLevel torus = level("torus", SimTime::from_ps(18'200), 16'000'000'000);
    torus.size = {16, 12, 16, 16, 2};
    ns.levels = {torus};
    ns.send_overhead = ns.recv_overhead = SimTime::from_ps(347'900);
  } else if (name == "frontera" || name == "pupmaya") {
    // The two TOP500 machines of the HPL case study (docs/real-programs.md, "HPL at TOP500 scale", lists every
    // source). Frontera (TACC): 8,008 nodes of 2 x 28 cores (Xeon Platinum 8280) on Mellanox HDR InfiniBand,
    // 100 Gbps to each node (HDR100), 90 ns per switch hop, a two-level fat tree of 182 leaf and 6 core
    // switches routed D-mod-K, taken non-blocking as in the case study. xsim's m-port n-tree with m = 128,
    // n = 2 is the smallest two-level one with enough ports (8,192 endpoints, 64 per leaf switch; Frontera's
    // leaves hold 44 nodes). PupMaya: 4,248 nodes of 2 x 20 cores (Xeon Gold 6148) on EDR InfiniBand (100
    // Gbps); its topology is not published: the same two-level non-blocking fat tree, m = 96 (4,608
    // endpoints), and the same 90 ns per hop (a Mellanox switch). Inside a node (no published figure):
    // 0.15 us per link (0.3 us between two cores, a shared-memory MPI message) and 80 Gbps (10 GB/s), an
    // assumption whose weight docs/real-programs.md measures.
    const bool frontera = name == "frontera";
    NetworkLevel tree = level("fattree", SimTime::from_ps(90'000), 100'000'000'000);
    tree.m = frontera ? 128 : 96;
    tree.n = 2;
    NetworkLevel node = level("star", SimTime::from_ps(150'000), 80'000'000'000);
    node.size = {frontera ? 56 : 40};
    ns.levels = {tree, node};
  } else {
    std::vector<std::string> known = network_preset_names();
    throw ConfigError("unknown network preset " + quoted(name) + "; known presets: " + join(known) +
                      suggestion(name, known));
  }
  return ns;
}

namespace {

// parse_network_inline's state: the spec being built and which endpoint terms (os, or, gap) it set; each
// may be given anywhere in the spec, once.
struct InlineParser {
  std::string where, example;
  NetworkSpec ns;
  bool os_set = false, or_set = false, gap_set = false;

  static bool is_overhead(std::string_view k) {
    return k == "os" || k == "or" || k == "send_overhead" || k == "recv_overhead" || k == "gap";
  }
  void overhead(std::string_view key, std::string_view val, const std::string& w) {
    const bool send = key == "os" || key == "send_overhead", gap = key == "gap";
    bool& set = gap ? gap_set : send ? os_set : or_set;
    if (set) fail(w, std::string(gap ? "the gap" : send ? "the send overhead" : "the receive overhead") + " is given twice");
    set = true;
    (gap ? ns.gap : send ? ns.send_overhead : ns.recv_overhead) = to_time(val, w);
  }

  // A preset of several levels, alone in the spec: only cores=N and the endpoint terms may follow it.
  NetworkSpec whole_preset(const NetworkSpec& p, std::string_view head, const std::vector<std::string_view>& fields,
                           const std::string& w) {
    const std::string expanded = format_network_inline(p);
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
                    " levels and takes only cores=N (cores per node), os=, or= and gap=; to change anything else "
                    "write the levels out: " + expanded);
      }
    }
    if (os_set) out.send_overhead = ns.send_overhead;
    if (or_set) out.recv_overhead = ns.recv_overhead;
    if (gap_set) out.gap = ns.gap;
    return out;
  }

  // The fields after a level's topology or one-level preset: a bare size, `uni`, key=value, endpoint terms.
  void level_fields(NetworkLevel& lv, const std::vector<std::string_view>& fields, const std::string& w) {
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
        known.insert(known.end(), {"os", "or", "gap"});
        std::string why = is_level_key_anywhere(key, true) ? "key " + quoted(key) + " does not apply to a " + t + " level"
                                                           : "unknown key " + quoted(key) + " for a " + t + " level";
        fail(w, why + keys_of + suggestion(key, known));
      }
      mark(set_level_key(lv, *k, val, w), key);
    }
  }
};

}  // namespace

NetworkSpec parse_network_inline(const std::string& spec) {
  InlineParser in;
  in.where = "bad network spec " + quoted(spec);
  in.example = " (e.g. star:64:lat=25us:bw=1Gbps, torus:8x8x8/star:2, ethernet:lat=10us; see -xsim-help)";
  const std::vector<std::string> levels = split_levels(spec);
  if (levels.size() > static_cast<size_t>(net::Route::kMaxLevels))
    fail(in.where, "a network has at most " + std::to_string(net::Route::kMaxLevels) + " levels (got " +
                       std::to_string(levels.size()) + ")");
  NetworkSpec& ns = in.ns;
  ns.preset = "custom";
  ns.levels.clear();
  for (size_t li = 0; li < levels.size(); ++li) {
    const std::string w =
        levels.size() > 1 ? in.where + ", level " + std::to_string(li) + " " + quoted(levels[li]) : in.where;
    const std::vector<std::string_view> fields = split_fields(levels[li]);
    std::string_view head = fields[0];
    if (head.empty()) {
      if (levels.size() > 1 && fields.size() == 1) fail(w, "empty level between '/'" + in.example);
      fail(w, "it must start with a preset or topology name" + in.example);
    }
    NetworkLevel lv;
    const std::string topo = canonical_topology(head);
    if (is_preset(head)) {
      NetworkSpec p = network_preset(std::string(head));
      if (p.levels.size() > 1) {
        if (levels.size() > 1)
          fail(w, "preset " + quoted(head) + " has " + std::to_string(p.levels.size()) +
                      " levels; it cannot be one level of a larger network (it is " + format_network_inline(p) + ")");
        return in.whole_preset(p, head, fields, w);
      }
      lv = p.levels[0];
      if (levels.size() == 1) ns.preset = std::string(head);
    } else if (topo_bit(topo)) {
      lv.topology = topo;
    } else {
      std::vector<std::string> known = network_preset_names();
      const std::vector<std::string> topologies = topology_names();
      known.insert(known.end(), topologies.begin(), topologies.end());
      fail(w, "unknown network " + quoted(head) + "; known presets: " + join(network_preset_names()) +
                  "; known topologies: " + join(topologies) + suggestion(head, known) + in.example);
    }
    in.level_fields(lv, fields, w);
    validate_level(lv, w);
    if (!lv.size.empty()) lv.dims = 0;  // a sized grid's dimensions are its size's: one spelling, one spec
    ns.levels.push_back(std::move(lv));
  }
  if (is_preset(ns.preset)) {  // a one-level preset keeps its endpoint terms unless the spec sets them
    const NetworkSpec p = network_preset(ns.preset);
    if (!in.os_set) ns.send_overhead = p.send_overhead;
    if (!in.or_set) ns.recv_overhead = p.recv_overhead;
    if (!in.gap_set) ns.gap = p.gap;
    ns.eager = p.eager;
  }
  return ns;
}


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
    if (lv.routing != "minimal") s += ":routing=" + lv.routing;
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
  if (with_links && spec.gap != SimTime::zero()) s += ":gap=" + inline_time(spec.gap);
  return s;
}


std::string network_spec_help() {
  return "Network spec (-xsim-mn): levels from the system network inward, separated by '/', each\n"
         "  TOPOLOGY[:SIZE][:key=value]...   or a preset name with optional :key=value overrides.\n"
         "  star:N | ring:N[:uni] | mesh:AxB... | torus:AxB...[:wrap=1,0,..] |\n"
         "  twistedtorus:AxB...[:wrap=..][:degree=G][:jump=J0,J1,..] | tree:K[:depth=D|:n=N] |\n"
         "  dragonfly:p=P:a=A:h=H[:g=G][:cols=C][:routing=min|valiant|ugal-l|ugal-g][:tlat=..:tbw=..:llat=..:lbw=..:glat=..:gbw=..] |\n"
         "  fattree:m=M:n=N[:routing=minimal|adaptive]\n"
         "  every level: lat=TIME bw=BANDWIDTH (default 1 us and 10 Gbps per link); anywhere: os=TIME or=TIME\n"
         "  (per-message send/receive overhead, default 0) and gap=TIME (loggp: the shortest interval between\n"
         "  two messages leaving a node, default 0). A level without a size gets ceil(np / the other\n"
         "  levels' cores) endpoints (mesh/torus: the most square factorisation, dims=D dimensions).\n"
         "  Examples: star:64:lat=25us:bw=1Gbps  torus:4x4x4:wrap=1,0,1  tree:2:depth=6\n"
         "            torus:8x8x8:lat=7us:bw=8.8Gbps/star:2:lat=0.32us:bw=9.6Gbps\n"
         "Presets: none (star 1 ps, 1000000 Tbps), ethernet (star 25 us, 1 Gbps; the default),\n"
         "  multicore-ethernet[:cores=8] (star 25 us 1 Gbps / star of 8 cores 0.32 us 12 Gbps), mesh2d (2-D mesh\n"
         "  7 us 8.8 Gbps), mesh3d-dualcore, torus3d-dualcore, twistedtorus3d-dualcore (3-D network 7 us 8.8 Gbps\n"
         "  / star of 2 cores 0.32 us 9.6 Gbps), aries[:g=G][:routing=valiant] (Cray Aries dragonfly),\n"
         "  bgq (Blue Gene/Q, Sequoia: 5-D torus 16x12x16x16x2, 18.2 ns per hop, 2 GB/s, os = or = 347.9 ns),\n"
         "  frontera (fat tree m=128 n=2, 90 ns, 100 Gbps / star of 56 cores 0.15 us 80 Gbps), pupmaya (fat tree\n"
         "  m=96 n=2, 90 ns, 100 Gbps / star of 40 cores 0.15 us 80 Gbps).\n"
         "Supported topologies: " + join(topology_names()) + ".\n";
}

}  // namespace xsim

// The TOML form of a network: the table [network] (preset, placement, overheads, the level keys of a
// one-level network) and its [[network.level]] tables, read (-xsim-config) and written (-xsim-print-config).
// The level keys are those of the inline form (network_keys.hpp). See docs/network-config.md.
#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "config_toml.hpp"
#include "network_keys.hpp"
#include "xsim/netmodel/network.hpp"
#include "xsim/units.hpp"

namespace xsim::cfg {
namespace {

// The keys of [network] that are not level keys.
constexpr const char* kNetworkKeys[] = {"preset", "placement", "placement_file", "send_overhead", "recv_overhead", "gap",
                                        "level", "band"};

class NetworkReader : public TomlReader {
 public:
  explicit NetworkReader(const TomlReader& r) : TomlReader(r) {}

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
      fail(w, "unknown topology " + quoted(topo) + "; known topologies: " + join(topology_names()) +
                  suggestion(topo, topology_names()));
    return topo;
  }

  // A factor of a [[network.band]]: a number (integer or float).
  double factor(const toml::node& n, std::string_view key) const {
    if (n.is_floating_point()) return n.as_floating_point()->get();
    if (n.is_integer()) return static_cast<double>(n.as_integer()->get());
    wrong_type(n, "network.band", key, "a number such as 1.25");
  }

  // [[network.band]] tables: from (a size), latency_factor, bandwidth_factor (net::SizeBand).
  std::vector<net::SizeBand> bands(const toml::node& node) const {
    if (!node.is_array_of_tables())
      fail(where(at(node), "network", "band"),
           "expected an array of tables ([[network.band]] sections), got " + std::string(type_name(node)));
    std::vector<net::SizeBand> out;
    for (const toml::node& e : *node.as_array()) {
      const toml::table& bt = *e.as_table();
      net::SizeBand b;
      bool has_from = false;
      for (auto&& [key, n] : bt) {
        std::string_view k = key.str();
        std::string w = where(at(n), "network.band", k);
        if (k == "from") {
          has_from = true;
          if (n.is_integer()) {
            if (n.as_integer()->get() < 0) fail(w, "a size must not be negative");
            b.from = static_cast<uint64_t>(n.as_integer()->get());
          } else {
            try {
              b.from = parse_size(str(n, "network.band", k, "a size such as \"64K\" or a byte count"));
            } catch (const std::invalid_argument& err) {
              fail(w, err.what());
            }
          }
        } else if (k == "latency_factor") {
          b.latency = factor(n, k);
          if (!(b.latency >= 1.0) || b.latency > 1e6)
            fail(w, "must be between 1 and 1e6 (the network's smallest latency is the simulator's lookahead; "
                    "lower the level's latency instead of a factor below 1)");
        } else if (k == "bandwidth_factor") {
          b.bandwidth = factor(n, k);
          if (!(b.bandwidth > 0.0) || b.bandwidth > 1e6) fail(w, "must be above 0 and at most 1e6");
        } else {
          unknown_key(key, "network.band", {"from", "latency_factor", "bandwidth_factor"});
        }
      }
      if (!has_from) fail(at(bt), "[[network.band]] needs from = SIZE (the smallest message size it applies to)");
      if (!out.empty() && b.from <= out.back().from)
        fail(at(bt), "[[network.band]] from = " + std::to_string(b.from) + " bytes: bands must start at increasing "
                     "sizes (the one before starts at " + std::to_string(out.back().from) + ")");
      out.push_back(b);
    }
    return out;
  }

  void network(const toml::table& t, NetworkSpec& out) const {
    NetworkSpec ns = out;
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
      } else if (k == "gap") {
        ns.gap = time(n, "network", k);
      } else if (k == "band") {
        ns.bands = bands(n);
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
    out = ns;
  }
};

}  // namespace

void read_network_table(const TomlReader& r, const toml::table& t, NetworkSpec& ns) { NetworkReader(r).network(t, ns); }

bool is_network_home_key(std::string_view key) {
  for (const char* k : {"preset", "topology", "endpoints", "latency", "bandwidth", "send_overhead", "recv_overhead", "gap",
                        "placement", "placement_file", "size", "level", "band"})
    if (key == k) return true;
  return false;
}

std::string network_to_toml(const NetworkSpec& n) {
  auto str = [](const std::string& v) { return toml_string(v); };
  std::string s = "\n[network]\n";
  s += "# inline form: " + format_network_inline(n) + "\n";
  if (n.preset != "custom" && !n.preset.empty()) s += "preset = " + str(n.preset) + "\n";
  s += "placement = " + str(n.placement) + "\n";
  if (n.placement == "file") s += "placement_file = " + str(n.placement_file) + "\n";
  s += "send_overhead = " + str(format_time(n.send_overhead)) + "\n";
  s += "recv_overhead = " + str(format_time(n.recv_overhead)) + "\n";
  s += "gap = " + str(format_time(n.gap)) + "\n";
  auto ints = [](const auto& v) { return "[" + join_ints(v, ", ") + "]"; };
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
    if (bit & kFatTree) {
      s += "m = " + std::to_string(lv.m) + "\nn = " + std::to_string(lv.n) + "\n";
      if (lv.routing != "minimal") s += "routing = " + str(lv.routing) + "\n";
    }
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
  for (const net::SizeBand& b : n.bands) {
    char line[160];
    std::snprintf(line, sizeof line, "\n[[network.band]]\nfrom = %llu\nlatency_factor = %.17g\nbandwidth_factor = %.17g\n",
                  static_cast<unsigned long long>(b.from), b.latency, b.bandwidth);
    s += line;
  }
  return s;
}

}  // namespace xsim::cfg

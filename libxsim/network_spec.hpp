// NetworkSpec: the simulated network as plain data (docs/architecture.md §4-5, docs/network-config.md), its named
// presets and its inline form (-xsim-mn, xsim-net --mn). Layer: libxsim config.
// options.hpp includes it (Options::network); network_config.hpp turns a spec into a network model.
// The TOML form ([network], [[network.level]]) is read and written by network_toml.cpp.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "config_error.hpp"  // ConfigError, for every user of the config layer (options.hpp too)
#include "xsim/netmodel/network.hpp"
#include "xsim/simtime.hpp"

namespace xsim {

// One level of a network hierarchy (docs/architecture.md §4, docs/network-config.md). Which fields a topology reads:
//   star:         size {endpoints}, latency, bandwidth
//   ring:         size {endpoints}, uni, latency, bandwidth
//   mesh:         size {m0, m1, ...} or dims, latency, bandwidth
//   torus:        as mesh, plus wrap
//   twistedtorus: as torus, plus degree and jump
//   tree:         k, depth, endpoints, latency, bandwidth
//   dragonfly:    p, a, h, g, columns, routing, latency, bandwidth and the terminal/local/global overrides
//   fattree:      m, n, routing, latency, bandwidth
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
  // dragonfly: "minimal", "valiant", "ugal-l" or "ugal-g"; fattree: "minimal" or "adaptive". Default: "minimal".
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
  // loggp: the gap, the shortest interval between two messages leaving one simulated node's NIC (inline
  // gap=, TOML gap). Default: 0.
  SimTime gap = SimTime::zero();
  // The preset's eager limit in bytes (-xsim-eager overrides it); 0: none (kDefaultEager applies).
  uint64_t eager = 0;
  // Size bands (TOML [[network.band]] only; xsim-calibrate writes them): corrections of the latency and
  // bandwidth by message size (net::SizeBand). Default: none.
  std::vector<net::SizeBand> bands;
  // Rank placement: "block" (rank r on core r), "roundrobin" (rank r on node r mod nodes, next free core
  // there) or "file" (placement_file). Default: "block".
  std::string placement = "block";
  // placement "file": one core index per line for ranks 0..np-1 ('#' comments and blank lines allowed).
  // Default: empty.
  std::string placement_file;

  bool operator==(const NetworkSpec&) const = default;
};

// Named network presets (004 Table I, plus aries; docs/network-config.md has their parameters):
// none, ethernet, multicore-ethernet, mesh2d, mesh3d-dualcore, torus3d-dualcore, twistedtorus3d-dualcore,
// aries. Throws ConfigError for an unknown name, listing the known ones.
NetworkSpec network_preset(const std::string& name);
// The preset names, in the order above.
std::vector<std::string> network_preset_names();
// Parses an inline network spec (-xsim-mn, xsim-net --mn): levels from the system network inward separated
// by '/', each TOPOLOGY[:SIZE][:key=value|:flag]*, or a preset name with optional :key=value overrides
// (grammar in docs/network-config.md). Placement is not part of it (it stays block). Throws ConfigError.
NetworkSpec parse_network_inline(const std::string& spec);
// The inline form of a spec's levels and overheads; parse_network_inline reads it back to the same levels.
std::string format_network_inline(const NetworkSpec& spec, bool with_links = true);
// The inline form of one level (e.g. "torus:4x4x4:wrap=1,0,1:lat=1us:bw=10Gbps"); without links: no lat/bw.
std::string format_network_level(const NetworkLevel& level, bool with_links = true);
// The help on the inline grammar, the presets, the topologies and the units (part of -xsim-help).
std::string network_spec_help();

}  // namespace xsim

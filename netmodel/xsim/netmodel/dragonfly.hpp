// Dragonfly network (Kim et al. 2008; 000 §V; docs/architecture.md §4): p endpoints per router, a routers per group,
// h global links per router, g groups, consecutive global arrangement, minimal or Valiant routing.
// Layer: netmodel (pure library). The full rules (numbering, links, routes, hop formulas) are in
// docs/network-topologies.md; the short version:
//
//   Endpoint e sits on router R = e / p; router R is router l = R % a of group G = R / a.
//   Local links: with local_columns == 0 every pair of routers of a group is linked (1-D, all-to-all);
//   with local_columns == c > 0 the a routers form an (a / c) x c grid (router l at row l / c, column
//   l % c) and every pair in the same row or the same column is linked (2-D, Cray Aries style).
//   Global links: group G has a*h global ports, port k on router k / h. Ports 0..g-2 lead to the other
//   groups in increasing order, skipping G (port k -> group k if k < G, else k + 1); ports g-1..a*h-1
//   are unused (their routers simply have fewer global links). So g <= a*h + 1 is required, and every
//   pair of groups is joined by exactly one global link.
//   Minimal: endpoint -> router -> [local path to the router holding the link to the destination group]
//   -> global link -> [local path to the destination router] -> endpoint; inside one group the local path.
//   Valiant (inter-group messages only, g >= 3): minimal to the router of an intermediate group I where the
//   link from the source group arrives, then minimal from there to the destination; I is chosen from
//   hash(src, dst, key) (see dragonfly_valiant_group). Intra-group messages and g <= 2 route minimally.
#pragma once
#include <cstdint>
#include <memory>

#include "xsim/netmodel/network.hpp"

namespace xsim::net {

// ugal_local, ugal_global: UGAL (Kim et al. 2008 §4.2), chosen per message under link contention between
// the minimal route and one Valiant route (intermediate group from the message's key): minimal when
// q_min * H_min <= q_val * H_val, H a route's link count and q its queue: the wait at the first link out
// of the source router (UGAL-L, the router's own output queue) or the longest wait at any of its links
// (UGAL-G, the global state, known in virtual time). route() and route_links() give the minimal route.
enum class DragonflyRouting { minimal, valiant, ugal_local, ugal_global };

struct DragonflyParams {
  int p = 1;                  // endpoints per router (>= 1)
  int a = 1;                  // routers per group (>= 1)
  int h = 1;                  // global links (ports) per router (>= 1)
  int g = 2;                  // groups (>= 1; at most a*h + 1)
  int local_columns = 0;      // 0: all-to-all local links; c > 0: (a/c) x c grid, rows and columns all-to-all
  DragonflyRouting routing = DragonflyRouting::minimal;
  SimTime terminal_latency;   // endpoint <-> router link latency (> 0)
  uint64_t terminal_bandwidth_bps = 0;  // endpoint <-> router link bandwidth (> 0)
  SimTime local_latency;      // router <-> router link inside a group (> 0)
  uint64_t local_bandwidth_bps = 0;
  SimTime global_latency;     // router <-> router link between groups (> 0)
  uint64_t global_bandwidth_bps = 0;
};

// Throws std::invalid_argument naming the offending parameter and what would fit.
std::unique_ptr<Network> make_dragonfly(const DragonflyParams& params);

// The intermediate group Valiant routing uses for a message src -> dst with `key`, for a dragonfly of
// `groups` groups where src sits in group src_group and dst in dst_group: with
// x = mix64(mix64(key) ^ (uint64(uint32(src)) << 32 | uint32(dst))) (mix64 = the SplitMix64 output
// function: add 0x9e3779b97f4a7c15, then the SplitMix64 finalizer) and
// i = x mod (groups - 2), the i-th group (from 0, increasing) among all groups except src_group and
// dst_group. Returns -1 when no intermediate is used (src_group == dst_group or groups <= 2).
int dragonfly_valiant_group(int src, int dst, uint64_t key, int src_group, int dst_group, int groups);

// Cray Aries-like parameters after 000 §V-B: 4 endpoints per router, 96 routers per group as a 6 x 16 grid
// (16 routers per chassis linked all-to-all by the backplane = one row; each router linked to its 5 peers
// in the other chassis = one column), terminal links 16 GB/s, intra-group links 5.25 GB/s, inter-group links
// 4.7 GB/s, every link 100 ns. 000 bundles 960 global links per group into 240 (2.5 per router), which an
// integer h cannot express; this preset uses h = 3 (288 ports per group, of which only g - 1 are used) and
// accepts 1 <= groups <= 241, the maximum size of 000. Throws std::invalid_argument outside that range.
DragonflyParams aries_dragonfly_params(int groups, DragonflyRouting routing);

}  // namespace xsim::net

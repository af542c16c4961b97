// Twisted torus topology (004 §III "Twisted Torus", docs/architecture.md §4). Layer: netmodel (pure library).
//
// Parameters: dims = [m_0, ..., m_{D-1}], wrap (one 0/1 per dimension, as for the torus), toroidal degree
// g (0 <= g < D) and jump vector J (one integer per dimension). Coordinates and rank numbering are those
// of the mesh/torus (dimension 0 fastest, see mesh_torus.hpp); every endpoint is its own router.
//
// Link set (all links bidirectional, same latency and bandwidth):
//   * line links, as in the mesh: x <-> x + e_d for every d and every x with x_d < m_d - 1;
//   * wrap links, for every d with wrap[d] = 1: let t = (d + g) mod D be the target dimension of d. Every
//     x with x_d = m_d - 1 is linked to the y with y_d = 0, y_t = (x_t + J[d]) mod m_t and y_i = x_i for
//     all other i. So leaving dimension d forwards over its edge (m_d - 1 -> 0) also moves J[d] steps
//     forwards (cyclically) in dimension t, and leaving it backwards (0 -> m_d - 1) moves J[d] steps
//     backwards in t. J[d] is the jump of the *wrapping* dimension d (004's example: [3,3,3], degree 1,
//     jump [1,2,3]: wrapping dimension 0 moves 1 in dimension 1, wrapping 1 moves 2 in dimension 2,
//     wrapping 2 moves 3 (= 0 mod 3) in dimension 0). J[d] may be negative or >= m_t: only J[d] mod m_t
//     matters. J[d] is unused where wrap[d] = 0. With g = 0 (t = d) or J[d] = 0 mod m_t the wrap link is
//     the plain torus wrap link, so degree 0 or a zero jump vector give exactly the torus.
//
// Routing: the exact shortest path on the link set (equal to breadth-first search) wherever one of the
// tables below applies. The graph is not vertex-transitive (already 8x8 with jumps [1,1] has 7
// different BFS distance profiles), so no single table indexed by a difference can answer. Up to 1,024
// endpoints (4,096 for shapes other than 2-D and 3-D degree 1 with every wrap twisted) the hops of every
// pair are precomputed by BFS (a byte each; above 1,024 endpoints each unordered pair once, in 4 bits when
// no distance exceeds 16); above, they are computed as min(ordered, via hubs):
//   * a hub is an endpoint where two one-link moves of different dimensions do not commute (one order is
//     impossible or ends elsewhere); hubs sit where a twisted wrap link meets the edge of its target
//     dimension: 8 to 12 in 2-D at any size; in 3-D they form full lines along one axis (18 lines in a
//     cube with jumps 1, 24 with other jumps, more with unwrapped dimensions);
//   * ordered = the shortest path that walks dimension 0 first in one direction (any number of links,
//     crossing its wrap link any number of times), then dimension 1, ... (the near candidates first, in
//     16-bit SIMD lanes in 3-D, then a branch-and-bound search over the crossing counts when they cannot
//     be shown to win);
//   * via hubs = min over hubs h of hops(src, h) + hops(h, dst).
//     2-D and 3-D shapes whose hubs do not fit the line table: hub rows, from one BFS per hub: per
//     endpoint a byte holding (hops to the nearest hub) >> s, a lower bound read first, and a row of
//     one-byte offsets to every hub (2-D: 9 bytes per endpoint with up to 8 hubs, 17 with up to 16); kept
//     while the rows fit in 128 MiB.
//     3-D shapes with at most 32 lines, sides up to 256 and distances below 255: the hub-line table
//     (twisted_torus_lines.hpp). Per endpoint x and line L, hops(x, L(z)) changes by at most 1 from z to
//     z + 1, so it is min_k (v_k + |z - p_k|) over its "cones" (the z where it is below both neighbours'
//     hops + 1; 1 to 5 in cubes with jumps 1, up to 11 with other jumps); and only the hubs of L at
//     z = src_axis and z = dst_axis are needed (a shortest path through a hub of a line can use one of
//     these instead: not proven, verified against BFS for every pair of 300 + 60 random 3-D shapes of
//     sides 2 to 14, degrees 1 and 2, random wraps and jumps, and sampled pairs up to 64x64x64). The
//     query evaluates both cone sets of every line at once, one byte lane per line (AVX2 where the CPU has
//     it, else SSE2). Bytes per endpoint: 8 + lines * (1 + 2 * cones): 206 for a cube with jumps 1.
//   Why min(ordered, via hubs) is exact: a shortest path that meets no hub has no U-turn in any dimension
//   (cancelling one swaps moves past each other at non-hubs only) and can be reordered dimension by
//   dimension move by move into an ordered path of the same length; one that meets a hub is covered by
//   the second term.
// Where no table applies (3-D shapes beyond the line table and 128 MiB of hub rows, e.g. an unwrapped
// dimension at 64x64x64; 4 to 6 dimensions above the pair table and 128 MiB of rows) the route is the
// shortest among the following family of paths (never shorter than the true distance, never longer than
// the mesh route): choose, for every wrapped dimension d, a crossing count c_d in {-1, 0, +1} (c_d = 0 on dimensions without wrap), and an order in
//   which the dimensions are traversed one after another. Dimension d is traversed in one go: it walks
//   along its line links from its current coordinate p to its goal q, crossing its wrap link c_d times
//   (cost |q - p| for c_d = 0, m_d - p + q for c_d = +1, m_d + p - q for c_d = -1). The crossing of d shifts
//   coordinate t = (d + g) mod D by c_d * J[d]; if t is traversed after d, t simply starts from the shifted
//   coordinate; if t was traversed before d, t aimed at its destination coordinate minus that shift so that
//   the shift lands it on its destination. The hop count is the minimum total over all choices; it is
//   computed exactly for this family in O(3^W * D) per route (W = wrapped dimensions; the order enters only
//   through "is the dimension twisting into d traversed before d?", subject to the orders being acyclic
//   on every cycle of d -> (d + g) mod D).
//
// Throws std::invalid_argument for everything make_torus rejects, and when: D > 6 (the search grows as
// 3^D); g < 0 or g >= D; jump does not have one entry per dimension.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "xsim/netmodel/network.hpp"
#include "xsim/simtime.hpp"

namespace xsim::net {

// How route() finds the hop count. automatic: the pair table up to 1,024 endpoints (4,096 for shapes
// without a written-out ordered search; when no distance can exceed 255), else the hub-line table (3-D),
// else the hub rows when they fit in 128 MiB, else the path family. hubs: never the pair table; hub_rows:
// never the pair or line table; family: always the path family (for tests and benchmarks).
enum class TwistedTorusRouting { automatic, hubs, hub_rows, family };

std::unique_ptr<Network> make_twisted_torus(std::vector<int> dims, std::vector<int> wrap, int degree,
                                            std::vector<int> jump, SimTime link_latency,
                                            uint64_t link_bandwidth_bps,
                                            TwistedTorusRouting routing = TwistedTorusRouting::automatic);

}  // namespace xsim::net

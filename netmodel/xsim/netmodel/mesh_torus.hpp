// Mesh and torus topologies (004 §III, docs/architecture.md §4). Layer: netmodel (pure library).
//
// Coordinates: a network of dims = [m_0, ..., m_{D-1}] has m_0 * ... * m_{D-1} endpoints, one per grid
// point; every endpoint is its own router (entry/exit point: the endpoint itself). Endpoint (rank) r has
// coordinates x_d = (r / (m_0 * ... * m_{d-1})) mod m_d, i.e. dimension 0 varies fastest:
// r = x_0 + m_0 * (x_1 + m_1 * (x_2 + ...)).
//
// Links (all with the same latency and bandwidth, usable in both directions):
//   mesh:  x <-> x + e_d for every dimension d and every x with x_d < m_d - 1;
//   torus: the mesh links plus, for every dimension d with wrap[d] = 1, x <-> x with x_d replaced by 0
//          for every x with x_d = m_d - 1 (the wrap-around link).
// Routing: dimension order (0 first); on a dimension without wrap the route walks straight; on a dimension
// with wrap it takes the shorter way around the ring (ties: either, same count). Hops:
//   mesh:  h = sum_d |x_d - y_d|
//   torus: h = sum_d (wrap[d] ? min(|x_d - y_d|, m_d - |x_d - y_d|) : |x_d - y_d|)
// which is the shortest path length on the link set. min_latency() is one link latency (plus overheads).
//
// Throws std::invalid_argument when: dims is empty; a size is < 1; the product of the sizes exceeds
// INT_MAX; wrap does not have one entry per dimension or an entry is not 0 or 1; the link latency is not
// positive and finite; the bandwidth is 0; or the longest route's latency overflows virtual time.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "xsim/netmodel/network.hpp"
#include "xsim/simtime.hpp"

namespace xsim::net {

std::unique_ptr<Network> make_mesh(std::vector<int> dims, SimTime link_latency, uint64_t link_bandwidth_bps);
std::unique_ptr<Network> make_torus(std::vector<int> dims, std::vector<int> wrap, SimTime link_latency,
                                    uint64_t link_bandwidth_bps);

namespace detail {
// Shared validation of grid-shaped networks (mesh, torus, twisted torus). `what` names the network in
// messages. Returns the endpoint count; throws std::invalid_argument as documented above.
int checked_grid_size(const std::string& what, const std::vector<int>& dims);
void check_wrap(const std::string& what, const std::vector<int>& dims, const std::vector<int>& wrap);
// Checks latency > 0 and finite, bandwidth > 0, and max_hops * latency < SimTime::infinity().
void check_links(const std::string& what, SimTime link_latency, uint64_t link_bandwidth_bps, int64_t max_hops);
std::string join(const std::vector<int>& v, const char* sep);  // "8x8x8" with sep "x"
}  // namespace detail

}  // namespace xsim::net

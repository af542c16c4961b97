// Twisted torus topology (004 §III, docs/architecture.md §4): the factory. The link set and the routing rule (the exact
// shortest path: min(ordered path, path through a hub), the hubs from a pair table, a hub-line table (3-D,
// twisted_torus_lines.hpp) or hub rows; a documented path family where none applies) are specified in
// xsim/netmodel/twisted_torus.hpp and docs/network-topologies.md; the class is in twisted_torus_impl.hpp,
// its construction-time tables in twisted_torus_tables.cpp. Entry/exit point: the endpoint itself.
#include "xsim/netmodel/twisted_torus.hpp"

#include "twisted_torus_impl.hpp"

namespace xsim::net {

using twisted_torus_detail::TwistedTorus;

std::unique_ptr<Network> make_twisted_torus(std::vector<int> dims, std::vector<int> wrap, int degree,
                                            std::vector<int> jump, SimTime link_latency,
                                            uint64_t link_bandwidth_bps, TwistedTorusRouting routing) {
  return std::make_unique<TwistedTorus>(std::move(dims), std::move(wrap), degree, std::move(jump), link_latency,
                                        link_bandwidth_bps, routing);
}

}  // namespace xsim::net

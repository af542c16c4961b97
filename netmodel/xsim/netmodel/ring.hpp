// Ring topology (004 §III, docs/architecture.md §4). Layer: netmodel (pure library).
#pragma once
#include <cstdint>
#include <memory>

#include "xsim/netmodel/network.hpp"
#include "xsim/simtime.hpp"

namespace xsim::net {

// Ring of `n` endpoints; every endpoint is its own router (entry/exit point: the endpoint itself).
// Links: i -> (i + 1) mod n for every i. Unidirectional: only that direction exists, so
// hops(src, dst) = (dst - src) mod n. Bidirectional: each link is used both ways, so
// hops = min((dst - src) mod n, (src - dst) mod n). Every link has `link_latency` and `link_bandwidth_bps`.
// min_latency() is one link latency (plus overheads).
// Throws std::invalid_argument for n < 1, latency <= 0 or infinite, bandwidth == 0, or a latency so large
// that the longest route overflows virtual time.
std::unique_ptr<Network> make_ring(int n, bool bidirectional, SimTime link_latency, uint64_t link_bandwidth_bps);

}  // namespace xsim::net

// Tree topology (004 §III "Tree", docs/architecture.md §4). Layer: netmodel (pure library).
//
// A k-ary tree of routers with the endpoints as its leaves. depth = the smallest D >= 1 with k^D >= n
// (n = endpoints). Routers sit on levels 0 (the root) .. D-1; the endpoints form level D. Endpoint e is
// leaf number e (leaves are filled left to right); its parent is router e / k on level D-1, whose parent is
// router e / k^2 on level D-2, and so on up to the root (router 0 on level 0). Routers with no endpoint
// below them do not exist (a partial tree): on level l there are ceil(n / k^(D-l)) routers. The
// endpoint -> parent router connection is a link like every router -> parent router link; all links have
// the same latency and bandwidth. Entry/exit point of the network: the root router.
//
// Routing: up from the source to the lowest common ancestor router and down to the destination. If the
// lowest common ancestor is u levels above the endpoints (u = the smallest u >= 1 with src / k^u ==
// dst / k^u), h = 2u; h = 0 for src == dst. So two endpoints under the same leaf router are 2 hops apart,
// and the longest route is 2D hops. This is the unique (shortest) path in the tree. min_latency() is two
// link latencies (plus overheads). Example: make_tree(2, 64, ...) is a binary tree of depth 6.
//
// Throws std::invalid_argument for k < 2, n < 1, latency <= 0 or infinite, bandwidth == 0, or a latency so
// large that the longest route overflows virtual time.
#pragma once
#include <cstdint>
#include <memory>

#include "xsim/netmodel/network.hpp"
#include "xsim/simtime.hpp"

namespace xsim::net {

std::unique_ptr<Network> make_tree(int k, int endpoints, SimTime link_latency, uint64_t link_bandwidth_bps);

}  // namespace xsim::net

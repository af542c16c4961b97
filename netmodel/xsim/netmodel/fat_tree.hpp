// Fat tree: the m-port n-tree of Lin, Chung and Huang (2004), as used by 000 §VI (docs/architecture.md §4).
// Layer: netmodel (pure library). Full rules in docs/network-topologies.md; the short version, with
// k = m/2:
//
//   2*k^n endpoints, (2n-1)*k^(n-1) switches of m ports. Endpoint e has the digits (p0, p1, ..., p(n-1)):
//   e = p0*k^(n-1) + p1*k^(n-2) + ... + p(n-1), with p0 in 0..m-1 and the other digits in 0..k-1.
//   Switch levels as in Lin et al.: level 0 is the top (k^(n-1) switches, all m ports down), levels 1..n-1
//   have 2*k^(n-1) switches each (k ports up, k down); a switch is <w, l> with w = (w0, ..., w(n-2)).
//   Endpoint e connects to the leaf switch <(p0, ..., p(n-2)), n-1>. Switches <w, l> and <w', l+1> are
//   linked iff w_i == w'_i for every i != l (so a top switch reaches one level-1 switch of every pod w'0).
//   Routing is up*/down*: up to the deepest switch level reachable from both endpoints, then down. If the
//   first digit where src and dst differ is t (0..n-1), that level is t and the route has 2*(n - t) links
//   (the endpoint -> leaf switch links included): 2 under one leaf switch, 2n across pods.
//   Every link has the same latency and bandwidth.
#pragma once
#include <cstdint>
#include <memory>

#include "xsim/netmodel/network.hpp"

namespace xsim::net {

// Throws std::invalid_argument unless m is even and >= 2, 1 <= n <= 32, the endpoint count fits an int, latency
// is positive and finite and bandwidth positive.
// adaptive: route_links_adaptive chooses each up port by the links' state (fat_tree.cpp); route() and
// route_links() stay the static routes.
std::unique_ptr<Network> make_fat_tree(int m, int n, SimTime link_latency, uint64_t link_bandwidth_bps,
                                       bool adaptive = false);

}  // namespace xsim::net

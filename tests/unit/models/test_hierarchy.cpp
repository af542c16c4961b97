// Hierarchical networks: closed-form routes of nested stars and a torus of stars, checked against the
// formulas of the gateway rule (netmodel/xsim/netmodel/hierarchy.hpp), and against a BFS oracle on the
// explicitly composed graph for small two-level combinations.
#include <gtest/gtest.h>

#include <random>

#include "graph_oracle.hpp"
#include "xsim/netmodel/hierarchy.hpp"
#include "xsim/netmodel/mesh_torus.hpp"
#include "xsim/netmodel/ring.hpp"

using namespace xsim;
using namespace xsim::net;

namespace {
SimTime us(double v) { return SimTime::from_seconds(v * 1e-6); }
std::vector<std::unique_ptr<Network>> levels_of(std::unique_ptr<Network> a, std::unique_ptr<Network> b) {
  std::vector<std::unique_ptr<Network>> v;
  v.push_back(std::move(a));
  v.push_back(std::move(b));
  return v;
}
}  // namespace

TEST(Hierarchy, MultiCoreEthernetStarOfStars) {
  // 004 Table I "multi-core ethernet": on processor star 12 Gbps 0.32 us; off processor star 1 Gbps 25 us.
  Hierarchy h(levels_of(make_star(8, us(25), 1'000'000'000), make_star(4, us(0.32), 12'000'000'000)));
  EXPECT_EQ(h.endpoints(), 32);
  // same chip (cores 0 and 3 of node 0): 2 on-chip links
  Route same = h.route(0, 3);
  EXPECT_EQ(same.hops, 2);
  EXPECT_EQ(same.latency, us(0.64));
  EXPECT_EQ(same.min_bandwidth_bps, 12'000'000'000u);
  EXPECT_EQ(same.level_hops[0], 0);
  EXPECT_EQ(same.level_hops[1], 2);
  // different nodes (core 1 of node 0 -> core 2 of node 5): 1 on-chip + 2 system + 1 on-chip links
  Route far = h.route(1, 5 * 4 + 2);
  EXPECT_EQ(far.hops, 4);
  EXPECT_EQ(far.latency, us(0.32) + us(25) + us(25) + us(0.32));
  EXPECT_EQ(far.min_bandwidth_bps, 1'000'000'000u);
  EXPECT_EQ(far.level_hops[0], 2);
  EXPECT_EQ(far.level_hops[1], 2);
  // L = latency + 8s/b_min: 4 bytes over the 1 Gbps link
  EXPECT_EQ(h.message_latency(1, 22, 4), far.latency + SimTime::from_ps(32'000));
  EXPECT_EQ(h.route(7, 7).hops, 0);
  EXPECT_EQ(h.min_latency(), us(0.64));
  EXPECT_EQ(h.min_latency_across(0), us(50));
  EXPECT_EQ(h.cores_per_endpoint(0), 4);
}

TEST(Hierarchy, ThreeLevelsUseOnlyTheInnermostCommonNetwork) {
  std::vector<std::unique_ptr<Network>> v;
  v.push_back(make_torus({4, 4}, {1, 1}, us(7), 8'800'000'000));
  v.push_back(make_star(2, us(1), 20'000'000'000));
  v.push_back(make_mesh({2, 2}, us(0.1), 100'000'000'000));
  Hierarchy h(std::move(v));
  ASSERT_EQ(h.endpoints(), 128);  // 16 nodes x 2 chips x 4 cores
  // cores 0 and 3 share a chip: mesh distance (0,0)->(1,1) = 2 links of 0.1 us
  EXPECT_EQ(h.route(0, 3).latency, us(0.2));
  // cores 0 and 4 share a node, not a chip: chip exits (core 0 is the mesh gateway: 0 links) + 2 star
  // links + chip entry to core 0 of the other chip (0 links)
  EXPECT_EQ(h.route(0, 4).hops, 2);
  EXPECT_EQ(h.route(0, 4).latency, us(2));
  // core 3 to core 7: mesh (1,1)->gateway 0 = 2, star 2, gateway -> (1,1) = 2
  EXPECT_EQ(h.route(3, 7).hops, 6);
  EXPECT_EQ(h.route(3, 7).latency, us(0.2) + us(2) + us(0.2));
  // node 0 to node 15 (torus neighbours through both wraps: (0,0)->(3,3) = 2 hops)
  Route r = h.route(0, 15 * 8);
  EXPECT_EQ(r.level_hops[0], 2);
  EXPECT_EQ(r.level_hops[1], 2);  // leave through the node star's switch and enter through the other's
  EXPECT_EQ(r.latency, us(14) + us(2));
  EXPECT_EQ(r.min_bandwidth_bps, 8'800'000'000u);
}

// Two-level combinations of rings and meshes with the default gateway (endpoint 0) against BFS on the
// composed graph: inner copies whose endpoint 0 is joined by the outer network's links.
TEST(Hierarchy, MatchesBfsOnComposedGraphs) {
  std::mt19937 rng(7);
  int checked = 0;
  for (int trial = 0; trial < 60; ++trial) {
    int outer_n = 1 + static_cast<int>(rng() % 6), inner_n = 1 + static_cast<int>(rng() % 5);
    bool outer_bi = rng() % 2, inner_bi = rng() % 2;
    Hierarchy h(levels_of(make_ring(outer_n, outer_bi, us(10), 1'000'000'000),
                          make_ring(inner_n, inner_bi, us(1), 1'000'000'000)));
    xsim::test::Graph g(outer_n * inner_n);
    for (int o = 0; o < outer_n; ++o)
      for (int i = 0; i < inner_n; ++i) {
        int a = o * inner_n + i, b = o * inner_n + (i + 1) % inner_n;
        if (a != b) {
          g.add_arc(a, b);
          if (inner_bi) g.add_arc(b, a);
        }
      }
    for (int o = 0; o < outer_n; ++o) {
      int a = o * inner_n, b = ((o + 1) % outer_n) * inner_n;
      if (a != b) {
        g.add_arc(a, b);
        if (outer_bi) g.add_arc(b, a);
      }
    }
    for (int s = 0; s < h.endpoints(); ++s) {
      std::vector<int> d = g.bfs(s);
      for (int t = 0; t < h.endpoints(); ++t) {
        // the hierarchy routes through the gateways, which is the BFS distance on this composed graph
        // whenever the two cores are on different outer endpoints or the inner network is symmetric
        bool same_outer = s / inner_n == t / inner_n;
        int expect = same_outer ? d[static_cast<size_t>(t)]
                                : h.level(1).to_gateway(s % inner_n).hops + h.level(0).route(s / inner_n, t / inner_n).hops +
                                      h.level(1).from_gateway(t % inner_n).hops;
        ASSERT_EQ(h.route(s, t).hops, expect) << "trial " << trial << " " << s << "->" << t;
        if (!same_outer) ASSERT_EQ(h.route(s, t).hops, d[static_cast<size_t>(t)]) << "bfs " << s << "->" << t;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 1000);
}

TEST(Hierarchy, RejectsBadLevelLists) {
  std::vector<std::unique_ptr<Network>> none;
  EXPECT_THROW(Hierarchy{std::move(none)}, std::invalid_argument);
  std::vector<std::unique_ptr<Network>> huge;
  huge.push_back(make_star(1 << 16, us(1), 1));
  huge.push_back(make_star(1 << 16, us(1), 1));
  EXPECT_THROW(Hierarchy{std::move(huge)}, std::invalid_argument);
}

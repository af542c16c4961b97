// Unit tests for the single-level topologies ring, mesh, torus, twisted torus and tree (netmodel).
// Every model is checked against a breadth-first search on an explicit graph built here from the link
// definitions in the headers (not from the models), for every endpoint pair, over many configurations
// drawn with a fixed seed; plus closed forms, latency arithmetic and constructor errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <random>
#include <stdexcept>
#include <set>
#include <string>
#include <vector>

#include "graph_oracle.hpp"
#include "xsim/netmodel/mesh_torus.hpp"
#include "xsim/netmodel/network.hpp"
#include "xsim/netmodel/ring.hpp"
#include "xsim/netmodel/tree.hpp"
#include "xsim/netmodel/twisted_torus.hpp"

namespace xsim::net {
namespace {

using test::Graph;

const SimTime kLat = SimTime::from_ns(1000);  // 1 us
constexpr uint64_t kBw = 1'000'000'000;       // 1 Gbps

// Hop counts of `net` for every ordered pair, compared with BFS on `g` (whose nodes 0..endpoints-1 are
// the endpoints). Returns the number of pairs that differ; `strict` makes every difference a failure.
struct Agreement {
  int64_t pairs = 0, equal = 0, shorter = 0;  // shorter: model below BFS (never allowed)
};
Agreement compare_all_pairs(const Network& net, const Graph& g, bool strict, const std::string& what) {
  Agreement a;
  const int n = net.endpoints();
  for (int s = 0; s < n; ++s) {
    std::vector<int> dist = g.bfs(s);
    for (int t = 0; t < n; ++t) {
      const int h = net.route(s, t).hops;
      ++a.pairs;
      if (h == dist[static_cast<size_t>(t)]) {
        ++a.equal;
      } else {
        if (h < dist[static_cast<size_t>(t)]) ++a.shorter;
        if (strict || h < dist[static_cast<size_t>(t)]) {
          ADD_FAILURE() << what << ": route(" << s << ", " << t << ") has " << h << " hops, BFS says "
                        << dist[static_cast<size_t>(t)];
          return a;
        }
      }
    }
  }
  return a;
}

std::string vec(const std::vector<int>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

// ---------------------------------------------------------------------------------------------------------
// Explicit graphs, straight from the link definitions.

Graph ring_graph(int n, bool bidirectional) {
  Graph g(n);
  for (int i = 0; i < n; ++i) {
    if (bidirectional) g.add_link(i, (i + 1) % n);
    else g.add_arc(i, (i + 1) % n);
  }
  return g;
}

// Coordinates, dimension 0 fastest.
std::vector<int> coords(int r, const std::vector<int>& dims) {
  std::vector<int> x(dims.size());
  for (size_t d = 0; d < dims.size(); ++d) {
    x[d] = r % dims[d];
    r /= dims[d];
  }
  return x;
}
int rank_of(const std::vector<int>& x, const std::vector<int>& dims) {
  int r = 0;
  for (size_t d = dims.size(); d-- > 0;) r = r * dims[d] + x[d];
  return r;
}
int product(const std::vector<int>& dims) {
  int n = 1;
  for (int m : dims) n *= m;
  return n;
}

// Twisted torus link set; degree 0 / zero jumps give the torus, wrap all 0 the mesh.
Graph twisted_graph(const std::vector<int>& dims, const std::vector<int>& wrap, int degree,
                    const std::vector<int>& jump) {
  const int n = product(dims), nd = static_cast<int>(dims.size());
  Graph g(n);
  for (int r = 0; r < n; ++r) {
    const std::vector<int> x = coords(r, dims);
    for (int d = 0; d < nd; ++d) {
      if (x[d] < dims[d] - 1) {
        std::vector<int> y = x;
        ++y[d];
        g.add_link(r, rank_of(y, dims));
      } else if (wrap[d]) {  // x_d == m_d - 1: wrap link to x_d = 0, shifted by jump[d] in dimension t
        std::vector<int> y = x;
        y[d] = 0;
        const int t = (d + degree) % nd;
        if (t != d) y[t] = (((y[t] + jump[d]) % dims[t]) + dims[t]) % dims[t];
        g.add_link(r, rank_of(y, dims));
      }
    }
  }
  return g;
}

// Partial k-ary tree: endpoints 0..n-1, then routers level by level.
Graph tree_graph(int k, int n) {
  int depth = 1;
  int64_t leaves = k;
  while (leaves < n) {
    leaves *= k;
    ++depth;
  }
  // Routers per level l (0 = root): ceil(n / k^(depth - l)).
  std::vector<int> count(static_cast<size_t>(depth)), first(static_cast<size_t>(depth));
  int next = n;
  for (int l = depth - 1; l >= 0; --l) {
    int64_t span = 1;
    for (int i = 0; i < depth - l; ++i) span *= k;
    count[static_cast<size_t>(l)] = static_cast<int>((n + span - 1) / span);
    first[static_cast<size_t>(l)] = next;
    next += count[static_cast<size_t>(l)];
  }
  EXPECT_EQ(count[0], 1);
  Graph g(next);
  for (int e = 0; e < n; ++e) g.add_link(e, first[static_cast<size_t>(depth - 1)] + e / k);
  for (int l = depth - 1; l >= 1; --l)
    for (int j = 0; j < count[static_cast<size_t>(l)]; ++j)
      g.add_link(first[static_cast<size_t>(l)] + j, first[static_cast<size_t>(l - 1)] + j / k);
  return g;
}

// ---------------------------------------------------------------------------------------------------------
// Ring

TEST(TopologyRing, HopsMatchBfsForEverySize) {
  for (bool bi : {false, true}) {
    for (int n = 1; n <= 40; ++n) {
      auto net = make_ring(n, bi, kLat, kBw);
      ASSERT_EQ(net->endpoints(), n);
      compare_all_pairs(*net, ring_graph(n, bi), true, (bi ? "bidirectional ring " : "ring ") + std::to_string(n));
    }
  }
}

TEST(TopologyRing, TableOfRoutes) {
  struct Case { int n; bool bi; int src, dst, hops; };
  const Case cases[] = {{8, false, 0, 7, 7}, {8, false, 7, 0, 1}, {8, true, 0, 7, 1}, {8, true, 0, 4, 4},
                        {8, true, 6, 1, 3}, {5, true, 1, 4, 2},  {1, true, 0, 0, 0},  {2, false, 1, 0, 1}};
  for (const Case& c : cases)
    EXPECT_EQ(make_ring(c.n, c.bi, kLat, kBw)->route(c.src, c.dst).hops, c.hops)
        << c.n << (c.bi ? " bi " : " uni ") << c.src << "->" << c.dst;
}

TEST(TopologyRing, MeanHopsClosedForm) {
  for (int n : {7, 8, 33}) {
    auto uni = make_ring(n, false, kLat, kBw), bi = make_ring(n, true, kLat, kBw);
    int64_t su = 0, sb = 0;
    for (int s = 0; s < n; ++s)
      for (int t = 0; t < n; ++t) {
        su += uni->route(s, t).hops;
        sb += bi->route(s, t).hops;
      }
    EXPECT_EQ(su, int64_t{n} * n * (n - 1) / 2);                               // mean (n-1)/2
    EXPECT_EQ(sb, int64_t{n} * (n % 2 ? (n * n - 1) / 4 : n * n / 4));         // floor(n^2/4) per source
  }
}

// ---------------------------------------------------------------------------------------------------------
// Mesh and torus

TEST(TopologyMeshTorus, HopsMatchBfsOnRandomShapes) {
  std::mt19937 rng(42);
  int configs = 0;
  for (int iter = 0; iter < 400; ++iter) {
    const int nd = 1 + static_cast<int>(rng() % 4);
    std::vector<int> dims(static_cast<size_t>(nd)), wrap(static_cast<size_t>(nd));
    for (int d = 0; d < nd; ++d) {
      dims[static_cast<size_t>(d)] = 1 + static_cast<int>(rng() % 6);
      wrap[static_cast<size_t>(d)] = static_cast<int>(rng() % 2);
    }
    if (product(dims) > 400) continue;
    ++configs;
    const std::vector<int> none(dims.size(), 0);
    auto mesh = make_mesh(dims, kLat, kBw);
    compare_all_pairs(*mesh, twisted_graph(dims, none, 0, none), true, "mesh " + vec(dims));
    auto torus = make_torus(dims, wrap, kLat, kBw);
    compare_all_pairs(*torus, twisted_graph(dims, wrap, 0, none), true, "torus " + vec(dims) + " wrap " + vec(wrap));
  }
  EXPECT_GT(configs, 250);
  std::printf("[ info     ] mesh/torus: %d random shapes, every pair equal to BFS\n", configs);
}

TEST(TopologyMeshTorus, TableOfRoutes) {
  // 004's [3,3,3] with [1,0,1] toroidal connectedness: rank = x + 3y + 9z.
  auto torus = make_torus({3, 3, 3}, {1, 0, 1}, kLat, kBw);
  auto mesh = make_mesh({3, 3, 3}, kLat, kBw);
  EXPECT_EQ(torus->route(0, 26).hops, 1 + 2 + 1);  // (0,0,0) -> (2,2,2)
  EXPECT_EQ(mesh->route(0, 26).hops, 6);
  EXPECT_EQ(torus->route(2, 0).hops, 1);
  EXPECT_EQ(torus->route(6, 0).hops, 2);           // y has no wrap
  EXPECT_EQ(make_mesh({8, 16}, kLat, kBw)->route(0, 127).hops, 7 + 15);
  EXPECT_EQ(make_torus({8, 16}, {1, 1}, kLat, kBw)->route(0, 127).hops, 2);
  EXPECT_EQ(make_torus({4}, {1}, kLat, kBw)->route(0, 2).hops, 2);
}

TEST(TopologyMeshTorus, MeanHopsOf8x8ClosedForm) {
  auto mesh = make_mesh({8, 8}, kLat, kBw);
  auto torus = make_torus({8, 8}, {1, 1}, kLat, kBw);
  int64_t sm = 0, st = 0;
  for (int s = 0; s < 64; ++s)
    for (int t = 0; t < 64; ++t) {
      sm += mesh->route(s, t).hops;
      st += torus->route(s, t).hops;
    }
  // A line of n: mean distance over ordered pairs (self included) (n^2 - 1) / (3n); a ring of even n: n/4.
  EXPECT_DOUBLE_EQ(static_cast<double>(sm) / (64 * 64), 2.0 * (8 * 8 - 1) / (3.0 * 8));  // 5.25
  EXPECT_DOUBLE_EQ(static_cast<double>(st) / (64 * 64), 2.0 * 8 / 4);                    // 4
}

TEST(TopologyMeshTorus, LatencyIsHopsTimesLinkLatencyPlusTransfer) {
  auto net = make_torus({4, 4}, {1, 0}, SimTime::from_ns(7000), 8'800'000'000);
  for (int s = 0; s < 16; ++s)
    for (int t = 0; t < 16; ++t) {
      const Route r = net->route(s, t);
      EXPECT_EQ(r.latency.ps(), r.hops * int64_t{7'000'000});
      EXPECT_EQ(r.min_bandwidth_bps, 8'800'000'000u);
      const SimTime l = net->message_latency(s, t, 1100);  // 8800 bits at 8.8 Gbps = 1 us
      EXPECT_EQ(l.ps(), s == t ? 0 : r.hops * int64_t{7'000'000} + 1'000'000);
    }
  EXPECT_EQ(net->min_latency(), SimTime::from_ns(7000));
  net->set_overheads({SimTime::from_ns(1), SimTime::from_ns(2)});
  EXPECT_EQ(net->min_latency(), SimTime::from_ns(7003));
  EXPECT_EQ(make_mesh({8, 8}, kLat, kBw)->describe(), "mesh 8x8, 64 endpoints, link latency 1 us, link bandwidth 1 Gbps");
}

// ---------------------------------------------------------------------------------------------------------
// Twisted torus

TEST(TopologyTwistedTorus, DegreeZeroOrZeroJumpIsTheTorus) {
  std::mt19937 rng(42);
  for (int iter = 0; iter < 150; ++iter) {
    const int nd = 1 + static_cast<int>(rng() % 4);
    std::vector<int> dims(static_cast<size_t>(nd)), wrap(static_cast<size_t>(nd)), jump(static_cast<size_t>(nd));
    for (int d = 0; d < nd; ++d) {
      dims[static_cast<size_t>(d)] = 1 + static_cast<int>(rng() % 6);
      wrap[static_cast<size_t>(d)] = static_cast<int>(rng() % 2);
      jump[static_cast<size_t>(d)] = static_cast<int>(rng() % 7) - 2;
    }
    if (product(dims) > 300) continue;
    auto torus = make_torus(dims, wrap, kLat, kBw);
    auto deg0 = make_twisted_torus(dims, wrap, 0, jump, kLat, kBw);
    // Jumps that are multiples of the target size are no twist either.
    std::vector<int> zero(dims.size());
    const int degree = static_cast<int>(rng() % static_cast<unsigned>(nd));
    for (int d = 0; d < nd; ++d) zero[static_cast<size_t>(d)] = dims[static_cast<size_t>((d + degree) % nd)] * (iter % 3);
    auto nojump = make_twisted_torus(dims, wrap, degree, zero, kLat, kBw);
    const int n = product(dims);
    for (int s = 0; s < n; ++s)
      for (int t = 0; t < n; ++t) {
        ASSERT_EQ(deg0->route(s, t).hops, torus->route(s, t).hops);
        ASSERT_EQ(nojump->route(s, t).hops, torus->route(s, t).hops);
      }
  }
}

TEST(TopologyTwistedTorus, HopsMatchBfsOnRandomShapes) {
  // Every pair of ~300 random shapes of 2-4 dimensions with sizes 1-6 (sizes 1 and 2 give self-loops and
  // double links), random wraps, degrees and jumps (negative and larger than the target size included).
  std::mt19937 rng(42);
  int configs = 0;
  int64_t pairs = 0;
  Agreement family_total;
  for (int iter = 0; iter < 500; ++iter) {
    const int nd = 2 + static_cast<int>(rng() % 3);
    std::vector<int> dims(static_cast<size_t>(nd)), wrap(static_cast<size_t>(nd)), jump(static_cast<size_t>(nd));
    for (int d = 0; d < nd; ++d) {
      dims[static_cast<size_t>(d)] = 1 + static_cast<int>(rng() % 6);
      wrap[static_cast<size_t>(d)] = rng() % 4 != 0;  // mostly wrapped
      jump[static_cast<size_t>(d)] = static_cast<int>(rng() % 8) - 2;
    }
    const int degree = 1 + static_cast<int>(rng() % static_cast<unsigned>(nd - 1));
    if (product(dims) > 400) continue;
    ++configs;
    const std::string what = "twisted torus " + vec(dims) + " wrap " + vec(wrap) + " degree " +
                             std::to_string(degree) + " jump " + vec(jump);
    const Graph g = twisted_graph(dims, wrap, degree, jump);
    // The pair table (automatic at this size) and the method used above 1,024 endpoints (ordered paths
    // and hub tables), forced here.
    pairs += compare_all_pairs(*make_twisted_torus(dims, wrap, degree, jump, kLat, kBw), g, true, what).pairs;
    compare_all_pairs(*make_twisted_torus(dims, wrap, degree, jump, kLat, kBw, TwistedTorusRouting::hubs), g, true,
                      what + " (hubs)");
    // The path family (used beyond the hub table budget): never shorter than BFS, never longer than the mesh.
    auto family = make_twisted_torus(dims, wrap, degree, jump, kLat, kBw, TwistedTorusRouting::family);
    auto mesh = make_mesh(dims, kLat, kBw);
    const Agreement a = compare_all_pairs(*family, g, false, what + " (family)");
    EXPECT_EQ(a.shorter, 0) << what;
    family_total.pairs += a.pairs;
    family_total.equal += a.equal;
    for (int s = 0; s < family->endpoints(); ++s)
      for (int t = 0; t < family->endpoints(); ++t)
        ASSERT_LE(family->route(s, t).hops, mesh->route(s, t).hops) << what;
  }
  EXPECT_GT(configs, 250);
  const double rate = static_cast<double>(family_total.equal) / static_cast<double>(family_total.pairs);
  std::printf("[ info     ] twisted torus: %d random configurations, all %lld pairs equal to BFS (pair table "
              "and hubs); path family %.2f%% equal, none shorter\n",
              configs, static_cast<long long>(pairs), 100.0 * rate);
  EXPECT_GT(rate, 0.97);  // measured 98.84%
}

TEST(TopologyTwistedTorus, PairTableLayouts) {
  // The pair table: a square of bytes up to 1,024 endpoints; above, a triangle of 4-bit entries (hops - 1)
  // while no distance exceeds 16, else of bytes. Shapes of each layout, with diameters 16 and 17 (either
  // side of the 4-bit limit) and long unwrapped ones, every pair against BFS.
  struct Cfg { std::vector<int> dims, wrap; int degree; std::vector<int> jump; };
  const std::vector<Cfg> cfgs = {
      // the square
      {{17, 17}, {1, 1}, 1, {1, 1}}, {{18, 18}, {1, 1}, 1, {1, 1}}, {{64, 16}, {0, 1}, 1, {0, 3}},
      // the triangle
      {{12, 12, 12}, {1, 1, 1}, 2, {1, 1, 1}}, {{13, 12, 12}, {1, 1, 1}, 2, {1, 1, 1}},
      {{8, 8, 8, 4}, {1, 1, 1, 1}, 2, {1, 1, 1, 1}}, {{40, 6, 6}, {0, 1, 1}, 2, {0, 1, 1}}};
  std::set<int> diameters;  // of the triangle layout's shapes
  for (const Cfg& c : cfgs) {
    const std::string what = "twisted torus " + vec(c.dims) + " wrap " + vec(c.wrap) + " degree " +
                             std::to_string(c.degree) + " jump " + vec(c.jump);
    const Graph g = twisted_graph(c.dims, c.wrap, c.degree, c.jump);
    compare_all_pairs(*make_twisted_torus(c.dims, c.wrap, c.degree, c.jump, kLat, kBw), g, true, what);
    int diameter = 0;
    for (int s = 0; s < product(c.dims); ++s)
      for (int d : g.bfs(s)) diameter = std::max(diameter, d);
    if (product(c.dims) > 1024) diameters.insert(diameter);
  }
  // both triangle layouts, and the distances either side of the 4-bit limit, were covered
  EXPECT_TRUE(diameters.count(16) && diameters.count(17) && *diameters.rbegin() > 17)
      << vec(std::vector<int>(diameters.begin(), diameters.end()));
}

TEST(TopologyTwistedTorus, PaperConfigurations) {
  // Configurations named in 004 (degree 1, jump [1...1]; [3,3,3] with jump [1,2,3]; [4,4] jumps [1,2]).
  struct Cfg { std::vector<int> dims, wrap; int degree; std::vector<int> jump; };
  const Cfg cfgs[] = {{{8, 8}, {1, 1}, 1, {1, 1}},         {{3, 3, 3}, {1, 1, 1}, 1, {1, 2, 3}},
                      {{3, 3, 3}, {1, 1, 1}, 2, {1, 2, 3}}, {{4, 4}, {1, 1}, 1, {1, 2}},
                      {{4, 4}, {1, 1}, 1, {2, 1}},          {{3, 3, 2}, {1, 1, 1}, 1, {1, 1, 1}},
                      {{3, 3, 2}, {1, 1, 1}, 2, {1, 1, 1}}, {{8, 8, 4}, {1, 1, 1}, 1, {1, 1, 1}},
                      {{16, 8}, {1, 1}, 1, {1, 1}}};
  for (const Cfg& c : cfgs) {
    const std::string what = "twisted torus " + vec(c.dims) + " degree " + std::to_string(c.degree) + " jump " +
                             vec(c.jump);
    const Graph g = twisted_graph(c.dims, c.wrap, c.degree, c.jump);
    compare_all_pairs(*make_twisted_torus(c.dims, c.wrap, c.degree, c.jump, kLat, kBw), g, true, what);
    compare_all_pairs(*make_twisted_torus(c.dims, c.wrap, c.degree, c.jump, kLat, kBw, TwistedTorusRouting::hubs), g,
                      true, what + " (hubs)");
  }
}

// Above the pair table (1,024 endpoints, 4,096 for shapes without a written-out search; here the hub
// method is forced): BFS from sampled sources to every destination.
TEST(TopologyTwistedTorus, LargeShapesMatchBfsFromSampledSources) {
  struct Cfg { std::vector<int> dims, wrap; int degree; std::vector<int> jump; int sources; };
  const Cfg cfgs[] = {
      {{64, 64}, {1, 1}, 1, {1, 1}, 40},               // the benchmark's 2-D case
      {{16, 16, 16}, {1, 1, 1}, 1, {1, 1, 1}, 40},     // and its 3-D case
      {{24, 20, 10}, {1, 1, 1}, 2, {5, -3, 7}, 30},    // degree 2, uneven sizes and jumps
      {{30, 12, 9}, {1, 0, 1}, 1, {4, 2, 11}, 30},     // an unwrapped dimension in the cycle
      {{8, 7, 6, 5}, {1, 1, 1, 1}, 3, {3, 2, 1, 4}, 30},
      {{300, 200}, {1, 1}, 1, {37, 150}, 12},          // 60,000 endpoints, large jumps
      {{4, 1000}, {1, 1}, 1, {100, 3}, 12},            // many laps of a short dimension pay off
  };
  for (const Cfg& c : cfgs) {
    auto net = make_twisted_torus(c.dims, c.wrap, c.degree, c.jump, kLat, kBw, TwistedTorusRouting::hubs);
    const std::string what = "twisted torus " + vec(c.dims) + " wrap " + vec(c.wrap) + " degree " +
                             std::to_string(c.degree) + " jump " + vec(c.jump);
    const Graph g = twisted_graph(c.dims, c.wrap, c.degree, c.jump);
    const int n = net->endpoints();
    std::mt19937 rng(7);
    for (int i = 0; i < c.sources; ++i) {
      const int s = i == 0 ? 0 : (i == 1 ? n - 1 : static_cast<int>(rng() % static_cast<unsigned>(n)));
      const std::vector<int> dist = g.bfs(s);
      for (int t = 0; t < n; ++t)
        ASSERT_EQ(net->route(s, t).hops, dist[static_cast<size_t>(t)]) << what << ": " << s << " -> " << t;
    }
  }
}

// The hub method's table layouts and the written-out searches' fallbacks, against BFS from sampled
// sources (every destination): a nearest-hub distance above 255 (the byte-wide lower bound is shifted),
// offsets from the nearest hub above 254 (two-byte rows), and shapes much longer in one dimension than in
// another, where the near candidates of the 2-D and 3-D searches are not enough and the loops take over.
TEST(TopologyTwistedTorus, HubTableLayoutsAndSearchFallbacksMatchBfs) {
  struct Cfg { std::vector<int> dims, wrap; int degree; std::vector<int> jump; int sources; };
  const Cfg cfgs[] = {
      {{600, 500}, {1, 1}, 1, {1, 1}, 6},           // nearest hub up to 548 hops away
      {{600, 3, 3}, {1, 1, 1}, 1, {1, 1, 1}, 8},    // hubs up to 301 hops apart: two-byte rows
      {{3, 3, 600}, {1, 1, 1}, 1, {1, 2, 1}, 8},
      {{40, 6, 5}, {1, 1, 1}, 1, {1, 2, 3}, 20},    // 3-D, elongated in each dimension in turn
      {{6, 40, 5}, {1, 1, 1}, 1, {5, 17, 2}, 20},
      {{5, 6, 40}, {1, 1, 1}, 1, {-2, 3, 4}, 20},
      {{13, 11, 7}, {1, 1, 1}, 1, {12, 10, 6}, 20}, // jumps of m - 1 (crossing backwards = +1)
      {{3, 200}, {1, 1}, 1, {2, 150}, 20},          // 2-D, elongated either way
      {{200, 3}, {1, 1}, 1, {1, 77}, 20},
  };
  for (const Cfg& c : cfgs) {
    const std::string what = "twisted torus " + vec(c.dims) + " wrap " + vec(c.wrap) + " degree " +
                             std::to_string(c.degree) + " jump " + vec(c.jump);
    auto automatic = make_twisted_torus(c.dims, c.wrap, c.degree, c.jump, kLat, kBw);
    auto hubs = make_twisted_torus(c.dims, c.wrap, c.degree, c.jump, kLat, kBw, TwistedTorusRouting::hubs);
    const Graph g = twisted_graph(c.dims, c.wrap, c.degree, c.jump);
    const int n = hubs->endpoints();
    std::mt19937 rng(11);
    for (int i = 0; i < c.sources; ++i) {
      const int s = i == 0 ? 0 : (i == 1 ? n - 1 : static_cast<int>(rng() % static_cast<unsigned>(n)));
      const std::vector<int> dist = g.bfs(s);
      for (int t = 0; t < n; ++t) {
        ASSERT_EQ(hubs->route(s, t).hops, dist[static_cast<size_t>(t)]) << what << ": " << s << " -> " << t;
        ASSERT_EQ(hubs->route(t, s).hops, dist[static_cast<size_t>(t)]) << what << ": " << t << " -> " << s;
        ASSERT_EQ(automatic->route(s, t).hops, dist[static_cast<size_t>(t)]) << what << ": " << s << " -> " << t;
      }
    }
  }
}

TEST(TopologyTwistedTorus, TableOfRoutes) {
  // [4,4], degree 1, jump [1,2]: (3,y) <-> (0,y+1), (x,3) <-> (x+2,0). rank = x + 4y.
  auto net = make_twisted_torus({4, 4}, {1, 1}, 1, {1, 2}, kLat, kBw);
  EXPECT_EQ(net->route(3, 4).hops, 1);    // (3,0) -> (0,1): one wrap link of dimension 0
  EXPECT_EQ(net->route(4, 3).hops, 1);    // and back
  EXPECT_EQ(net->route(12, 2).hops, 1);   // (0,3) -> (2,0): wrap of dimension 1
  EXPECT_EQ(net->route(0, 0).hops, 0);
  EXPECT_EQ(net->route(0, 3).hops, 2);    // (0,0) -> (0,1) -> back over the dimension-0 wrap to (3,0)
  EXPECT_EQ(net->min_latency(), kLat);
  EXPECT_EQ(net->route(12, 2).latency, kLat);
}

// ---------------------------------------------------------------------------------------------------------
// Tree

TEST(TopologyTree, HopsMatchBfsForEveryArityAndSize) {
  int configs = 0;
  for (int k = 2; k <= 5; ++k)
    for (int n = 1; n <= 150; ++n) {
      auto net = make_tree(k, n, kLat, kBw);
      ASSERT_EQ(net->endpoints(), n);
      compare_all_pairs(*net, tree_graph(k, n), true, "tree k=" + std::to_string(k) + " n=" + std::to_string(n));
      ++configs;
    }
  std::printf("[ info     ] tree: %d configurations, every pair equal to BFS\n", configs);
}

TEST(TopologyTree, BinaryDepthSixClosedForms) {
  auto net = make_tree(2, 64, kLat, kBw);  // tree:2:depth=6
  EXPECT_EQ(net->route(0, 1).hops, 2);
  EXPECT_EQ(net->route(0, 2).hops, 4);
  EXPECT_EQ(net->route(0, 63).hops, 12);
  EXPECT_EQ(net->route(31, 32).hops, 12);
  EXPECT_EQ(net->min_latency(), kLat + kLat);
  EXPECT_EQ(net->route(0, 63).latency.ps(), 12 * kLat.ps());
  EXPECT_EQ(net->describe(), "2-ary tree of depth 6, 64 endpoints at the leaves, link latency 1 us, link bandwidth 1 Gbps");
  // Mean over ordered pairs (self included): sum_u 2u * (k^u - k^(u-1)) / n.
  int64_t sum = 0;
  for (int s = 0; s < 64; ++s)
    for (int t = 0; t < 64; ++t) sum += net->route(s, t).hops;
  int64_t expect = 0;
  for (int u = 1; u <= 6; ++u) expect += 2 * u * ((int64_t{1} << u) - (int64_t{1} << (u - 1)));
  EXPECT_EQ(sum, 64 * expect);
  // Non-power-of-two arity takes the generic path.
  auto t3 = make_tree(3, 30, kLat, kBw);  // depth 4 (27 < 30 <= 81)
  EXPECT_EQ(t3->route(0, 2).hops, 2);
  EXPECT_EQ(t3->route(0, 3).hops, 4);
  EXPECT_EQ(t3->route(0, 9).hops, 6);
  EXPECT_EQ(t3->route(0, 29).hops, 8);
}

// ---------------------------------------------------------------------------------------------------------
// Errors

template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no exception)";
}

TEST(TopologyGridErrors, InvalidParametersAreRejectedWithAUsefulMessage) {
  auto has = [](const std::string& msg, const char* part) { return msg.find(part) != std::string::npos; };
  EXPECT_TRUE(has(error_of([] { make_ring(0, true, kLat, kBw); }), "at least 1"));
  EXPECT_TRUE(has(error_of([] { make_ring(-3, false, kLat, kBw); }), "got -3"));
  EXPECT_TRUE(has(error_of([] { make_ring(4, false, SimTime::zero(), kBw); }), "latency"));
  EXPECT_TRUE(has(error_of([] { make_ring(4, false, kLat, 0); }), "bandwidth"));
  EXPECT_TRUE(has(error_of([] { make_ring(1 << 30, false, SimTime::from_ps(int64_t{1} << 40), kBw); }), "overflows"));

  EXPECT_TRUE(has(error_of([] { make_mesh({}, kLat, kBw); }), "no dimensions"));
  EXPECT_TRUE(has(error_of([] { make_mesh({4, 0}, kLat, kBw); }), "dimension 1 must be at least 1"));
  EXPECT_TRUE(has(error_of([] { make_mesh({-2, 4}, kLat, kBw); }), "got -2"));
  EXPECT_TRUE(has(error_of([] { make_mesh({65536, 65536}, kLat, kBw); }), "fit in an int"));
  EXPECT_TRUE(has(error_of([] { make_torus({4, 4}, {1}, kLat, kBw); }), "one 0/1 entry per dimension"));
  EXPECT_TRUE(has(error_of([] { make_torus({4, 4}, {1, 2}, kLat, kBw); }), "must be 0 or 1"));
  EXPECT_TRUE(has(error_of([] { make_torus({4, 4}, {1, 1}, SimTime::infinity(), kBw); }), "finite"));

  EXPECT_TRUE(has(error_of([] { make_twisted_torus({4, 4}, {1, 1}, 1, {1}, kLat, kBw); }), "one jump per dimension"));
  EXPECT_TRUE(has(error_of([] { make_twisted_torus({4, 4}, {1}, 1, {1, 1}, kLat, kBw); }), "wrap vector"));
  EXPECT_TRUE(has(error_of([] { make_twisted_torus({4, 4}, {1, 1}, 2, {1, 1}, kLat, kBw); }), "degree must be in 0..1"));
  EXPECT_TRUE(has(error_of([] { make_twisted_torus({4, 4}, {1, 1}, -1, {1, 1}, kLat, kBw); }), "degree"));
  EXPECT_TRUE(has(error_of([] { make_twisted_torus({2, 2, 2, 2, 2, 2, 2}, std::vector<int>(7, 1), 1,
                                                   std::vector<int>(7, 1), kLat, kBw); }), "at most 6"));
  EXPECT_TRUE(has(error_of([] { make_twisted_torus({4, 0}, {1, 1}, 1, {1, 1}, kLat, kBw); }), "at least 1"));

  EXPECT_TRUE(has(error_of([] { make_tree(1, 8, kLat, kBw); }), "at least 2"));
  EXPECT_TRUE(has(error_of([] { make_tree(2, 0, kLat, kBw); }), "endpoint count"));
  EXPECT_TRUE(has(error_of([] { make_tree(2, 8, kLat, 0); }), "bandwidth"));

  EXPECT_THROW(make_ring(4, true, kLat, kBw)->route(0, 4), std::out_of_range);
  EXPECT_THROW(make_mesh({2, 2}, kLat, kBw)->route(-1, 0), std::out_of_range);
  EXPECT_THROW(make_twisted_torus({2, 2}, {1, 1}, 1, {1, 1}, kLat, kBw)->route(0, 4), std::out_of_range);
  EXPECT_THROW(make_tree(2, 5, kLat, kBw)->route(5, 0), std::out_of_range);
}

// ---------------------------------------------------------------------------------------------------------
// Cost of one route query (informational; the budget is tens of nanoseconds).

// The networks whose route() cost bench/route_cost.cpp times (timing belongs in bench/, not in the suite),
// checked instead: from 64 seeded sources, route() in both directions to every endpoint equals the BFS
// distance on the explicit graph (all these graphs are undirected).
TEST(TopologyGridBenchSizes, RoutesFromSampledSourcesMatchBfs) {
  struct Case {
    std::string name;
    std::unique_ptr<Network> net;
    Graph g;
  };
  std::vector<Case> cases;
  cases.push_back({"ring 4096", make_ring(4096, true, kLat, kBw), ring_graph(4096, true)});
  cases.push_back({"torus 16x16x16", make_torus({16, 16, 16}, {1, 1, 1}, kLat, kBw),
                   twisted_graph({16, 16, 16}, {1, 1, 1}, 0, {0, 0, 0})});
  cases.push_back({"twisted torus 16x16x16", make_twisted_torus({16, 16, 16}, {1, 1, 1}, 1, {1, 1, 1}, kLat, kBw),
                   twisted_graph({16, 16, 16}, {1, 1, 1}, 1, {1, 1, 1})});
  cases.push_back({"twisted torus 64x64", make_twisted_torus({64, 64}, {1, 1}, 1, {1, 1}, kLat, kBw),
                   twisted_graph({64, 64}, {1, 1}, 1, {1, 1})});
  cases.push_back({"tree 2 x 4096", make_tree(2, 4096, kLat, kBw), tree_graph(2, 4096)});
  cases.push_back({"tree 3 x 4096", make_tree(3, 4096, kLat, kBw), tree_graph(3, 4096)});
  for (const Case& c : cases) {
    std::mt19937 rng(7);
    const int n = c.net->endpoints();
    ASSERT_EQ(n, 4096) << c.name;
    int64_t checked = 0;
    for (int i = 0; i < 64; ++i) {
      const int s = static_cast<int>(rng() % static_cast<unsigned>(n));
      const std::vector<int> dist = c.g.bfs(s);
      for (int t = 0; t < n; ++t) {
        const int want = dist[static_cast<size_t>(t)];
        ASSERT_EQ(c.net->route(s, t).hops, want) << c.name << ": route(" << s << ", " << t << ")";
        ASSERT_EQ(c.net->route(t, s).hops, want) << c.name << ": route(" << t << ", " << s << ")";
        checked += 2;
      }
    }
    EXPECT_EQ(checked, 64 * 2 * 4096) << c.name;
  }
}

// Beyond the 128 MiB hub table the twisted torus answers from its path-family search instead: sampled
// sources against BFS; the search is never shorter than BFS and agrees on most pairs.
// 3-D shapes use the hub-line table (twisted_torus_lines.hpp): per endpoint and line of hubs a few cones,
// and only the hubs of each line at the source's and the destination's coordinate are tried. Every pair
// of 3-D random shapes up to 14 per side (random wraps, degrees 1 and 2, jumps negative and above the
// target size), with the line table (forced `hubs`) and with the hub rows (forced `hub_rows`), against BFS.
TEST(TopologyTwistedTorus, HubLinesMatchBfsOnRandom3dShapes) {
  std::mt19937 rng(2026);
  int64_t pairs = 0;
  for (int iter = 0; iter < 60; ++iter) {
    std::vector<int> dims(3), wrap(3), jump(3);
    for (size_t d = 0; d < 3; ++d) {
      dims[d] = 2 + static_cast<int>(rng() % 13);
      wrap[d] = rng() % 6 != 0;
      jump[d] = static_cast<int>(rng() % 30) - 8;
    }
    const int degree = 1 + static_cast<int>(rng() % 2);
    const std::string what = "twisted torus " + vec(dims) + " wrap " + vec(wrap) + " degree " +
                             std::to_string(degree) + " jump " + vec(jump);
    const Graph g = twisted_graph(dims, wrap, degree, jump);
    pairs += compare_all_pairs(*make_twisted_torus(dims, wrap, degree, jump, kLat, kBw, TwistedTorusRouting::hubs),
                               g, true, what + " (hub lines)")
                 .pairs;
    compare_all_pairs(*make_twisted_torus(dims, wrap, degree, jump, kLat, kBw, TwistedTorusRouting::hub_rows), g,
                      true, what + " (hub rows)");
  }
  std::printf("[ info     ] twisted torus: 60 random 3-D shapes, all %lld pairs equal to BFS (hub lines and rows)\n",
              static_cast<long long>(pairs));
}

// Larger 3-D shapes with the line table, BFS from sampled sources to every destination (both directions).
TEST(TopologyTwistedTorus, HubLinesMatchBfsOnLarger3dShapes) {
  struct Cfg { std::vector<int> dims, wrap; int degree; std::vector<int> jump; int sources; };
  const Cfg cfgs[] = {
      {{30, 20, 25}, {1, 1, 1}, 1, {7, 3, 11}, 12},  // 11 cones for some endpoint and line
      {{40, 36, 30}, {1, 1, 1}, 1, {1, 1, 1}, 12},
      {{24, 20, 10}, {1, 1, 1}, 2, {5, -3, 7}, 12},
      {{33, 17, 40}, {1, 1, 1}, 1, {16, 16, 20}, 12},  // half-size jumps
      {{20, 20, 20}, {1, 0, 1}, 1, {3, 2, 5}, 12},    // an unwrapped dimension: many lines, hub rows
  };
  for (const Cfg& c : cfgs) {
    auto net = make_twisted_torus(c.dims, c.wrap, c.degree, c.jump, kLat, kBw);
    const std::string what = "twisted torus " + vec(c.dims) + " wrap " + vec(c.wrap) + " degree " +
                             std::to_string(c.degree) + " jump " + vec(c.jump);
    const Graph g = twisted_graph(c.dims, c.wrap, c.degree, c.jump);
    const int n = net->endpoints();
    std::mt19937 rng(5);
    for (int i = 0; i < c.sources; ++i) {
      const int s = i == 0 ? 0 : (i == 1 ? n - 1 : static_cast<int>(rng() % static_cast<unsigned>(n)));
      const std::vector<int> dist = g.bfs(s);
      for (int t = 0; t < n; ++t) {
        ASSERT_EQ(net->route(s, t).hops, dist[static_cast<size_t>(t)]) << what << ": " << s << " -> " << t;
        ASSERT_EQ(net->route(t, s).hops, dist[static_cast<size_t>(t)]) << what << ": " << t << " -> " << s;
      }
    }
  }
}

TEST(TopologyTwistedTorus, Large3dShapesAreExact) {
  // 64x64x64 with every jump 1: 1,124 hubs on 18 lines. The hub rows would take ~300 MiB; the line table
  // takes 206 bytes per endpoint, and the routes are the shortest paths (BFS from sampled sources).
  const std::vector<int> dims = {64, 64, 64}, wrap = {1, 1, 1}, jump = {1, 1, 1};
  auto net = make_twisted_torus(dims, wrap, 1, jump, kLat, kBw);
  const Graph g = twisted_graph(dims, wrap, 1, jump);
  std::mt19937 rng(99);
  for (int sample = 0; sample < 3; ++sample) {
    const int s = static_cast<int>(rng() % static_cast<unsigned>(net->endpoints()));
    const std::vector<int> d = g.bfs(s);
    for (int t = 0; t < net->endpoints(); ++t) ASSERT_EQ(net->route(s, t).hops, d[static_cast<size_t>(t)]) << s << "->" << t;
  }
}

TEST(TopologyTwistedTorus, BeyondTheTablesThePathFamilyIsNeverShorterThanBfs) {
  // The path family (used where neither hub table applies, forced here): never shorter than BFS, never
  // longer than the mesh.
  const std::vector<int> dims = {40, 40, 40}, wrap = {1, 1, 1}, jump = {1, 1, 1};
  auto net = make_twisted_torus(dims, wrap, 1, jump, kLat, kBw, TwistedTorusRouting::family);
  auto mesh = make_mesh(dims, kLat, kBw);
  const Graph g = twisted_graph(dims, wrap, 1, jump);
  std::mt19937 rng(99);
  int64_t pairs = 0, equal = 0;
  for (int sample = 0; sample < 4; ++sample) {
    const int s = static_cast<int>(rng() % static_cast<unsigned>(net->endpoints()));
    const std::vector<int> d = g.bfs(s);
    for (int t = 0; t < net->endpoints(); ++t) {
      const int h = net->route(s, t).hops;
      ASSERT_GE(h, d[static_cast<size_t>(t)]) << s << "->" << t;
      ASSERT_LE(h, mesh->route(s, t).hops) << s << "->" << t;
      ++pairs;
      if (h == d[static_cast<size_t>(t)]) ++equal;
    }
  }
  const double rate = static_cast<double>(equal) / static_cast<double>(pairs);
  std::printf("[ info     ] %s, path family: %.2f%% of %lld sampled pairs equal to BFS\n", net->describe().c_str(),
              100.0 * rate, static_cast<long long>(pairs));
  EXPECT_GT(rate, 0.85);
}

}  // namespace
}  // namespace xsim::net

// Unit tests for Network::route_links (the links a message crosses, for -xsim-contention links): for every
// topology that lists its links, every route's links add up to route() (count, latency, bottleneck), no
// link repeats within a route, and — decoding the documented link numbering independently of the models'
// code — consecutive links form a walk from the source to the destination. Topologies that do not list
// links say so.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "xsim/netmodel/dragonfly.hpp"
#include "xsim/netmodel/fat_tree.hpp"
#include "xsim/netmodel/hierarchy.hpp"
#include "xsim/netmodel/mesh_torus.hpp"
#include "xsim/netmodel/network.hpp"
#include "xsim/netmodel/ring.hpp"
#include "xsim/netmodel/tree.hpp"
#include "xsim/netmodel/twisted_torus.hpp"

namespace xsim::net {
namespace {

const SimTime kLat = SimTime::from_ns(100);
constexpr uint64_t kBw = 8'000'000'000;

// Checks the invariants every listing must keep, for every pair of endpoints; returns the listings.
std::vector<std::vector<Link>> check_all_pairs(const Network& net, const std::string& what, uint64_t key = 0) {
  std::vector<std::vector<Link>> all;
  const int n = net.endpoints();
  for (int s = 0; s < n; ++s)
    for (int d = 0; d < n; ++d) {
      std::vector<Link> links;
      EXPECT_TRUE(net.route_links(s, d, key, links)) << what;
      const Route r = net.route_keyed(s, d, key);
      EXPECT_EQ(static_cast<int>(links.size()), r.hops) << what << " " << s << "->" << d;
      SimTime sum;
      uint64_t bw = UINT64_MAX;
      std::set<uint64_t> ids;
      for (const Link& l : links) {
        sum += l.latency;
        bw = std::min(bw, l.bandwidth_bps);
        EXPECT_TRUE(ids.insert(l.id).second) << what << " " << s << "->" << d << ": link " << l.id << " twice";
        EXPECT_LT(l.id, net.link_id_bound()) << what;
      }
      EXPECT_EQ(sum, r.latency) << what << " " << s << "->" << d;
      if (r.hops > 0) EXPECT_EQ(bw, r.min_bandwidth_bps) << what << " " << s << "->" << d;
      all.push_back(std::move(links));
    }
  return all;
}

TEST(RouteLinks, StarUpThenDown) {
  auto net = make_star(5, kLat, kBw);
  check_all_pairs(*net, "star");
  std::vector<Link> l;
  ASSERT_TRUE(net->route_links(3, 1, 0, l));
  ASSERT_EQ(l.size(), 2u);
  EXPECT_EQ(l[0].id, 6u);  // 3's uplink
  EXPECT_EQ(l[1].id, 3u);  // the downlink to 1
}

// Mesh and torus: link (e * D + d) * 2 + dir leaves endpoint e in dimension d, dir 0 towards +1.
void check_grid_walks(const Network& net, const std::vector<int>& dims, const std::string& what) {
  const auto all = check_all_pairs(net, what);
  const int n = net.endpoints(), nd = static_cast<int>(dims.size());
  for (int s = 0; s < n; ++s)
    for (int d = 0; d < n; ++d) {
      int at = s, last_dim = -1;
      for (const Link& l : all[static_cast<size_t>(s * n + d)]) {
        const int e = static_cast<int>(l.id / 2 / static_cast<uint64_t>(nd));
        const int dim = static_cast<int>(l.id / 2 % static_cast<uint64_t>(nd));
        ASSERT_EQ(e, at) << what << " " << s << "->" << d << ": the walk jumps";
        EXPECT_GE(dim, last_dim) << what << ": not dimension order";
        last_dim = dim;
        int stride = 1;
        for (int k = 0; k < dim; ++k) stride *= dims[static_cast<size_t>(k)];
        const int m = dims[static_cast<size_t>(dim)], c = at / stride % m;
        const int next = l.id % 2 == 0 ? (c + 1) % m : (c + m - 1) % m;
        at += (next - c) * stride;
      }
      EXPECT_EQ(at, d) << what << " " << s << "->" << d;
    }
}

TEST(RouteLinks, MeshAndTorusWalkInDimensionOrder) {
  check_grid_walks(*make_mesh({4, 3}, kLat, kBw), {4, 3}, "mesh 4x3");
  check_grid_walks(*make_torus({5, 4, 3}, {1, 0, 1}, kLat, kBw), {5, 4, 3}, "torus 5x4x3");
  check_grid_walks(*make_torus({6}, {1}, kLat, kBw), {6}, "torus 6");
}

TEST(RouteLinks, MeshRoutesShareTheMiddleLink) {
  auto net = make_mesh({4}, kLat, kBw);
  std::vector<Link> a, b;
  ASSERT_TRUE(net->route_links(0, 2, 0, a));
  ASSERT_TRUE(net->route_links(1, 3, 0, b));
  ASSERT_EQ(a.size(), 2u);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(a[1].id, b[0].id);  // 1 -> 2
  EXPECT_NE(a[0].id, b[1].id);
}

// Ring: link 2i goes i -> i + 1, 2i + 1 goes i -> i - 1.
TEST(RouteLinks, RingWalks) {
  for (bool bi : {false, true})
    for (int n : {1, 2, 5, 6}) {
      auto net = make_ring(n, bi, kLat, kBw);
      const std::string what = std::string(bi ? "bidirectional" : "unidirectional") + " ring " + std::to_string(n);
      const auto all = check_all_pairs(*net, what);
      for (int s = 0; s < n; ++s)
        for (int d = 0; d < n; ++d) {
          int at = s;
          for (const Link& l : all[static_cast<size_t>(s * n + d)]) {
            ASSERT_EQ(static_cast<int>(l.id / 2), at) << what;
            if (!bi) EXPECT_EQ(l.id % 2, 0u) << what << ": a unidirectional ring goes forward";
            at = l.id % 2 == 0 ? (at + 1) % n : (at + n - 1) % n;
          }
          EXPECT_EQ(at, d) << what << " " << s << "->" << d;
        }
    }
}

// Tree: vertices are numbered level by level from the endpoints up; 2v goes up from v, 2v + 1 down to v.
TEST(RouteLinks, TreeClimbsToTheCommonAncestorAndDescends) {
  for (int k : {2, 3})
    for (int n : {1, 7, 9, 16}) {
      auto net = make_tree(k, n, kLat, kBw);
      const std::string what = std::to_string(k) + "-ary tree of " + std::to_string(n);
      const auto all = check_all_pairs(*net, what);
      // Parent of each vertex, from the documented numbering (-1: the root, which has no number).
      int depth = 1;
      for (int64_t leaves = k; leaves < n; leaves *= k) ++depth;
      std::vector<int64_t> parent;
      int64_t first = 0, count = n;
      for (int level = depth; level >= 1; --level) {
        const int64_t next_first = first + count, next_count = (count + k - 1) / k;
        for (int64_t i = 0; i < count; ++i) parent.push_back(level == 1 ? -1 : next_first + i / k);
        first = next_first;
        count = next_count;
      }
      for (int s = 0; s < n; ++s)
        for (int d = 0; d < n; ++d) {
          int64_t at = s;
          for (const Link& l : all[static_cast<size_t>(s * n + d)]) {
            const int64_t v = static_cast<int64_t>(l.id / 2);
            if (l.id % 2 == 0) {  // up from v
              ASSERT_EQ(v, at) << what;
              at = parent[static_cast<size_t>(v)];
            } else {  // down to v
              ASSERT_EQ(parent[static_cast<size_t>(v)], at) << what;
              at = v;
            }
          }
          EXPECT_EQ(at, d) << what << " " << s << "->" << d;
        }
    }
}

TEST(RouteLinks, DragonflyCountsAndSharing) {
  for (int cols : {0, 2})
    for (DragonflyRouting routing : {DragonflyRouting::minimal, DragonflyRouting::valiant}) {
      DragonflyParams q;
      q.p = 2;
      q.a = 4;
      q.h = 1;
      q.g = 5;
      q.local_columns = cols;
      q.routing = routing;
      q.terminal_latency = SimTime::from_ps(1);
      q.local_latency = SimTime::from_ps(100);
      q.global_latency = SimTime::from_ps(10'000);
      q.terminal_bandwidth_bps = 3 * kBw;
      q.local_bandwidth_bps = 2 * kBw;
      q.global_bandwidth_bps = kBw;
      auto net = make_dragonfly(q);
      for (uint64_t key : {0u, 7u}) check_all_pairs(*net, "dragonfly", key);
      // Every message between the first two groups crosses their one global link (minimal routing).
      if (routing == DragonflyRouting::minimal) {
        std::vector<Link> a, b;
        ASSERT_TRUE(net->route_links(0, 8, 0, a));   // group 0 -> group 1
        ASSERT_TRUE(net->route_links(7, 15, 0, b));  // group 0 -> group 1, other routers
        int shared = 0;
        for (const Link& x : a)
          for (const Link& y : b) shared += x.id == y.id && x.latency == q.global_latency;
        EXPECT_EQ(shared, 1);
      }
    }
}

// Fat tree: decoding the documented numbering, every link joins the switches the definition links (child
// <w, l> and parent <w', l - 1>, w' = w but for digit l - 1), and the walk ends at the destination.
TEST(RouteLinks, FatTreeWalksUpAndDown) {
  for (auto [m, n] : {std::pair{4, 1}, {4, 2}, {4, 3}, {6, 2}, {2, 3}}) {
    auto net = make_fat_tree(m, n, kLat, kBw);
    const std::string what = std::to_string(m) + "-port " + std::to_string(n) + "-tree";
    const auto all = check_all_pairs(*net, what);
    const int k = m / 2, E = net->endpoints();
    int kn1 = 1;
    for (int i = 1; i < n; ++i) kn1 *= k;
    // A switch as (level, w digits); endpoints as level n.
    struct Node {
      int level;
      std::vector<int> w;  // endpoint: its digits p0..p(n-1); switch: w0..w(n-2)
      bool operator==(const Node&) const = default;
    };
    auto endpoint = [&](int e) {
      Node x{n, std::vector<int>(static_cast<size_t>(n))};
      for (int i = n - 1; i >= 1; --i, e /= k) x.w[static_cast<size_t>(i)] = e % k;
      x.w[0] = e;
      return x;
    };
    auto switch_of = [&](int64_t s) {  // global number -> (level, w)
      Node x{0, std::vector<int>(static_cast<size_t>(n - 1))};
      int64_t index = s;
      if (s >= kn1) {
        x.level = 1 + static_cast<int>((s - kn1) / (2 * kn1));
        index = (s - kn1) % (2 * kn1);
      }
      for (int i = n - 2; i >= 0; --i) {
        const int radix = i == 0 ? 2 * k : k;
        x.w[static_cast<size_t>(i)] = static_cast<int>(index % radix);
        index /= radix;
      }
      return x;
    };
    for (int s = 0; s < E; ++s)
      for (int d = 0; d < E; ++d) {
        Node at = endpoint(s);
        for (const Link& l : all[static_cast<size_t>(s * E + d)]) {
          if (l.id < 2 * static_cast<uint64_t>(E)) {  // a terminal link
            const int e = static_cast<int>(l.id / 2);
            const Node ep = endpoint(e);
            Node leaf{n - 1, std::vector<int>(ep.w.begin(), ep.w.end() - 1)};
            if (l.id % 2 == 0) {
              ASSERT_EQ(at, ep) << what;
              at = leaf;
            } else {
              ASSERT_EQ(at, leaf) << what;
              at = ep;
            }
            continue;
          }
          const uint64_t v = (l.id - 2 * static_cast<uint64_t>(E)) / 2;
          Node child = switch_of(static_cast<int64_t>(v / static_cast<uint64_t>(k)));
          Node parent = child;
          parent.level = child.level - 1;
          parent.w[static_cast<size_t>(parent.level)] = static_cast<int>(v % static_cast<uint64_t>(k));
          if (l.id % 2 == 0) {
            ASSERT_EQ(at, child) << what << " " << s << "->" << d;
            at = parent;
          } else {
            ASSERT_EQ(at, parent) << what << " " << s << "->" << d;
            at = child;
          }
        }
        EXPECT_EQ(at, endpoint(d)) << what << " " << s << "->" << d;
      }
  }
}

// Twisted torus: every link leaves where the walk is and leads, by the documented link set (mesh links; a
// wrap of dimension d at the edge shifts dimension (d + degree) mod D by the jump), one hop nearer.
TEST(RouteLinks, TwistedTorusWalksShortestPaths) {
  struct Shape {
    std::vector<int> dims, wrap;
    int degree;
    std::vector<int> jump;
  };
  for (const Shape& sh : {Shape{{4, 4}, {1, 1}, 1, {1, 1}}, Shape{{5, 3}, {1, 1}, 1, {2, 1}},
                          Shape{{3, 3, 3}, {1, 1, 1}, 1, {1, 2, 3}}, Shape{{4, 3, 2}, {1, 0, 1}, 2, {1, 1, 1}}}) {
    auto net = make_twisted_torus(sh.dims, sh.wrap, sh.degree, sh.jump, kLat, kBw);
    const std::string what = "twisted torus " + net->describe();
    const auto all = check_all_pairs(*net, what);
    const int n = net->endpoints(), nd = static_cast<int>(sh.dims.size());
    auto coords = [&](int e) {
      std::vector<int> x(static_cast<size_t>(nd));
      for (int d = 0; d < nd; ++d, e /= sh.dims[static_cast<size_t>(d - 1)]) x[static_cast<size_t>(d)] = e % sh.dims[static_cast<size_t>(d)];
      return x;
    };
    auto index = [&](const std::vector<int>& x) {
      int e = 0;
      for (int d = nd; d-- > 0;) e = e * sh.dims[static_cast<size_t>(d)] + x[static_cast<size_t>(d)];
      return e;
    };
    for (int s = 0; s < n; ++s)
      for (int d = 0; d < n; ++d) {
        int at = s;
        for (const Link& l : all[static_cast<size_t>(s * n + d)]) {
          ASSERT_EQ(static_cast<int>(l.id / 2 / static_cast<uint64_t>(nd)), at) << what << ": the walk jumps";
          const int dim = static_cast<int>(l.id / 2 % static_cast<uint64_t>(nd));
          const bool up = l.id % 2 == 0;
          std::vector<int> x = coords(at);
          const int m = sh.dims[static_cast<size_t>(dim)];
          int& c = x[static_cast<size_t>(dim)];
          if (up && c + 1 < m) {
            ++c;
          } else if (!up && c > 0) {
            --c;
          } else {
            ASSERT_TRUE(sh.wrap[static_cast<size_t>(dim)]) << what << ": over the edge of an unwrapped dimension";
            c = up ? 0 : m - 1;
            const int t = (dim + sh.degree) % nd;
            if (t != dim) {
              const int mt = sh.dims[static_cast<size_t>(t)];
              int& ct = x[static_cast<size_t>(t)];
              ct = ((ct + (up ? 1 : -1) * sh.jump[static_cast<size_t>(dim)]) % mt + mt) % mt;
            }
          }
          const int next = index(x);
          EXPECT_EQ(net->route(next, d).hops, net->route(at, d).hops - 1) << what << ": not one hop nearer";
          at = next;
        }
        EXPECT_EQ(at, d) << what << " " << s << "->" << d;
      }
  }
}

// Hierarchies: every level's links, numbered apart per level and per copy of the level.
TEST(RouteLinks, HierarchyListsEveryLevelsLinks) {
  std::vector<std::unique_ptr<Network>> a;
  a.push_back(make_ring(3, true, kLat, kBw));
  a.push_back(make_star(2, SimTime::from_ns(10), 2 * kBw));
  Hierarchy two(std::move(a));
  check_all_pairs(two, "ring 3 / star 2");
  std::vector<std::unique_ptr<Network>> b;
  b.push_back(make_mesh({2, 2}, kLat, kBw));
  b.push_back(make_star(2, SimTime::from_ns(10), 2 * kBw));
  b.push_back(make_ring(3, false, SimTime::from_ns(1), 4 * kBw));
  Hierarchy three(std::move(b));
  check_all_pairs(three, "mesh 2x2 / star 2 / ring 3");
  // Node 0 holds cores 0..5 (socket 0: 0..2, socket 1: 3..5). 0 -> 6 and 3 -> 9 go from node 0 to node 1
  // from different sockets: they share the mesh link 0 -> 1 and nothing else.
  std::vector<Link> x, y;
  ASSERT_TRUE(three.route_links(0, 6, 0, x));
  ASSERT_TRUE(three.route_links(3, 9, 0, y));
  int shared = 0;
  for (const Link& p : x)
    for (const Link& q : y) shared += p.id == q.id;
  EXPECT_EQ(shared, 1);
  // Two cores of one socket: their ring's links inside that socket only.
  std::vector<Link> z;
  ASSERT_TRUE(three.route_links(0, 2, 0, z));
  EXPECT_EQ(z.size(), 2u);  // unidirectional ring of 3: 0 -> 1 -> 2
  // A level that lists no links: the hierarchy lists none either, and appends nothing.
  std::vector<std::unique_ptr<Network>> c;
  c.push_back(make_star(2, kLat, kBw));
  c.push_back(make_twisted_torus({4, 4}, {1, 1}, 1, {1, 1}, kLat, kBw, TwistedTorusRouting::family));
  Hierarchy family(std::move(c));
  std::vector<Link> none;
  EXPECT_FALSE(family.route_links(0, 20, 0, none));
  EXPECT_TRUE(none.empty());
}

TEST(RouteLinks, TopologiesWithoutListingSaySo) {
  // A twisted torus routed by the path family alone (what shapes too large for the exact tables get):
  // route() is a bound, not a distance, so there is no path to list.
  std::vector<Link> l;
  EXPECT_FALSE(make_twisted_torus({4, 4}, {1, 1}, 1, {1, 1}, kLat, kBw, TwistedTorusRouting::family)
                   ->route_links(0, 5, 0, l));
  EXPECT_TRUE(l.empty());
}

}  // namespace
}  // namespace xsim::net

// Unit tests for the hub-line table of the 3-D twisted torus (netmodel/twisted_torus_lines.hpp) on its
// own, and for the huge-page byte array it lives in (netmodel/huge_page_bytes.hpp): on small 3-D meshes
// with lines of "hubs" chosen here (more than 16 lines, distances beyond a nibble), the hub term
// (via_lines) is compared with the same term computed from breadth-first searches, for any bound `best`.
// The routes built on the table are compared with BFS in test_topologies_grid.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <queue>
#include <random>
#include <utility>
#include <vector>

#include "huge_page_bytes.hpp"
#include "twisted_torus_lines.hpp"

namespace xsim::net::detail {
namespace {

struct Mesh3 {
  int dims[3];
  int n() const { return dims[0] * dims[1] * dims[2]; }
  int id(int x, int y, int z) const { return x + dims[0] * (y + dims[1] * z); }
  void coords(int e, int* c) const {
    c[0] = e % dims[0];
    c[1] = e / dims[0] % dims[1];
    c[2] = e / (dims[0] * dims[1]);
  }
  // 6 neighbours per endpoint (d = 0..2, forwards then backwards), -1 at the mesh's faces.
  std::vector<int> adjacency() const {
    std::vector<int> adj(static_cast<size_t>(n()) * 6, -1);
    for (int e = 0; e < n(); ++e) {
      int c[3];
      coords(e, c);
      for (int d = 0, stride = 1; d < 3; stride *= dims[d], ++d) {
        if (c[d] + 1 < dims[d]) adj[static_cast<size_t>(e) * 6 + 2 * d] = e + stride;
        if (c[d] > 0) adj[static_cast<size_t>(e) * 6 + 2 * d + 1] = e - stride;
      }
    }
    return adj;
  }
  std::vector<int> bfs(const std::vector<int>& adj, int src) const {
    std::vector<int> dist(static_cast<size_t>(n()), -1);
    std::queue<int> q;
    dist[static_cast<size_t>(src)] = 0;
    q.push(src);
    while (!q.empty()) {
      const int u = q.front();
      q.pop();
      for (int i = 0; i < 6; ++i) {
        const int v = adj[static_cast<size_t>(u) * 6 + static_cast<size_t>(i)];
        if (v >= 0 && dist[static_cast<size_t>(v)] < 0) {
          dist[static_cast<size_t>(v)] = dist[static_cast<size_t>(u)] + 1;
          q.push(v);
        }
      }
    }
    return dist;
  }
};

// Checks via_lines for every pair of a mesh with the given lines.
void check_every_pair(const Mesh3& mesh, const std::vector<HubLine>& lines) {
  const std::vector<int> adj = mesh.adjacency();
  HubLineTable table;
  ASSERT_TRUE(table.build(adj, 6, mesh.dims, lines, 1024, size_t{1} << 30));
  // hops[l][z][e]: from hub z of line l to endpoint e.
  std::vector<std::vector<std::vector<int>>> hops(lines.size());
  for (size_t l = 0; l < lines.size(); ++l)
    for (int z = 0; z < lines[l].length; ++z) hops[l].push_back(mesh.bfs(adj, lines[l].first + z * lines[l].stride));
  const int n = mesh.n();
  std::vector<int> near(static_cast<size_t>(n), INT_MAX);  // hops to the nearest hub
  for (size_t l = 0; l < lines.size(); ++l)
    for (const std::vector<int>& d : hops[l])
      for (int e = 0; e < n; ++e) near[static_cast<size_t>(e)] = std::min(near[static_cast<size_t>(e)], d[static_cast<size_t>(e)]);
  for (int s = 0; s < n; ++s)
    for (int t = 0; t < n; ++t) {
      int zs[3], zt[3];
      mesh.coords(s, zs);
      mesh.coords(t, zt);
      int hub = INT_MAX;  // through the hubs of each line at the two endpoints' coordinates along it
      for (size_t l = 0; l < lines.size(); ++l) {
        const int a = lines[l].axis;
        for (int z : {zs[a], zt[a]})
          hub = std::min(hub, hops[l][static_cast<size_t>(z)][static_cast<size_t>(s)] +
                                  hops[l][static_cast<size_t>(z)][static_cast<size_t>(t)]);
      }
      ASSERT_EQ(table.via_lines(s, t, zs, zt, INT_MAX), hub) << s << " -> " << t;
      // With any `best`, the answer is min(best, hub term), whether the near bytes settle it or not.
      const int near_sum = near[static_cast<size_t>(s)] + near[static_cast<size_t>(t)];
      for (int best : {near_sum - 1, near_sum, near_sum + 1, hub - 1, hub, hub + 1})
        ASSERT_EQ(table.via_lines(s, t, zs, zt, best), std::min(best, hub)) << s << " -> " << t << " best " << best;
    }
}

TEST(HubLineTable, HubTermOnAMeshWithTwoLines) {
  const Mesh3 mesh{{20, 6, 5}};
  // Along axis 0 at y = z = 0, and along axis 2 at x = 19, y = 5.
  check_every_pair(mesh, {{0, mesh.id(0, 0, 0), 1, 20}, {2, mesh.id(19, 5, 0), 20 * 6, 5}});
}

TEST(HubLineTable, HubTermWithEighteenLines) {
  // 18 lines on every axis (as many as a cube with jumps 1 has): more than one 16-byte SIMD block.
  const Mesh3 mesh{{7, 6, 5}};
  std::vector<HubLine> lines;
  for (int y = 0; y < 6; ++y) lines.push_back({0, mesh.id(0, y, y % 5), 1, 7});
  for (int x = 0; x < 7; ++x) lines.push_back({1, mesh.id(x, 0, (x * 3) % 5), 7, 6});
  for (int k = 0; k < 5; ++k) lines.push_back({2, mesh.id((k * 2) % 7, (k * 5) % 6, 0), 42, 5});
  ASSERT_EQ(lines.size(), 18u);
  check_every_pair(mesh, lines);
}

TEST(HugePageBytes, SmallAndLargeArraysHoldTheirBytes) {
  for (size_t n : {size_t{0}, size_t{1}, size_t{4096}, HugePageBytes::kHugeFrom - 1, HugePageBytes::kHugeFrom,
                   HugePageBytes::kHugePage * 3 + 5}) {
    HugePageBytes a;
    a.assign(n, 7);
    ASSERT_EQ(a.size(), n);
    ASSERT_EQ(a.empty(), n == 0);
    for (size_t i = 0; i < n; i += 997) ASSERT_EQ(a[i], 7);
    if (n == 0) continue;
    if (n >= HugePageBytes::kHugeFrom)  // large arrays start on a huge-page boundary
      EXPECT_EQ(reinterpret_cast<uintptr_t>(a.data()) % HugePageBytes::kHugePage, 0u);
    a[n - 1] = 9;
    EXPECT_EQ(a[n - 1], 9);
    HugePageBytes b = std::move(a);  // move-only: the bytes move with it
    EXPECT_EQ(b.size(), n);
    EXPECT_EQ(b[n - 1], 9);
    b.clear();
    EXPECT_TRUE(b.empty());
  }
}

}  // namespace
}  // namespace xsim::net::detail

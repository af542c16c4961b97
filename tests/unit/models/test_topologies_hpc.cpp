// Unit tests for the HPC topologies of netmodel: dragonfly (minimal and Valiant routing, 1-D and 2-D
// groups, the Aries preset) and the m-port n-tree fat tree. Each model is checked against an explicit graph
// built here from the documented definition (docs/network-topologies.md), independently of the models'
// routing code, with breadth-first-search distances from tests/unit/graph_oracle.hpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "graph_oracle.hpp"
#include "xsim/netmodel/dragonfly.hpp"
#include "xsim/netmodel/fat_tree.hpp"
#include "xsim/netmodel/network.hpp"

namespace xsim::net {
namespace {

using test::Graph;

// Link latencies chosen so that a route latency decodes into its link counts:
// latency = terminal * 1 ns + local * 100 ns + global * 10 us.
constexpr int64_t kTerminalPs = 1'000, kLocalPs = 100'000, kGlobalPs = 10'000'000;
struct LinkCounts {
  int terminal, local, global;
};
LinkCounts decode(SimTime t) {
  const int64_t ps = t.ps();
  return {static_cast<int>(ps % kLocalPs / kTerminalPs), static_cast<int>(ps % kGlobalPs / kLocalPs),
          static_cast<int>(ps / kGlobalPs)};
}

DragonflyParams df_params(int p, int a, int h, int g, int cols, DragonflyRouting routing, uint64_t bw_terminal,
                          uint64_t bw_local, uint64_t bw_global) {
  DragonflyParams q;
  q.p = p;
  q.a = a;
  q.h = h;
  q.g = g;
  q.local_columns = cols;
  q.routing = routing;
  q.terminal_latency = SimTime::from_ps(kTerminalPs);
  q.local_latency = SimTime::from_ps(kLocalPs);
  q.global_latency = SimTime::from_ps(kGlobalPs);
  q.terminal_bandwidth_bps = bw_terminal;
  q.local_bandwidth_bps = bw_local;
  q.global_bandwidth_bps = bw_global;
  return q;
}

// The explicit dragonfly graph, from the definition: nodes 0..N-1 are endpoints, N + r is router r.
// `plain` has every link; `layered` has two copies of the non-global links (layers 0 and 1) and each global
// link only as arcs from layer 0 to layer 1, so its BFS distances are the shortest paths with at most one
// global link (what minimal routing promises).
struct DragonflyOracle {
  int N = 0, R = 0, V = 0;
  Graph plain{0}, layered{0};
  std::vector<std::vector<int>> owner;  // owner[i][j]: router (0..R-1) of group i with the link to group j
  std::vector<std::vector<int>> dmin;   // dmin[s][d]: layered BFS distance between endpoints
  std::vector<std::vector<int>> dall;   // dall[s][d]: plain BFS distance between endpoints
};

DragonflyOracle build_dragonfly(const DragonflyParams& q) {
  DragonflyOracle o;
  o.R = q.a * q.g;
  o.N = q.p * o.R;
  o.V = o.N + o.R;
  o.plain = Graph(o.V);
  o.layered = Graph(2 * o.V);
  auto link = [&](int u, int v) {
    o.plain.add_link(u, v);
    o.layered.add_link(u, v);
    o.layered.add_link(u + o.V, v + o.V);
  };
  for (int e = 0; e < o.N; ++e) link(e, o.N + e / q.p);  // endpoint e on router e / p
  for (int grp = 0; grp < q.g; ++grp)
    for (int x = 0; x < q.a; ++x)
      for (int y = x + 1; y < q.a; ++y) {
        bool linked = q.local_columns == 0 || x / q.local_columns == y / q.local_columns ||
                      x % q.local_columns == y % q.local_columns;
        if (linked) link(o.N + grp * q.a + x, o.N + grp * q.a + y);
      }
  // Global ports of group i: port k on router k / h; ports 0..g-2 go to the other groups in increasing order.
  o.owner.assign(static_cast<size_t>(q.g), std::vector<int>(static_cast<size_t>(q.g), -1));
  std::vector<int> degree(static_cast<size_t>(o.R), 0);
  for (int i = 0; i < q.g; ++i) {
    std::vector<int> others;
    for (int j = 0; j < q.g; ++j)
      if (j != i) others.push_back(j);
    for (int k = 0; k < q.a * q.h && k < static_cast<int>(others.size()); ++k)
      o.owner[i][others[static_cast<size_t>(k)]] = i * q.a + k / q.h;
  }
  for (int i = 0; i < q.g; ++i)
    for (int j = i + 1; j < q.g; ++j) {
      int u = o.owner[i][j], v = o.owner[j][i];
      EXPECT_GE(u, 0);
      EXPECT_GE(v, 0);
      ++degree[static_cast<size_t>(u)];
      ++degree[static_cast<size_t>(v)];
      o.plain.add_link(o.N + u, o.N + v);
      o.layered.add_arc(o.N + u, o.N + v + o.V);
      o.layered.add_arc(o.N + v, o.N + u + o.V);
    }
  for (int d : degree) EXPECT_LE(d, q.h);
  o.dmin.resize(static_cast<size_t>(o.N));
  o.dall.resize(static_cast<size_t>(o.N));
  for (int s = 0; s < o.N; ++s) {
    std::vector<int> a = o.plain.bfs(s), b = o.layered.bfs(s);
    auto& m = o.dmin[static_cast<size_t>(s)];
    auto& f = o.dall[static_cast<size_t>(s)];
    m.resize(static_cast<size_t>(o.N));
    f.resize(static_cast<size_t>(o.N));
    for (int d = 0; d < o.N; ++d) {
      int d0 = b[static_cast<size_t>(d)], d1 = b[static_cast<size_t>(d + o.V)];
      m[static_cast<size_t>(d)] = d0 < 0 ? d1 : (d1 < 0 ? d0 : std::min(d0, d1));
      f[static_cast<size_t>(d)] = a[static_cast<size_t>(d)];
    }
  }
  return o;
}

uint64_t expected_bw(const DragonflyParams& q, const LinkCounts& c) {
  uint64_t b = q.terminal_bandwidth_bps;
  if (c.local > 0) b = std::min(b, q.local_bandwidth_bps);
  if (c.global > 0) b = std::min(b, q.global_bandwidth_bps);
  return b;
}

struct Agreement {
  long checked = 0, equal = 0;
  double rate() const { return checked ? static_cast<double>(equal) / static_cast<double>(checked) : 1.0; }
};

// Checks minimal routing of `q` against the oracle for every pair; counts agreement with unrestricted BFS.
void check_minimal(const DragonflyParams& q, const DragonflyOracle& o, Agreement& vs_bfs) {
  auto net = make_dragonfly(q);
  ASSERT_EQ(net->endpoints(), o.N);
  SimTime min_seen = SimTime::infinity();
  for (int s = 0; s < o.N; ++s)
    for (int d = 0; d < o.N; ++d) {
      Route r = net->route(s, d);
      const int want = o.dmin[static_cast<size_t>(s)][static_cast<size_t>(d)];
      ASSERT_EQ(r.hops, want) << net->describe() << " " << s << "->" << d;
      if (s == d) {
        EXPECT_EQ(r.latency, SimTime::zero());
        continue;
      }
      // Path type: two terminal links; one global link iff the groups differ; the rest local.
      LinkCounts c = decode(r.latency);
      const bool inter = s / q.p / q.a != d / q.p / q.a;
      EXPECT_EQ(c.terminal, 2);
      EXPECT_EQ(c.global, inter ? 1 : 0);
      EXPECT_EQ(c.local, r.hops - 2 - c.global);
      EXPECT_EQ(r.min_bandwidth_bps, expected_bw(q, c));
      EXPECT_EQ(net->route_keyed(s, d, 99).hops, r.hops);
      min_seen = min(min_seen, r.latency);
      ++vs_bfs.checked;
      if (r.hops == o.dall[static_cast<size_t>(s)][static_cast<size_t>(d)]) ++vs_bfs.equal;
    }
  if (o.N > 1) {
    EXPECT_EQ(net->min_latency(), min_seen) << net->describe();
  }
}

// Checks Valiant routing of `q` (same links) against its documented rule, for several keys.
void check_valiant(DragonflyParams q, const DragonflyOracle& o, Agreement& vs_bfs, Agreement& vs_min) {
  q.routing = DragonflyRouting::valiant;
  auto net = make_dragonfly(q);
  SimTime min_seen = SimTime::infinity();
  const int per_group = q.p * q.a;
  for (int s = 0; s < o.N; ++s)
    for (int d = 0; d < o.N; ++d) {
      const int gs = s / per_group, gd = d / per_group;
      const auto& ms = o.dmin[static_cast<size_t>(s)];
      for (uint64_t key : {uint64_t{0}, uint64_t{1}, uint64_t{0xdeadbeef}}) {
        Route r = net->route_keyed(s, d, key);
        if (key == 0) {
          Route r0 = net->route(s, d);
          EXPECT_EQ(r0.hops, r.hops);
          EXPECT_EQ(r0.latency, r.latency);
        }
        Route again = net->route_keyed(s, d, key);  // deterministic
        EXPECT_EQ(again.latency, r.latency);
        EXPECT_EQ(again.hops, r.hops);
        if (s == d) {
          EXPECT_EQ(r.hops, 0);
          continue;
        }
        min_seen = min(min_seen, r.latency);
        const int gi = dragonfly_valiant_group(s, d, key, gs, gd, q.g);
        LinkCounts c = decode(r.latency);
        EXPECT_EQ(c.terminal, 2);
        if (gs == gd || q.g <= 2) {  // minimal
          EXPECT_EQ(gi, -1);
          EXPECT_EQ(r.hops, ms[static_cast<size_t>(d)]);
          EXPECT_EQ(c.global, gs == gd ? 0 : 1);
        } else {
          ASSERT_TRUE(gi >= 0 && gi < q.g && gi != gs && gi != gd) << gi;
          // Minimal to the router X of group gi where the link from gs arrives, then minimal to dst:
          // with x an endpoint on X, hops = min(s, x) + min(x, d) - 2 (x's own two terminal links).
          const int x = o.owner[static_cast<size_t>(gi)][static_cast<size_t>(gs)] * q.p;
          const int h1 = ms[static_cast<size_t>(x)], h2 = o.dmin[static_cast<size_t>(x)][static_cast<size_t>(d)];
          ASSERT_EQ(r.hops, h1 + h2 - 2) << net->describe() << " " << s << "->" << d << " via group " << gi;
          EXPECT_EQ(c.global, 2);
          EXPECT_EQ(c.local, r.hops - 4);
          EXPECT_EQ(r.min_bandwidth_bps, expected_bw(q, c));
          ++vs_min.checked;
          if (r.hops == ms[static_cast<size_t>(d)]) ++vs_min.equal;
          ++vs_bfs.checked;
          if (r.hops == o.dall[static_cast<size_t>(s)][static_cast<size_t>(d)]) ++vs_bfs.equal;
        }
      }
    }
  if (o.N > 1) {
    EXPECT_LE(net->min_latency(), min_seen) << net->describe();
  }
  EXPECT_GT(net->min_latency(), SimTime::zero());
}

TEST(Dragonfly, MinimalAndValiantMatchOracleOnRandomConfigs) {
  std::mt19937 rng(20240611);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Agreement min_bfs, val_bfs, val_min;
  int configs = 0, grids = 0, partial_ports = 0;
  const uint64_t bws[3] = {10'000'000'000ull, 40'000'000'000ull, 100'000'000'000ull};
  for (int iter = 0; iter < 400; ++iter) {
    const int p = pick(1, 4), a = pick(1, 6), h = pick(1, 4), g = pick(2, a * h + 1);
    std::vector<int> divisors{0};
    for (int c = 1; c < a; ++c)
      if (a % c == 0) divisors.push_back(c);
    const int cols = divisors[static_cast<size_t>(pick(0, static_cast<int>(divisors.size()) - 1))];
    int perm[3] = {0, 1, 2};
    std::shuffle(perm, perm + 3, rng);
    DragonflyParams q = df_params(p, a, h, g, cols, DragonflyRouting::minimal, bws[perm[0]], bws[perm[1]],
                                  bws[perm[2]]);
    DragonflyOracle o = build_dragonfly(q);
    check_minimal(q, o, min_bfs);
    check_valiant(q, o, val_bfs, val_min);
    if (HasFatalFailure()) return;
    ++configs;
    grids += cols > 0;
    partial_ports += g - 1 < a * h;
  }
  std::printf("[dragonfly] %d configs (%d with 2-D groups, %d with unused global ports)\n", configs, grids,
              partial_ports);
  std::printf("[dragonfly] minimal == shortest path with <= 1 global link: all %ld pairs\n", min_bfs.checked);
  std::printf("[dragonfly] minimal == unrestricted BFS distance: %ld / %ld = %.4f\n", min_bfs.equal,
              min_bfs.checked, min_bfs.rate());
  std::printf("[dragonfly] Valiant == unrestricted BFS distance: %ld / %ld = %.4f (inter-group pairs, g >= 3, 3 keys)\n",
              val_bfs.equal, val_bfs.checked, val_bfs.rate());
  std::printf("[dragonfly] Valiant == minimal hops on inter-group routes: %ld / %ld = %.4f\n", val_min.equal,
              val_min.checked, val_min.rate());
  EXPECT_GT(min_bfs.rate(), 0.9);
}

// Hand-checked cases, a=2 h=1 g=3 p=1: group i has router 0 (port 0) and router 1 (port 1).
// Group 0: port 0 -> group 1, port 1 -> group 2. Group 1: port 0 -> group 0, port 1 -> group 2.
// Group 2: port 0 -> group 0, port 1 -> group 1. Endpoint e = router e.
TEST(Dragonfly, TableOfSmallCases) {
  DragonflyParams q = df_params(1, 2, 1, 3, 0, DragonflyRouting::minimal, 1, 1, 1);
  auto net = make_dragonfly(q);
  struct Case {
    int src, dst, hops, local, global;
  } cases[] = {
      {0, 0, 0, 0, 0},  // same endpoint
      {0, 1, 3, 1, 0},  // same group: one local link
      {0, 2, 3, 0, 1},  // g0r0 -global-> g1r0
      {0, 4, 4, 1, 1},  // g0r0 -local-> g0r1 -global-> g2r0
      {0, 5, 5, 2, 1},  // g0r0 -> g0r1 -> g2r0 -> g2r1
      {1, 4, 3, 0, 1},  // g0r1 -global-> g2r0
      {3, 5, 3, 0, 1},  // g1r1 -global-> g2r1
      {2, 5, 4, 1, 1},  // g1r0 -local-> g1r1 -global-> g2r1
  };
  for (const Case& c : cases) {
    Route r = net->route(c.src, c.dst);
    EXPECT_EQ(r.hops, c.hops) << c.src << "->" << c.dst;
    if (c.src == c.dst) continue;
    LinkCounts lc = decode(r.latency);
    EXPECT_EQ(lc.local, c.local) << c.src << "->" << c.dst;
    EXPECT_EQ(lc.global, c.global) << c.src << "->" << c.dst;
  }
}

TEST(Dragonfly, LatencyAndBandwidthClosedForm) {
  // p=2 a=4 h=2 g=9 (= a*h+1: every port used). Terminal 50 ns / 100 Gbps, local 80 ns / 40 Gbps,
  // global 300 ns / 25 Gbps.
  DragonflyParams q = df_params(2, 4, 2, 9, 0, DragonflyRouting::minimal, 100'000'000'000ull,
                                40'000'000'000ull, 25'000'000'000ull);
  q.terminal_latency = SimTime::from_ns(50);
  q.local_latency = SimTime::from_ns(80);
  q.global_latency = SimTime::from_ns(300);
  auto net = make_dragonfly(q);
  EXPECT_EQ(net->endpoints(), 72);
  // Same router (endpoints 0, 1): 2 terminal links.
  EXPECT_EQ(net->route(0, 1).latency, SimTime::from_ns(100));
  EXPECT_EQ(net->route(0, 1).min_bandwidth_bps, 100'000'000'000u);
  // Same group, other router: + 1 local.
  EXPECT_EQ(net->route(0, 2).latency, SimTime::from_ns(180));
  EXPECT_EQ(net->route(0, 2).min_bandwidth_bps, 40'000'000'000u);
  // Group 0 router 0 owns ports 0, 1 -> groups 1, 2. Group 1's port 0 (router 0) leads to group 0.
  // Endpoint 0 -> endpoint 8 (group 1 router 0): terminal + global + terminal.
  EXPECT_EQ(net->route(0, 8).latency, SimTime::from_ns(400));
  EXPECT_EQ(net->route(0, 8).hops, 3);
  EXPECT_EQ(net->route(0, 8).min_bandwidth_bps, 25'000'000'000u);
  // Endpoint 0 -> endpoint 70 (group 8 router 3): group 0's port 7 (router 3) -> group 8; group 8's port 0
  // (router 0) -> group 0: local + global + local.
  EXPECT_EQ(net->route(0, 70).latency, SimTime::from_ns(100 + 80 + 300 + 80));
  EXPECT_EQ(net->route(0, 70).hops, 5);
  EXPECT_EQ(net->min_latency(), SimTime::from_ns(100));
  net->set_overheads({SimTime::from_ns(7), SimTime::from_ns(3)});
  EXPECT_EQ(net->min_latency(), SimTime::from_ns(110));
  // L = route latency + 8 * bytes / b_min + overheads; 1000 bytes at 25 Gbps = 320 ns.
  EXPECT_EQ(net->message_latency(0, 70, 1000), SimTime::from_ns(560 + 320 + 10));
  EXPECT_EQ(net->message_latency(0, 70, 1000, 42), net->message_latency(0, 70, 1000));
  const std::string d = net->describe();
  EXPECT_NE(d.find("dragonfly"), std::string::npos) << d;
  EXPECT_NE(d.find("minimal"), std::string::npos) << d;
  EXPECT_EQ(d.find('\n'), std::string::npos) << d;
}

TEST(Dragonfly, ValiantKeysSpreadOverGroups) {
  // p=1 a=4 h=5 g=21: 19 candidate intermediate groups for a message from group 0 to group 20.
  DragonflyParams q = df_params(1, 4, 5, 21, 0, DragonflyRouting::valiant, 1, 1, 1);
  auto net = make_dragonfly(q);
  const int src = 1, dst = 83;  // groups 0 and 20
  std::vector<int> count(21, 0);
  std::vector<int> hop_values;
  const int keys = 19 * 200;
  for (int key = 0; key < keys; ++key) {
    int gi = dragonfly_valiant_group(src, dst, static_cast<uint64_t>(key), 0, 20, 21);
    ASSERT_TRUE(gi >= 1 && gi <= 19) << gi;
    ++count[static_cast<size_t>(gi)];
    Route r = net->route_keyed(src, dst, static_cast<uint64_t>(key));
    EXPECT_EQ(decode(r.latency).global, 2);
    hop_values.push_back(r.hops);
  }
  for (int gi = 1; gi <= 19; ++gi) {
    EXPECT_GT(count[static_cast<size_t>(gi)], 120) << "group " << gi;
    EXPECT_LT(count[static_cast<size_t>(gi)], 280) << "group " << gi;
  }
  // Different keys give different routes (not just different groups).
  std::sort(hop_values.begin(), hop_values.end());
  EXPECT_LT(hop_values.front(), hop_values.back());
  // With a fixed key, different (src, dst) pairs also spread over the groups: every pair from groups
  // 0..19 to group 20 with key 7 (each group 0..19 is a candidate for the pairs that do not start in it).
  std::vector<int> by_pair(21, 0);
  for (int s = 0; s < 80; ++s)
    for (int d = 80; d < 84; ++d) ++by_pair[static_cast<size_t>(dragonfly_valiant_group(s, d, 7, s / 4, 20, 21))];
  for (int gi = 0; gi <= 19; ++gi) EXPECT_GT(by_pair[static_cast<size_t>(gi)], 0) << "group " << gi;
  EXPECT_EQ(by_pair[20], 0);
  // g <= 2 and intra-group messages route minimally.
  EXPECT_EQ(dragonfly_valiant_group(0, 5, 1, 0, 1, 2), -1);
  EXPECT_EQ(dragonfly_valiant_group(0, 3, 1, 0, 0, 21), -1);
  // message_latency with a key uses route_keyed.
  Route r = net->route_keyed(src, dst, 5);
  EXPECT_EQ(net->message_latency(src, dst, 64, 5), r.latency + Network::transfer_time(64, r.min_bandwidth_bps));
  EXPECT_NE(net->describe().find("Valiant"), std::string::npos);
}

TEST(Dragonfly, AriesPresetMatchesOracle) {
  for (DragonflyRouting routing : {DragonflyRouting::minimal, DragonflyRouting::valiant}) {
    DragonflyParams q = aries_dragonfly_params(3, routing);
    EXPECT_EQ(q.p, 4);
    EXPECT_EQ(q.a, 96);
    EXPECT_EQ(q.local_columns, 16);
    auto net = make_dragonfly(q);
    EXPECT_EQ(net->endpoints(), 4 * 96 * 3);
    EXPECT_NE(net->describe().find("6x16 grid"), std::string::npos) << net->describe();
    // Hop bounds of 000 §V-B, counting router-to-router links only (hops - 2 terminal links):
    // intra-group minimal <= 2, inter-group minimal <= 5; our Valiant (intermediate group only) <= 8.
    const int n = net->endpoints();
    int worst_intra = 0, worst_inter = 0;
    for (int s = 0; s < n; s += 7)
      for (int d = 0; d < n; ++d) {
        Route r = net->route(s, d);
        if (s == d) continue;
        (s / 384 == d / 384 ? worst_intra : worst_inter) =
            std::max(s / 384 == d / 384 ? worst_intra : worst_inter, r.hops - 2);
      }
    EXPECT_EQ(worst_intra, 2);
    // g = 3: the intermediate group's two used ports sit on one router, so Valiant adds no local link there.
    EXPECT_EQ(worst_inter, routing == DragonflyRouting::minimal ? 5 : 6);
  }
  // The explicit graph for a 3-group Aries (1152 endpoints): minimal hops == BFS with <= 1 global link.
  DragonflyParams q = aries_dragonfly_params(3, DragonflyRouting::minimal);
  q.terminal_latency = SimTime::from_ps(kTerminalPs);
  q.local_latency = SimTime::from_ps(kLocalPs);
  q.global_latency = SimTime::from_ps(kGlobalPs);
  DragonflyOracle o = build_dragonfly(q);
  Agreement agree;
  check_minimal(q, o, agree);
  std::printf("[aries g=3] minimal == unrestricted BFS distance: %ld / %ld = %.4f\n", agree.equal, agree.checked,
              agree.rate());
  // Full-size Trinity-like figures (241 groups) build and route.
  // Valiant there reaches the bound of 2 + 2 + 2 local and 2 global links (sampled pairs and keys).
  auto big = make_dragonfly(aries_dragonfly_params(241, DragonflyRouting::valiant));
  EXPECT_EQ(big->endpoints(), 4 * 96 * 241);
  std::mt19937_64 rng(7);
  int worst = 0;
  for (int i = 0; i < 200'000; ++i) {
    const int s = static_cast<int>(rng() % 92544), d = static_cast<int>(rng() % 92544);
    Route r = big->route_keyed(s, d, rng());
    if (s / 384 != d / 384) {  // two terminal and two global links at least
      EXPECT_GE(r.hops, 4);
    }
    EXPECT_EQ(r.latency, SimTime::from_ns(100 * r.hops));  // every Aries link is 100 ns
    worst = std::max(worst, r.hops - 2);
  }
  EXPECT_EQ(worst, 8);
  EXPECT_THROW(aries_dragonfly_params(242, DragonflyRouting::minimal), std::invalid_argument);
  EXPECT_THROW(aries_dragonfly_params(0, DragonflyRouting::minimal), std::invalid_argument);
}

void expect_invalid(const DragonflyParams& q, const std::string& needle) {
  try {
    make_dragonfly(q);
    ADD_FAILURE() << "no exception; wanted one mentioning '" << needle << "'";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(Dragonfly, InvalidParametersThrow) {
  const DragonflyParams ok = df_params(2, 4, 2, 9, 0, DragonflyRouting::minimal, 1, 1, 1);
  EXPECT_NO_THROW(make_dragonfly(ok));
  DragonflyParams q = ok;
  q.p = 0;
  expect_invalid(q, "p (endpoints per router)");
  q = ok;
  q.a = 0;
  expect_invalid(q, "a (routers per group)");
  q = ok;
  q.h = -1;
  expect_invalid(q, "h (global links per router)");
  q = ok;
  q.g = 0;
  expect_invalid(q, "g (groups)");
  q = ok;
  q.g = 10;
  expect_invalid(q, "at most a*h + 1 = 9 groups");
  q = ok;
  q.local_columns = 3;
  expect_invalid(q, "local_columns");
  q = ok;
  q.local_columns = 5;
  expect_invalid(q, "local_columns");
  q = ok;
  q.terminal_latency = SimTime::zero();
  expect_invalid(q, "terminal link latency");
  q = ok;
  q.local_bandwidth_bps = 0;
  expect_invalid(q, "local link bandwidth");
  q = ok;
  q.global_latency = SimTime::infinity();
  expect_invalid(q, "global link latency");
  q = ok;
  q.p = 10000;
  q.a = 1000;
  q.h = 1000;
  q.g = 1000;
  expect_invalid(q, "endpoints is more than");
  q = ok;
  q.global_latency = SimTime::from_ps(INT64_MAX - 10);
  expect_invalid(q, "overflows virtual time");
  q = ok;
  q.g = 1;  // a single group is a valid (if small) dragonfly
  EXPECT_EQ(make_dragonfly(q)->endpoints(), 8);
  auto net = make_dragonfly(ok);
  EXPECT_THROW(net->route(-1, 0), std::out_of_range);
  EXPECT_THROW(net->route(0, 72), std::out_of_range);
  EXPECT_THROW(net->route_keyed(72, 0, 3), std::out_of_range);
}

// ---------------------------------------------------------------------------------------------------------
// Fat tree: the explicit m-port n-tree of Lin, Chung and Huang, from the definition.

struct FatTreeOracle {
  int endpoints = 0, switches = 0;
  Graph graph{0};
};

FatTreeOracle build_fat_tree(int m, int n) {
  const int k = m / 2;
  // Switch labels: level l, digits w0..w(n-2); level 0: all digits in 0..k-1; level >= 1: w0 in 0..m-1.
  struct Sw {
    int level;
    std::vector<int> w;
  };
  std::vector<Sw> sw;
  for (int l = 0; l < n; ++l) {
    std::vector<int> w(static_cast<size_t>(n - 1), 0);
    while (true) {
      sw.push_back({l, w});
      int i = n - 2;
      for (; i >= 0; --i) {
        int radix = (i == 0 && l > 0) ? m : k;
        if (++w[static_cast<size_t>(i)] < radix) break;
        w[static_cast<size_t>(i)] = 0;
      }
      if (i < 0) break;
    }
  }
  // Endpoints: digits p0 (0..m-1), p1..p(n-1) (0..k-1), numbered in mixed radix with p0 most significant.
  std::vector<std::vector<int>> ep;
  {
    std::vector<int> p(static_cast<size_t>(n), 0);
    while (true) {
      ep.push_back(p);
      int i = n - 1;
      for (; i >= 0; --i) {
        int radix = i == 0 ? m : k;
        if (++p[static_cast<size_t>(i)] < radix) break;
        p[static_cast<size_t>(i)] = 0;
      }
      if (i < 0) break;
    }
  }
  FatTreeOracle o;
  o.endpoints = static_cast<int>(ep.size());
  o.switches = static_cast<int>(sw.size());
  o.graph = Graph(o.endpoints + o.switches);
  std::vector<int> up(sw.size(), 0), down(sw.size(), 0);
  for (size_t x = 0; x < sw.size(); ++x)
    for (size_t y = 0; y < sw.size(); ++y) {
      if (sw[y].level != sw[x].level + 1) continue;
      const int l = sw[x].level;
      bool linked = true;
      for (int i = 0; i < n - 1; ++i)
        if (i != l && sw[x].w[static_cast<size_t>(i)] != sw[y].w[static_cast<size_t>(i)]) linked = false;
      if (!linked) continue;
      o.graph.add_link(o.endpoints + static_cast<int>(x), o.endpoints + static_cast<int>(y));
      ++down[x];
      ++up[y];
    }
  for (int e = 0; e < o.endpoints; ++e) {
    std::vector<int> leaf(ep[static_cast<size_t>(e)].begin(), ep[static_cast<size_t>(e)].end() - 1);
    int found = 0;
    for (size_t x = 0; x < sw.size(); ++x)
      if (sw[x].level == n - 1 && sw[x].w == leaf) {
        o.graph.add_link(e, o.endpoints + static_cast<int>(x));
        ++down[x];
        ++found;
      }
    EXPECT_EQ(found, 1);
  }
  // Every switch uses exactly m ports: top switches m down; the others k up and k down.
  for (size_t x = 0; x < sw.size(); ++x) {
    EXPECT_EQ(up[x] + down[x], m) << "switch level " << sw[x].level;
    EXPECT_EQ(up[x], sw[x].level == 0 ? 0 : k);
  }
  return o;
}

TEST(FatTree, HopsMatchBfsOnExplicitGraph) {
  long pairs = 0;
  for (int m : {2, 4, 6, 8})
    for (int n : {1, 2, 3, 4}) {
      if (m == 8 && n == 4) continue;  // 1024 endpoints: fine, but not needed
      const SimTime lat = SimTime::from_ns(700);
      auto net = make_fat_tree(m, n, lat, 56'000'000'000ull);
      FatTreeOracle o = build_fat_tree(m, n);
      int k = m / 2, kn = 1;
      for (int i = 0; i < n; ++i) kn *= k;
      ASSERT_EQ(o.endpoints, 2 * kn);                    // 2 (m/2)^n
      ASSERT_EQ(o.switches, (2 * n - 1) * (kn / k));     // (2n-1) (m/2)^(n-1)
      ASSERT_EQ(net->endpoints(), o.endpoints);
      EXPECT_NE(net->describe().find(std::to_string(o.switches) + (o.switches == 1 ? " switch" : " switches")),
                std::string::npos)
          << net->describe();
      SimTime min_seen = SimTime::infinity();
      for (int s = 0; s < o.endpoints; ++s) {
        std::vector<int> d = o.graph.bfs(s);
        for (int t = 0; t < o.endpoints; ++t) {
          Route r = net->route(s, t);
          ASSERT_EQ(r.hops, d[static_cast<size_t>(t)]) << m << "-port " << n << "-tree " << s << "->" << t;
          EXPECT_EQ(r.latency, SimTime::from_ps(700'000 * r.hops));
          EXPECT_EQ(r.min_bandwidth_bps, 56'000'000'000u);
          if (s != t) min_seen = min(min_seen, r.latency);
          ++pairs;
        }
      }
      if (o.endpoints > 1) {
        EXPECT_EQ(net->min_latency(), min_seen) << m << "-port " << n << "-tree";
      }
    }
  std::printf("[fat tree] %ld pairs: model hops == BFS distance for all\n", pairs);
}

TEST(FatTree, TableOfSmallCases) {
  // 4-port 3-tree (000 §VI-B: 16 endpoints, 20 switches). k = 2; endpoint digits (p0 in 0..3, p1, p2 in 0..1).
  auto net = make_fat_tree(4, 3, SimTime::from_ns(700), 56'000'000'000ull);
  EXPECT_EQ(net->endpoints(), 16);
  EXPECT_NE(net->describe().find("20 switches"), std::string::npos) << net->describe();
  struct Case {
    int src, dst, hops;
  } cases[] = {
      {0, 0, 0},
      {0, 1, 2},    // same leaf switch: differ in the last digit
      {0, 2, 4},    // same pod (p0), differ in p1
      {0, 3, 4},
      {0, 4, 6},    // different pods: over the top
      {5, 15, 6},
      {12, 14, 4},
      {14, 15, 2},
  };
  for (const Case& c : cases) EXPECT_EQ(net->route(c.src, c.dst).hops, c.hops) << c.src << "->" << c.dst;
  EXPECT_EQ(net->route(0, 4).latency, SimTime::from_ns(4200));
  EXPECT_EQ(net->min_latency(), SimTime::from_ns(1400));
  EXPECT_EQ(net->message_latency(0, 4, 7000), SimTime::from_ns(4200 + 1000));  // 56000 bits at 56 Gbps
  // m = 2: two endpoints joined through a chain of 2n - 1 switches.
  auto chain = make_fat_tree(2, 3, SimTime::from_ns(1), 1);
  EXPECT_EQ(chain->endpoints(), 2);
  EXPECT_EQ(chain->route(0, 1).hops, 6);
  EXPECT_EQ(chain->min_latency(), SimTime::from_ns(6));
}

TEST(FatTree, InvalidParametersThrow) {
  const SimTime lat = SimTime::from_ns(700);
  auto expect_msg = [&](int m, int n, SimTime l, uint64_t bw, const std::string& needle) {
    try {
      make_fat_tree(m, n, l, bw);
      ADD_FAILURE() << "no exception for m=" << m << " n=" << n;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_msg(5, 2, lat, 1, "must be even");
  expect_msg(0, 2, lat, 1, "must be even");
  expect_msg(-4, 2, lat, 1, "must be even");
  expect_msg(4, 0, lat, 1, "n (tree levels)");
  expect_msg(4, 33, lat, 1, "n (tree levels)");
  expect_msg(64, 8, lat, 1, "endpoints");
  expect_msg(4, 2, SimTime::zero(), 1, "latency");
  expect_msg(4, 2, SimTime::infinity(), 1, "latency");
  expect_msg(4, 2, lat, 0, "bandwidth");
  expect_msg(4, 2, SimTime::from_ps(INT64_MAX / 3), 1, "too large");
  auto net = make_fat_tree(4, 2, lat, 1);
  EXPECT_THROW(net->route(0, 8), std::out_of_range);
  EXPECT_THROW(net->route(-1, 0), std::out_of_range);
}

// The keyed route defaults to route() for topologies that do not override it.
TEST(NetworkKeyedRoute, DefaultsToRoute) {
  auto star = make_star(8, SimTime::from_ns(25), 1'000'000'000);
  auto fat = make_fat_tree(4, 2, SimTime::from_ns(25), 1'000'000'000);
  for (const Network* net : {star.get(), fat.get()})
    for (int s = 0; s < 8; ++s)
      for (int d = 0; d < 8; ++d) {
        EXPECT_EQ(net->route_keyed(s, d, 12345).hops, net->route(s, d).hops);
        EXPECT_EQ(net->message_latency(s, d, 100, 9), net->message_latency(s, d, 100));
      }
}

// The full Aries and the 36-port 3-tree whose route_keyed() cost bench/route_cost.cpp times (timing
// belongs in bench/), checked instead: a keyed route is a pure function of (src, dst, key) (the same answer
// asked twice, in another order: the simulator asks once per message and may ask again), and the 3-tree
// at full size (11,664 endpoints) routes every destination of sampled sources at the BFS distance.
TEST(FullSizeRoutes, KeyedRoutesRepeatAndTheFatTreeMatchesBfs) {
  auto aries = make_dragonfly(aries_dragonfly_params(241, DragonflyRouting::valiant));
  auto fat = make_fat_tree(36, 3, SimTime::from_ns(700), 56'000'000'000ull);
  for (const Network* net : {aries.get(), fat.get()}) {
    const int n = net->endpoints();
    uint64_t x = 88172645463325252ull;
    std::vector<std::tuple<int, int, uint64_t, Route>> first;
    for (int i = 0; i < 100'000; ++i) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      const int s = static_cast<int>(x % static_cast<uint64_t>(n)), d = static_cast<int>((x >> 32) % static_cast<uint64_t>(n));
      first.emplace_back(s, d, static_cast<uint64_t>(i), net->route_keyed(s, d, static_cast<uint64_t>(i)));
    }
    for (size_t i = first.size(); i-- > 0;) {
      const auto& [s, d, key, r] = first[i];
      const Route again = net->route_keyed(s, d, key);
      ASSERT_EQ(again.hops, r.hops) << net->describe() << ": " << s << " -> " << d << " key " << key;
      ASSERT_EQ(again.latency, r.latency) << net->describe() << ": " << s << " -> " << d << " key " << key;
      ASSERT_EQ(again.min_bandwidth_bps, r.min_bandwidth_bps) << net->describe();
    }
  }
  const FatTreeOracle o = build_fat_tree(36, 3);
  ASSERT_EQ(fat->endpoints(), o.endpoints);
  std::mt19937 rng(11);
  for (int i = 0; i < 16; ++i) {
    const int s = static_cast<int>(rng() % static_cast<unsigned>(o.endpoints));
    const std::vector<int> d = o.graph.bfs(s);
    for (int t = 0; t < o.endpoints; ++t)
      ASSERT_EQ(fat->route_keyed(s, t, static_cast<uint64_t>(t)).hops, d[static_cast<size_t>(t)]) << s << " -> " << t;
  }
}

}  // namespace
}  // namespace xsim::net

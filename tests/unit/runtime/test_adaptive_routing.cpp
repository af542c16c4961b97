// Unit tests for adaptive routing under the links model (Network::route_links_adaptive, decided by
// LinkContention when it places a flow; docs/network-model.md "Adaptive routing"): UGAL-L and UGAL-G on a
// dragonfly, Valiant per message, a fat tree's adaptive up ports. Each delay in closed form (comments).
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <vector>

#include "link_contention.hpp"
#include "xsim/netmodel/dragonfly.hpp"
#include "xsim/netmodel/fat_tree.hpp"
#include "xsim/netmodel/network.hpp"

namespace xsim {
namespace {

const SimTime kLink = SimTime::from_ns(1000);
constexpr uint64_t kGbps = 1'000'000'000;
constexpr uint64_t kMiB = 1 << 20;
const int64_t X = net::Network::transfer_time(kMiB, kGbps).ps();  // 8,388.608 us
const int64_t us = 1'000'000;

// p = 2 endpoints per router, a = 2 routers per group, h = 1, g = 3 groups, every link 1 us (global links
// `glat`), 1 Gbps. Router r holds endpoints 2r, 2r + 1; group G routers 2G, 2G + 1. Group 0's router 0 holds
// the global link to group 1, router 1 the one to group 2; group 1's router 2 leads to group 0, router 3 to
// group 2; group 2's router 4 to group 0, router 5 to group 1.
std::unique_ptr<net::Network> dragonfly(net::DragonflyRouting routing, SimTime glat = kLink) {
  net::DragonflyParams q;
  q.p = 2, q.a = 2, q.h = 1, q.g = 3;
  q.routing = routing;
  q.terminal_latency = q.local_latency = kLink;
  q.global_latency = glat;
  q.terminal_bandwidth_bps = q.local_bandwidth_bps = q.global_bandwidth_bps = kGbps;
  return net::make_dragonfly(q);
}

// A 1 MiB flow src -> dst (nodes = ranks) leaving at `leave`, timed by the minimal route of `net`.
LinkContention::Flow flow(const net::Network& net, int src, int dst, int64_t leave, uint64_t seq) {
  SimTime x;
  const int64_t arrive = leave + net.route_latency(net.route(src, dst), kMiB, &x).ps();
  return {leave, seq, kMiB, src, dst, src, dst, arrive};
}

// Flows A = 0 -> 4 and B = 1 -> 5 leave together from router 0 (group 0) for router 2 (group 1). Minimal,
// both cross the global link 0 -> 1 (3 links: terminal, global, terminal), A first (sender 0): B's head
// reaches it at 1 us, when A holds it until 1 us + X, and waits X.
SimTime second_flow_delay(const net::Network& net) {
  LinkContention lc(net, 0, net.endpoints());
  lc.add_local(flow(net, 0, 4, 0, 0), false);
  lc.add_local(flow(net, 1, 5, 0, 0), false);
  lc.time_upto(SimTime::infinity());
  EXPECT_EQ(lc.take_delay(0, 0), SimTime::zero());
  return lc.take_delay(1, 0);
}

TEST(AdaptiveRouting, MinimalRoutingWaitsForTheSharedGlobalLink) {
  auto net = dragonfly(net::DragonflyRouting::minimal);
  EXPECT_EQ(net->route_rule(), net::RouteRule::fixed);
  EXPECT_EQ(second_flow_delay(*net).ps(), X);
}

TEST(AdaptiveRouting, UgalTakesTheValiantRouteWhenTheMinimalQueueIsLonger) {
  // UGAL-L: the first link out of router 0 is that global link: q_min = X, H_min = 3. The only Valiant
  // route (through group 2) leaves router 0 by its idle local link 0 -> 1: q_val = 0, so B takes it:
  // terminal, local, global 0 -> 2, local 4 -> 5, global 2 -> 1, local 3 -> 2, terminal: 7 links of 1 us,
  // no wait. It arrives at 7 us + X instead of 3 us + X: late by the 4 us of its longer route. UGAL-G, which
  // sees every link, decides the same here.
  for (auto r : {net::DragonflyRouting::ugal_local, net::DragonflyRouting::ugal_global}) {
    auto net = dragonfly(r);
    EXPECT_EQ(net->route_rule(), net::RouteRule::adaptive);
    EXPECT_EQ(second_flow_delay(*net).ps(), 4 * us);
  }
}

TEST(AdaptiveRouting, OnIdleLinksUgalIsMinimal) {
  // One flow alone: q_min = q_val = 0, minimal (3 links), no delay.
  for (auto r : {net::DragonflyRouting::ugal_local, net::DragonflyRouting::ugal_global}) {
    auto net = dragonfly(r);
    LinkContention lc(*net, 0, net->endpoints());
    lc.add_local(flow(*net, 1, 5, 0, 0), false);
    lc.time_upto(SimTime::infinity());
    EXPECT_EQ(lc.take_delay(1, 0), SimTime::zero());
    EXPECT_EQ(lc.flows(), 1u);
  }
}

TEST(AdaptiveRouting, UgalLocalDoesNotSeeAGlobalLinkOfAnotherRouter) {
  // Global links 2 us. A = 0 -> 4 holds the global link 0 -> 1 over [1 us, 1 us + X]. B = 2 -> 6 (router 1,
  // group 0, to router 3, group 1): minimal is terminal, local 1 -> 0, global 0 -> 1, local 2 -> 3,
  // terminal (6 us + X alone); its head reaches the global link at 2 us and waits X - 1 us. The Valiant
  // route leaves router 1 by its own global link to group 2: terminal, global 0 -> 2, local 4 -> 5, global
  // 2 -> 1, terminal (7 us + X alone).
  // UGAL-L looks at router 1's first link out: the idle local link 1 -> 0 (q_min = 0): minimal, late X - 1 us.
  // UGAL-G sees the global link's queue (q_min = X - 1 us > 0 = q_val): Valiant, late by 7 - 6 = 1 us.
  const SimTime glat = SimTime::from_ns(2000);
  const std::map<net::DragonflyRouting, int64_t> late = {{net::DragonflyRouting::ugal_local, X - us},
                                                         {net::DragonflyRouting::ugal_global, us}};
  for (const auto& [r, want] : late) {
    auto net = dragonfly(r, glat);
    LinkContention lc(*net, 0, net->endpoints());
    lc.add_local(flow(*net, 0, 4, 0, 0), false);
    lc.add_local(flow(*net, 2, 6, 0, 0), false);
    lc.time_upto(SimTime::infinity());
    EXPECT_EQ(lc.take_delay(0, 0), SimTime::zero());
    EXPECT_EQ(lc.take_delay(2, 0).ps(), want);
  }
}

TEST(AdaptiveRouting, UgalWeighsQueuesByHops) {
  // Three flows from router 0 to group 1: A = 0 -> 4, B = 1 -> 5 (both as above: B goes Valiant, holding
  // router 0's local link 0 -> 1 over [1 us, 1 us + X]), then C = 0 -> 4 leaving 1 ps later, which first
  // waits for A at its terminal link 0 (X - 1 ps, on both routes). UGAL-L at router 0's first link out
  // (head 1 us + 1 ps): minimal, the global link 0 -> 1, free from 1 us + X: q_min = X - 1 ps, H = 3;
  // Valiant, the local link 0 -> 1, the same q_val = X - 1 ps, H = 7: 3 q < 7 q, minimal. C waits X - 1 ps
  // at each of its links behind A (the longest wait, not the sum): late X - 1 ps.
  auto net = dragonfly(net::DragonflyRouting::ugal_local);
  LinkContention lc(*net, 0, net->endpoints());
  lc.add_local(flow(*net, 0, 4, 0, 0), false);
  lc.add_local(flow(*net, 1, 5, 0, 0), false);
  lc.add_local(flow(*net, 0, 4, 1, 1), false);
  lc.time_upto(SimTime::infinity());
  EXPECT_EQ(lc.take_delay(1, 0).ps(), 4 * us);
  EXPECT_EQ(lc.take_delay(0, 1).ps(), X - 1);
}

TEST(AdaptiveRouting, ValiantTakesAnIntermediateGroupPerMessage) {
  // routing=valiant under the links model: route_links_adaptive routes each message through the
  // intermediate group of its own key (dragonfly_valiant_group), not the pair's (key 0).
  net::DragonflyParams q;
  q.p = 1, q.a = 4, q.h = 2, q.g = 9;
  q.routing = net::DragonflyRouting::valiant;
  q.terminal_latency = q.local_latency = q.global_latency = kLink;
  q.terminal_bandwidth_bps = q.local_bandwidth_bps = q.global_bandwidth_bps = kGbps;
  auto net = net::make_dragonfly(q);
  EXPECT_EQ(net->route_rule(), net::RouteRule::per_message);
  struct None final : net::LinkState {
    int64_t wait(uint64_t, int64_t, int64_t) const override { return 0; }
  } idle;
  int differs = 0;
  for (uint64_t key = 1; key <= 16; ++key) {
    std::vector<net::Link> a, b;
    ASSERT_TRUE(net->route_links_adaptive(0, 20, key, kMiB, 0, idle, a));
    ASSERT_TRUE(net->route_links(0, 20, key, b));
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].id, b[i].id);
    differs += net::dragonfly_valiant_group(0, 20, key, 0, 5, 9) != net::dragonfly_valiant_group(0, 20, 0, 0, 5, 9);
  }
  EXPECT_GT(differs, 0);
}

TEST(AdaptiveRouting, FatTreeTakesTheLeastBusyUpPort) {
  // fattree m=4 n=2 (k = 2): endpoints e = 2 p0 + p1 under leaf switch p0; every leaf reaches both top
  // switches. A = 0 -> 2 and B = 1 -> 4 leave together from leaf 0; the static up port is the destination's
  // p1 = 0 for both, so B's head reaches that up link at 1 us while A holds it until 1 us + X: late X.
  // Adaptive: B takes the idle up port 1 (top switch 1, then down to leaf 2): 4 links as well, no wait.
  for (bool adaptive : {false, true}) {
    auto net = net::make_fat_tree(4, 2, kLink, kGbps, adaptive);
    EXPECT_EQ(net->route_rule(), adaptive ? net::RouteRule::adaptive : net::RouteRule::fixed);
    LinkContention lc(*net, 0, net->endpoints());
    lc.add_local(flow(*net, 0, 2, 0, 0), false);
    lc.add_local(flow(*net, 1, 4, 0, 0), false);
    lc.time_upto(SimTime::infinity());
    EXPECT_EQ(lc.take_delay(0, 0), SimTime::zero());
    EXPECT_EQ(lc.take_delay(1, 0).ps(), adaptive ? 0 : X);
  }
}

TEST(AdaptiveRouting, FatTreeAdaptiveIsStaticOnIdleLinks) {
  // route() and route_links() stay the static route; on idle links the adaptive choice is the same.
  auto net = net::make_fat_tree(4, 3, kLink, kGbps, true);
  struct None final : net::LinkState {
    int64_t wait(uint64_t, int64_t, int64_t) const override { return 0; }
  } idle;
  for (int s = 0; s < net->endpoints(); ++s)
    for (int d = 0; d < net->endpoints(); ++d) {
      std::vector<net::Link> a, b;
      ASSERT_TRUE(net->route_links_adaptive(s, d, 0, kMiB, 0, idle, a));
      ASSERT_TRUE(net->route_links(s, d, 0, b));
      ASSERT_EQ(a.size(), b.size());
      for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].id, b[i].id);
    }
}

}  // namespace
}  // namespace xsim

// Unit tests for LinkContention (libxsim/runtime/core/link_contention.hpp), the -xsim-contention links
// model: exact delays of flows that share links (closed forms in the comments), placement in leave order
// with earlier flows never delayed by later ones, idle gaps used by later flows, the delays kept only for
// this process's receivers, flows from other processes, and the refusal of a network without link lists.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "link_contention.hpp"
#include "xsim/netmodel/hierarchy.hpp"
#include "xsim/netmodel/mesh_torus.hpp"
#include "xsim/netmodel/network.hpp"
#include "xsim/netmodel/twisted_torus.hpp"

namespace xsim {
namespace {

const SimTime kLink = SimTime::from_ns(1000);
constexpr uint64_t kGbps = 1'000'000'000;
constexpr uint64_t kMiB = 1 << 20;
const int64_t X = net::Network::transfer_time(kMiB, kGbps).ps();  // 8,388.608 us
const int64_t us = 1'000'000;

// A flow of `bytes` from node (= rank) src to dst, leaving at `leave` ps, with sequence number seq.
LinkContention::Flow flow(int src, int dst, int64_t leave, uint64_t seq, uint64_t bytes = kMiB) {
  return {leave, seq, bytes, src, dst, src, dst};
}

TEST(LinkContention, SharedLinkDelaysTheLaterFlowByOneTransfer) {
  // mesh:4 — 0 -> 2 and 1 -> 3 leave together and share the link 1 -> 2; 0 -> 2 goes first (sender 0).
  // It reaches 1 -> 2 at 1 us and holds it until 1 us + X; 1 -> 3 is there at 0 and waits 1 us + X.
  auto mesh = net::make_mesh({4}, kLink, kGbps);
  LinkContention lc(*mesh, 0, 4);
  lc.add_local(flow(1, 3, 0, 0), false);
  lc.add_local(flow(0, 2, 0, 0), false);
  lc.time_upto(SimTime::infinity());
  EXPECT_EQ(lc.take_delay(0, 0), SimTime::zero());
  EXPECT_EQ(lc.take_delay(1, 0).ps(), us + X);
  EXPECT_EQ(lc.take_delay(1, 0), SimTime::zero());  // taken once
  EXPECT_EQ(lc.flows(), 2u);
  EXPECT_EQ(lc.delayed(), 1u);
  EXPECT_EQ(lc.total_delay().ps(), us + X);
}

TEST(LinkContention, OrderIsLeaveTimeThenSenderThenSequence) {
  // The same two flows, 0 -> 2 leaving 1 ps later: now 1 -> 3 holds 1 -> 2 from 0 to X, and 0 -> 2,
  // reaching it at 1 us + 1 ps, waits until X.
  auto mesh = net::make_mesh({4}, kLink, kGbps);
  LinkContention lc(*mesh, 0, 4);
  lc.add_local(flow(0, 2, 1, 0), false);
  lc.add_local(flow(1, 3, 0, 0), false);
  lc.time_upto(SimTime::infinity());
  EXPECT_EQ(lc.take_delay(1, 0), SimTime::zero());
  EXPECT_EQ(lc.take_delay(0, 0).ps(), X - us - 1);
  // Same leave time and sender: the lower sequence number first.
  LinkContention same(*mesh, 0, 4);
  same.add_local(flow(0, 1, 0, 7), false);
  same.add_local(flow(0, 1, 0, 3), false);
  same.time_upto(SimTime::infinity());
  EXPECT_EQ(same.take_delay(0, 3), SimTime::zero());
  EXPECT_EQ(same.take_delay(0, 7).ps(), X);
}

TEST(LinkContention, ALaterFlowUsesAnIdleGapBeforeAnEarlierFlowsInterval) {
  // ring-like line, mesh:8. Flow A 0 -> 6 leaves at 0 and reaches link 5 -> 6 at 5 us, holding it
  // [5 us, 5 us + x]. Flow B 5 -> 6 (8 bytes: 64 ns) leaves at 1 us and fits in [1 us, 1.064 us] before A's
  // interval: no delay for either. Flow C 5 -> 6 leaves at 5 us + 1 ps: A holds the link; C waits.
  auto mesh = net::make_mesh({8}, kLink, kGbps);
  LinkContention lc(*mesh, 0, 8);
  const int64_t x8 = net::Network::transfer_time(8, kGbps).ps();
  lc.add_local(flow(0, 6, 0, 0, 8), false);
  lc.add_local(flow(5, 6, us, 0, 8), false);
  lc.add_local(flow(5, 6, 5 * us + 1, 1, 8), false);
  lc.time_upto(SimTime::infinity());
  EXPECT_EQ(lc.take_delay(0, 0), SimTime::zero());
  EXPECT_EQ(lc.take_delay(5, 0), SimTime::zero());
  EXPECT_EQ(lc.take_delay(5, 1).ps(), 5 * us + x8 - (5 * us + 1));
}

TEST(LinkContention, TimesOnlyWhatLeftByTheBound) {
  auto mesh = net::make_mesh({4}, kLink, kGbps);
  LinkContention lc(*mesh, 0, 4);
  lc.add_local(flow(0, 2, 0, 0), false);
  lc.add_local(flow(1, 3, 10, 0), false);
  lc.time_upto(SimTime::from_ps(9));
  EXPECT_EQ(lc.flows(), 1u);
  lc.time_upto(SimTime::from_ps(10));
  EXPECT_EQ(lc.flows(), 2u);
}

TEST(LinkContention, KeepsDelaysForLocalReceiversAndTimesRemoteFlows) {
  // This process owns ranks 2..3. The flow 1 -> 3 comes from another process as bytes; 0 -> 2 is local
  // and goes out to the others. Both are timed here; only the local receivers' delays are kept.
  auto mesh = net::make_mesh({4}, kLink, kGbps);
  LinkContention lc(*mesh, 2, 4);
  lc.add_local(flow(0, 2, 0, 0), true);
  ASSERT_EQ(lc.outgoing().size(), 1u);
  const LinkContention::Flow remote = flow(1, 3, 0, 0);
  char bytes[sizeof remote];
  std::memcpy(bytes, &remote, sizeof remote);
  lc.add_remote(bytes, sizeof bytes);
  EXPECT_THROW(lc.add_remote(bytes, sizeof bytes - 1), std::runtime_error);
  lc.time_upto(SimTime::infinity());
  EXPECT_EQ(lc.take_delay(1, 0).ps(), us + X);
  LinkContention other(*mesh, 0, 2);  // the receivers are elsewhere: nothing kept
  other.add_local(flow(0, 2, 0, 0), false);
  other.add_local(flow(1, 3, 0, 0), false);
  other.time_upto(SimTime::infinity());
  EXPECT_EQ(other.delayed(), 0u);
  EXPECT_EQ(other.take_delay(1, 0), SimTime::zero());
}

TEST(LinkContention, ManyFlowsOnOneLinkSerialize) {
  // 8 flows of 1 MiB from 0 to 1, leaving together: the k-th waits k transfers.
  auto mesh = net::make_mesh({2}, kLink, kGbps);
  LinkContention lc(*mesh, 0, 2);
  for (uint64_t k = 0; k < 8; ++k) lc.add_local(flow(0, 1, 0, k), false);
  lc.time_upto(SimTime::infinity());
  for (uint64_t k = 0; k < 8; ++k) EXPECT_EQ(lc.take_delay(0, k).ps(), static_cast<int64_t>(k) * X) << k;
}

TEST(LinkContention, TheEjectionLinkIsTheLastLinkOfEveryRoute) {
  // mesh:8 — 0, 1, 2 and 3 each send 1 MiB to 4 at t = 0: all cross link 3 -> 4 and node 4's ejection
  // link, in sender order, so the last ends at 4 us + 4X (as a max-min flow model's incast would), not
  // later: 3 -> 4 (alone: 1 us + X) waits 3 us + 3X.
  auto mesh = net::make_mesh({8}, kLink, kGbps);
  LinkContention lc(*mesh, 0, 8);
  for (int s = 0; s < 4; ++s) lc.add_local(flow(s, 4, 0, 0), false);
  lc.time_upto(SimTime::infinity());
  EXPECT_EQ(lc.take_delay(0, 0), SimTime::zero());
  EXPECT_EQ(lc.take_delay(3, 0).ps(), 3 * us + 3 * X);
  // Two flows into one node over disjoint links (2 -> 3 and 4 -> 3): only the ejection link is shared.
  LinkContention two(*mesh, 0, 8);
  two.add_local(flow(2, 3, 0, 0), false);
  two.add_local(flow(4, 3, 0, 0), false);
  two.time_upto(SimTime::infinity());
  EXPECT_EQ(two.take_delay(4, 0).ps(), X);
}

TEST(LinkContention, AFlowIsLateByItsLongestWaitNotTheSum) {
  // mesh:6 — A 1 -> 2 and B 3 -> 4 leave at 0 and hold links 1 -> 2 and 3 -> 4 for [0, X]. C 0 -> 5 leaves
  // 1 ps later and crosses both: its head would reach 1 -> 2 at 1 us + 1 ps (waits until X) and 3 -> 4 at
  // 3 us + 1 ps (waits until X). It is late by the longer wait, X - 1 us - 1 ps, as a flow whose rate its
  // bottleneck sets (the sum, 2X - 4 us - 2 ps, would count the two shared links twice).
  auto mesh = net::make_mesh({6}, kLink, kGbps);
  LinkContention lc(*mesh, 0, 6);
  lc.add_local(flow(1, 2, 0, 0), false);
  lc.add_local(flow(3, 4, 0, 0), false);
  lc.add_local(flow(0, 5, 1, 0), false);
  lc.time_upto(SimTime::infinity());
  EXPECT_EQ(lc.take_delay(0, 0).ps(), X - us - 1);
}

TEST(LinkContention, RefusesANetworkThatListsNoLinks) {
  auto ok = net::make_mesh({4}, kLink, kGbps);
  EXPECT_EQ(LinkContention::unsupported(*ok), "");
  auto family = net::make_twisted_torus({4, 4}, {1, 1}, 1, {1, 1}, kLink, kGbps, net::TwistedTorusRouting::family);
  const std::string why = LinkContention::unsupported(*family);
  EXPECT_NE(why.find("-xsim-contention links: the system network (twisted torus"), std::string::npos) << why;
  EXPECT_NE(why.find("give -xsim-contention endpoint"), std::string::npos) << why;
  // The same torus inside the nodes of a star: named as an inner level.
  std::vector<std::unique_ptr<net::Network>> levels;
  levels.push_back(net::make_star(2, kLink, kGbps));
  levels.push_back(net::make_twisted_torus({4, 4}, {1, 1}, 1, {1, 1}, kLink, kGbps, net::TwistedTorusRouting::family));
  net::Hierarchy nodes(std::move(levels));
  const std::string inner = LinkContention::unsupported(nodes);
  EXPECT_NE(inner.find("-xsim-contention links: a level inside the nodes of"), std::string::npos) << inner;
}

}  // namespace
}  // namespace xsim

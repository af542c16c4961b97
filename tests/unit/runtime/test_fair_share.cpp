// Unit tests for FairShare (libxsim/runtime/core/fair_share.hpp), the fluid model of -xsim-sharing fair:
// max-min rates by progressive filling (checked by hand in the comments), the event advance (flows that
// start and end while others are under way), the decision at each flow's horizon, and the independence of
// the decided ends from the bounds the caller gives (the number of native processes).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <vector>

#include "fair_share.hpp"

namespace xsim {
namespace {

using Routes = std::vector<std::vector<uint32_t>>;

TEST(FairShareMaxMin, TwoFlowsOnOneLinkGetHalfEach) {
  const auto r = FairShare::max_min(Routes{{0}, {0}}, {1, 1}, {1.0});
  EXPECT_DOUBLE_EQ(r[0], 0.5);
  EXPECT_DOUBLE_EQ(r[1], 0.5);
}

TEST(FairShareMaxMin, ABottleneckLeavesTheRestOfAFreeLinkToTheOthers) {
  // Flow 0 crosses link 0 (capacity 1) and link 1 (capacity 10); flow 1 crosses link 1 only. Link 0 is
  // the bottleneck (1 / 1 < 10 / 2): flow 0 gets 1, and flow 1 the 9 left on link 1.
  const auto r = FairShare::max_min(Routes{{0, 1}, {1}}, {1, 1}, {1.0, 10.0});
  EXPECT_DOUBLE_EQ(r[0], 1.0);
  EXPECT_DOUBLE_EQ(r[1], 9.0);
}

TEST(FairShareMaxMin, ProgressiveFillingOverThreeLinks) {
  // Links 0, 1, 2 of capacity 1, 2, 4. Flows: 0 over links 0 and 1; 1 over link 0; 2 over links 1 and 2;
  // 3 over link 2. Fair shares: link 0 1/2, link 1 2/2, link 2 4/2: link 0 fixes flows 0 and 1 at 0.5.
  // Then link 1 has 1.5 left for flow 2 alone (1.5) and link 2 4 for two (2): flow 2 gets 1.5, and flow 3
  // the 2.5 left on link 2.
  const auto r = FairShare::max_min(Routes{{0, 1}, {0}, {1, 2}, {2}}, {1, 1, 1, 1}, {1.0, 2.0, 4.0});
  EXPECT_DOUBLE_EQ(r[0], 0.5);
  EXPECT_DOUBLE_EQ(r[1], 0.5);
  EXPECT_DOUBLE_EQ(r[2], 1.5);
  EXPECT_DOUBLE_EQ(r[3], 2.5);
}

TEST(FairShareMaxMin, WeightsSplitALinkInProportion) {
  const auto r = FairShare::max_min(Routes{{0}, {0}}, {1, 3}, {1.0});
  EXPECT_DOUBLE_EQ(r[0], 0.25);
  EXPECT_DOUBLE_EQ(r[1], 0.75);
}

constexpr uint64_t kBitPerPs = 1'000'000'000'000;  // 1 bit per ps, in bits per second
constexpr int64_t kFar = int64_t{1} << 40;

std::map<uint64_t, int64_t> ends(std::vector<FairShare::Decided> v) {
  std::map<uint64_t, int64_t> m;
  for (const auto& d : v) m[d.id] = d.end_ps;
  return m;
}

TEST(FairShare, TwoFlowsStartedTogetherEndTogetherAtTwiceTheirTime) {
  FairShare fs;
  fs.add(0, 0, kFar, 1000, 1, {{7, kBitPerPs}});
  fs.add(1, 0, kFar, 1000, 1, {{7, kBitPerPs}});
  std::vector<FairShare::Decided> out;
  fs.advance(kFar, out);
  EXPECT_EQ(ends(out), (std::map<uint64_t, int64_t>{{0, 2000}, {1, 2000}}));
  EXPECT_EQ(fs.active(), 0u);
}

TEST(FairShare, AdvancingToTheEndOfTimeStops) {
  FairShare fs;
  std::vector<FairShare::Decided> out;
  fs.advance(std::numeric_limits<int64_t>::max(), out);  // nothing under way
  fs.add(0, 0, kFar, 1000, 1, {{7, kBitPerPs}});
  fs.advance(std::numeric_limits<int64_t>::max(), out);
  EXPECT_EQ(ends(out), (std::map<uint64_t, int64_t>{{0, 1000}}));
}

TEST(FairShare, ALaterFlowSharesFromItsStartOn) {
  // A: 1,000 bits from 0; B: 1,000 bits from 500, one link of 1 bit/ps. A sends 500 alone, then both get
  // half: A's last 500 take 1,000 ps (ends 1,500), when B has sent 500; B's last 500 alone end at 2,000.
  FairShare fs;
  fs.add(0, 0, kFar, 1000, 1, {{7, kBitPerPs}});
  fs.add(1, 500, kFar, 1000, 1, {{7, kBitPerPs}});
  std::vector<FairShare::Decided> out;
  fs.advance(kFar, out);
  EXPECT_EQ(ends(out), (std::map<uint64_t, int64_t>{{0, 1500}, {1, 2000}}));
}

TEST(FairShare, AFlowIsDecidedAtItsHorizonFromTheFlowsThatStartedByThen) {
  // The same flows, A's horizon at 100: A is decided alone (1,000); B still shares the link with A in the
  // fluid state (A drains at half rate from 500 on and ends there at 1,500), so B ends at 2,000.
  FairShare fs;
  fs.add(0, 0, 100, 1000, 1, {{7, kBitPerPs}});
  std::vector<FairShare::Decided> out;
  fs.advance(99, out);
  EXPECT_TRUE(out.empty());
  fs.advance(100, out);  // the bound reaches A's horizon: decided now, before B is known
  EXPECT_EQ(ends(out), (std::map<uint64_t, int64_t>{{0, 1000}}));
  fs.add(1, 500, kFar, 1000, 1, {{7, kBitPerPs}});
  fs.advance(kFar, out);
  EXPECT_EQ(ends(out), (std::map<uint64_t, int64_t>{{0, 1000}, {1, 2000}}));
}

TEST(FairShare, AFlowEndsAtTheRateOfItsBottleneck) {
  // Flow 0 over link 0 (1 bit/ps) and link 1 (10 bits/ps), flow 1 over link 1: 0 ends at 1,000 at rate 1,
  // 1 at 9 bits/ps sends 9,000 by then and its last 1,000 alone at 10 bits/ps end at 1,100.
  FairShare fs;
  fs.add(0, 0, kFar, 1000, 1, {{0, kBitPerPs}, {1, 10 * kBitPerPs}});
  fs.add(1, 0, kFar, 10000, 1, {{1, 10 * kBitPerPs}});
  std::vector<FairShare::Decided> out;
  fs.advance(kFar, out);
  EXPECT_EQ(ends(out), (std::map<uint64_t, int64_t>{{0, 1000}, {1, 1100}}));
}

TEST(FairShare, EndsDoNotDependOnTheBoundsGiven) {
  // Flows on three links with staggered starts and horizons: the decided ends are the same whether the
  // caller advances in one step or in many small ones (as with more native processes).
  struct F {
    int64_t start, horizon;
    double bits;
    std::vector<FairShare::Use> links;
  };
  std::vector<F> flows;
  for (int i = 0; i < 40; ++i)
    flows.push_back({i * 37, i * 37 + 300 + (i % 5) * 90, 700.0 + (i * 131) % 900,
                     {{static_cast<uint64_t>(i % 3), kBitPerPs}, {static_cast<uint64_t>(3 + i % 2), 2 * kBitPerPs}}});
  auto run = [&](int64_t step) {
    FairShare fs;
    std::vector<FairShare::Decided> out;
    size_t next = 0;
    for (int64_t bound = 0;; bound += step) {
      while (next < flows.size() && flows[next].start <= bound) {
        fs.add(next, flows[next].start, flows[next].horizon, flows[next].bits, 1 + next % 2, flows[next].links);
        ++next;
      }
      fs.advance(bound, out);
      if (next == flows.size() && out.size() == flows.size()) break;
    }
    return ends(out);
  };
  const auto one = run(1), many = run(7), few = run(1000);
  EXPECT_EQ(one.size(), flows.size());
  EXPECT_EQ(one, many);
  EXPECT_EQ(one, few);
}


TEST(FairShare, HorizonErrorAgainstTheExactFluidModel) {
  // What deciding at the horizon costs: flows of 1,000 bits (X = 1,000 ps alone) arrive at one link of 1
  // bit/ps at pseudo-random times, at a mean load rho; each is decided at start + X (the engine's horizon
  // with the smallest route: its uncontended arrival less L_min) and compared with the exact fluid model
  // (every horizon at infinity). Durations are never longer than the exact ones (a later flow is left out,
  // never added); the errors measured are printed and bounded here (docs/network-model.md "Fair sharing").
  for (double rho : {0.3, 0.6, 0.9}) {
    std::vector<int64_t> starts;
    uint64_t x = 12345;
    int64_t t = 0;
    for (int i = 0; i < 400; ++i) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      const double u = static_cast<double>(x >> 11) / 9007199254740992.0;  // [0, 1)
      t += static_cast<int64_t>(-std::log(1 - u) * 1000 / rho);           // exponential gaps, mean X / rho
      starts.push_back(t);
    }
    auto run = [&](bool exact) {
      FairShare fs;
      for (size_t i = 0; i < starts.size(); ++i)
        fs.add(i, starts[i], exact ? kFar * 4 : starts[i] + 1000, 1000, 1, {{7, kBitPerPs}});
      std::vector<FairShare::Decided> out;
      fs.advance(kFar * 4, out);
      return ends(out);
    };
    const auto approx = run(false), exact = run(true);
    ASSERT_EQ(approx.size(), starts.size());
    double worst = 0, sum = 0;
    for (size_t i = 0; i < starts.size(); ++i) {
      const double a = static_cast<double>(approx.at(i) - starts[i]), e = static_cast<double>(exact.at(i) - starts[i]);
      EXPECT_LE(a, e + 1);
      worst = std::max(worst, (e - a) / e);
      sum += (e - a) / e;
    }
    std::printf("fair sharing horizon, load %.1f: durations short by %.2f%% on average, %.2f%% at most\n", rho,
                100 * sum / static_cast<double>(starts.size()), 100 * worst);
    EXPECT_LT(sum / static_cast<double>(starts.size()), 0.5);
  }
}

}  // namespace
}  // namespace xsim

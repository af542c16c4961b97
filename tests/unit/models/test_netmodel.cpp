// Unit tests for netmodel: the star topology and the shared latency formula of network.hpp.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "xsim/netmodel/network.hpp"

namespace xsim::net {
namespace {

constexpr int64_t kUs = 1'000'000;  // picoseconds per microsecond

std::unique_ptr<Network> ethernet(int n) { return make_star(n, SimTime::from_ns(25'000), 1'000'000'000); }

TEST(NetmodelStar, RouteIsTwoLinks) {
  auto net = ethernet(16);
  EXPECT_EQ(net->endpoints(), 16);
  for (int s = 0; s < 16; ++s) {
    for (int d = 0; d < 16; ++d) {
      Route r = net->route(s, d);
      EXPECT_EQ(r.min_bandwidth_bps, 1'000'000'000u);
      if (s == d) {
        EXPECT_EQ(r.hops, 0);
        EXPECT_EQ(r.latency, SimTime::zero());
      } else {
        EXPECT_EQ(r.hops, 2);
        EXPECT_EQ(r.latency.ps(), 50 * kUs);
      }
    }
  }
}

// Brute-force oracle: the explicit star graph (switch = node n) and BFS hop counts for every pair.
TEST(NetmodelStar, HopsMatchBfsOnExplicitGraph) {
  for (int n : {1, 2, 3, 7}) {
    auto net = ethernet(n);
    for (int s = 0; s < n; ++s) {
      // BFS from s over edges endpoint<->switch.
      std::vector<int> dist(n + 1, -1);
      std::vector<int> queue{s};
      dist[s] = 0;
      for (size_t q = 0; q < queue.size(); ++q) {
        int u = queue[q];
        std::vector<int> next;
        if (u == n) {
          for (int e = 0; e < n; ++e) next.push_back(e);
        } else {
          next.push_back(n);
        }
        for (int v : next)
          if (dist[v] < 0) dist[v] = dist[u] + 1, queue.push_back(v);
      }
      for (int d = 0; d < n; ++d) EXPECT_EQ(net->route(s, d).hops, dist[d]) << n << ": " << s << "->" << d;
    }
  }
}

TEST(NetmodelStar, MessageLatencyFormula) {
  auto net = ethernet(4);
  // 4 bytes: 2 x 25 us + 32 bits / 1 Gbps = 50 us + 32 ns.
  EXPECT_EQ(net->message_latency(0, 1, 4).ps(), 50'032'000);
  // 1 MiB: 50 us + 8 x 1048576 ns.
  EXPECT_EQ(net->message_latency(2, 3, 1'048'576).ps(), 50 * kUs + 8 * 1'048'576 * 1000LL);
  EXPECT_EQ(net->message_latency(0, 3, 0).ps(), 50 * kUs);
  EXPECT_EQ(net->message_latency(1, 1, 1'000'000).ps(), 0);  // to itself: free
}

TEST(NetmodelStar, MessagesBeyondTwoGiBAndTheTimeLimit) {
  auto net = ethernet(4);
  // 2049 MiB (more than 2^31 bytes): 50 us + 8 x 2,148,532,224 ns, no 32-bit wraparound.
  EXPECT_EQ(net->message_latency(0, 1, 2'148'532'224ULL).ps(), 50 * kUs + 8 * 2'148'532'224LL * 1000LL);
  // 2^40 bytes: 8,796 s; and a transfer time that no clock can hold is refused, not wrapped.
  EXPECT_EQ(Network::transfer_time(uint64_t{1} << 40, 1'000'000'000).ps(), 8'796'093'022'208'000LL);
  EXPECT_THROW(Network::transfer_time(uint64_t{1} << 62, 1), std::overflow_error);
}

// Size bands (calibration): a band scales the route latency and the bottleneck bandwidth of the messages in
// its size range; below the first band nothing changes; overheads are never scaled.
TEST(NetmodelSizeBands, ScaleLatencyAndBandwidthByRange) {
  auto star = make_star(4, SimTime::from_ns(1000), 8'000'000'000);  // 2 us, 1 GB/s
  star->set_overheads({SimTime::from_ns(100), SimTime::from_ns(200)});
  star->set_size_bands({{1024, 1.5, 1.0}, {65536, 1.0, 0.5}});
  const SimTime ovh = SimTime::from_ns(300);
  EXPECT_EQ(star->message_latency(0, 1, 1000), SimTime::from_ns(2000 + 1000) + ovh);         // below: unchanged
  EXPECT_EQ(star->message_latency(0, 1, 1024), SimTime::from_ns(3000 + 1024) + ovh);         // latency x 1.5
  EXPECT_EQ(star->message_latency(0, 1, 65535), SimTime::from_ns(3000 + 65535) + ovh);
  EXPECT_EQ(star->message_latency(0, 1, 65536), SimTime::from_ns(2000 + 2 * 65536) + ovh);   // bandwidth x 0.5
  Network::TransferMemo memo;
  EXPECT_EQ(star->message_latency(0, 1, 65536, memo), SimTime::from_ns(2000 + 2 * 65536) + ovh);
  SimTime x;
  EXPECT_EQ(star->route_latency(star->route(0, 1), 2048, &x), SimTime::from_ns(3000 + 2048));
  EXPECT_EQ(x, SimTime::from_ns(2048));
  EXPECT_EQ(star->min_latency(), SimTime::from_ns(2000) + ovh);  // factors >= 1: still the smallest
}

TEST(NetmodelSizeBands, BadBandsAreRefused) {
  auto star = make_star(4, SimTime::from_ns(1000), 8'000'000'000);
  EXPECT_THROW(star->set_size_bands({{10, 0.9, 1.0}}), std::invalid_argument);   // latency below 1: lookahead
  EXPECT_THROW(star->set_size_bands({{10, 1.0, 0.0}}), std::invalid_argument);
  EXPECT_THROW(star->set_size_bands({{10, 1.0, 1.0}, {10, 1.0, 1.0}}), std::invalid_argument);  // not increasing
  EXPECT_TRUE(star->size_bands().empty());
}

TEST(NetmodelStar, TransferTimeRoundsUp) {
  // 1 byte over 3 bps: 8/3 s = 2.666... s -> rounded up to the next picosecond.
  EXPECT_EQ(Network::transfer_time(1, 3).ps(), 2'666'666'666'667);
  EXPECT_EQ(Network::transfer_time(1, 8).ps(), 1'000'000'000'000);
  auto net = make_star(2, SimTime::from_ps(1), 3);
  EXPECT_EQ(net->message_latency(0, 1, 1).ps(), 2 + 2'666'666'666'667);
}

// The memo overload gives message_latency's own results whatever the order of sizes, bandwidths and
// endpoints asked for (a hit, a miss on the size, a miss on the bandwidth, the memo's empty start, size 0).
TEST(NetmodelStar, TransferMemoGivesTheSameLatencies) {
  auto fast = ethernet(4);
  auto slow = make_star(4, SimTime::from_ns(1'000), 3);  // 3 bps: transfer times that round up
  Network::TransferMemo memo;
  const struct { const Network* net; int src, dst; uint64_t bytes; } asks[] = {
      {fast.get(), 0, 1, 0},  {fast.get(), 0, 1, 4},  {fast.get(), 1, 2, 4},    {fast.get(), 2, 2, 4},
      {slow.get(), 0, 1, 4},  {slow.get(), 3, 0, 4},  {fast.get(), 0, 3, 4},    {fast.get(), 0, 3, 1'048'576},
      {fast.get(), 3, 1, 4},  {slow.get(), 1, 2, 1},  {slow.get(), 1, 2, 0},    {fast.get(), 1, 0, 0},
  };
  for (const auto& a : asks)
    EXPECT_EQ(a.net->message_latency(a.src, a.dst, a.bytes, memo).ps(), a.net->message_latency(a.src, a.dst, a.bytes).ps())
        << a.src << " -> " << a.dst << ", " << a.bytes << " bytes";
}

TEST(NetmodelStar, Overheads) {
  auto net = ethernet(8);
  EXPECT_EQ(net->min_latency().ps(), 50 * kUs);
  net->set_overheads({SimTime::from_ns(1'000), SimTime::from_ns(2'000)});
  EXPECT_EQ(net->min_latency().ps(), 53 * kUs);
  EXPECT_EQ(net->message_latency(0, 7, 4).ps(), 50'032'000 + 3 * kUs);
  EXPECT_EQ(net->message_latency(5, 5, 4).ps(), 0);
  EXPECT_NE(net->describe().find("send overhead 1 us"), std::string::npos) << net->describe();
}

TEST(NetmodelStar, MinLatencyWithOneEndpointIsStillPositive) {
  auto net = ethernet(1);
  EXPECT_EQ(net->min_latency().ps(), 50 * kUs);
}

TEST(NetmodelStar, Describe) {
  EXPECT_EQ(ethernet(4096)->describe(), "star, 4096 endpoints, link latency 25 us, link bandwidth 1 Gbps");
  EXPECT_EQ(make_star(1, SimTime::from_ps(320'000), 8'800'000'000)->describe(),
            "star, 1 endpoint, link latency 320 ns, link bandwidth 8.8 Gbps");
}

std::string invalid_message(int n, SimTime lat, uint64_t bw) {
  try {
    make_star(n, lat, bw);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(NetmodelStar, ValidatesArguments) {
  std::string m = invalid_message(0, SimTime::from_ns(1), 1);
  EXPECT_NE(m.find("endpoint count must be at least 1"), std::string::npos) << m;
  m = invalid_message(-3, SimTime::from_ns(1), 1);
  EXPECT_NE(m.find("got -3"), std::string::npos) << m;
  m = invalid_message(4, SimTime::zero(), 1);
  EXPECT_NE(m.find("positive link latency"), std::string::npos) << m;
  m = invalid_message(4, SimTime::from_ps(-5), 1);
  EXPECT_NE(m.find("positive link latency"), std::string::npos) << m;
  m = invalid_message(4, SimTime::from_ns(1), 0);
  EXPECT_NE(m.find("bandwidth must be positive"), std::string::npos) << m;
  m = invalid_message(4, SimTime::from_ps(INT64_MAX / 2 + 1), 1);
  EXPECT_NE(m.find("too large"), std::string::npos) << m;
}

TEST(NetmodelStar, RouteOutOfRangeThrows) {
  auto net = ethernet(4);
  EXPECT_THROW(net->route(0, 4), std::out_of_range);
  EXPECT_THROW(net->route(-1, 0), std::out_of_range);
  EXPECT_NO_THROW(net->route(3, 0));
}

}  // namespace
}  // namespace xsim::net

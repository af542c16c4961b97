// Unit tests for common/: SimTime (integer picoseconds: construction, rounding from seconds, ordering,
// overflow that throws instead of wrapping, infinity) and units (exact parsing of times, bandwidths and
// sizes, and their printing).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "xsim/simtime.hpp"
#include "xsim/units.hpp"

namespace xsim {
namespace {

std::string error_of(void (*f)()) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(UnitsTime, ExactUnits) {
  EXPECT_EQ(parse_time("25us").ps(), 25'000'000);
  EXPECT_EQ(parse_time("0.32us").ps(), 320'000);
  EXPECT_EQ(parse_time("1.5 ms").ps(), 1'500'000'000);
  EXPECT_EQ(parse_time("100ns").ps(), 100'000);
  EXPECT_EQ(parse_time("2s").ps(), 2'000'000'000'000);
  EXPECT_EQ(parse_time("7ps").ps(), 7);
  EXPECT_EQ(parse_time("0").ps(), 0);
  EXPECT_EQ(parse_time("0us").ps(), 0);
}

TEST(UnitsTime, BareNumberIsSecondsAndExponents) {
  EXPECT_EQ(parse_time("7e-6").ps(), 7'000'000);
  EXPECT_EQ(parse_time("1").ps(), 1'000'000'000'000);
  EXPECT_EQ(parse_time("1e3ns").ps(), 1'000'000);
  EXPECT_EQ(parse_time("2.5E-3 s").ps(), 2'500'000'000);
  EXPECT_EQ(parse_time(".5us").ps(), 500'000);
  EXPECT_EQ(parse_time("3.us").ps(), 3'000'000);
}

TEST(UnitsTime, WhitespaceAndSpellings) {
  EXPECT_EQ(parse_time("  25 us  ").ps(), 25'000'000);
  EXPECT_EQ(parse_time("25\tus").ps(), 25'000'000);
  EXPECT_EQ(parse_time("25\xC2\xB5s").ps(), 25'000'000);  // micro sign
  EXPECT_EQ(parse_time("25\xCE\xBCs").ps(), 25'000'000);  // Greek mu
  EXPECT_EQ(parse_time("25US").ps(), 25'000'000);
}

TEST(UnitsTime, RoundsToNearestPicosecond) {
  EXPECT_EQ(parse_time("0.4ps").ps(), 0);
  EXPECT_EQ(parse_time("0.5ps").ps(), 1);
  EXPECT_EQ(parse_time("1.0004ns").ps(), 1000);
  EXPECT_EQ(parse_time("1.0005ns").ps(), 1001);
  // Many digits: still exact for the kept precision.
  EXPECT_EQ(parse_time("0.000000000001").ps(), 1);
  EXPECT_EQ(parse_time("123456.789012345678us").ps(), 123'456'789'012);
}

TEST(UnitsTime, Errors) {
  std::string msg = error_of([] { parse_time("25 parsecs"); });
  EXPECT_NE(msg.find("bad time \"25 parsecs\""), std::string::npos) << msg;
  EXPECT_NE(msg.find("s, ms, us, ns or ps"), std::string::npos) << msg;
  EXPECT_NE(msg.find("e.g. 25us"), std::string::npos) << msg;
  EXPECT_THROW(parse_time(""), std::invalid_argument);
  EXPECT_THROW(parse_time("us"), std::invalid_argument);
  EXPECT_THROW(parse_time("abc"), std::invalid_argument);
  EXPECT_THROW(parse_time("1..2us"), std::invalid_argument);
  EXPECT_THROW(parse_time("5e"), std::invalid_argument);
  EXPECT_THROW(parse_time("nan"), std::invalid_argument);
  EXPECT_THROW(parse_time("inf"), std::invalid_argument);
  msg = error_of([] { parse_time("-1us"); });
  EXPECT_NE(msg.find("negative"), std::string::npos) << msg;
  msg = error_of([] { parse_time("1e9s"); });  // 1e21 ps > INT64_MAX
  EXPECT_NE(msg.find("too large"), std::string::npos) << msg;
  EXPECT_NO_THROW(parse_time("9000000s"));  // 9e18 ps still fits
}

TEST(SimTimeLimits, OverflowIsAnErrorNeverAWrap) {
  const SimTime near_end = SimTime::from_ps(INT64_MAX - 10);
  EXPECT_THROW((void)(near_end + SimTime::from_ps(11)), std::overflow_error);
  EXPECT_THROW((void)(near_end + SimTime::from_ps(10)), std::overflow_error);  // the largest value means infinity
  EXPECT_EQ((near_end + SimTime::from_ps(9)).ps(), INT64_MAX - 1);
  EXPECT_THROW((void)SimTime::from_ns(INT64_MAX / 100), std::overflow_error);
  try {
    (void)SimTime::from_seconds(2e7);
    ADD_FAILURE() << "2e7 s fit in a SimTime";
  } catch (const std::overflow_error& e) {
    EXPECT_NE(std::string(e.what()).find("about 106 days"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)SimTime::from_seconds(-1e-12), std::overflow_error);
  EXPECT_EQ(SimTime::from_seconds(9.0e6).ps(), 9'000'000'000'000'000'000LL);
}

TEST(UnitsBandwidth, BitsAndBytes) {
  EXPECT_EQ(parse_bandwidth_bps("1Gbps"), 1'000'000'000u);
  EXPECT_EQ(parse_bandwidth_bps("8.8 Gbit/s"), 8'800'000'000u);
  EXPECT_EQ(parse_bandwidth_bps("1.25 GB/s"), 10'000'000'000u);
  EXPECT_EQ(parse_bandwidth_bps("100Mbps"), 100'000'000u);
  EXPECT_EQ(parse_bandwidth_bps("10Kbps"), 10'000u);
  EXPECT_EQ(parse_bandwidth_bps("2Tbps"), 2'000'000'000'000u);
  EXPECT_EQ(parse_bandwidth_bps("1MB/s"), 8'000'000u);
  EXPECT_EQ(parse_bandwidth_bps("3 KB/s"), 24'000u);
  EXPECT_EQ(parse_bandwidth_bps("5B/s"), 40u);
  EXPECT_EQ(parse_bandwidth_bps("5bps"), 5u);
  EXPECT_EQ(parse_bandwidth_bps("12345"), 12345u);  // bare number: bit/s
  EXPECT_EQ(parse_bandwidth_bps("1e9"), 1'000'000'000u);
  EXPECT_EQ(parse_bandwidth_bps("1gbps"), 1'000'000'000u);
}

TEST(UnitsBandwidth, Errors) {
  std::string msg = error_of([] { parse_bandwidth_bps("1 Gfoo"); });
  EXPECT_NE(msg.find("bad bandwidth \"1 Gfoo\""), std::string::npos) << msg;
  EXPECT_NE(msg.find("Gbps"), std::string::npos) << msg;
  EXPECT_THROW(parse_bandwidth_bps("0Gbps"), std::invalid_argument);
  EXPECT_THROW(parse_bandwidth_bps("0.1bps"), std::invalid_argument);  // rounds to 0
  EXPECT_THROW(parse_bandwidth_bps("-1Gbps"), std::invalid_argument);
  EXPECT_THROW(parse_bandwidth_bps("Gbps"), std::invalid_argument);
  EXPECT_THROW(parse_bandwidth_bps("1e30bps"), std::invalid_argument);
}

TEST(UnitsSize, Suffixes) {
  EXPECT_EQ(parse_size("4096"), 4096u);
  EXPECT_EQ(parse_size("256K"), 262'144u);
  EXPECT_EQ(parse_size("256 KiB"), 262'144u);
  EXPECT_EQ(parse_size("256KB"), 262'144u);
  EXPECT_EQ(parse_size("256k"), 262'144u);
  EXPECT_EQ(parse_size("1MiB"), 1'048'576u);
  EXPECT_EQ(parse_size("1M"), 1'048'576u);
  EXPECT_EQ(parse_size("2G"), 2'147'483'648u);
  EXPECT_EQ(parse_size("1.5K"), 1536u);
  EXPECT_EQ(parse_size("10 B"), 10u);
  EXPECT_EQ(parse_size("1T"), 1ull << 40);
}

TEST(UnitsSize, Errors) {
  std::string msg = error_of([] { parse_size("12 parsecs"); });
  EXPECT_NE(msg.find("bad size \"12 parsecs\""), std::string::npos) << msg;
  msg = error_of([] { parse_size("0.5"); });
  EXPECT_NE(msg.find("whole number of bytes"), std::string::npos) << msg;
  EXPECT_THROW(parse_size("-1K"), std::invalid_argument);
  EXPECT_THROW(parse_size("K"), std::invalid_argument);
  EXPECT_THROW(parse_size("1Kx"), std::invalid_argument);
  EXPECT_THROW(parse_size("100000000000T"), std::invalid_argument);
}

TEST(UnitsFormat, Time) {
  EXPECT_EQ(format_time(SimTime::from_ps(50'032'000)), "50.032 us");
  EXPECT_EQ(format_time(SimTime::from_ps(25'000'000)), "25 us");
  EXPECT_EQ(format_time(SimTime::from_ps(100'000)), "100 ns");
  EXPECT_EQ(format_time(SimTime::from_ps(1'500'000'000)), "1.5 ms");
  EXPECT_EQ(format_time(SimTime::from_ps(2'000'000'000'000)), "2 s");
  EXPECT_EQ(format_time(SimTime::from_ps(7)), "7 ps");
  EXPECT_EQ(format_time(SimTime::from_ps(1'001)), "1.001 ns");
  EXPECT_EQ(format_time(SimTime::from_ps(0)), "0 ps");
  EXPECT_EQ(format_time(SimTime::infinity()), "inf");
}

TEST(UnitsFormat, TimeRoundTrips) {
  for (int64_t ps : {int64_t{0}, int64_t{1}, int64_t{999}, int64_t{1'234'567}, int64_t{50'032'000},
                     int64_t{123'456'789'012'345}, int64_t{9'000'000'000'000'000'000}}) {
    SimTime t = SimTime::from_ps(ps);
    EXPECT_EQ(parse_time(format_time(t)), t) << format_time(t);
  }
}

TEST(UnitsFormat, Bandwidth) {
  EXPECT_EQ(format_bandwidth(1'000'000'000), "1 Gbps");
  EXPECT_EQ(format_bandwidth(8'800'000'000), "8.8 Gbps");
  EXPECT_EQ(format_bandwidth(100'000'000), "100 Mbps");
  EXPECT_EQ(format_bandwidth(1'500), "1.5 Kbps");
  EXPECT_EQ(format_bandwidth(999), "999 bps");
  for (uint64_t b : {1ull, 999ull, 1'000'000'000ull, 10'000'000'001ull, 2'000'000'000'000ull})
    EXPECT_EQ(parse_bandwidth_bps(format_bandwidth(b)), b) << format_bandwidth(b);
}

TEST(UnitsFormat, Size) {
  EXPECT_EQ(format_size(262'144), "256 KiB");
  EXPECT_EQ(format_size(1'048'576), "1 MiB");
  EXPECT_EQ(format_size(1536), "1.5 KiB");
  EXPECT_EQ(format_size(1ull << 30), "1 GiB");
  EXPECT_EQ(format_size(100), "100 B");
  EXPECT_EQ(format_size(1025), "1025 B");  // 1.0009765625 KiB has too many digits: bytes instead
  for (uint64_t b : {0ull, 1ull, 1025ull, 1536ull, 262'144ull, 3ull << 30})
    EXPECT_EQ(parse_size(format_size(b)), b) << format_size(b);
}

// ---- SimTime

TEST(SimTimeTest, ConstructionAndUnits) {
  EXPECT_EQ(SimTime::from_ps(7).ps(), 7);
  EXPECT_EQ(SimTime::from_ns(25'000).ps(), 25'000'000);
  EXPECT_EQ(SimTime::zero().ps(), 0);
  EXPECT_EQ(SimTime().ps(), 0);
  EXPECT_DOUBLE_EQ(SimTime::from_ps(1'500'000'000'000).seconds(), 1.5);
}

TEST(SimTimeTest, FromSecondsRoundsToNearestPicosecond) {
  EXPECT_EQ(SimTime::from_seconds(0.0).ps(), 0);
  EXPECT_EQ(SimTime::from_seconds(1e-12).ps(), 1);
  EXPECT_EQ(SimTime::from_seconds(1.4e-12).ps(), 1);
  EXPECT_EQ(SimTime::from_seconds(1.6e-12).ps(), 2);
  EXPECT_EQ(SimTime::from_seconds(0.4e-12).ps(), 0);
  EXPECT_EQ(SimTime::from_seconds(1e-6).ps(), 1'000'000);
  EXPECT_EQ(SimTime::from_seconds(0.5).ps(), 500'000'000'000);
  EXPECT_EQ(SimTime::from_seconds(3.0).ps(), 3'000'000'000'000);
  EXPECT_EQ(SimTime::from_seconds(1e6).ps(), 1'000'000'000'000'000'000);  // 11.6 days
}

TEST(SimTimeTest, FromSecondsRejectsBadValues) {
  EXPECT_THROW(SimTime::from_seconds(-1e-12), std::overflow_error);
  EXPECT_THROW(SimTime::from_seconds(-1.0), std::overflow_error);
  EXPECT_THROW(SimTime::from_seconds(std::numeric_limits<double>::quiet_NaN()), std::overflow_error);
  EXPECT_THROW(SimTime::from_seconds(std::numeric_limits<double>::infinity()), std::overflow_error);
  EXPECT_THROW(SimTime::from_seconds(1e7), std::overflow_error);  // 1e19 ps > INT64_MAX
}

TEST(SimTimeTest, OrderingMaxMin) {
  SimTime a = SimTime::from_ps(10), b = SimTime::from_ps(20), a2 = SimTime::from_ns(0) + SimTime::from_ps(10);
  EXPECT_LT(a, b);
  EXPECT_LE(a, b);
  EXPECT_GT(b, a);
  EXPECT_GE(b, a);
  EXPECT_EQ(a, a2);
  EXPECT_NE(a, b);
  EXPECT_FALSE(a < a2);
  EXPECT_EQ(max(a, b), b);
  EXPECT_EQ(max(b, a), b);
  EXPECT_EQ(min(a, b), a);
  EXPECT_EQ(min(b, a), a);
  EXPECT_EQ((b - a).ps(), 10);
  EXPECT_EQ((a + b).ps(), 30);
  SimTime c = a;
  c += b;
  EXPECT_EQ(c.ps(), 30);
}

TEST(SimTimeTest, OverflowThrowsNeverWraps) {
  const int64_t big = std::numeric_limits<int64_t>::max();
  EXPECT_THROW(SimTime::from_ps(big - 5) + SimTime::from_ps(10), std::overflow_error);
  // A sum that would land exactly on the infinity sentinel is an overflow too.
  EXPECT_THROW(SimTime::from_ps(big - 1) + SimTime::from_ps(1), std::overflow_error);
  EXPECT_NO_THROW(SimTime::from_ps(big - 2) + SimTime::from_ps(1));
  EXPECT_EQ((SimTime::from_ps(big - 2) + SimTime::from_ps(1)).ps(), big - 1);
  SimTime c = SimTime::from_ps(big / 2 + 1);
  EXPECT_THROW(c += c, std::overflow_error);
  EXPECT_EQ(c.ps(), big / 2 + 1);  // unchanged after the failed addition
  EXPECT_THROW(SimTime::from_ns(big / 100), std::overflow_error);
  EXPECT_THROW(SimTime::infinity() + SimTime::from_ps(1), std::overflow_error);
}

TEST(SimTimeTest, Infinity) {
  EXPECT_TRUE(SimTime::infinity().is_infinite());
  EXPECT_FALSE(SimTime::from_ps(std::numeric_limits<int64_t>::max() - 1).is_infinite());
  EXPECT_FALSE(SimTime::zero().is_infinite());
  EXPECT_GT(SimTime::infinity(), SimTime::from_seconds(1e6));
  EXPECT_EQ(min(SimTime::infinity(), SimTime::from_ps(3)).ps(), 3);
  EXPECT_EQ(max(SimTime::infinity(), SimTime::from_ps(3)), SimTime::infinity());
  EXPECT_FALSE((SimTime::infinity() - SimTime::from_ps(1)).is_infinite());
}

}  // namespace
}  // namespace xsim

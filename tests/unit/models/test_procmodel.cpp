// Unit tests for procmodel: the "none" and "scaled" processor models.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "xsim/procmodel/processor_model.hpp"

namespace xsim::proc {
namespace {

TEST(ProcmodelNone, ChargesNothing) {
  auto m = make_none_model();
  EXPECT_FALSE(m->uses_host_time());
  EXPECT_EQ(m->compute_time(0), SimTime::zero());
  EXPECT_EQ(m->compute_time(123'456'789), SimTime::zero());
  EXPECT_NE(m->describe().find("none"), std::string::npos);
}

TEST(ProcmodelScaled, FactorOneIsHostTimeExactly) {
  auto m = make_scaled_model(1.0);
  EXPECT_TRUE(m->uses_host_time());
  EXPECT_EQ(m->compute_time(0).ps(), 0);
  EXPECT_EQ(m->compute_time(1).ps(), 1'000);
  EXPECT_EQ(m->compute_time(123'456'789).ps(), 123'456'789'000);
  // Large values stay exact (long double keeps 64 mantissa bits).
  EXPECT_EQ(m->compute_time(9'007'199'254'740'993).ps(), 9'007'199'254'740'993'000);  // 2^53 + 1 ns
}

TEST(ProcmodelScaled, ScalesAndRoundsToNearest) {
  EXPECT_EQ(make_scaled_model(0.5)->compute_time(1'000).ps(), 500'000);
  EXPECT_EQ(make_scaled_model(2.0)->compute_time(1'000).ps(), 2'000'000);
  EXPECT_EQ(make_scaled_model(0.1)->compute_time(3).ps(), 300);
  // 1 ns x 1/3 = 333.33 ps -> 333; 2 ns x 1/3 = 666.67 ps -> 667.
  EXPECT_EQ(make_scaled_model(1.0 / 3.0)->compute_time(1).ps(), 333);
  EXPECT_EQ(make_scaled_model(1.0 / 3.0)->compute_time(2).ps(), 667);
  EXPECT_EQ(make_scaled_model(1e-6)->compute_time(1).ps(), 0);
}

TEST(ProcmodelScaled, RejectsBadFactors) {
  EXPECT_THROW(make_scaled_model(0.0), std::invalid_argument);
  EXPECT_THROW(make_scaled_model(-1.0), std::invalid_argument);
  EXPECT_THROW(make_scaled_model(std::numeric_limits<double>::infinity()), std::invalid_argument);
  EXPECT_THROW(make_scaled_model(std::nan("")), std::invalid_argument);
  try {
    make_scaled_model(-2.0);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("positive and finite (got -2)"), std::string::npos) << e.what();
  }
}

TEST(ProcmodelScaled, OverflowAndNegativeHostTime) {
  EXPECT_THROW(make_scaled_model(1e6)->compute_time(int64_t{1} << 50), std::overflow_error);
  EXPECT_THROW(make_scaled_model(1.0)->compute_time(-1), std::invalid_argument);
}

TEST(ProcmodelScaled, Describe) {
  EXPECT_EQ(make_scaled_model(1.0)->describe(), "scaled (virtual time = host time x 1)");
  EXPECT_EQ(make_scaled_model(0.1)->describe(), "scaled (virtual time = host time x 0.1)");
}

}  // namespace
}  // namespace xsim::proc

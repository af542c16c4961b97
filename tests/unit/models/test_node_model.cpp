// Unit tests for the node model (procmodel/xsim/procmodel/node_model.hpp) and its use by the processor
// models: which factor `host` picks, host-timed computation and explicit charges scaled by it, exact
// picoseconds, bad factors refused by name.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "xsim/procmodel/node_model.hpp"
#include "xsim/procmodel/processor_model.hpp"

namespace xsim::proc {
namespace {

NodeModel node(NodeHost host, double number = 1.0) {
  NodeModel n;
  n.memory_factor = 1.8;
  n.compute_factor = 1.05;
  n.host = host;
  n.number = number;
  return n;
}

TEST(NodeModel, HostPicksTheFactor) {
  EXPECT_EQ(node(NodeHost::none).factor(), 1.0);
  EXPECT_EQ(node(NodeHost::memory).factor(), 1.8);
  EXPECT_EQ(node(NodeHost::compute).factor(), 1.05);
  EXPECT_EQ(node(NodeHost::number, 2.5).factor(), 2.5);
  EXPECT_EQ(node(NodeHost::memory).describe(), "memory (x 1.8)");
  EXPECT_EQ(node(NodeHost::number, 2.5).describe(), "x 2.5");
  EXPECT_EQ(node(NodeHost::none).describe(), "none");
}

TEST(NodeModel, ScalesExplicitChargesToThePicosecond) {
  EXPECT_EQ(node(NodeHost::none).scale(SimTime::from_ps(123'456'789'123)).ps(), 123'456'789'123);  // as is
  EXPECT_EQ(node(NodeHost::memory).scale(SimTime::from_ps(1'000'000)).ps(), 1'800'000);
  EXPECT_EQ(node(NodeHost::number, 1.0 / 3).scale(SimTime::from_ps(2)).ps(), 1);  // 0.667 -> 1
  EXPECT_THROW(node(NodeHost::number, 1e6).scale(SimTime::from_ps(int64_t{1} << 50)), std::overflow_error);
}

TEST(NodeModel, ScaledModelMultipliesHostTime) {
  EXPECT_EQ(make_scaled_model(1.0, node(NodeHost::memory))->compute_time(1'000).ps(), 1'800'000);
  EXPECT_EQ(make_scaled_model(0.5, node(NodeHost::compute))->compute_time(1'000).ps(), 525'000);
  EXPECT_EQ(make_scaled_model(1.0, node(NodeHost::none))->compute_time(1'000).ps(), 1'000'000);
  EXPECT_EQ(make_scaled_model(2.0, node(NodeHost::number, 1.5))->explicit_time(SimTime::from_ps(10)).ps(), 15);
  EXPECT_EQ(make_scaled_model(1.0, node(NodeHost::memory))->describe(),
            "scaled (virtual time = host time x 1 x node memory (x 1.8))");
}

TEST(NodeModel, NoneModelChargesNothingButScalesExplicitCharges) {
  auto m = make_none_model(node(NodeHost::memory));
  EXPECT_EQ(m->compute_time(1'000'000), SimTime::zero());
  EXPECT_EQ(m->explicit_time(SimTime::from_ps(1'000'000)).ps(), 1'800'000);
  EXPECT_EQ(make_none_model()->explicit_time(SimTime::from_ps(7)).ps(), 7);
}

TEST(NodeModel, RejectsBadFactorsByName) {
  NodeModel n = node(NodeHost::memory);
  n.memory_factor = 0;
  try {
    make_scaled_model(1.0, n);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("memory_factor must be a positive finite number (got 0)"), std::string::npos)
        << e.what();
  }
  n = node(NodeHost::compute);
  n.compute_factor = std::numeric_limits<double>::infinity();
  EXPECT_THROW(make_none_model(n), std::invalid_argument);
  EXPECT_THROW(validate(node(NodeHost::number, -1)), std::invalid_argument);
  EXPECT_THROW(validate(node(NodeHost::number, std::nan(""))), std::invalid_argument);
}

}  // namespace
}  // namespace xsim::proc

// xsim-calibrate's fit (tools/calibrate_fit.hpp) on synthetic measurements: known parameters in, the same
// parameters out; a machine one line does not fit gets size bands that bring every size within tolerance;
// the TOML it writes loads as an xsim configuration with those parameters.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "calibrate_fit.hpp"
#include "options.hpp"

namespace xsim::calibrate {
namespace {

Model truth() {
  Model m;
  m.link_latency = 1e-6;
  m.bandwidth_bps = 10e9;
  m.send_overhead = 0.2e-6;
  m.recv_overhead = 0.3e-6;
  m.eager_limit = 65536;
  return m;
}

Measurements measure(const Model& m) {
  Measurements meas;
  for (uint64_t s = 1; s <= (16u << 20); s *= 2) {
    meas.sizes.push_back(s);
    meas.one_way.push_back(predict_one_way(m, s));
  }
  meas.send_overhead = m.send_overhead;
  meas.recv_overhead = m.recv_overhead;
  meas.burst_interval = m.send_overhead;  // no gap beyond the overhead
  meas.eager_limit = m.eager_limit;
  return meas;
}

TEST(CalibrateFit, KnownParametersComeBack) {
  const Model t = truth();
  const Model f = fit(measure(t));
  EXPECT_NEAR(f.link_latency, t.link_latency, 1e-6 * t.link_latency);
  EXPECT_NEAR(f.bandwidth_bps, t.bandwidth_bps, 1e-6 * t.bandwidth_bps);
  EXPECT_DOUBLE_EQ(f.send_overhead, t.send_overhead);
  EXPECT_DOUBLE_EQ(f.recv_overhead, t.recv_overhead);
  EXPECT_EQ(f.eager_limit, t.eager_limit);
  EXPECT_EQ(f.gap, 0.0);
  EXPECT_TRUE(f.bands.empty());  // one line fits
}

TEST(CalibrateFit, RendezvousCostsFourMoreLatencies) {
  const Model t = truth();
  EXPECT_NEAR(predict_one_way(t, 65537) - predict_one_way(t, 65536), 4e-6 + 8.0 / 10e9, 1e-12);
}

TEST(CalibrateFit, BandsWhereOneLineDoesNotFit) {
  // Above 1 MiB the machine delivers half the bandwidth (a cache level), from 1 KiB to 8 KiB a third more
  // latency (another protocol).
  Measurements meas = measure(truth());
  for (size_t i = 0; i < meas.sizes.size(); ++i) {
    if (meas.sizes[i] >= (1u << 20)) meas.one_way[i] += 8.0 * static_cast<double>(meas.sizes[i]) / 10e9;
    if (meas.sizes[i] >= 1024 && meas.sizes[i] <= 8192) meas.one_way[i] += 0.7e-6;
  }
  const Model f = fit(meas);
  EXPECT_FALSE(f.bands.empty());
  for (const net::SizeBand& b : f.bands) EXPECT_GE(b.latency, 1.0);  // the lookahead rule
  for (size_t i = 0; i < meas.sizes.size(); ++i)
    EXPECT_NEAR(predict_one_way(f, meas.sizes[i]) / meas.one_way[i], 1.0, 0.05) << meas.sizes[i] << " bytes";
}

TEST(CalibrateFit, ASizeDisturbedUpwardsIsCappedByTheLargerSizes) {
  const Model t = truth();
  Measurements meas = measure(t);
  meas.one_way[10] *= 4;  // 1 KiB measured four times too slow, slower than 2 KiB
  const Model f = fit(meas);
  EXPECT_NEAR(f.link_latency, t.link_latency, 0.02 * t.link_latency);
  EXPECT_NEAR(f.bandwidth_bps, t.bandwidth_bps, 0.02 * t.bandwidth_bps);
  EXPECT_LE(predict_one_way(f, 1024), meas.one_way[11]);
}

TEST(CalibrateFit, OverlappingOverheadsAreCappedAtHalfTheSmallestTrip) {
  Measurements meas = measure(truth());
  meas.send_overhead = 2e-6;  // inside MPI_Send and MPI_Recv longer than a whole small message's trip
  meas.recv_overhead = 3e-6;
  const Model f = fit(meas);
  EXPECT_NEAR(f.send_overhead + f.recv_overhead, meas.one_way[0] / 2, 1.01e-12);  // each in whole picoseconds
  EXPECT_NEAR(f.send_overhead / f.recv_overhead, 2.0 / 3.0, 1e-6);
  for (size_t i = 0; i < meas.sizes.size(); ++i)
    EXPECT_NEAR(predict_one_way(f, meas.sizes[i]) / meas.one_way[i], 1.0, 0.05) << meas.sizes[i] << " bytes";
}

TEST(CalibrateFit, AGapLongerThanARoundTripIsCapped) {
  Measurements meas = measure(truth());
  meas.burst_interval = 50e-6;  // a slow burst (the sender's CPU under a sanitizer, say)
  const Model f = fit(meas);
  EXPECT_DOUBLE_EQ(f.gap, 2 * meas.one_way[0]);  // a ping-pong never waits for the NIC then
}

TEST(CalibrateFit, BadMeasurementsAreRefused) {
  Measurements meas = measure(truth());
  Measurements one = meas;
  one.sizes.resize(1);
  one.one_way.resize(1);
  EXPECT_THROW(fit(one), std::invalid_argument);
  Measurements zero = meas;
  zero.one_way[3] = 0;
  EXPECT_THROW(fit(zero), std::invalid_argument);
  Measurements order = meas;
  std::swap(order.sizes[1], order.sizes[2]);
  EXPECT_THROW(fit(order), std::invalid_argument);
}

TEST(CalibrateFit, TheTomlLoadsWithTheFittedParameters) {
  Measurements meas = measure(truth());
  meas.one_way.back() *= 1.5;  // one band
  const Model f = fit(meas);
  Options o;
  load_config_text(o, to_toml(f, meas), "cal.toml");
  EXPECT_EQ(o.model, NetModel::loggp);
  EXPECT_EQ(eager_limit(o), f.eager_limit);
  ASSERT_EQ(o.network.levels.size(), 1u);
  EXPECT_EQ(o.network.levels[0].topology, "star");
  EXPECT_EQ(o.network.levels[0].latency.seconds(), f.link_latency);  // the fit holds what the file can state
  EXPECT_EQ(static_cast<double>(o.network.levels[0].bandwidth_bps), f.bandwidth_bps);
  EXPECT_EQ(o.network.send_overhead.seconds(), f.send_overhead);
  ASSERT_EQ(o.network.bands.size(), f.bands.size());
  for (size_t i = 0; i < f.bands.size(); ++i) {
    EXPECT_EQ(o.network.bands[i].from, f.bands[i].from);
    EXPECT_EQ(o.network.bands[i].bandwidth, f.bands[i].bandwidth);
    EXPECT_EQ(o.network.bands[i].latency, f.bands[i].latency);
  }
}

// The model read back from the file: the parameters as the simulator holds them.
Model read_back(const Model& f, const Measurements& meas) {
  Options o;
  load_config_text(o, to_toml(f, meas), "cal.toml");
  Model r;
  r.link_latency = o.network.levels[0].latency.seconds();
  r.bandwidth_bps = static_cast<double>(o.network.levels[0].bandwidth_bps);
  r.send_overhead = o.network.send_overhead.seconds();
  r.recv_overhead = o.network.recv_overhead.seconds();
  r.gap = o.network.gap.seconds();
  r.eager_limit = eager_limit(o);
  r.bands = o.network.bands;
  return r;
}

TEST(CalibrateFit, TheFileReproducesItsModelAtEverySizeWhateverWasMeasured) {
  // A loaded machine: sizes disturbed by large and awkward factors, 1 MiB (5,110.9 us) far off the line,
  // as in a run of calibrate_end_to_end beside a CPU-heavy job.
  Measurements meas = measure(truth());
  const double disturb[] = {1.0, 3.7, 1.0, 11.3, 1.01, 1.0, 257.123, 1.0, 1.9, 1.0, 1.0, 41.7};
  for (size_t i = 0; i < meas.sizes.size(); ++i) meas.one_way[i] *= disturb[i % 12];
  for (size_t i = 0; i < meas.sizes.size(); ++i)
    if (meas.sizes[i] == (1u << 20)) meas.one_way[i] = 5110.9e-6;
  const Model f = fit(meas);
  ASSERT_FALSE(f.bands.empty());
  const Model r = read_back(f, meas);
  for (uint64_t s : meas.sizes)  // what the tool prints (3 decimals of us) and what the file simulates
    EXPECT_NEAR(predict_one_way(r, s), predict_one_way(f, s), 1e-15 * predict_one_way(f, s)) << s << " bytes";
}

}  // namespace
}  // namespace xsim::calibrate

// xsim-calibrate --kernels's fit and file (tools/kernel_fit.hpp, tools/host_probe.hpp) on synthetic samples:
// known parameters in, the same out; the constraints (overhead and half_dim not negative); the TOML read
// back with toml++ and the project's unit parsers gives the very model that was printed; the peak from
// /proc/cpuinfo texts of the CPU families the rule distinguishes.
#include <gtest/gtest.h>

#include <toml++/toml.h>

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "host_probe.hpp"
#include "kernel_fit.hpp"
#include "xsim/units.hpp"

namespace xsim::calibrate {
namespace {

const Rates kAlone{40e9, 15e9};

std::vector<KernelSample> gemm_samples(const FamilyFit& truth) {
  std::vector<KernelSample> v;
  for (int d : {128, 256, 512, 1024, 2048}) v.push_back({"gemm", "", 2.0 * d * d * d, 0, double(d), 0});
  for (int k : {64, 128, 256}) v.push_back({"gemm", "", 2.0 * 2048 * 2048 * k, 0, double(k), 0});
  for (KernelSample& s : v) s.seconds = predict(truth, s, kAlone);
  return v;
}

std::vector<KernelSample> axpy_samples(const FamilyFit& truth) {
  std::vector<KernelSample> v;
  for (double n : {16.0, 8e6, 16e6}) v.push_back({"axpy", "", 0, 24 * n, 0, 0});
  for (KernelSample& s : v) s.seconds = predict(truth, s, kAlone);
  return v;
}

TEST(KernelFit, ComputeBoundParametersComeBack) {
  const FamilyFit truth{"gemm", 0.9, 24, 2e-6};
  const FamilyFit f = fit_family(gemm_samples(truth), kAlone);
  EXPECT_NEAR(f.efficiency, 0.9, 1e-9);
  EXPECT_NEAR(f.half_dim, 24, 1e-6);
  EXPECT_NEAR(f.overhead, 2e-6, 1e-12);
  EXPECT_NEAR(f.r2, 1.0, 1e-12);
  EXPECT_LT(f.worst, 1e-9);
}

TEST(KernelFit, MemoryBoundParametersComeBack) {
  const FamilyFit truth{"axpy", 0.8, 0, 50e-9};
  const FamilyFit f = fit_family(axpy_samples(truth), kAlone);
  EXPECT_NEAR(f.efficiency, 0.8, 1e-9);
  EXPECT_EQ(f.half_dim, 0.0);
  EXPECT_NEAR(f.overhead, 50e-9, 1e-12);
}

TEST(KernelFit, OverheadAndHalfDimAreNeverNegative) {
  // Small shapes faster than any positive overhead and half_dim allow (a cache effect): the fit keeps
  // both at zero or above rather than a negative overhead.
  std::vector<KernelSample> v = gemm_samples({"gemm", 0.9, 0, 0});
  v[0].seconds *= 0.5;
  v[1].seconds *= 0.7;
  const FamilyFit f = fit_family(v, kAlone);
  EXPECT_GE(f.overhead, 0.0);
  EXPECT_GE(f.half_dim, 0.0);
  EXPECT_GT(f.efficiency, 0.0);
  EXPECT_LT(f.r2, 1.0);
}

TEST(KernelFit, RefusesTooFewOrBadSamples) {
  EXPECT_THROW(fit_family({{"gemm", "", 1e9, 0, 100, 1e-3}}, kAlone), std::invalid_argument);
  EXPECT_THROW(fit_family({{"dot", "", 0, 8, 0, 1e-6}, {"dot", "", 0, 16, 0, 0}}, kAlone), std::invalid_argument);
}

// Reads the file back as the runtime would: toml++, the project's size/time/bandwidth parsers, and
// "<decimal>GF" for the peak.
struct ReadBack {
  Rates node;
  std::vector<FamilyFit> fams;
};

ReadBack read_back(const std::string& text, const std::vector<std::string>& names) {
  const toml::table t = toml::parse(text);
  ReadBack r;
  std::string peak = t["kernels"]["peak"].value_or(std::string());
  EXPECT_EQ(peak.substr(peak.size() - 2), "GF");
  r.node.peak = std::strtod(peak.substr(0, peak.size() - 2).c_str(), nullptr) * 1e9;
  r.node.bandwidth = static_cast<double>(parse_bandwidth_bps(t["kernels"]["bandwidth"].value_or(std::string()))) / 8;
  for (const std::string& n : names) {
    FamilyFit f;
    f.family = n;
    f.efficiency = t["kernels"][n]["efficiency"].value_or(0.0);
    f.half_dim = t["kernels"][n]["half_dim"].value_or(0.0);
    f.overhead = parse_time(t["kernels"][n]["overhead"].value_or(std::string())).seconds();
    r.fams.push_back(f);
  }
  return r;
}

TEST(KernelFit, TheFileReproducesThePrintedModel) {
  // Awkward numbers on purpose: nothing in them is round.
  std::vector<KernelSample> g = gemm_samples({"gemm", 0.8731234567, 31.77, 1.234567e-6});
  std::vector<KernelSample> a = axpy_samples({"axpy", 0.7123456789, 0, 61.2345e-9});
  for (size_t i = 0; i < g.size(); ++i) g[i].seconds *= 1 + 0.01 * ((i % 3) - 1.0);  // not an exact fit
  KernelFile k;
  k.node = representable({41538240123.7, 14922267318.3});
  k.families = {fit_family(g, kAlone), fit_family(a, kAlone)};
  k.overhead = k.families[1].overhead;
  k.node_measured = true;
  k.memory_factor = 1.0 / 3;
  k.compute_factor = 1.0123456789012345;
  const std::string text = kernel_toml(k);
  const ReadBack r = read_back(text, {"gemm", "axpy"});
  EXPECT_EQ(r.node.bandwidth, k.node.bandwidth);
  EXPECT_NEAR(r.node.peak, k.node.peak, 1e-15 * k.node.peak);  // decimal text x 1e9: within one rounding
  for (size_t j = 0; j < 2; ++j) {
    EXPECT_EQ(r.fams[j].efficiency, k.families[j].efficiency);
    EXPECT_EQ(r.fams[j].half_dim, k.families[j].half_dim);
    EXPECT_EQ(r.fams[j].overhead, k.families[j].overhead);
    for (const KernelSample& s : j == 0 ? g : a)
      EXPECT_NEAR(predict(r.fams[j], s, r.node), predict(k.families[j], s, k.node), 1e-14 * s.seconds);
  }
  const toml::table t = toml::parse(text);
  EXPECT_EQ(t["node"]["memory_factor"].value_or(0.0), 1.0 / 3);
  EXPECT_EQ(t["node"]["compute_factor"].value_or(0.0), 1.0123456789012345);
  EXPECT_EQ(t["node"]["host"].value_or(std::string()), "none");
}

TEST(KernelFit, NodeOnlyFileHasBandwidthAndNode) {
  KernelFile k;
  k.kernels = false;
  k.node = representable({1e9, 3.3e9});
  k.node_measured = true;
  const toml::table t = toml::parse(kernel_toml(k));
  EXPECT_FALSE(t["kernels"]["peak"]);
  EXPECT_EQ(parse_bandwidth_bps(t["kernels"]["bandwidth"].value_or(std::string())), 26'400'000'000ull);
  EXPECT_TRUE(t["node"]["memory_factor"].is_floating_point());
}

std::string cpuinfo(const std::string& vendor, int family, const std::string& model, const std::string& flags) {
  return "processor\t: 0\nvendor_id\t: " + vendor + "\ncpu family\t: " + std::to_string(family) +
         "\nmodel name\t: " + model + "\ncpu MHz\t\t: 2595.124\nflags\t\t: " + flags + "\n\nprocessor\t: 1\n"
         "cpu MHz\t\t: 2700.5\n";
}

TEST(HostPeak, FlopsPerCycleAndClock) {
  PeakInfo p = peak_from_cpuinfo(
      cpuinfo("GenuineIntel", 6, "Intel(R) Xeon(R) Platinum 8280 CPU @ 2.70GHz", "fpu sse2 avx fma avx2 avx512f"));
  EXPECT_EQ(p.flops_per_cycle, 32);
  EXPECT_DOUBLE_EQ(p.clock_hz, 2.7e9);
  p = peak_from_cpuinfo(cpuinfo("AuthenticAMD", 25, "AMD EPYC", "sse2 avx fma avx2 avx512f"));
  EXPECT_EQ(p.flops_per_cycle, 16);  // Zen 4: AVX-512 in two halves
  EXPECT_DOUBLE_EQ(p.clock_hz, 2700.5e6);  // no "@": the largest cpu MHz
  EXPECT_EQ(peak_from_cpuinfo(cpuinfo("AuthenticAMD", 23, "AMD EPYC 7742", "sse2 avx fma avx2")).flops_per_cycle, 16);
  EXPECT_EQ(peak_from_cpuinfo(cpuinfo("GenuineIntel", 6, "Old", "sse2 avx")).flops_per_cycle, 4);
  EXPECT_EQ(peak_from_cpuinfo("").clock_hz, 0.0);
}

}  // namespace
}  // namespace xsim::calibrate

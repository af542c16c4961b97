// Unit tests for procmodel's kernel models (kernel_model.hpp): each family's flop or byte count from its
// formula (docs/real-programs.md "Kernel models"), eff(d), the times, presets, overlay, flop rate text.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "xsim/procmodel/kernel_model.hpp"

namespace xsim::proc {
namespace {

KernelCall call(Kernel k, bool single, int64_t m, int64_t n, int64_t kk = 0, bool right = false, bool trans = false) {
  KernelCall c;
  c.kernel = k;
  c.single = single;
  c.m = m;
  c.n = n;
  c.k = kk;
  c.right = right;
  c.trans = trans;
  return c;
}

// peak 1 GF/s, bandwidth 1 GB/s: a time in ps is work x 1000 / efficiency (+ overhead).
KernelParams unit_params() {
  KernelParams p;
  p.peak = 1e9;
  p.bandwidth = 1e9;
  return p;
}

TEST(KernelWork, ComputeBoundFlops) {
  // gemm 2mnk (the multiply-adds; C's scaling by beta, 2mn, is left out)
  EXPECT_EQ(kernel_work(call(Kernel::gemm, false, 3, 5, 7)), 2.0 * 3 * 5 * 7);
  // trsm, trmm: side L m*m*n, side R n*n*m
  EXPECT_EQ(kernel_work(call(Kernel::trsm, false, 4, 9)), 4.0 * 4 * 9);
  EXPECT_EQ(kernel_work(call(Kernel::trsm, false, 4, 9, 0, true)), 9.0 * 9 * 4);
  EXPECT_EQ(kernel_work(call(Kernel::trmm, false, 4, 9)), 4.0 * 4 * 9);
  EXPECT_EQ(kernel_work(call(Kernel::trmm, false, 4, 9, 0, true)), 9.0 * 9 * 4);
  // syrk n(n+1)k
  EXPECT_EQ(kernel_work(call(Kernel::syrk, false, 0, 6, 10)), 6.0 * 7 * 10);
  // symm side L 2*m*m*n, side R 2*m*n*n
  EXPECT_EQ(kernel_work(call(Kernel::symm, false, 4, 9)), 2.0 * 4 * 4 * 9);
  EXPECT_EQ(kernel_work(call(Kernel::symm, false, 4, 9, 0, true)), 2.0 * 4 * 9 * 9);
  // precision does not change flops
  EXPECT_EQ(kernel_work(call(Kernel::gemm, true, 3, 5, 7)), 2.0 * 3 * 5 * 7);
}

TEST(KernelWork, MemoryBoundBytes) {
  // gemv: s (mn + n + 2m); transposed s (mn + m + 2n)
  EXPECT_EQ(kernel_work(call(Kernel::gemv, false, 10, 20)), 8.0 * (200 + 20 + 20));
  EXPECT_EQ(kernel_work(call(Kernel::gemv, false, 10, 20, 0, false, true)), 8.0 * (200 + 10 + 40));
  EXPECT_EQ(kernel_work(call(Kernel::gemv, true, 10, 20)), 4.0 * (200 + 20 + 20));
  // ger: s (2mn + m + n)
  EXPECT_EQ(kernel_work(call(Kernel::ger, false, 10, 20)), 8.0 * (400 + 30));
  // trsv: s (n(n+1)/2 + 2n)
  EXPECT_EQ(kernel_work(call(Kernel::trsv, false, 0, 10)), 8.0 * (55 + 20));
  // level 1: axpy 3ns, scal 2ns, copy 2ns, swap 4ns, dot 2ns, nrm2 ns, iamax ns
  EXPECT_EQ(kernel_work(call(Kernel::axpy, false, 0, 100)), 2400.0);
  EXPECT_EQ(kernel_work(call(Kernel::scal, false, 0, 100)), 1600.0);
  EXPECT_EQ(kernel_work(call(Kernel::copy, false, 0, 100)), 1600.0);
  EXPECT_EQ(kernel_work(call(Kernel::swap, false, 0, 100)), 3200.0);
  EXPECT_EQ(kernel_work(call(Kernel::dot, false, 0, 100)), 1600.0);
  EXPECT_EQ(kernel_work(call(Kernel::nrm2, false, 0, 100)), 800.0);
  EXPECT_EQ(kernel_work(call(Kernel::iamax, false, 0, 100)), 800.0);
  EXPECT_EQ(kernel_work(call(Kernel::axpy, true, 0, 100)), 1200.0);
}

TEST(KernelWork, NegativeDimensionsCountAsZero) {
  EXPECT_EQ(kernel_work(call(Kernel::gemm, false, -3, 5, 7)), 0.0);
  EXPECT_EQ(kernel_work(call(Kernel::axpy, false, 0, -100)), 0.0);
  EXPECT_EQ(kernel_shape_dim(call(Kernel::gemm, false, -3, 5, 7)), 0);
}

TEST(KernelShape, SmallestMatrixDimension) {
  EXPECT_EQ(kernel_shape_dim(call(Kernel::gemm, false, 30, 50, 7)), 7);
  EXPECT_EQ(kernel_shape_dim(call(Kernel::trsm, false, 30, 50)), 30);
  EXPECT_EQ(kernel_shape_dim(call(Kernel::trmm, false, 60, 50)), 50);
  EXPECT_EQ(kernel_shape_dim(call(Kernel::symm, false, 60, 50)), 50);
  EXPECT_EQ(kernel_shape_dim(call(Kernel::syrk, false, 0, 60, 50)), 50);
  EXPECT_EQ(kernel_shape_dim(call(Kernel::axpy, false, 0, 60)), 0);
}

TEST(KernelModelTime, ComputeBound) {
  KernelParams p = unit_params();
  p.overhead_ps = 200'000;                   // 0.2 us
  p[Kernel::gemm].efficiency = 0.5;
  p[Kernel::gemm].half_dim = 100;            // eff(d) = 0.5 d / (d + 100)
  p[Kernel::trsm].overhead_ps = 1'000'000;   // 1 us, instead of the default
  const KernelModel m(p);
  // gemm 100^3: 2e6 flops at 1 GF/s x 0.5 x 100/200 = 0.25 GF/s -> 8 ms, + 0.2 us
  EXPECT_DOUBLE_EQ(m.efficiency(call(Kernel::gemm, false, 100, 100, 100)), 0.25);
  EXPECT_EQ(m.time(call(Kernel::gemm, false, 100, 100, 100)).ps(), 8'000'000'000 + 200'000);
  // single precision: twice the peak -> 4 ms
  EXPECT_EQ(m.time(call(Kernel::gemm, true, 100, 100, 100)).ps(), 4'000'000'000 + 200'000);
  // d = min(m, n, k) = 300 of (400, 500, 300): eff = 0.5 x 300/400 = 0.375; flops 1.2e8 -> 0.32 s
  EXPECT_EQ(m.time(call(Kernel::gemm, false, 400, 500, 300)).ps(), 320'000'000'000 + 200'000);
  // trsm side R, m = 10, n = 20: 20*20*10 = 4000 flops at 1 GF/s (efficiency 1) -> 4 us, + its own 1 us
  EXPECT_EQ(m.time(call(Kernel::trsm, false, 10, 20, 0, true)).ps(), 4'000'000 + 1'000'000);
  // an empty call costs its overhead
  EXPECT_EQ(m.time(call(Kernel::gemm, false, 0, 100, 100)).ps(), 200'000);
}

TEST(KernelModelTime, MemoryBound) {
  KernelParams p = unit_params();
  p[Kernel::axpy].efficiency = 0.8;
  p[Kernel::axpy].half_dim = 50;  // ignored: memory-bound
  const KernelModel m(p);
  // daxpy n = 1000: 24,000 bytes at 1 GB/s x 0.8 -> 30 us
  EXPECT_DOUBLE_EQ(m.efficiency(call(Kernel::axpy, false, 0, 1000)), 0.8);
  EXPECT_EQ(m.time(call(Kernel::axpy, false, 0, 1000)).ps(), 30'000'000);
  // dgemv 100 x 200 (no transpose): 8 (20,000 + 200 + 200) = 163,200 bytes -> 163.2 us
  EXPECT_EQ(m.time(call(Kernel::gemv, false, 100, 200)).ps(), 163'200'000);
  // sdot n = 1000: 8,000 bytes -> 8 us
  EXPECT_EQ(m.time(call(Kernel::dot, true, 0, 1000)).ps(), 8'000'000);
}

TEST(KernelModelTime, Defaults) {
  const KernelModel m(unit_params());
  EXPECT_EQ(m.params().overhead_ps, 0);
  EXPECT_EQ(m.params()[Kernel::iamax].efficiency, 1.0);
  EXPECT_EQ(m.params()[Kernel::gemm].half_dim, 0.0);
  EXPECT_EQ(m.time(call(Kernel::gemm, false, 10, 10, 10)).ps(), 2'000'000);  // 2000 flops at 1 GF/s
}

TEST(KernelModelTime, MissingParametersAreRefused) {
  KernelParams p = unit_params();
  p.peak = -1;
  EXPECT_THROW(KernelModel{p}, std::invalid_argument);
  p = unit_params();
  p.bandwidth = -1;
  EXPECT_THROW(KernelModel{p}, std::invalid_argument);
}

TEST(KernelModelTime, BeyondTheClockRangeThrows) {
  const KernelModel m(unit_params());
  // 2e18 flops at 1 GF/s: 2e9 s, beyond the ~9.2e6 s of the virtual clock
  EXPECT_THROW((void)m.time(call(Kernel::gemm, false, 1'000'000, 1'000'000, 1'000'000)), std::overflow_error);
}

TEST(KernelPresets, FronteraFromItsSources) {
  const KernelParams* f = kernel_preset("frontera");
  ASSERT_NE(f, nullptr);
  EXPECT_DOUBLE_EQ(f->peak, 57.6e9);                      // 1.8 GHz x 32 DP flop/cycle
  EXPECT_DOUBLE_EQ(f->bandwidth, 2 * 140.784e9 / 56);     // 6 x DDR4-2933 x 8 B per socket, 56 cores
  // the efficiencies measured on the calibration machine (kernel_model.cpp), the same in both presets
  EXPECT_EQ((*f)[Kernel::gemm].efficiency, 0.8468);
  EXPECT_EQ((*f)[Kernel::gemm].half_dim, 4.63);
  EXPECT_EQ((*f)[Kernel::trsm].efficiency, 0.6201);
  EXPECT_EQ((*f)[Kernel::axpy].efficiency, 1.0);
  const KernelParams* p = kernel_preset("pupmaya");
  ASSERT_NE(p, nullptr);
  EXPECT_DOUBLE_EQ(p->peak, 51.2e9);                      // 1.6 GHz (AVX-512 base) x 32
  EXPECT_EQ((*p)[Kernel::gemm].efficiency, 0.8468);
  EXPECT_DOUBLE_EQ(p->bandwidth, 2 * 127.968e9 / 40);     // 6 x DDR4-2666 x 8 B per socket, 40 cores
  EXPECT_EQ(kernel_preset("nonesuch"), nullptr);
  EXPECT_EQ(kernel_preset_names(), (std::vector<std::string>{"frontera", "pupmaya"}));
}

TEST(KernelPresets, OverlayReplacesGivenValuesOnly) {
  KernelParams over;
  over.peak = 1e9;
  over[Kernel::gemm].half_dim = 24;
  const KernelParams r = overlay(*kernel_preset("frontera"), over);
  EXPECT_EQ(r.peak, 1e9);
  EXPECT_EQ(r.bandwidth, kernel_preset("frontera")->bandwidth);
  EXPECT_EQ(r[Kernel::gemm].half_dim, 24);
  EXPECT_EQ(r[Kernel::gemm].efficiency, 0.8468);
}

TEST(KernelNames, RoundTrip) {
  for (int i = 0; i < kKernelCount; ++i) {
    const Kernel k = static_cast<Kernel>(i);
    ASSERT_TRUE(kernel_from_name(kernel_name(k)).has_value());
    EXPECT_EQ(*kernel_from_name(kernel_name(k)), k);
  }
  EXPECT_FALSE(kernel_from_name("gemmm").has_value());
  EXPECT_TRUE(compute_bound(Kernel::symm));
  EXPECT_FALSE(compute_bound(Kernel::gemv));
}

TEST(FlopRate, ParsesUnitsAndPrefixes) {
  EXPECT_EQ(parse_flop_rate("57.6GF"), 57.6e9);
  EXPECT_EQ(parse_flop_rate("57.6 GF/s"), 57.6e9);
  EXPECT_EQ(parse_flop_rate("57.6 Gflop/s"), 57.6e9);
  EXPECT_EQ(parse_flop_rate("2 TFLOPS"), 2e12);
  EXPECT_EQ(parse_flop_rate("5.76e10"), 5.76e10);
  EXPECT_EQ(parse_flop_rate("1.5e3 MF"), 1.5e9);
  EXPECT_EQ(parse_flop_rate("100 kF"), 1e5);
  for (const char* bad : {"", "GF", "-1GF", "0GF", "57.6 GB/s", "57.6 Gx", "abc", "1e999F"})
    EXPECT_THROW(parse_flop_rate(bad), std::invalid_argument) << bad;
}

TEST(FlopRate, FormatReadsBack) {
  for (double f : {57.6e9, 70.4e9, 1e9, 3e12, 123456789.0, 1.0 / 3 * 1e10})
    EXPECT_EQ(parse_flop_rate(format_flop_rate(f)), f) << format_flop_rate(f);
  EXPECT_EQ(format_flop_rate(57.6e9), "57.6 GF/s");
}

}  // namespace
}  // namespace xsim::proc

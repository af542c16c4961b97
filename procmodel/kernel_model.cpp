// Kernel models of BLAS calls (kernel_model.hpp; docs/real-programs.md "Kernel models").
#include "xsim/procmodel/kernel_model.hpp"

#include <algorithm>
#include <charconv>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

#include "xsim/units.hpp"
#include <vector>

namespace xsim::proc {
namespace {

constexpr const char* kNames[kKernelCount] = {"gemm", "trsm", "trmm", "syrk", "symm", "gemv", "ger", "trsv",
                                              "axpy", "scal", "copy", "swap", "dot",  "nrm2", "iamax"};

double nonneg(int64_t v) { return v > 0 ? static_cast<double>(v) : 0.0; }

std::string number(double f) {
  char buf[64];
  std::to_chars_result r = std::to_chars(buf, buf + sizeof buf, f);
  return std::string(buf, r.ptr);
}


// ---- presets ---------------------------------------------------------------------------------------
// Peak and bandwidth from public specifications, efficiencies measured (below); none fitted to a result it
// will predict (docs/real-programs.md "Parameters").

// The efficiencies of a tuned BLAS on one core, relative to what the core's FMA units can do at the clock it
// holds: measured on this project's calibration machine (OpenBLAS 0.3.21, one thread, AMD EPYC Zen 4, clock
// measured by an FMA loop; `xsim-calibrate --kernels`, docs/real-programs.md "Parameters"), never fitted to an
// HPL result. dgemm: 0.8468 with half_dim 4.63 (R^2 0.996 over 17 shapes); dtrsm: 0.6201, half_dim 178.1,
// 49.3 us per call (R^2 0.990). The memory-bound families: 1, the theoretical bandwidth below (optimistic:
// STREAM reaches less; HPL's time hardly depends on them, docs/real-programs.md gives the sensitivity).
KernelParams with_measured_efficiencies(KernelParams p) {
  for (auto& f : p.family) f.efficiency = 1.0;
  p[Kernel::gemm].efficiency = 0.8468;
  p[Kernel::gemm].half_dim = 4.63;
  p[Kernel::trsm].efficiency = 0.6201;
  p[Kernel::trsm].half_dim = 178.1;
  p[Kernel::trsm].overhead_ps = 49'257'000;
  return p;
}

KernelParams make_frontera() {
  KernelParams p;
  // Frontera (TACC): 2 x Intel Xeon Platinum 8280 per node, 28 cores each (Intel ARK).
  // Clock: 1.8 GHz, the AVX-512 all-core clock of the 8280 as stated by Xu et al., "Simulation-Based
  // Performance Prediction of HPC Applications: A Case Study of HPL" (the HPL/Frontera simulation paper).
  // Two AVX-512 FMA units per core (Intel ARK: "# of AVX-512 FMA Units 2"): 2 x 8 doubles x 2 flops =
  // 32 DP flop/cycle. Peak per core: 1.8e9 x 32 = 57.6 GF/s.
  p.peak = 1.8e9 * 32;
  // Memory: 6 channels of DDR4-2933 per socket (Intel ARK), 8 bytes per transfer: 6 x 2933e6 x 8 =
  // 140.784 GB/s per socket, 281.568 GB/s per node; one core's share when all 56 stream: / 56.
  p.bandwidth = 2 * 6 * 2933e6 * 8 / 56;
  return with_measured_efficiencies(p);
}

KernelParams make_pupmaya() {
  KernelParams p;
  // Pupmaya: 2 x Intel Xeon Gold 6148 per node, 20 cores each, 2.4 GHz nominal (Intel ARK).
  // Clock: 1.6 GHz, the 6148's AVX-512 base frequency (Intel Xeon Processor Scalable Family Specification
  // Update, document 336065), the same kind of clock as Frontera's 1.8 GHz (the 8280's AVX-512 base, the
  // case study's "around 1.8 GHz"); its AVX-512 all-core turbo, 2.2 GHz, is the other reading
  // (docs/real-programs.md gives the prediction with both). Two AVX-512 FMA units (Intel ARK): 32 DP
  // flop/cycle. Peak per core: 1.6e9 x 32 = 51.2 GF/s.
  p.peak = 1.6e9 * 32;
  // Memory: 6 channels of DDR4-2666 per socket (Intel ARK), 8 bytes per transfer: 6 x 2666e6 x 8 =
  // 127.968 GB/s per socket, 255.936 GB/s per node; one core's share when all 40 stream: / 40.
  p.bandwidth = 2 * 6 * 2666e6 * 8 / 40;
  return with_measured_efficiencies(p);
}

struct Preset {
  const char* name;
  KernelParams params;
};
const std::vector<Preset>& presets() {
  static const std::vector<Preset> v = {{"frontera", make_frontera()}, {"pupmaya", make_pupmaya()}};
  return v;
}

}  // namespace

const char* kernel_name(Kernel k) { return kNames[static_cast<size_t>(k)]; }

std::optional<Kernel> kernel_from_name(std::string_view name) {
  for (int i = 0; i < kKernelCount; ++i)
    if (name == kNames[i]) return static_cast<Kernel>(i);
  return std::nullopt;
}

std::vector<std::string> kernel_names() { return {std::begin(kNames), std::end(kNames)}; }

// Flops (compute-bound) and bytes (memory-bound); s = element size. Level 1 and 2 count each element read
// once and each element written once (y of axpy and gemv read and written: 2 accesses).
double kernel_work(const KernelCall& c) {
  const double m = nonneg(c.m), n = nonneg(c.n), k = nonneg(c.k), s = c.single ? 4.0 : 8.0;
  switch (c.kernel) {
    case Kernel::gemm: return 2 * m * n * k;                     // C(m x n) += A(m x k) B(k x n)
    case Kernel::trsm:                                            // B(m x n) = A^-1 B, A triangular
    case Kernel::trmm: return c.right ? n * n * m : m * m * n;   // A m x m (side L) or n x n (side R)
    case Kernel::syrk: return n * (n + 1) * k;                   // C(n x n) triangle += A(n x k) A^T
    case Kernel::symm: return c.right ? 2 * m * n * n : 2 * m * m * n;  // A symmetric m x m / n x n
    case Kernel::gemv:  // y = A x + y, A m x n: x has n elements and y m (transposed: m and n)
      return s * (m * n + (c.trans ? m + 2 * n : n + 2 * m));
    case Kernel::ger: return s * (2 * m * n + m + n);        // A(m x n) += x y^T: A read and written
    case Kernel::trsv: return s * (n * (n + 1) / 2 + 2 * n);  // triangle read, x read and written
    case Kernel::axpy: return s * 3 * n;
    case Kernel::scal: return s * 2 * n;
    case Kernel::copy: return s * 2 * n;
    case Kernel::swap: return s * 4 * n;
    case Kernel::dot: return s * 2 * n;
    case Kernel::nrm2: return s * n;
    case Kernel::iamax: return s * n;
  }
  return 0;
}

int64_t kernel_shape_dim(const KernelCall& c) {
  const int64_t m = std::max<int64_t>(c.m, 0), n = std::max<int64_t>(c.n, 0), k = std::max<int64_t>(c.k, 0);
  switch (c.kernel) {
    case Kernel::gemm: return std::min({m, n, k});
    case Kernel::trsm:
    case Kernel::trmm:
    case Kernel::symm: return std::min(m, n);
    case Kernel::syrk: return std::min(n, k);
    default: return 0;
  }
}

KernelParams overlay(const KernelParams& base, const KernelParams& over) {
  KernelParams p = base;
  if (over.peak >= 0) p.peak = over.peak;
  if (over.bandwidth >= 0) p.bandwidth = over.bandwidth;
  if (over.overhead_ps >= 0) p.overhead_ps = over.overhead_ps;
  for (size_t i = 0; i < p.family.size(); ++i) {
    const KernelFamilyParams& o = over.family[i];
    if (o.efficiency >= 0) p.family[i].efficiency = o.efficiency;
    if (o.half_dim >= 0) p.family[i].half_dim = o.half_dim;
    if (o.overhead_ps >= 0) p.family[i].overhead_ps = o.overhead_ps;
  }
  return p;
}

const KernelParams* kernel_preset(std::string_view name) {
  for (const Preset& p : presets())
    if (name == p.name) return &p.params;
  return nullptr;
}

std::vector<std::string> kernel_preset_names() {
  std::vector<std::string> v;
  for (const Preset& p : presets()) v.emplace_back(p.name);
  return v;
}

double parse_flop_rate(std::string_view text) {
  std::string_view s = text;
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  const std::string why = "bad flop rate \"" + std::string(text) + "\": ";
  size_t len = 0;  // the number's text: digits, '.', an exponent
  while (len < s.size() && (std::isdigit(static_cast<unsigned char>(s[len])) || s[len] == '.' ||
                            ((s[len] == 'e' || s[len] == 'E') && len > 0 && len + 1 < s.size() &&
                             (std::isdigit(static_cast<unsigned char>(s[len + 1])) || s[len + 1] == '-' ||
                              s[len + 1] == '+')) ||
                            ((s[len] == '-' || s[len] == '+') && len > 0 && (s[len - 1] == 'e' || s[len - 1] == 'E'))))
    ++len;
  std::string num(s.substr(0, len));
  std::string_view unit = s.substr(len);
  while (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  int exp10 = 0;  // the prefix, applied in decimal so that "57.6G" is the double nearest 57.6e9
  const std::string given_unit(unit);
  if (!unit.empty()) {
    constexpr std::pair<char, int> kPrefix[] = {{'k', 3}, {'K', 3}, {'M', 6}, {'G', 9}, {'T', 12}, {'P', 15}};
    for (auto [c, e] : kPrefix)
      if (unit.front() == c && unit.size() > 1) {
        exp10 = e;
        unit.remove_prefix(1);
        break;
      }
    bool known = false;
    for (const char* u : {"F", "F/s", "FLOP/s", "FLOPS", "flop/s"})
      known = known || iequals(unit, u);
    if (!known)
      throw std::invalid_argument(why + "unknown unit \"" + given_unit +
                                  "\"; give F, F/s or FLOP/s with an optional prefix k, M, G, T or P (e.g. 57.6GF)");
  }
  const bool has_exp = num.find_first_of("eE") != std::string::npos;
  if (!has_exp && exp10) num += "e" + std::to_string(exp10);
  double v = 0;
  auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), v);
  if (num.empty() || ec != std::errc() || p != num.data() + num.size())
    throw std::invalid_argument(why + "expected a number with an optional prefix k, M, G, T or P and unit F, F/s "
                                      "or FLOP/s (e.g. 57.6GF)");
  if (has_exp && exp10) v *= std::pow(10.0, exp10);
  if (!(v > 0) || !std::isfinite(v)) throw std::invalid_argument(why + "a flop rate must be positive and finite");
  return v;
}

std::string format_flop_rate(double flops) {
  constexpr std::pair<double, const char*> kUnits[] = {{1e15, "PF/s"}, {1e12, "TF/s"}, {1e9, "GF/s"}, {1e6, "MF/s"}};
  for (auto [f, u] : kUnits) {
    if (flops < f) continue;
    std::string t = number(flops / f) + " " + u;
    if (parse_flop_rate(t) == flops) return t;  // reads back as the same value
  }
  return number(flops) + " F/s";
}

KernelModel::KernelModel(const KernelParams& given) : p_(given) {
  if (!(p_.peak > 0) || !std::isfinite(p_.peak))
    throw std::invalid_argument("kernel model: the peak flop rate per core is not set (give [kernels] peak, or a preset)");
  if (!(p_.bandwidth > 0) || !std::isfinite(p_.bandwidth))
    throw std::invalid_argument("kernel model: the memory bandwidth per core is not set (give [kernels] bandwidth, or a preset)");
  if (p_.overhead_ps < 0) p_.overhead_ps = 0;
  for (KernelFamilyParams& f : p_.family) {
    if (f.efficiency < 0) f.efficiency = 1.0;
    if (f.half_dim < 0) f.half_dim = 0.0;
    if (f.overhead_ps < 0) f.overhead_ps = p_.overhead_ps;
    if (!(f.efficiency > 0) || !std::isfinite(f.efficiency) || !std::isfinite(f.half_dim))
      throw std::invalid_argument("kernel model: an efficiency must be a positive number");
  }
}

double KernelModel::efficiency(const KernelCall& c) const {
  const KernelFamilyParams& f = p_[c.kernel];
  if (!compute_bound(c.kernel)) return f.efficiency;
  const double d = static_cast<double>(kernel_shape_dim(c));
  return f.half_dim > 0 ? f.efficiency * d / (d + f.half_dim) : f.efficiency;
}

SimTime KernelModel::time(const KernelCall& c) const {
  const KernelFamilyParams& f = p_[c.kernel];
  const double work = kernel_work(c);
  if (!(work > 0)) return SimTime::from_ps(f.overhead_ps);  // an empty call: its overhead only
  const double rate = compute_bound(c.kernel) ? p_.peak * (c.single ? 2.0 : 1.0) * efficiency(c)
                                              : p_.bandwidth * f.efficiency;
  const double ps = work * 1e12 / rate;
  if (!(ps < 9.2e18 - static_cast<double>(f.overhead_ps)))
    throw std::overflow_error(std::string("virtual time out of range: a ") + kernel_name(c.kernel) + " call of " +
                              number(work) + (compute_bound(c.kernel) ? " flops" : " bytes") +
                              " takes beyond the virtual clock's range (about 106 days)");
  return SimTime::from_ps(f.overhead_ps + static_cast<int64_t>(std::llround(ps)));
}

std::string KernelModel::describe() const {
  return "peak " + format_flop_rate(p_.peak) + " (double precision) per core, bandwidth " +
         number(p_.bandwidth / 1e9) + " GB/s per core, overhead " + number(static_cast<double>(p_.overhead_ps) / 1e6) +
         " us per call";
}

}  // namespace xsim::proc

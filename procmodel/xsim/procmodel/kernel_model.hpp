// KernelModel: the virtual time of one BLAS call from its dimensions (-xsim-kernels model; docs/real-programs.md
// "Kernel models"). Layer: procmodel (pure library: no MPI, no fibers). Immutable after construction.
// Compute-bound families (level 3): t = overhead + flops / (peak_for_precision x eff(d)),
//   eff(d) = efficiency x d / (d + half_dim), d = the call's smallest matrix dimension.
// Memory-bound families (levels 1 and 2): t = overhead + bytes / (bandwidth x efficiency).
// Flop and byte counts per family are in kernel_model.cpp (kernel_work) and in the docs, formula by formula.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "xsim/simtime.hpp"

namespace xsim::proc {

// The kernel families, compute-bound first. Their TOML names are kernel_name's ([kernels.gemm], ...).
enum class Kernel : uint8_t { gemm, trsm, trmm, syrk, symm, gemv, ger, trsv, axpy, scal, copy, swap, dot, nrm2, iamax };
constexpr int kKernelCount = 15;
constexpr bool compute_bound(Kernel k) { return k <= Kernel::symm; }
const char* kernel_name(Kernel k);
std::optional<Kernel> kernel_from_name(std::string_view name);
std::vector<std::string> kernel_names();

// One call's shape. m, n, k as the BLAS names them (unused ones 0; negative ones count as 0);
// `right`: side R (trsm, trmm, symm); `trans`: A transposed (gemv: then x has m elements and y n).
struct KernelCall {
  Kernel kernel = Kernel::gemm;
  bool single = false;  // s precision (4-byte elements, 2 x peak); else d
  int64_t m = 0, n = 0, k = 0;
  bool right = false;
  bool trans = false;
};

// The work of a call: flops for a compute-bound family, bytes moved for a memory-bound one.
double kernel_work(const KernelCall& c);
// The smallest matrix dimension of a compute-bound call (d of eff(d)); 0 for memory-bound families.
int64_t kernel_shape_dim(const KernelCall& c);

// Parameters as given (TOML [kernels], a preset): negative = not given.
struct KernelFamilyParams {
  double efficiency = -1;  // in (0, 1] (above 1 is allowed: a faster kernel than the stated peak)
  double half_dim = -1;    // >= 0; compute-bound families only
  int64_t overhead_ps = -1;
  bool operator==(const KernelFamilyParams&) const = default;
};
struct KernelParams {
  double peak = -1;       // double-precision flop/s of one core at its all-core clock
  double bandwidth = -1;  // bytes/s of one core when every core of its node streams
  int64_t overhead_ps = -1;
  std::array<KernelFamilyParams, kKernelCount> family{};
  bool operator==(const KernelParams&) const = default;
  KernelFamilyParams& operator[](Kernel k) { return family[static_cast<size_t>(k)]; }
  const KernelFamilyParams& operator[](Kernel k) const { return family[static_cast<size_t>(k)]; }
};

// `over`'s given values replace `base`'s (explicit keys over a preset).
KernelParams overlay(const KernelParams& base, const KernelParams& over);

// Presets for machines one does not have (kernel_model.cpp cites the source of every number).
const KernelParams* kernel_preset(std::string_view name);
std::vector<std::string> kernel_preset_names();

// Parses a flop rate: a number with an optional SI prefix (k, M, G, T, P) and unit F, F/s, FLOP/s or
// FLOPS (any case): "57.6GF", "57.6 Gflop/s", "5.76e10". Throws std::invalid_argument with the reason.
double parse_flop_rate(std::string_view text);
// "57.6 GF/s" (shortest text that parse_flop_rate reads back as the same value).
std::string format_flop_rate(double flops);

class KernelModel {
 public:
  // Unset values take their defaults: overhead 0, efficiency 1, half_dim 0, a family's overhead the
  // [kernels] one. Throws std::invalid_argument when peak or bandwidth is not given or not positive.
  explicit KernelModel(const KernelParams& p);
  SimTime time(const KernelCall& c) const;
  // eff(d) of a compute-bound call, efficiency of a memory-bound one.
  double efficiency(const KernelCall& c) const;
  const KernelParams& params() const { return p_; }  // resolved: every value given
  std::string describe() const;

 private:
  KernelParams p_;
};

}  // namespace xsim::proc

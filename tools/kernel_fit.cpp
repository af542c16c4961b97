// The kernel model's fit and its TOML (kernel_fit.hpp).
#include "kernel_fit.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

namespace xsim::calibrate {
namespace {

// The model's regressors: t = x[0] * 1 + x[1] * u + x[2] * v with (compute-bound) u = flops,
// v = flops / dim, or (memory-bound) u = bytes, v = 0.
struct Row {
  double u, v, t;
};

// Weighted least squares (weights 1/t^2) over the unknowns `use` selects; the others are zero.
// Returns false when the system is singular.
bool solve(const std::vector<Row>& rows, std::array<bool, 3> use, std::array<double, 3>& x) {
  int idx[3], n = 0;
  for (int j = 0; j < 3; ++j)
    if (use[j]) idx[n++] = j;
  double a[3][4] = {};
  for (const Row& r : rows) {
    const double f[3] = {1.0, r.u, r.v}, w = 1.0 / (r.t * r.t);
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) a[i][j] += w * f[idx[i]] * f[idx[j]];
      a[i][n] += w * f[idx[i]] * r.t;
    }
  }
  for (int c = 0; c < n; ++c) {  // Gaussian elimination with partial pivoting
    int p = c;
    for (int i = c + 1; i < n; ++i)
      if (std::fabs(a[i][c]) > std::fabs(a[p][c])) p = i;
    if (!(std::fabs(a[p][c]) > 0)) return false;
    for (int j = 0; j <= n; ++j) std::swap(a[c][j], a[p][j]);
    for (int i = 0; i < n; ++i) {
      if (i == c) continue;
      const double m = a[i][c] / a[c][c];
      for (int j = c; j <= n; ++j) a[i][j] -= m * a[c][j];
    }
  }
  x = {0, 0, 0};
  for (int i = 0; i < n; ++i) x[idx[i]] = a[i][n] / a[i][i];
  return true;
}

double weighted_sse(const std::vector<Row>& rows, const std::array<double, 3>& x) {
  double s = 0;
  for (const Row& r : rows) {
    const double e = (x[0] + x[1] * r.u + x[2] * r.v) / r.t - 1;
    s += e * e;
  }
  return s;
}

// The best fit with overhead >= 0, slope > 0 and (compute-bound) half_dim >= 0: the unconstrained
// solution if it satisfies them, else the best of the solutions with the violated terms fixed at zero.
std::array<double, 3> constrained_fit(const std::vector<Row>& rows, bool with_v) {
  std::array<double, 3> best{0, 0, 0};
  double best_sse = std::numeric_limits<double>::infinity();
  for (int drop = 0; drop < 4; ++drop) {
    const bool use0 = !(drop & 1), use2 = with_v && !(drop & 2);
    if (!with_v && (drop & 2)) continue;
    std::array<double, 3> x;
    if (!solve(rows, {use0, true, use2}, x)) continue;
    if (x[0] < 0 || !(x[1] > 0) || x[2] < 0) continue;
    const double sse = weighted_sse(rows, x);
    if (sse < best_sse) best_sse = sse, best = x;
  }
  if (!(best[1] > 0)) throw std::invalid_argument("no fit with a positive rate: the times do not grow with the work");
  return best;
}

}  // namespace

bool compute_bound(const std::string& family) {
  return family == "gemm" || family == "trsm" || family == "trmm" || family == "syrk" || family == "symm";
}

double predict(const FamilyFit& f, const KernelSample& s, const Rates& r) {
  if (compute_bound(f.family)) {
    const double eff = f.efficiency * s.dim / (s.dim + f.half_dim);
    return f.overhead + s.flops / (r.peak * eff);
  }
  return f.overhead + s.bytes / (r.bandwidth * f.efficiency);
}

FamilyFit fit_family(const std::vector<KernelSample>& samples, const Rates& r) {
  if (samples.size() < 2) throw std::invalid_argument("a family needs at least two measured shapes");
  FamilyFit f;
  f.family = samples.front().family;
  const bool cb = compute_bound(f.family);
  std::vector<Row> rows;
  for (const KernelSample& s : samples) {
    const double work = cb ? s.flops : s.bytes;
    if (!(s.seconds > 0) || !(work > 0) || (cb && !(s.dim > 0)))
      throw std::invalid_argument(f.family + " " + s.shape + ": time, work and dimension must be positive");
    rows.push_back({work, cb ? work / s.dim : 0.0, s.seconds});
  }
  const std::array<double, 3> x = constrained_fit(rows, cb);
  // x[1] = 1 / (rate * efficiency); x[2] = half_dim x[1].
  f.efficiency = 1.0 / ((cb ? r.peak : r.bandwidth) * x[1]);
  f.half_dim = cb ? x[2] / x[1] : 0.0;
  f.overhead = std::round(x[0] * 1e12) / 1e12;  // whole picoseconds, as the file holds it
  // The quality of the fit, on the times as they are.
  double mean = 0, ss_tot = 0, ss_res = 0;
  for (const KernelSample& s : samples) mean += s.seconds / static_cast<double>(samples.size());
  for (const KernelSample& s : samples) {
    const double p = predict(f, s, r);
    ss_tot += (s.seconds - mean) * (s.seconds - mean);
    ss_res += (s.seconds - p) * (s.seconds - p);
    f.worst = std::max(f.worst, std::fabs(p / s.seconds - 1));
  }
  f.r2 = ss_tot > 0 ? 1 - ss_res / ss_tot : 1.0;
  return f;
}

Rates representable(const Rates& r) {
  return {std::round(r.peak / 1e3) * 1e3, std::round(r.bandwidth * 8) / 8};
}

namespace {

// n whole kflop/s as exact decimal GF ("41.521984GF").
std::string gf_text(double peak) {
  const auto k = static_cast<unsigned long long>(std::llround(peak / 1e3));
  char b[64];
  std::snprintf(b, sizeof b, "%llu.%06llu", k / 1000000, k % 1000000);
  std::string s = b;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s + "GF";
}

std::string ps_text(double seconds) {
  char b[48];
  std::snprintf(b, sizeof b, "%lldps", static_cast<long long>(std::llround(std::max(0.0, seconds) * 1e12)));
  return b;
}

std::string num(double v) {
  char b[48];
  std::snprintf(b, sizeof b, "%.17g", v);
  std::string s = b;
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";  // a TOML float, not an integer
  return s;
}

}  // namespace

std::string kernel_toml(const KernelFile& k) {
  std::string s;
  for (const std::string& c : k.comments) s += c.empty() ? "#\n" : "# " + c + "\n";
  char line[256];
  if (k.kernels || k.bandwidth) s += "\n[kernels]\n";
  if (k.kernels) {
    std::snprintf(line, sizeof line, "peak = \"%s\"      # one core's double-precision flop/s at the all-core clock\n",
                  gf_text(k.node.peak).c_str());
    s += line;
  }
  if (k.bandwidth) {
    const auto bps = static_cast<unsigned long long>(std::llround(k.node.bandwidth * 8));
    std::snprintf(line, sizeof line, "bandwidth = \"%llubps\"   # %.3f GB/s: one core's share when every core streams\n",
                  bps, k.node.bandwidth / 1e9);
    s += line;
  }
  if (k.kernels) {
    s += "overhead = \"" + ps_text(k.overhead) + "\"\n";
    for (const FamilyFit& f : k.families) {
      std::snprintf(line, sizeof line, "\n[kernels.%s]                # R^2 %.6f, largest error %.1f%%\n",
                    f.family.c_str(), f.r2, f.worst * 100);
      s += line;
      s += "efficiency = " + num(f.efficiency) + "\n";
      if (compute_bound(f.family)) s += "half_dim = " + num(f.half_dim) + "\n";
      s += "overhead = \"" + ps_text(f.overhead) + "\"\n";
    }
  }
  if (k.node_measured) {
    s += "\n[node]\n";
    s += "memory_factor = " + num(k.memory_factor) + "    # all-core / one-core time of a memory-bound loop\n";
    s += "compute_factor = " + num(k.compute_factor) + "   # the same for a compute-bound loop\n";
    s += "host = \"none\"                # which factor scales host-timed computation: none, memory, compute or a number\n";
  }
  return s;
}

}  // namespace xsim::calibrate

// The kernel model xsim-calibrate --kernels fits to the BLAS calls it timed on this host, and the [kernels]
// and [node] TOML it writes (docs/real-programs.md "Kernel calibration"), without MPI or BLAS: pure
// functions, unit-tested on synthetic samples (tests/unit/config/test_kernel_fit.cpp).
//   compute-bound families (gemm, trsm):  t = overhead + flops / (peak * efficiency * d / (d + half_dim))
//   memory-bound families (level 1 and 2): t = overhead + bytes / (bandwidth * efficiency)
// Each family is fitted by weighted least squares on the measured times (weights 1/t^2: every call's
// relative error counts alike, whatever its size), with overhead >= 0 and half_dim >= 0.
// Two machines are involved: the one-core machine the samples were timed on (peak and bandwidth of a core
// alone, `alone`), and the busy node the TOML describes (the all-core clock's peak and a core's share of
// the node's bandwidth, `node`). Efficiencies are relative to the first; the file pairs them with the second.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace xsim::calibrate {

// One measured shape of one kernel: the minimum over repeated calls of the time of one call.
struct KernelSample {
  std::string family;  // gemm, trsm, axpy, ...
  std::string shape;   // e.g. "m=512 n=512 k=64" (for the printout)
  double flops = 0;    // compute-bound families
  double bytes = 0;    // memory-bound families
  double dim = 0;      // compute-bound: the smallest matrix dimension of the call
  double seconds = 0;
};

bool compute_bound(const std::string& family);  // gemm trsm trmm syrk symm

// A fitted family. r2: coefficient of determination on the times; worst: largest relative error.
struct FamilyFit {
  std::string family;
  double efficiency = 0, half_dim = 0, overhead = 0;
  double r2 = 0, worst = 0;
};

// The rates a fit refers to (flop/s and bytes/s of one core).
struct Rates {
  double peak = 0;       // double-precision flop/s
  double bandwidth = 0;  // bytes/s
};

// Fits one family to its samples (all of that family) against `r`. The overhead comes out in whole
// picoseconds (what the TOML can hold). Throws std::invalid_argument with fewer than two samples or a
// non-positive time, flop or byte count.
FamilyFit fit_family(const std::vector<KernelSample>& samples, const Rates& r);

// The modelled time of `s` under `f` with the rates `r`.
double predict(const FamilyFit& f, const KernelSample& s, const Rates& r);

// What the file holds: the busy node's rates, a default overhead, the fitted families, and what the
// [node] table says (written only when `node_measured`).
struct KernelFile {
  Rates node;                 // peak at the all-core clock, bandwidth: a core's share when all stream
  double overhead = 0;        // [kernels] overhead: the families' median
  std::vector<FamilyFit> families;
  bool kernels = true;        // write [kernels] (peak, overhead, the families)
  bool bandwidth = true;      // write [kernels] bandwidth
  bool node_measured = false;
  double memory_factor = 1, compute_factor = 1;
  std::vector<std::string> comments;  // header lines (without "# ")
};

// peak rounded to whole kflop/s and bandwidth to whole bits/s, the values the file can state exactly.
Rates representable(const Rates& r);

// The TOML text: every number written so that reading it back gives the same double (efficiency and
// half_dim with 17 significant digits, times in whole picoseconds, peak in exact decimal GF, bandwidth in
// whole bits per second).
std::string kernel_toml(const KernelFile& k);

}  // namespace xsim::calibrate

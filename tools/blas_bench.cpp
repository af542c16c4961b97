// Timing the BLAS's kernels (blas_bench.hpp).
#include "blas_bench.hpp"

#include <dlfcn.h>
#include <time.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <stdexcept>
#include <string>

namespace xsim::calibrate {
namespace {

using L = size_t;  // gfortran's hidden length of a CHARACTER argument
using Gemm = void (*)(const char*, const char*, const int*, const int*, const int*, const double*, const double*,
                      const int*, const double*, const int*, const double*, double*, const int*, L, L);
using Trsm = void (*)(const char*, const char*, const char*, const char*, const int*, const int*, const double*,
                      const double*, const int*, double*, const int*, L, L, L, L);
using Axpy = void (*)(const int*, const double*, const double*, const int*, double*, const int*);
using Scal = void (*)(const int*, const double*, double*, const int*);
using Copy = void (*)(const int*, const double*, const int*, double*, const int*);  // and swap
using Dot = double (*)(const int*, const double*, const int*, const double*, const int*);
using Nrm2 = double (*)(const int*, const double*, const int*);
using Iamax = int (*)(const int*, const double*, const int*);
using Gemv = void (*)(const char*, const int*, const int*, const double*, const double*, const int*, const double*,
                      const int*, const double*, double*, const int*, L);
using Ger = void (*)(const int*, const int*, const double*, const double*, const int*, const double*, const int*,
                     double*, const int*);
using Trsv = void (*)(const char*, const char*, const char*, const int*, const double*, const int*, double*, const int*,
                      L, L, L);

volatile double sink;  // keeps the reductions' results alive

double now() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);  // the thread's CPU time: not the time other processes run
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// The least per-call time over batches of calls (a batch lasts at least 1 ms), at least `min_batches`
// batches and `min_total` seconds.
double per_call(const std::function<void()>& call, int min_batches, double min_total) {
  double t0 = now();
  call();  // warm-up: lazy binding, page faults
  const double one = now() - t0;
  const int calls = one >= 1e-3 ? 1 : static_cast<int>(std::min(1e6, std::ceil(1e-3 / std::max(one, 1e-8))));
  double best = 1e300, spent = 0;
  for (int b = 0; b < min_batches || (spent < min_total && b < 200); ++b) {
    t0 = now();
    for (int i = 0; i < calls; ++i) call();
    const double dt = now() - t0;
    best = std::min(best, dt / calls);
    spent += dt;
  }
  return best;
}

struct Blas {
  void* handle = nullptr;
  void* sym(const char* name) const {
    void* p = dlsym(handle, name);
    if (!p) throw std::runtime_error(std::string("the BLAS has no symbol ") + name + " (is it a BLAS library?)");
    return p;
  }
};

std::string shape3(int m, int n, int k) {
  return "m=" + std::to_string(m) + " n=" + std::to_string(n) + " k=" + std::to_string(k);
}

struct Buffers {
  std::vector<double> a, x, y;
};

// dgemm and dtrsm, cheapest first; a shape whose estimated time (from the best rate so far) would
// overrun the budget is skipped.
void level3(const Blas& blas, const BlasBenchOptions& o, Buffers& buf, BlasBench& out) {
  const auto gemm = reinterpret_cast<Gemm>(blas.sym("dgemm_"));
  const auto trsm = reinterpret_cast<Trsm>(blas.sym("dtrsm_"));
  struct Shape {
    bool is_gemm;
    int m, n, k;
    double flops() const { return is_gemm ? 2.0 * m * n * k : 1.0 * m * m * n; }
  };
  std::vector<Shape> shapes;
  const int top = o.quick ? 1024 : 2048;
  for (int d : {128, 256, 384, 512, 768, 1024, 1536, 2048})
    if (d <= top) shapes.push_back({true, d, d, d}), shapes.push_back({false, d, d, 0});
  for (int k : {64, 128, 192, 256})  // HPL's trailing update: k = NB, m and n large
    for (int mn : {1024, 2048})
      if (mn <= top && (!o.quick || k != 192)) shapes.push_back({true, mn, mn, k});
  if (!o.quick) shapes.push_back({true, 2048, 512, 128});
  for (int m : {64, 128, 256}) shapes.push_back({false, m, top, 0});  // HPL's L1^-1 U: m = NB, n large
  std::sort(shapes.begin(), shapes.end(), [](const Shape& a, const Shape& b) { return a.flops() < b.flops(); });
  const double start = now();
  double rate = 0;  // best flop/s so far
  for (const Shape& s : shapes) {
    const std::string name = (s.is_gemm ? "dgemm " : "dtrsm ") +
                             (s.is_gemm ? shape3(s.m, s.n, s.k) : "m=" + std::to_string(s.m) + " n=" + std::to_string(s.n));
    const int batches = o.quick ? 2 : 3;
    if (rate > 0 && now() - start + batches * s.flops() / rate > o.budget) {
      out.skipped.push_back(name);
      continue;
    }
    const double alpha = -1.0, beta = 1.0, one = 1.0;
    std::function<void()> call;
    if (s.is_gemm)
      call = [&, s] { gemm("N", "N", &s.m, &s.n, &s.k, &alpha, buf.a.data(), &s.m, buf.x.data(), &s.k, &beta, buf.y.data(), &s.m, 1, 1); };
    else
      call = [&, s] { trsm("L", "L", "N", "U", &s.m, &s.n, &one, buf.a.data(), &s.m, buf.x.data(), &s.m, 1, 1, 1, 1); };
    const double t = per_call(call, batches, o.quick ? 0.05 : 0.25);
    rate = std::max(rate, s.flops() / t);
    out.samples.push_back({s.is_gemm ? "gemm" : "trsm", name.substr(6), s.flops(), 0,
                           static_cast<double>(std::min({s.m, s.n, s.is_gemm ? s.k : s.n})), t});
  }
}

// The level 1 and 2 kernels: a tiny size (the per-call overhead) and two sizes whose operands are 2 and 4
// times the last-level cache (streamed from memory).
void level12(const Blas& blas, const BlasBenchOptions& o, Buffers& buf, BlasBench& out) {
  const auto axpy = reinterpret_cast<Axpy>(blas.sym("daxpy_"));
  const auto scal = reinterpret_cast<Scal>(blas.sym("dscal_"));
  const auto copy = reinterpret_cast<Copy>(blas.sym("dcopy_"));
  const auto swap = reinterpret_cast<Copy>(blas.sym("dswap_"));
  const auto dot = reinterpret_cast<Dot>(blas.sym("ddot_"));
  const auto nrm2 = reinterpret_cast<Nrm2>(blas.sym("dnrm2_"));
  const auto iamax = reinterpret_cast<Iamax>(blas.sym("idamax_"));
  const auto gemv = reinterpret_cast<Gemv>(blas.sym("dgemv_"));
  const auto ger = reinterpret_cast<Ger>(blas.sym("dger_"));
  const auto trsv = reinterpret_cast<Trsv>(blas.sym("dtrsv_"));
  const double llc_doubles = static_cast<double>(o.llc) / 8;
  const int inc = 1;
  const double a = 0.999999;
  double* x = buf.x.data();
  double* y = buf.y.data();
  double* A = buf.a.data();
  struct Family {
    const char* name;
    bool matrix;        // n is a matrix dimension (operand n x n, or triangular for trsv)
    double bytes_per;   // vectors: bytes = bytes_per x n (8 per double read or written)
    std::function<double(int)> bytes;
    std::function<void(int)> call;
  };
  const std::vector<Family> fam = {
      {"axpy", false, 24, nullptr, [&](int n) { axpy(&n, &a, x, &inc, y, &inc); }},
      {"scal", false, 16, nullptr, [&](int n) { scal(&n, &a, x, &inc); }},
      {"copy", false, 16, nullptr, [&](int n) { copy(&n, x, &inc, y, &inc); }},
      {"swap", false, 32, nullptr, [&](int n) { swap(&n, x, &inc, y, &inc); }},
      {"dot", false, 16, nullptr, [&](int n) { sink = dot(&n, x, &inc, y, &inc); }},
      {"nrm2", false, 8, nullptr, [&](int n) { sink = nrm2(&n, x, &inc); }},
      {"iamax", false, 8, nullptr, [&](int n) { sink = iamax(&n, x, &inc); }},
      {"gemv", true, 0, [](int n) { return 8.0 * (1.0 * n * n + 3.0 * n); },
       [&](int n) { gemv("N", &n, &n, &a, A, &n, x, &inc, &a, y, &inc, 1); }},
      {"ger", true, 0, [](int n) { return 8.0 * (2.0 * n * n + 2.0 * n); },
       [&](int n) { const double t = 1e-12; ger(&n, &n, &t, x, &inc, y, &inc, A, &n); }},
      {"trsv", true, 0, [](int n) { return 8.0 * (0.5 * n * (n + 1.0) + 2.0 * n); },
       [&](int n) { trsv("L", "N", "U", &n, A, &n, x, &inc, 1, 1, 1); }},
  };
  for (const Family& f : fam) {
    for (double times : {0.0, 2.0, 4.0}) {
      if (o.quick && times == 4.0) continue;  // two sizes: the overhead and one streamed size
      int n = 0;
      const bool tri = std::string(f.name) == "trsv";
      if (times == 0) n = f.matrix ? 8 : 16;
      else if (!f.matrix) n = static_cast<int>(std::min(times * llc_doubles, static_cast<double>(buf.x.size())));
      else n = static_cast<int>(std::sqrt(times * llc_doubles * (tri ? 2 : 1)));  // each vector, matrix beyond
      const double bytes = f.matrix ? f.bytes(n) : f.bytes_per * n;
      const double t = per_call([&] { f.call(n); }, times == 0 ? 5 : (o.quick ? 2 : 3), times == 0 ? 0.01 : 0);
      out.samples.push_back({f.name, "n=" + std::to_string(n), 0, bytes, 0, t});
    }
  }
}

}  // namespace

BlasBench run_blas_bench(const BlasBenchOptions& o) {
  // One thread per rank: each simulated rank computes on one core.
  setenv("OPENBLAS_NUM_THREADS", "1", 1);
  setenv("OMP_NUM_THREADS", "1", 1);
  setenv("GOTO_NUM_THREADS", "1", 1);
  setenv("BLIS_NUM_THREADS", "1", 1);
  BlasBench out;
  Blas blas;
  out.opened = o.library;
  blas.handle = dlopen(o.library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!blas.handle) throw std::runtime_error("cannot load the BLAS " + o.library + ": " + dlerror());
  if (auto set = reinterpret_cast<void (*)(int)>(dlsym(blas.handle, "openblas_set_num_threads"))) set(1);
  Dl_info info{};
  if (dladdr(blas.sym("dgemm_"), &info) && info.dli_fname) {
    char* real = realpath(info.dli_fname, nullptr);
    out.real_path = real ? real : info.dli_fname;
    std::free(real);
  }
  Buffers buf;
  // x and y: the level 1 vectors (4 x LLC) and dgemm's B and C (2,048^2); a: the matrices (trsv's 8 x LLC).
  const size_t vec = std::max<size_t>(o.llc / 2, 2048 * 2048), mat = std::max<size_t>(o.llc, 2048 * 2048);
  buf.x.assign(vec, 0.5);
  buf.y.assign(vec, 0.25);
  buf.a.assign(mat, 0.0);
  for (size_t i = 0; i < mat; ++i) buf.a[i] = 1e-4 * static_cast<double>(i % 7);  // small: solves stay bounded
  level3(blas, o, buf, out);
  level12(blas, o, buf, out);
  return out;
}

}  // namespace xsim::calibrate

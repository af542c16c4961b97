// Times the BLAS a program links, for xsim-calibrate --kernels (docs/real-programs.md "Kernel
// calibration"): dlopen()s the library (single-threaded: OPENBLAS_NUM_THREADS, OMP_NUM_THREADS and
// openblas_set_num_threads set to 1, as each simulated rank runs on one core), looks up the Fortran symbols,
// and times each kernel's shapes: the minimum per-call time over repeated batches (other work on the
// machine only ever adds time to a call, so the minimum is the estimate it disturbs least).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "kernel_fit.hpp"

namespace xsim::calibrate {

struct BlasBenchOptions {
  std::string library = "libblas.so.3";  // a path or a name dlopen() searches for
  uint64_t llc = 32ull << 20;            // level 1/2 operands are 2 and 4 times this, beyond the caches
  double budget = 100;                   // seconds for the dgemm and dtrsm shapes together (then skipped)
  bool quick = false;                    // squares up to 1,024 only, fewer repeats
};

struct BlasBench {
  std::string opened;     // the name given to dlopen
  std::string real_path;  // the file it resolved to (symbolic links followed)
  std::vector<KernelSample> samples;
  std::vector<std::string> skipped;  // shapes left out for the time budget
};

// Loads the library and measures; throws std::runtime_error naming the library or symbol on failure.
// `progress` lines go to stdout as each family ends.
BlasBench run_blas_bench(const BlasBenchOptions& o);

}  // namespace xsim::calibrate

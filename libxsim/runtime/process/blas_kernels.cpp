// The kernel models' runtime: start-up, charging and counting (blas_kernels.hpp).
#include "blas_kernels.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <exception>
#include <optional>

#include "options.hpp"
#include "privatize.hpp"
#include "report.hpp"

extern "C" {
bool xsim_blas_model = false;
}

namespace xsim::blas {
bool g_family_exec[proc::kKernelCount] = {};
bool g_audit = false;

namespace {
std::optional<proc::KernelModel> g_kernel_model;

// Whether the executable or a library of the application imports a BLAS function libxsim defines (its
// calls then reach libxsim, BLAS library or not).
bool program_imports_blas() {
  bool found = false;
  auto scan = [&found](const char* name) {
    if (found) return;
    if (!std::strncmp(name, "cblas_", 6)) found = true;
    for (const char* k : {"gemm_", "trsm_", "trmm_", "syrk_", "symm_", "gemv_", "ger_", "trsv_", "axpy_", "scal_",
                          "copy_", "swap_", "dot_", "nrm2_", "amax_"})
      if ((name[0] == 's' || name[0] == 'd' || name[0] == 'i') && !std::strcmp(name + (name[0] == 'i' ? 2 : 1), k))
        found = true;
  };
  privatize::for_each_import("/proc/self/exe", scan);
  for (const std::string& lib : privatize::application_libraries()) privatize::for_each_import(lib.c_str(), scan);
  return found;
}
}  // namespace

void charge(const char* name, const proc::KernelCall& c) {
  Engine& e = *g_engine;
  try {  // a time beyond the virtual time range (about 106 days) ends the run: it cannot be simulated
    const SimTime t = g_kernel_model->time(c);
    e.mpi_enter();
    e.charge_compute(t);
    e.mpi_leave();
    KernelTally& tally = kernel_tally();
    const size_t i = static_cast<size_t>(c.kernel);
    ++tally.calls[i];
    tally.ps[i] += t.ps();
  } catch (const std::exception& err) {
    internal_failure(name, err.what());
  }
}

namespace {
int64_t thread_cpu_ns() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}
}  // namespace

AuditTimer::AuditTimer(const proc::KernelCall& c) : call_(c), start_ns_(thread_cpu_ns()) {}

AuditTimer::~AuditTimer() {
  const int64_t measured_ps = (thread_cpu_ns() - start_ns_) * 1000;
  KernelTally& tally = kernel_tally();
  const size_t i = static_cast<size_t>(call_.kernel);
  const int cls = audit_class(call_);
  ++tally.audit_calls[i][cls];
  tally.audit_measured[i][cls] += measured_ps;
  try {
    tally.audit_model[i][cls] += g_kernel_model->time(call_).ps();
  } catch (const std::exception&) {  // beyond the virtual time range: not comparable, left out of the model sum
  }
}

void* next_symbol(const char* name) {
  if (void* f = dlsym(RTLD_NEXT, name)) return f;
  std::fflush(stdout);
  std::fprintf(stderr,
               "xsim: the program called the BLAS function %s, but no library loaded after libxsim defines it: "
               "libxsim only models or forwards BLAS calls. Link the program with a BLAS after -lxsim, and with "
               "-Wl,--no-as-needed before it (-Wl,--no-as-needed -lopenblas: a linker that drops unneeded "
               "libraries drops the BLAS, whose functions libxsim defines), or start it with LD_PRELOAD=libxsim.so "
               "(docs/real-programs.md)\n",
               name);
  std::fflush(stderr);
  _exit(1);
}

void start(const Options& opt, int proc) {
  xsim_blas_model = opt.kernels.mode != KernelMode::exec;
  if (!xsim_blas_model) return;
  g_audit = opt.kernels.mode == KernelMode::audit;
  g_kernel_model.emplace(kernel_params(opt.kernels));
  for (proc::Kernel k : opt.kernels.exec) g_family_exec[static_cast<size_t>(k)] = true;
  kernel_tally().model = &*g_kernel_model;
  if (proc == 0 && !dlsym(RTLD_NEXT, "dgemm_") && !dlsym(RTLD_NEXT, "cblas_dgemm") && !program_imports_blas())
    std::fprintf(stderr,
                 "xsim: warning: -xsim-kernels %s, but this process loads no BLAS library (no dgemm_ or "
                 "cblas_dgemm after libxsim) and calls none: nothing will be %s\n",
                 g_audit ? "audit" : "model", g_audit ? "audited" : "modelled");
}

}  // namespace xsim::blas

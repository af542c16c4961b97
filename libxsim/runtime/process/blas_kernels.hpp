// The kernel models' runtime (-xsim-kernels; docs/real-programs.md "Kernel models"): libxsim.so defines the
// BLAS entry points of every modelled kernel (Fortran dgemm_ and CBLAS cblas_dgemm spellings, s and d:
// blas_fortran.cpp, blas_cblas.cpp). Each forwards to the next definition (the program's BLAS) unless
// the model is on and the caller is a virtual rank's own application code; then the call is not executed
// and the rank is charged the modelled time (under -xsim-kernels audit it is executed and timed instead). Layer: libxsim/runtime/process (xsim_process).
#pragma once
#include <cstddef>
#include <cstdint>

#include "api_support.hpp"
#include "engine.hpp"
#include "xsim/procmodel/kernel_model.hpp"

// -xsim-kernels model or audit; set once at start-up, before any rank runs (read by the entry points' assembly).
extern "C" __attribute__((visibility("hidden"))) bool xsim_blas_model;

namespace xsim {
struct Options;

namespace blas {

// Whether this call is to be modelled: the model is on, and the caller is a rank's application code (on
// the simulation thread, in a rank, outside any MPI call). Anything else runs the real function.
inline bool modelled() {
  if (!xsim_blas_model) [[likely]]
    return false;
  return t_simulation_thread && g_engine && g_engine->in_rank() && g_engine->current().mpi_depth == 0;
}

// [kernels] exec: the families run as they are even under the model (by proc::Kernel), set at start-up.
extern bool g_family_exec[proc::kKernelCount];
// -xsim-kernels audit: modelled() calls run and are timed (AuditTimer) instead of being charged.
extern bool g_audit;
// Times one call that runs under -xsim-kernels audit (thread CPU time from construction to destruction,
// which follows the call: it works for functions with and without a value) and tallies it with the model's
// time for its shape.
class AuditTimer {
 public:
  explicit AuditTimer(const proc::KernelCall& c);
  ~AuditTimer();
  AuditTimer(const AuditTimer&) = delete;
  AuditTimer& operator=(const AuditTimer&) = delete;

 private:
  proc::KernelCall call_;
  int64_t start_ns_;
};
// One call's shape (proc::KernelCall's fields).
inline proc::KernelCall shape(proc::Kernel k, bool single, int64_t m, int64_t n, int64_t kk = 0, bool right = false,
                              bool trans = false) {
  proc::KernelCall c;
  c.kernel = k;
  c.single = single;
  c.m = m;
  c.n = n;
  c.k = kk;
  c.right = right;
  c.trans = trans;
  return c;
}

// [rank] Charges the calling rank the modelled time of `c` (as xsim_compute does) and counts it.
void charge(const char* name, const proc::KernelCall& c);

// The next definition of `name` after libxsim.so (the program's BLAS); ends the process with a message
// naming the function when there is none.
void* next_symbol(const char* name);

// Start-up (startup.cpp), before any rank runs: the model of -xsim-kernels model, and a warning (on
// native process 0) when the process has no BLAS to model. Throws std::invalid_argument for parameters
// the model refuses (options.cpp checks them first).
void start(const Options& opt, int proc);

}  // namespace blas
}  // namespace xsim

// One entry point: NAME returning RET, with the parenthesized PARAMS and ARGS (the same names). NAME itself
// is five instructions of assembly (x86-64, as is xsim's fiber switch): a test of the mode, a load of the
// BLAS's function and a jump to it, every argument register and stack slot untouched (a C++ function with
// nine stack arguments, as dgemm_ has, moves them all before its tail call). Everything else is
// xsim_blas_slow_NAME: under the model, a rank's application code is charged the time of the call SHAPE
// (a proc::KernelCall) and gets VALUE back (void() for a subroutine); any other caller, and the first call
// of all, runs the BLAS's function, looked up once.
#define XSIM_BLAS_ENTRY(NAME, RET, PARAMS, ARGS, SHAPE, VALUE)                                         \
  extern "C" {                                                                                         \
  __attribute__((visibility("hidden"))) void* xsim_blas_real_##NAME = nullptr;                         \
  __attribute__((visibility("hidden"), used, noinline)) RET xsim_blas_slow_##NAME PARAMS {             \
    const bool in_rank = ::xsim::blas::modelled();                                                     \
    if (in_rank && !::xsim::blas::g_audit &&                                                           \
        !::xsim::blas::g_family_exec[static_cast<size_t>((SHAPE).kernel)]) {                           \
      ::xsim::blas::charge(#NAME, SHAPE);                                                              \
      return VALUE;                                                                                    \
    }                                                                                                  \
    void* real = __atomic_load_n(&xsim_blas_real_##NAME, __ATOMIC_ACQUIRE);                            \
    if (!real) {                                                                                       \
      real = ::xsim::blas::next_symbol(#NAME);                                                         \
      __atomic_store_n(&xsim_blas_real_##NAME, real, __ATOMIC_RELEASE);                                \
    }                                                                                                  \
    if (in_rank && ::xsim::blas::g_audit) {                                                            \
      const ::xsim::blas::AuditTimer timer(SHAPE);                                                     \
      return reinterpret_cast<RET(*) PARAMS>(real) ARGS;                                               \
    }                                                                                                  \
    return reinterpret_cast<RET(*) PARAMS>(real) ARGS;                                                 \
  }                                                                                                    \
  }                                                                                                    \
  asm(".pushsection .text\n\t.p2align 4\n\t.globl " #NAME "\n\t.type " #NAME ", @function\n" #NAME ":\n" \
      "\tcmpb $0, xsim_blas_model(%rip)\n"                                                             \
      "\tjne xsim_blas_slow_" #NAME "\n"                                                               \
      "\tmovq xsim_blas_real_" #NAME "(%rip), %rax\n"                                                  \
      "\ttestq %rax, %rax\n"                                                                           \
      "\tje xsim_blas_slow_" #NAME "\n"                                                                \
      "\tjmp *%rax\n"                                                                                  \
      "\t.size " #NAME ", .-" #NAME "\n\t.popsection");

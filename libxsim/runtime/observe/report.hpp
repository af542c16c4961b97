// The end-of-run report (docs/architecture.md §6): simulated time, per-rank compute/MPI split (min/avg/max),
// messages and bytes, and the simulator's own cost. Collective over native processes (PMPI reductions);
// printed once, by native process 0, on stderr. Called from the scheduler after the run.
#pragma once
#include <cstdint>
#include <string>

#include "xsim/procmodel/kernel_model.hpp"

namespace xsim {
class Engine;
struct Options;

// The kernel models' figures of this native process (process/blas_kernels.cpp counts them): calls a rank
// made that were modelled instead of run, and their virtual time, per kernel family.
struct KernelTally {
  const proc::KernelModel* model = nullptr;  // set under -xsim-kernels model and audit
  uint64_t calls[proc::kKernelCount] = {};
  int64_t ps[proc::kKernelCount] = {};
  // -xsim-kernels audit: per family and size class of the call's shape (kAuditClasses: its smallest matrix
  // dimension for the compute-bound families, its bytes for the others), the calls, their measured thread
  // CPU time and the model's time for them (ps).
  static constexpr int kAuditClasses = 4;
  uint64_t audit_calls[proc::kKernelCount][kAuditClasses] = {};
  int64_t audit_measured[proc::kKernelCount][kAuditClasses] = {};
  int64_t audit_model[proc::kKernelCount][kAuditClasses] = {};
};
// The size class of a call for the audit: d < 16, < 64, < 256, more (compute-bound); bytes < 64K, < 1M, < 16M,
// more (memory-bound).
int audit_class(const proc::KernelCall& c);
const char* audit_class_name(proc::Kernel k, int cls);
KernelTally& kernel_tally();
void write_report(Engine& e, const Options& opt, double wall_seconds, int exit_code);
// Lines from a layer above the report (process/symbol_models.cpp): write_report calls `fn` on every native
// process (it may be collective) and prints what it returns on process 0, before the exit code.
using ReportLines = std::string (*)();
void add_report_lines(ReportLines fn);
}  // namespace xsim

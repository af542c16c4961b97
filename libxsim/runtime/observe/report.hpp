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
  const proc::KernelModel* model = nullptr;  // set under -xsim-kernels model
  uint64_t calls[proc::kKernelCount] = {};
  int64_t ps[proc::kKernelCount] = {};
};
KernelTally& kernel_tally();
void write_report(Engine& e, const Options& opt, double wall_seconds, int exit_code);
// Lines from a layer above the report (process/symbol_models.cpp): write_report calls `fn` on every native
// process (it may be collective) and prints what it returns on process 0, before the exit code.
using ReportLines = std::string (*)();
void add_report_lines(ReportLines fn);
}  // namespace xsim

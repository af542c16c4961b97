// The end-of-run report (docs/architecture.md §6): simulated time, per-rank compute/MPI split (min/avg/max),
// messages and bytes, and the simulator's own cost. Collective over native processes (PMPI reductions);
// printed once, by native process 0, on stderr. Called from the scheduler after the run.
#pragma once
#include <string>

namespace xsim {
class Engine;
struct Options;
void write_report(Engine& e, const Options& opt, double wall_seconds, int exit_code);
}  // namespace xsim

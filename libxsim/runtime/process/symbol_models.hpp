// Functions inside the program modelled by name ([kernels.symbols.NAME], kernel_symbols.hpp;
// docs/real-programs.md "Functions of the program"). Layer: libxsim/runtime/process (xsim_process).
//
// install_symbol_models() runs once, at start-up, before any rank exists and before the executable's
// constructors: it finds each function in the loaded program (the executable's .symtab/.dynsym, then the
// application's shared libraries), checks that it is a function (STT_FUNC) of at least kPatchBytes bytes,
// and overwrites its first kPatchBytes bytes in memory (never on disk) with `movabs $stub, %rax; jmp *%rax`,
// a jump to one of xsim's fixed entry stubs. From then on, for the whole process, the function's body never
// runs: a call from a virtual rank's own fiber charges the rank the modelled time and returns 0; a call
// from anywhere else (constructors, native threads) charges nothing and returns 0. x86-64 only.
#pragma once
#include <string>
#include <vector>

#include "kernel_symbols.hpp"
#include "xsim/simtime.hpp"

namespace xsim {

constexpr size_t kPatchBytes = 12;  // movabs imm64, %rax (10 bytes) + jmp *%rax (2 bytes)

// Patches the functions of `specs` with the model parameters of [kernels]: `peak` in flop/s and
// `bandwidth` in bytes/s of one core (0: not set), `overhead` the default time per call. Returns "" or the
// error that must stop the run (a symbol that is not found, not a function, too short; a formula whose
// parameter is not set; not x86-64), naming the symbol and its [kernels.symbols.NAME] table.
std::string install_symbol_models(const std::vector<SymbolModelSpec>& specs, double peak, double bandwidth,
                                  SimTime overhead);

// Lines of the run report about the modelled functions (calls and charged time per symbol, summed over
// the native processes), "" when none is installed. Collective: every native process calls it.
std::string symbol_models_report();

}  // namespace xsim

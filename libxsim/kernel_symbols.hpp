// Models of functions inside the program, by symbol name: the [kernels.symbols.NAME] tables of the
// configuration (docs/real-programs.md, "Functions of the program"), as plain data. Layer: libxsim config.
// Read and checked by kernel_symbols_toml.cpp (formulas compiled, names checked) and handed to the runtime
// (libxsim/runtime/process/symbol_models.cpp), which finds and patches the functions before any rank runs.
// Under -xsim-kernels model each call a virtual rank makes costs
//   overhead + flops / (peak x efficiency) + bytes / (bandwidth x efficiency)
// with peak, bandwidth and the default overhead from [kernels]; the function's body does not run.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "xsim/procmodel/formula.hpp"
#include "xsim/simtime.hpp"

namespace xsim {

// How an integer argument's 64-bit register is read. i32 (a C int, the default): the low 32 bits,
// sign-extended (the upper half of the register is undefined for an int argument); u32: zero-extended;
// i64 (long, ptrdiff_t), u64 (size_t) and ptr: the whole register.
enum class SymbolArgType : uint8_t { i32, u32, i64, u64, ptr };

constexpr size_t kMaxSymbolArgs = 10;     // integer/pointer arguments a model may name (6 in registers, 4 on the stack)
constexpr size_t kMaxSymbolModels = 64;   // modelled functions per run (the runtime's fixed set of entry stubs)

struct SymbolModelSpec {
  std::string name;                    // the function's symbol name, as in the program's symbol table
  std::vector<std::string> args;       // names of its integer/pointer arguments, in order
  std::vector<SymbolArgType> types;    // one per name
  proc::Formula flops, bytes;          // formulas of the named arguments
  bool has_flops = false, has_bytes = false;
  double efficiency = 1.0;             // in (0, 1]
  bool has_overhead = false;           // else [kernels] overhead
  SimTime overhead;
  std::string where;                   // "file:line:col: [kernels.symbols.NAME]" for messages
};

// The name of a type suffix ("i32", ...).
const char* symbol_arg_type_name(SymbolArgType t);

}  // namespace xsim

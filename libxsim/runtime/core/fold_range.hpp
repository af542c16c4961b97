// Memory folding's process-wide state (-xsim-fold; docs/real-programs.md "Memory folding"): the reserved
// address range that folded allocations come from, so that "is this pointer folded" is one subtraction
// and one comparison (free(), the engine's message path), and the counts the run report prints. Empty
// (len 0: nothing is folded) unless process/fold_malloc.cpp started folding. Layer: libxsim/runtime/core.
#pragma once
#include <cstdint>

#include "fold_arena.hpp"

namespace xsim::fold {

struct State {
  uintptr_t base = 0;            // the reservation's start (aligned to FoldArena::kMaxAlign)
  uint64_t len = 0;              // its length; 0 while folding is off
  uint64_t threshold = 0;        // -xsim-fold: requests of at least this many bytes fold
  uint64_t shared_bytes = 0;     // the one shared block that backs the middle of every folded allocation
  uint64_t allocations = 0;      // folded allocations made
  uint64_t peak_bytes = 0;       // peak requested bytes of live folded allocations
  uint64_t messages = 0;         // messages whose payload kept only its head and tail
};
extern State g_state;

inline bool folded(const void* p) { return reinterpret_cast<uintptr_t>(p) - g_state.base < g_state.len; }
inline bool folded_range(const void* p, uint64_t n) {  // the whole of [p, p+n) folded (n > 0)
  const uintptr_t a = reinterpret_cast<uintptr_t>(p) - g_state.base;
  return a < g_state.len && n <= g_state.len - a;
}

}  // namespace xsim::fold

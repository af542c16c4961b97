// Memory folding's start (-xsim-fold; fold_malloc.cpp interposes the allocator, docs/real-programs.md
// "Memory folding"). Layer: libxsim/runtime/process (xsim_process).
#pragma once
#include <cstdint>
#include <string>

namespace xsim::fold {

// Starts folding requests of at least `threshold` bytes (0: off, nothing done): reserves the folded address
// range and the shared block. Returns an error message naming -xsim-fold, or "" on success. Call once,
// before any virtual rank runs.
std::string start(uint64_t threshold, bool shared);
// Whether this build can fold (not under AddressSanitizer, which replaces malloc).
bool available();

}  // namespace xsim::fold

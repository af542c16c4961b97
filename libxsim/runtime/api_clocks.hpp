// The application's clocks (api_clocks.cpp, docs/virtual-clocks.md). Layer: libxsim/runtime (api side).
// From virtual_clocks_begin to virtual_clocks_end, with `on`, a rank's application code reads its virtual
// time from gettimeofday and clock_gettime; CLOCK_REALTIME adds realtime_base_s seconds (the same on every
// native process). Called by the thread that runs the ranks: only that thread's reads are virtual.
#pragma once
#include <cstdint>

namespace xsim {

void virtual_clocks_begin(bool on, int64_t realtime_base_s);
void virtual_clocks_end();

}  // namespace xsim

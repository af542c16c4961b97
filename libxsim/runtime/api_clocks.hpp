// The application's clocks (api_clocks.cpp, docs/virtual-clocks.md). Layer: libxsim/runtime (api side).
// From virtual_clocks_begin to virtual_clocks_end, with `on`, a rank's application code reads its virtual
// time from gettimeofday and clock_gettime; CLOCK_REALTIME counts from kRealtimeEpoch. Called by the thread
// that runs the ranks: only that thread's reads are virtual.
#pragma once
#include <cstdint>

namespace xsim {

// The realtime clock's reading at virtual time 0: 2025-01-01 00:00:00 UTC, a fixed date rather than the
// host's, so that every run reads the same values (an application's doubles of seconds since 1970 round
// alike) and the virtual times stay the same from run to run.
inline constexpr int64_t kRealtimeEpoch = 1'735'689'600;

void virtual_clocks_begin(bool on);
void virtual_clocks_end();

// Whether the caller is a rank's application code: the simulation runs (between virtual_clocks_begin and
// _end, whatever `on`), on its thread, inside a rank and outside any MPI call. The libc functions xsim
// interposes for the application (its clocks, its random numbers: api_random.cpp) answer such calls.
bool app_code_running();

}  // namespace xsim

// The libc calls xsim answers for a rank's application code: its clocks (libc_clocks.cpp,
// docs/virtual-clocks.md), its random numbers (libc_random.cpp) and its getopt scan (libc_getopt.cpp).
// Layer: libxsim/runtime/process (xsim_process).
#pragma once
#include <cstdint>

namespace xsim {

// The realtime clock's reading at virtual time 0: 2025-01-01 00:00:00 UTC, a fixed date rather than the
// host's, so that every run reads the same values (an application's doubles of seconds since 1970 round
// alike) and the virtual times stay the same from run to run.
inline constexpr int64_t kRealtimeEpoch = 1'735'689'600;

// The simulation's thread runs the ranks from app_calls_begin to app_calls_end. Between them, calls from a
// rank's application code on that thread reach the rank's random number generators, and with
// `virtual_clocks` gettimeofday and clock_gettime read its virtual time (CLOCK_REALTIME from kRealtimeEpoch).
void app_calls_begin(bool virtual_clocks);
void app_calls_end();

// Whether the caller is a rank's application code: between app_calls_begin and app_calls_end, on the
// simulation's thread, inside a rank and outside any MPI call.
bool app_code_running();

// [rank] At the start of the current rank's main: its getopt scan starts afresh, as a process's does
// (libc_getopt.cpp).
void getopt_rank_start();

}  // namespace xsim

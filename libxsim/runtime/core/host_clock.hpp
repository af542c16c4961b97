// The host's clocks for xsim's own measurements (a rank's host compute time, wall times, the progress
// line). Layer: libxsim/runtime/core (xsim_core). libxsim.so interposes clock_gettime so that a rank's application code
// reads virtual time (libc_clocks.cpp); xsim's calls go through it too, and a call made by xsim in a rank's
// context (mpi_leave's host clock) would read virtual time. host_clock_gettime is libc's clock_gettime.
#pragma once
#include <time.h>

#include <cstdint>

namespace xsim {

int host_clock_gettime(clockid_t clock, timespec* ts);

inline int64_t host_clock_ns(clockid_t clock) {
  timespec ts;
  host_clock_gettime(clock, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// Seconds on the host's monotonic clock (the progress line, the time spent writing the observation files).
inline double host_now() {
  timespec ts;
  host_clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // namespace xsim

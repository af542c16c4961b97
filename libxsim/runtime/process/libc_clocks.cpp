// The application's own clocks (README "What virtual time means", docs/virtual-clocks.md): with
// -xsim-virtual-clocks on (the default) gettimeofday and clock_gettime, called by a rank's application
// code, return its virtual time, as MPI_Wtime does, so that timers written with them (NetPIPE's
// gettimeofday, OpenMP's omp_get_wtime, Fortran's system_clock, std::chrono's clocks) measure the
// simulated machine. Layer: libxsim/runtime/process (xsim_process); exported through exports.map.
//   * Virtual: CLOCK_MONOTONIC, _MONOTONIC_RAW, _MONOTONIC_COARSE and CLOCK_BOOTTIME read the rank's
//     clock itself (0 at the start of the run, like MPI_Wtime); CLOCK_REALTIME, _REALTIME_COARSE and
//     gettimeofday read it plus a fixed date, kRealtimeEpoch (libc_clocks.hpp).
//   * Host time as before: the CPU-time clocks, every other clock id, time(), and every call made from
//     inside an MPI call (the native MPI's own timers), outside a rank (start-up, the scheduler) or on a
//     thread other than the simulation's (an application's own threads).
// A read is an MPI call of the rank's (Engine::read_clock): it charges the compute time before it, and a
// rank that polls a clock that stands still is moved on by the poll cost.
#include <pthread.h>
#include <sys/time.h>
#include <time.h>

#include <atomic>
#include <cstdint>
#include <exception>

#include "libc_clocks.hpp"
#include "api_support.hpp"
#include "engine.hpp"
#include "host_clock.hpp"

namespace xsim {

namespace {
// Set by the simulation's thread before it publishes g_running; read by any thread after seeing it.
pthread_t g_sim_thread{};            // the thread that runs the ranks
bool g_clocks_on = false;            // -xsim-virtual-clocks
std::atomic<bool> g_running{false};  // the engine runs the ranks

enum class Family { host, monotonic, realtime };
Family family_of(clockid_t c) {
  switch (c) {
    case CLOCK_MONOTONIC:
    case CLOCK_MONOTONIC_RAW:
    case CLOCK_MONOTONIC_COARSE:
    case CLOCK_BOOTTIME:
      return Family::monotonic;
    case CLOCK_REALTIME:
    case CLOCK_REALTIME_COARSE:
      return Family::realtime;
    default:
      return Family::host;
  }
}

// Whether a clock read now gets virtual time.
bool app_read() { return app_code_running() && g_clocks_on; }

// The rank's virtual time, in ns, after Engine::read_clock's charges; ends the run on overflow.
int64_t virtual_ns(const char* call) {
  try {
    return g_engine->read_clock(true).ps() / 1000;
  } catch (const std::exception& err) {
    internal_failure(call, err.what());
  }
}
}  // namespace

bool app_code_running() {
  return g_running.load(std::memory_order_acquire) && pthread_equal(pthread_self(), g_sim_thread) && g_engine &&
         g_engine->in_rank() && g_engine->current().mpi_depth == 0;
}

void app_calls_begin(bool virtual_clocks) {
  g_sim_thread = pthread_self();
  g_clocks_on = virtual_clocks;
  g_running.store(true, std::memory_order_release);
}

void app_calls_end() { g_running.store(false, std::memory_order_release); }

}  // namespace xsim

using xsim::Family;

extern "C" __attribute__((visibility("default"))) int clock_gettime(clockid_t clock, timespec* ts) noexcept {
  const Family f = xsim::family_of(clock);
  if (f == Family::host || !xsim::app_read()) return xsim::host_clock_gettime(clock, ts);
  int64_t ns = xsim::virtual_ns("clock_gettime");
  ts->tv_sec = static_cast<time_t>(ns / 1'000'000'000 + (f == Family::realtime ? xsim::kRealtimeEpoch : 0));
  ts->tv_nsec = static_cast<long>(ns % 1'000'000'000);
  return 0;
}

extern "C" __attribute__((visibility("default"))) int gettimeofday(struct timeval* tv, void* tz) noexcept {
  int rc = 0;
  if (!xsim::app_read()) {
    timespec ts;
    rc = xsim::host_clock_gettime(CLOCK_REALTIME, &ts);
    tv->tv_sec = ts.tv_sec;
    tv->tv_usec = static_cast<suseconds_t>(ts.tv_nsec / 1000);
  } else {
    const int64_t ns = xsim::virtual_ns("gettimeofday");
    tv->tv_sec = static_cast<time_t>(ns / 1'000'000'000 + xsim::kRealtimeEpoch);
    tv->tv_usec = static_cast<suseconds_t>(ns % 1'000'000'000 / 1000);
  }
  if (tz != nullptr) {  // obsolete: the kernel's answer is a zero time zone
    auto* z = static_cast<struct timezone*>(tz);
    z->tz_minuteswest = 0;
    z->tz_dsttime = 0;
  }
  return rc;
}

// libc's clock_gettime, found past any interposer (host_clock.hpp).
#include "host_clock.hpp"

#include <dlfcn.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace xsim {

namespace {
using ClockGettime = int (*)(clockid_t, timespec*);

int by_syscall(clockid_t clock, timespec* ts) { return static_cast<int>(syscall(SYS_clock_gettime, clock, ts)); }

ClockGettime find_libc() {
  void* f = dlsym(RTLD_NEXT, "clock_gettime");
  return f ? reinterpret_cast<ClockGettime>(f) : by_syscall;
}

// Resolved when the library is loaded, before any rank runs.
const ClockGettime g_libc_clock_gettime = find_libc();
}  // namespace

int host_clock_gettime(clockid_t clock, timespec* ts) {
  return (g_libc_clock_gettime ? g_libc_clock_gettime : by_syscall)(clock, ts);
}

}  // namespace xsim

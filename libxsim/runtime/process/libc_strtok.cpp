// libc's strtok per rank (docs/privatization.md): strtok keeps the position in the string it is splitting in
// one hidden libc pointer per process. A rank that splits a line and makes an MPI call between two tokens
// (reading an input deck token by token while broadcasting each value) would go on in the string of another
// rank of its native process. Called by a rank's application code (app_code_running, libc_clocks.hpp),
// strtok keeps that pointer per rank and works through strtok_r, which is glibc's strtok with the pointer
// passed in; every other caller gets libc's. Layer: libxsim/runtime/process (xsim_process); exported through exports.map.
#include <dlfcn.h>
#include <string.h>

#include "libc_clocks.hpp"
#include "rank_libc.hpp"

extern "C" __attribute__((visibility("default"))) char* strtok(char* s, const char* delim) noexcept {
  if (!xsim::app_code_running()) {
    static auto real = reinterpret_cast<char* (*)(char*, const char*)>(dlsym(RTLD_NEXT, "strtok"));
    return real(s, delim);
  }
  return strtok_r(s, delim, &xsim::rank_libc().strtok_next);
}

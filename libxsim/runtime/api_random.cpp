// libc's random numbers per rank (docs/privatization.md): rand, srand, random, srandom, initstate and
// setstate keep their generator in libc, which the ranks of a native process share. A rank that seeds it
// and draws would get numbers that depend on how the ranks interleave, so the application's results would
// differ between 1 and 2 native processes and from a native run. Called by a rank's application code
// (app_code_running, api_clocks.hpp), they use the rank's own generator instead, driven by glibc's
// reentrant functions (random_r & co.): the same algorithm, so a rank draws exactly what the same calls
// give in a process of its own. Every other caller (the native MPI, other threads, start-up) gets libc's.
// Layer: libxsim/runtime (api side; exported through exports.map). The drand48 family is not covered.
#include <dlfcn.h>
#include <stdlib.h>

#include <cstdint>
#include <memory>

#include "api_clocks.hpp"
#include "comm.hpp"
#include "engine.hpp"

namespace xsim {
namespace {

// The rank's generator, made on first use as glibc's starts: as if initstate(1, state, 128).
RankRandom& rank_random() {
  RankExtra& x = rank_extra();
  if (!x.random) {
    x.random = std::make_unique<RankRandom>();
    initstate_r(1, reinterpret_cast<char*>(x.random->state), sizeof x.random->state, &x.random->data);
  }
  return *x.random;
}

template <typename Fn>
Fn libc(const char* name) {
  return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
}

}  // namespace
}  // namespace xsim

#define XSIM_LIBC_EXPORT extern "C" __attribute__((visibility("default")))

XSIM_LIBC_EXPORT long random(void) noexcept {
  if (!xsim::app_code_running()) {
    static auto real = xsim::libc<long (*)()>("random");
    return real();
  }
  int32_t r = 0;
  random_r(&xsim::rank_random().data, &r);
  return r;
}

XSIM_LIBC_EXPORT int rand(void) noexcept {
  if (!xsim::app_code_running()) {
    static auto real = xsim::libc<int (*)()>("rand");
    return real();
  }
  int32_t r = 0;
  random_r(&xsim::rank_random().data, &r);
  return r;
}

XSIM_LIBC_EXPORT void srandom(unsigned int seed) noexcept {
  if (!xsim::app_code_running()) {
    static auto real = xsim::libc<void (*)(unsigned)>("srandom");
    real(seed);
    return;
  }
  srandom_r(seed, &xsim::rank_random().data);
}

XSIM_LIBC_EXPORT void srand(unsigned int seed) noexcept {
  if (!xsim::app_code_running()) {
    static auto real = xsim::libc<void (*)(unsigned)>("srand");
    real(seed);
    return;
  }
  srandom_r(seed, &xsim::rank_random().data);
}

// As glibc's: the previous state array (one word before the generator's state), or null on failure.
XSIM_LIBC_EXPORT char* initstate(unsigned int seed, char* state, size_t n) noexcept {
  if (!xsim::app_code_running()) {
    static auto real = xsim::libc<char* (*)(unsigned, char*, size_t)>("initstate");
    return real(seed, state, n);
  }
  random_data& d = xsim::rank_random().data;
  char* old = reinterpret_cast<char*>(&d.state[-1]);
  return initstate_r(seed, state, n, &d) < 0 ? nullptr : old;
}

XSIM_LIBC_EXPORT char* setstate(char* state) noexcept {
  if (!xsim::app_code_running()) {
    static auto real = xsim::libc<char* (*)(char*)>("setstate");
    return real(state);
  }
  random_data& d = xsim::rank_random().data;
  char* old = reinterpret_cast<char*>(&d.state[-1]);
  return setstate_r(state, &d) < 0 ? nullptr : old;
}

// libc's random numbers per rank (docs/privatization.md): rand, srand, random, srandom, initstate and
// setstate, and the drand48 family, keep their generators in libc, which the ranks of a native process
// share. A rank that seeds it
// and draws would get numbers that depend on how the ranks interleave, so the application's results would
// differ between 1 and 2 native processes and from a native run. Called by a rank's application code
// (app_code_running, libc_clocks.hpp), they use the rank's own generator instead, driven by glibc's
// reentrant functions (random_r & co.): the same algorithm, so a rank draws exactly what the same calls
// give in a process of its own. Every other caller (the native MPI, other threads, start-up) gets libc's.
// Layer: libxsim/runtime/process (xsim_process); exported through exports.map.
#include <dlfcn.h>
#include <stdlib.h>

#include <cstdint>
#include <memory>

#include "libc_clocks.hpp"
#include "rank_libc.hpp"
#include "engine.hpp"

namespace xsim {
namespace {

// The rank's generator, made on first use as glibc's starts: as if initstate(1, state, 128).
RankRandom& rank_random() {
  RankLibc& x = rank_libc();
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

// ---- the drand48 family: erand48, nrand48 and jrand48 take their state from the caller but the
// multiplier and addend (lcong48) from the generator, so they go through the rank's too.

XSIM_LIBC_EXPORT double drand48(void) noexcept {
  if (!xsim::app_code_running()) {
    static auto real = xsim::libc<double (*)()>("drand48");
    return real();
  }
  double r = 0;
  drand48_r(&xsim::rank_random().d48, &r);
  return r;
}

XSIM_LIBC_EXPORT double erand48(unsigned short xsubi[3]) noexcept {
  if (!xsim::app_code_running()) {
    static auto real = xsim::libc<double (*)(unsigned short*)>("erand48");
    return real(xsubi);
  }
  double r = 0;
  erand48_r(xsubi, &xsim::rank_random().d48, &r);
  return r;
}

XSIM_LIBC_EXPORT long lrand48(void) noexcept {
  if (!xsim::app_code_running()) {
    static auto real = xsim::libc<long (*)()>("lrand48");
    return real();
  }
  long r = 0;
  lrand48_r(&xsim::rank_random().d48, &r);
  return r;
}

XSIM_LIBC_EXPORT long nrand48(unsigned short xsubi[3]) noexcept {
  if (!xsim::app_code_running()) {
    static auto real = xsim::libc<long (*)(unsigned short*)>("nrand48");
    return real(xsubi);
  }
  long r = 0;
  nrand48_r(xsubi, &xsim::rank_random().d48, &r);
  return r;
}

XSIM_LIBC_EXPORT long mrand48(void) noexcept {
  if (!xsim::app_code_running()) {
    static auto real = xsim::libc<long (*)()>("mrand48");
    return real();
  }
  long r = 0;
  mrand48_r(&xsim::rank_random().d48, &r);
  return r;
}

XSIM_LIBC_EXPORT long jrand48(unsigned short xsubi[3]) noexcept {
  if (!xsim::app_code_running()) {
    static auto real = xsim::libc<long (*)(unsigned short*)>("jrand48");
    return real(xsubi);
  }
  long r = 0;
  jrand48_r(xsubi, &xsim::rank_random().d48, &r);
  return r;
}

XSIM_LIBC_EXPORT void srand48(long seed) noexcept {
  if (!xsim::app_code_running()) {
    static auto real = xsim::libc<void (*)(long)>("srand48");
    real(seed);
    return;
  }
  srand48_r(seed, &xsim::rank_random().d48);
}

// As glibc's: the previous seed, in storage of the generator's.
XSIM_LIBC_EXPORT unsigned short* seed48(unsigned short seed16v[3]) noexcept {
  if (!xsim::app_code_running()) {
    static auto real = xsim::libc<unsigned short* (*)(unsigned short*)>("seed48");
    return real(seed16v);
  }
  drand48_data& d = xsim::rank_random().d48;
  seed48_r(seed16v, &d);
  return d.__old_x;
}

XSIM_LIBC_EXPORT void lcong48(unsigned short param[7]) noexcept {
  if (!xsim::app_code_running()) {
    static auto real = xsim::libc<void (*)(unsigned short*)>("lcong48");
    real(param);
    return;
  }
  lcong48_r(param, &xsim::rank_random().d48);
}

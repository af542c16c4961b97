// The exit handlers of the executable registered inside a rank: interposes __cxa_atexit and
// __cxa_thread_atexit_impl, so that exit handlers the executable registers while a rank runs (C++ static
// destructors, atexit, thread_local destructors) belong to that rank and run when it ends
// (privatize::Privatizer::add_exit_handler, docs/privatization.md). Everyone else's go to libc.
// Layer: runtime/process (xsim_process), like every libc interposer.
#include <dlfcn.h>

#include "engine.hpp"
#include "privatize.hpp"

namespace {

// True when a handler registered now for object `dso` belongs to the running rank.
xsim::privatize::Privatizer* owner_for(const void* dso) {
  xsim::privatize::Privatizer* p = xsim::privatize::active();
  if (p && xsim::g_engine && xsim::g_engine->in_rank() && dso && p->in_executable(dso)) return p;
  return nullptr;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int __cxa_atexit(void (*fn)(void*), void* arg, void* dso) {
  using Fn = int (*)(void (*)(void*), void*, void*);
  static Fn real = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, "__cxa_atexit"));
  if (auto* p = owner_for(dso)) {
    p->add_exit_handler(static_cast<size_t>(xsim::g_engine->current().index), fn, arg);
    return 0;
  }
  return real(fn, arg, dso);
}

extern "C" __attribute__((visibility("default"))) int __cxa_thread_atexit_impl(void (*fn)(void*), void* obj,
                                                                              void* dso) {
  using Fn = int (*)(void (*)(void*), void*, void*);
  static Fn real = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, "__cxa_thread_atexit_impl"));
  if (auto* p = owner_for(dso)) {
    p->add_exit_handler(static_cast<size_t>(xsim::g_engine->current().index), fn, obj);
    return 0;
  }
  return real(fn, obj, dso);
}

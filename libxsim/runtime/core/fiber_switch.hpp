// Stack switches that AddressSanitizer can follow. Boost.Context's fcontext fibers change the stack pointer
// behind ASan's back; every switch in xsim (scheduler <-> rank, rank <-> nonblocking collective) tells ASan
// about it (__sanitizer_start_switch_fiber / __sanitizer_finish_switch_fiber) through these functions.
// Without ASan they are empty and inline, and FiberStack is an empty struct: no cost in normal builds. Also: the LSan root regions for
// memory xsim keeps pointers in that LSan does not scan by itself (rank stacks, privatized images).
// Layer: libxsim/runtime/core (xsim_core). Single-threaded, like the fibers.
#pragma once
#include <cstddef>

#if defined(__SANITIZE_ADDRESS__)
#define XSIM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define XSIM_ASAN 1
#endif
#endif
#ifndef XSIM_ASAN
#define XSIM_ASAN 0
#endif

#if XSIM_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#include <sanitizer/lsan_interface.h>
#endif

namespace xsim {

// One stack that fibers run on, and ASan's state for it. Empty without ASan.
// Protocol for a switch from stack A to stack B:
//   switch_leave(&A, &B) right before the switch (nullptr instead of &A when A's fiber ends with it);
//   switch_arrive(A)     right after the switch that comes back to A;
//   switch_first(&C)     first thing on a new fiber: learns the stack C of the context that started it.
//
// Memory that holds pointers to heap blocks but that LeakSanitizer does not scan (anonymous mappings other
// than thread stacks: rank stacks of suspended or ended ranks, privatized globals of ranks not running) is
// registered with lsan_root_region (lsan_forget_root_region undoes it); stack memory that is reused for
// another fiber is cleared of the stale redzones of frames that never returned with asan_unpoison.
#if XSIM_ASAN
struct FiberStack {
  const void* bottom = nullptr;
  size_t size = 0;
  void* fake = nullptr;  // ASan's fake stack of the suspended fiber (detect_stack_use_after_return)
};
inline void set_stack(FiberStack& s, const void* bottom, size_t size) { s.bottom = bottom, s.size = size; }
inline void switch_leave(FiberStack* from, const FiberStack* to) {
  __sanitizer_start_switch_fiber(from ? &from->fake : nullptr, to->bottom, to->size);
}
inline void switch_arrive(FiberStack& here) { __sanitizer_finish_switch_fiber(here.fake, nullptr, nullptr); }
inline void switch_first(FiberStack* caller) {
  const void* bottom = nullptr;
  size_t size = 0;
  __sanitizer_finish_switch_fiber(nullptr, &bottom, &size);
  if (caller) caller->bottom = bottom, caller->size = size;
}
inline void lsan_root_region(const void* p, size_t n) { __lsan_register_root_region(p, n); }
inline void lsan_forget_root_region(const void* p, size_t n) { __lsan_unregister_root_region(p, n); }
inline void asan_unpoison(const void* p, size_t n) { __asan_unpoison_memory_region(p, n); }
#else
struct FiberStack {};
inline void set_stack(FiberStack&, const void*, size_t) {}
inline void switch_leave(FiberStack*, const FiberStack*) {}
inline void switch_arrive(FiberStack&) {}
inline void switch_first(FiberStack*) {}
inline void lsan_root_region(const void*, size_t) {}
inline void lsan_forget_root_region(const void*, size_t) {}
inline void asan_unpoison(const void*, size_t) {}
#endif

// The stack pointer where it is inlined (the calling function's frame), for prefetching the frames of a
// suspended fiber; not a sanitizer concern.
[[gnu::always_inline]] inline const char* stack_pointer() {
  const char* sp;
#if defined(__x86_64__)
  asm volatile("mov %%rsp, %0" : "=r"(sp));
#elif defined(__aarch64__)
  asm volatile("mov %0, sp" : "=r"(sp));
#else
  sp = static_cast<const char*>(__builtin_frame_address(0));
#endif
  return sp;
}

}  // namespace xsim

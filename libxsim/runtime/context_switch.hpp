// Resuming a suspended Boost.Context fiber with xsim's own context jump (context_switch.cpp): the same
// contract and the same saved frame as Boost.Context's jump_fcontext (x86-64 System V), so a context
// saved by either is resumed by either, but the x87 control word and MXCSR are loaded into the
// processor only when the resumed context's differ from the current ones. Those two loads (fldcw,
// ldmxcsr) serialize the pipeline: every switch waited for all loads in flight, among them the
// prefetching of the next rank's stack (bench/README.md "The context switch, fourth pass").
// Elsewhere than x86-64 it is Boost.Context's resume. Layer: libxsim/runtime. Single-threaded, like the
// fibers; ASan's switch notifications stay with the caller (fiber_switch.hpp).
#pragma once
#include <boost/context/detail/fcontext.hpp>
#include <boost/context/fiber.hpp>
#include <cstring>

namespace xsim {

#if defined(__x86_64__) && !defined(_WIN32)
extern "C" boost::context::detail::transfer_t xsim_jump_context(boost::context::detail::fcontext_t to, void* data);

// std::move(f).resume(): `f` (not empty) is left empty; returns the continuation of whoever switches back.
// A fiber is exactly its fcontext_t (Boost.Context keeps no other state in it), read and written here as such.
inline boost::context::fiber resume_fiber(boost::context::fiber& f) {
  static_assert(sizeof(boost::context::fiber) == sizeof(boost::context::detail::fcontext_t),
                "Boost.Context's fiber is one fcontext_t");
  boost::context::detail::fcontext_t to;
  std::memcpy(&to, static_cast<const void*>(&f), sizeof to);
  const boost::context::detail::fcontext_t none = nullptr;
  std::memcpy(static_cast<void*>(&f), &none, sizeof none);
  const boost::context::detail::transfer_t back = xsim_jump_context(to, nullptr);
  boost::context::fiber incoming;
  std::memcpy(static_cast<void*>(&incoming), &back.fctx, sizeof back.fctx);
  return incoming;
}
#else
inline boost::context::fiber resume_fiber(boost::context::fiber& f) { return std::move(f).resume(); }
#endif

}  // namespace xsim

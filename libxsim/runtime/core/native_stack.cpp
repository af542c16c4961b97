#include "native_stack.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <boost/context/fiber.hpp>
#include <cstddef>
#include <exception>
#include <new>
#include <utility>

#include "fiber_switch.hpp"
#include "stack_pool.hpp"  // FixedStack

namespace xsim {
namespace {

constexpr size_t kStackBytes = size_t{1} << 20;

// The thread's native stack: mapped on first use, with a PROT_NONE guard page below it.
struct NativeStack {
  char* base = nullptr;  // the guard page; the stack is [base + page, base + page + kStackBytes)
  size_t page = 0;
  bool in_use = false;
  FiberStack fiber_stack;
  ~NativeStack() {
    if (base) munmap(base, page + kStackBytes);
  }
  bool map() {
    page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    void* p = mmap(nullptr, page + kStackBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (p == MAP_FAILED) return false;
    base = static_cast<char*>(p);
    mprotect(base, page, PROT_NONE);
    set_stack(fiber_stack, base + page, kStackBytes);
    return true;
  }
};
thread_local NativeStack t_native;

}  // namespace

void run_on_native_stack(void (*fn)(void*), void* arg) {
  NativeStack& s = t_native;
  if (s.in_use || (!s.base && !s.map())) return fn(arg);  // nested, or no memory for it: in place
  s.in_use = true;
  std::exception_ptr failure;
  FiberStack caller;  // the stack we come from, learned by the callee (ASan's bookkeeping; empty otherwise)
  boost::context::fiber f(std::allocator_arg, FixedStack{s.base + s.page + kStackBytes, kStackBytes},
                          [&](boost::context::fiber&& back) {
                            switch_first(&caller);
                            try {
                              fn(arg);
                            } catch (...) {
                              failure = std::current_exception();
                            }
                            switch_leave(nullptr, &caller);
                            return std::move(back);
                          });
  switch_leave(&caller, &s.fiber_stack);
  std::move(f).resume();
  switch_arrive(caller);
  s.in_use = false;
  if (failure) std::rethrow_exception(failure);
}

}  // namespace xsim

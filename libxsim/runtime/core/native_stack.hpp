// NativeStack: runs a function on a large stack of the calling thread's own (1 MiB, a guard page below), for
// the native MPI's calls made from a virtual rank's fiber. Rank stacks are small at scale (64 KiB from
// 262,144 ranks per process), and MPICH 4's datatype engine puts 128 KiB frames on the stack in
// MPI_Reduce_local, MPI_Pack and MPI_Unpack (measured: an int MPI_MAX or a vector type needs more than
// 128 KiB). A frame that size jumps over a guard page and over the canary: its writes landed silently in
// other ranks' stacks or in xsim's own memory (hello at 1,048,576 ranks crashed in its MPI_Reduce).
// Contract: run_on_native_stack(fn, arg) calls fn(arg) on the thread's native stack and returns when it
// returns; an exception fn throws is rethrown on the caller's stack. A call made while already on it
// (a user-defined operation calling MPI again) runs in place. fn must not switch fibers (block in MPI).
// Layer: libxsim/runtime/core (xsim_core). Installed as the native layer's stack runner at start-up.
#pragma once

namespace xsim {

void run_on_native_stack(void (*fn)(void*), void* arg);

}  // namespace xsim

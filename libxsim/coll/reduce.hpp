// The reductions inside the collective algorithms (collectives.cpp, scan.cpp): native::reduce_local, run
// through the runner the runtime installs, if any. The runtime's runner times the reduction on the host
// and charges it to the calling rank's clock under the scaled processor model (a reduction of 65,536
// doubles costs tens of microseconds, as much as its messages on a fast network); without a runner (unit
// tests) it is the reduction alone. Layer: libxsim/coll (xsim_coll).
#pragma once
#include <mpi.h>

#include "native/datatype.hpp"

namespace xsim::coll {

using ReduceRunner = void (*)(const void* in, void* inout, int count, MPI_Datatype type, MPI_Op op);
void set_reduce_runner(ReduceRunner r);
extern ReduceRunner g_reduce_runner;

// inout = in op inout, as native::reduce_local, through the installed runner.
inline void reduce_local(const void* in, void* inout, int count, MPI_Datatype type, MPI_Op op) {
  if (g_reduce_runner) return g_reduce_runner(in, inout, count, type, op);
  native::reduce_local(in, inout, count, type, op);
}

}  // namespace xsim::coll

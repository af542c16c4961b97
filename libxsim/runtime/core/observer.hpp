// Observer: what the engine and the MPI call guard tell an observation of the run (trace, statistics,
// docs/observability.md). The engine holds a pointer that is null unless an observation is on, so an
// unobserved run pays one predictable branch per hook. Every call happens on the native thread; all but
// idle() on the fiber of rank `r` itself. Layer: libxsim/runtime/core (xsim_core).
#pragma once
#include <mpi.h>

#include "xsim/simtime.hpp"

namespace xsim {

struct Rank;
struct Message;

class Observer {
 public:
  virtual ~Observer() = default;
  // The rank entered / is about to leave an MPI function (r.mpi_depth already counts the call; only
  // depth 1, the application's own call, is of interest).
  virtual void enter(Rank& r, const char* name, MPI_Comm comm) = 0;
  virtual void leave(Rank& r) = 0;
  // A data message left `r` (after its arrival time was set); a data message was matched by a receive of
  // `r` (before the payload is released).
  virtual void sent(Rank& r, const Message& m) = 0;
  virtual void received(Rank& r, const Message& m) = 0;
  // The scheduler resumes blocked rank `r` later in virtual time than it blocked: from `from` to `to`.
  virtual void idle(Rank& r, SimTime from, SimTime to) = 0;
  // Rank `r` fails (an injected failure, docs/resilience.md) at its clock, inside an MPI call or a wait; it
  // never runs again.
  virtual void failed(Rank& r) = 0;
  // A noise detour (docs/noise.md) held up the computation `r` was charged, from `from` to `to` (clipped to
  // the computation); called once per detour, in order, before the clock moves past it.
  virtual void detour(Rank& r, SimTime from, SimTime to) = 0;
};

}  // namespace xsim

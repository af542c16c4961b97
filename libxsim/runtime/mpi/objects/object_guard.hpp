// The entry-point guard for MPI objects whose errors go to the object's own error handler instead of a
// communicator's: windows (default MPI_ERRORS_ARE_FATAL) and files (default MPI_ERRORS_RETURN, MPI 4.0
// §14.7). Layer: libxsim/runtime/mpi/objects (xsim_mpi); runs on the calling rank's fiber. Only the predefined handlers
// are honoured on these objects (MPI_Win_create_errhandler/MPI_File_create_errhandler are not supported).
#pragma once
#include <string>

#include "api_support.hpp"
#include "native/flatten.hpp"

namespace xsim {

// MPI_ERRORS_RETURN: returns `code`; otherwise stops the simulation naming the rank, the call and the error.
inline int object_error(const char* name, const char* object, MPI_Errhandler h, int code, const std::string& what) {
  if (h == MPI_ERRORS_RETURN) return code;
  Rank& r = g_engine->current();
  g_engine->abort_simulation(1, "rank " + std::to_string(r.world) + " at virtual time " +
                                    std::to_string(r.clock.seconds()) + " s: " + name + ": " + what + " (" +
                                    native::error_text(code) + "); the " + object + "'s error handler is " +
                                    (h == XSIM_ERRORS_ABORT ? "MPI_ERRORS_ABORT" : "MPI_ERRORS_ARE_FATAL"));
}

// Runs `body` as `guarded` does; its MPI errors go to the handler `handler_of()` names (asked after the
// error, so that it can look at the object's state then).
template <class Handler, class F>
int object_guarded(const char* name, const char* object, Handler&& handler_of, F&& body) {
  int rc = MPI_SUCCESS;
  int g = guarded(name, MPI_COMM_WORLD, [&] {
    try {
      body();
    } catch (const MpiErr& err) {
      rc = object_error(name, object, handler_of(), err.code, err.what);
    } catch (const native::MpiError& err) {
      rc = object_error(name, object, handler_of(), err.code, err.what());
    }
  });
  return g != MPI_SUCCESS ? g : rc;
}

}  // namespace xsim

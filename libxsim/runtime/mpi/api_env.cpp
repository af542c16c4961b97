// MPI environment entry points: initialisation, time, process names, and xsim's own public C API
// (include/xsim.h). Attributes are in api_attr.cpp, error handlers in api_errh.cpp.
#include <cstdio>
#include <cstring>

#include "api_ext.hpp"
#include "api_support.hpp"
#include "options.hpp"
#include "xsim.h"

using namespace xsim;

namespace {
Engine& E() { return *g_engine; }
}  // namespace

XSIM_API int MPI_Init(int* argc, char*** argv) {
  (void)argc;
  (void)argv;
  return guarded("MPI_Init", MPI_COMM_WORLD, [&] {
    Rank& r = E().current();
    if (r.mpi_initialized) fail(MPI_ERR_OTHER, "MPI_Init called twice");
    r.mpi_initialized = true;
  });
}

XSIM_API int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  (void)argc;
  (void)argv;
  return guarded("MPI_Init_thread", MPI_COMM_WORLD, [&] {
    Rank& r = E().current();
    if (r.mpi_initialized) fail(MPI_ERR_OTHER, "MPI_Init_thread called twice");
    r.mpi_initialized = true;
    // Every level is provided. Above MPI_THREAD_FUNNELED the threads the rank's application creates from
    // now on are fibers of the rank with their own virtual clocks (docs/applications.md, "Threads"), so any
    // of them may call MPI; threads the OpenMP runtime creates stay native and may not.
    *provided = required > MPI_THREAD_MULTIPLE ? MPI_THREAD_MULTIPLE : required;
    if (required > MPI_THREAD_FUNNELED) E().threads_enable(required);
    if (required == MPI_THREAD_SINGLE) rank_extra().thread_single = true;
  });
}

XSIM_API int MPI_Query_thread(int* provided) {
  // What MPI_Init_thread granted: the level asked for (MPI_Init: FUNNELED, what xsim gives every rank).
  int level = MPI_THREAD_FUNNELED;
  if (g_engine && g_engine->in_rank()) {
    const Rank& r = g_engine->current();
    if (g_engine->thread_level() >= 0)
      level = g_engine->thread_level();
    else if (r.extra && r.extra->thread_single)
      level = MPI_THREAD_SINGLE;
  }
  *provided = level;
  return MPI_SUCCESS;
}

XSIM_API int MPI_Is_thread_main(int* flag) {
  const RankThread* t = g_engine && g_engine->in_rank() ? g_engine->thread_running() : nullptr;
  *flag = !t || t->id == 0;
  return MPI_SUCCESS;
}

XSIM_API int MPI_Initialized(int* flag) {
  *flag = (g_engine && g_engine->in_rank() && g_engine->current().mpi_initialized) ? 1 : 0;
  return MPI_SUCCESS;
}

XSIM_API int MPI_Finalized(int* flag) {
  *flag = (g_engine && g_engine->in_rank() && g_engine->current().mpi_finalized) ? 1 : 0;
  return MPI_SUCCESS;
}

XSIM_API int MPI_Finalize(void) {
  return guarded("MPI_Finalize", MPI_COMM_WORLD, [&] {
    Rank& r = E().current();
    if (!r.mpi_initialized) fail(MPI_ERR_OTHER, "MPI_Finalize called before MPI_Init");
    if (r.mpi_finalized) fail(MPI_ERR_OTHER, "MPI_Finalize called twice");
    comm_local_finalize();  // MPI_COMM_SELF's attribute delete callbacks run first (api_attr.cpp)
    r.mpi_finalized = true;
  });
}

XSIM_API int MPI_Abort(MPI_Comm comm, int code) {
  (void)comm;
  if (!g_engine || !g_engine->in_rank()) {
    std::fflush(nullptr);
    return PMPI_Abort(MPI_COMM_WORLD, code);
  }
  try {
    E().mpi_enter();
  } catch (const std::exception&) {  // the compute time left the virtual time range: abort all the same
  }
  Rank& r = E().current();
  char buf[160];
  std::snprintf(buf, sizeof buf, "MPI_Abort called by rank %d with error code %d at virtual time %.9f s", r.world,
                code, r.clock.seconds());
  E().abort_simulation(code, buf);
}

XSIM_API double MPI_Wtime(void) {
  if (!g_engine || !g_engine->in_rank()) return 0.0;
  try {
    return E().read_clock().seconds();  // charges the compute time first: may leave the virtual time range
  } catch (const std::exception& err) {
    internal_failure("MPI_Wtime", err.what());
  }
}

XSIM_API double MPI_Wtick(void) { return 1e-12; }

XSIM_API int MPI_Get_processor_name(char* name, int* resultlen) {
  return guarded("MPI_Get_processor_name", MPI_COMM_WORLD, [&] {
    // The simulated node (endpoint of the outermost network) that holds the rank's core.
    int n = std::snprintf(name, MPI_MAX_PROCESSOR_NAME, "xsim-node%lld",
                          static_cast<long long>(E().node_of(E().current().world)));
    *resultlen = n;
  });
}

XSIM_API int MPI_Get_version(int* version, int* subversion) {
  *version = MPI_VERSION;
  *subversion = MPI_SUBVERSION;
  return MPI_SUCCESS;
}

XSIM_API int MPI_Comm_rank(MPI_Comm comm, int* rank) {
  return guarded("MPI_Comm_rank", comm, [&] { *rank = my_rank_in(check_comm(comm)); });
}

XSIM_API int MPI_Comm_size(MPI_Comm comm, int* size) {
  return guarded("MPI_Comm_size", comm, [&] { *size = check_comm(comm).size; });
}

XSIM_API int MPI_Pcontrol(const int level, ...) {
  (void)level;
  return MPI_SUCCESS;
}

// ---- xsim's public API --------------------------------------------------------------------------------

XSIM_API const char* xsim_version(void) { return XSIM_VERSION_STRING; }

XSIM_API int xsim_is_simulated(void) { return g_engine && g_engine->in_rank() ? 1 : 0; }

XSIM_API int xsim_compute(double seconds) {
  if (!g_engine || !g_engine->in_rank()) return -1;
  if (!(seconds >= 0.0)) return -1;
  try {  // a charge beyond the virtual time range (about 106 days) ends the run: it cannot be simulated
    E().mpi_enter();
    E().charge_compute(E().explicit_compute(SimTime::from_seconds(seconds)));  // x the node factor
  } catch (const std::exception& err) {
    internal_failure("xsim_compute", err.what());
  }
  E().mpi_leave();
  return 0;
}

XSIM_API double xsim_time(void) { return MPI_Wtime(); }

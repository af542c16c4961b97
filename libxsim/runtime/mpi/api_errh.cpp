// Error handlers on virtual communicators, and the environment queries that go with them.
// Contract: a communicator's handler is each rank's own (RankExtra::errhandlers, default
// MPI_ERRORS_ARE_FATAL). User handlers (MPI_Comm_create_errhandler) live in a per-process table with a
// reference count: the application's handle, and every communicator (of any local rank) that has the
// handler set, hold one reference each; the entry is reused once the count drops to zero. When an error
// is routed to a user handler (route_error), the handler is called as MPI defines it, with a pointer to
// the communicator and to the error code, and the entry point then returns the code.
// Layer: libxsim/runtime/mpi (xsim_mpi).
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "api_ext.hpp"
#include "api_support.hpp"
#include "handles.hpp"
#include "xsim.h"

using namespace xsim;

namespace {

using handles::Kind;

struct UserErrhandler {
  MPI_Comm_errhandler_function* fn = nullptr;
  int refs = 0;
};
std::vector<UserErrhandler> g_errh;  // by handle index; refs == 0: free
std::vector<uint32_t> g_free_errh;

UserErrhandler* user_entry(MPI_Errhandler e) {
  uint32_t i = 0;
  if (!handles::decode(Kind::Errhandler, e, &i) || i >= g_errh.size() || g_errh[i].refs <= 0) return nullptr;
  return &g_errh[i];
}

bool is_predefined(MPI_Errhandler e) {
  return e == MPI_ERRORS_ARE_FATAL || e == MPI_ERRORS_RETURN || e == XSIM_ERRORS_ABORT;
}

void check_errhandler(MPI_Errhandler e) {
  if (e == MPI_ERRHANDLER_NULL) fail(MPI_ERR_ARG, "the error handler is MPI_ERRHANDLER_NULL");
  if (!is_predefined(e) && !user_entry(e)) {
    char buf[80];
    std::snprintf(buf, sizeof buf, "invalid error handler handle 0x%08llx", handles::shown(Kind::Errhandler, e));
    fail(MPI_ERR_ARG, buf);
  }
}

MPI_Errhandler create(MPI_Comm_errhandler_function* fn) {
  if (!fn) fail(MPI_ERR_ARG, "the error handler function is NULL");
  uint32_t i;
  if (!g_free_errh.empty()) {
    i = g_free_errh.back();
    g_free_errh.pop_back();
  } else {
    i = static_cast<uint32_t>(g_errh.size());
    g_errh.emplace_back();
  }
  g_errh[i] = UserErrhandler{fn, 1};
  return handles::make<MPI_Errhandler>(Kind::Errhandler, i);
}

int set_errhandler(const char* name, MPI_Comm comm, MPI_Errhandler e) {
  return guarded(name, comm, [&] {
    check_comm(comm);
    check_errhandler(e);
    errhandler_ref(e);
    errhandler_unref(comm_errhandler(comm));
    comm_set_errhandler(comm, e);
  });
}

int get_errhandler(const char* name, MPI_Comm comm, MPI_Errhandler* e) {
  return guarded(name, comm, [&] {
    check_comm(comm);
    *e = comm_errhandler(comm);
    errhandler_ref(*e);  // the application frees what it gets (MPI_Errhandler_free)
  });
}

}  // namespace

namespace xsim {

bool errhandler_is_user(MPI_Errhandler e) { return user_entry(e) != nullptr; }

void errhandler_ref(MPI_Errhandler e) {
  if (UserErrhandler* u = user_entry(e)) ++u->refs;
}

void errhandler_unref(MPI_Errhandler e) {
  UserErrhandler* u = user_entry(e);
  if (!u || --u->refs > 0) return;
  u->fn = nullptr;
  uint32_t i = 0;
  handles::decode(Kind::Errhandler, e, &i);
  g_free_errh.push_back(i);
}

int errhandler_invoke(MPI_Errhandler e, MPI_Comm comm, int code) {
  UserErrhandler* u = user_entry(e);
  if (!u) return code;
  MPI_Comm_errhandler_function* fn = u->fn;
  MPI_Comm c = comm;
  int k = code;
  fn(&c, &k);  // may call MPI (nested entry points) or end the rank
  return code;
}

}  // namespace xsim

XSIM_API int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function* fn, MPI_Errhandler* e) {
  return guarded("MPI_Comm_create_errhandler", MPI_COMM_WORLD, [&] { *e = create(fn); });
}

XSIM_API int MPI_Errhandler_create(MPI_Comm_errhandler_function* fn, MPI_Errhandler* e) {
  return guarded("MPI_Errhandler_create", MPI_COMM_WORLD, [&] { *e = create(fn); });
}

XSIM_API int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler e) {
  return set_errhandler("MPI_Comm_set_errhandler", comm, e);
}

XSIM_API int MPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler e) {
  return set_errhandler("MPI_Errhandler_set", comm, e);
}

XSIM_API int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler* e) {
  return get_errhandler("MPI_Comm_get_errhandler", comm, e);
}

XSIM_API int MPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler* e) {
  return get_errhandler("MPI_Errhandler_get", comm, e);
}

XSIM_API int MPI_Errhandler_free(MPI_Errhandler* e) {
  return guarded("MPI_Errhandler_free", MPI_COMM_WORLD, [&] {
    check_errhandler(*e);
    errhandler_unref(*e);  // predefined handlers are never freed
    *e = MPI_ERRHANDLER_NULL;
  });
}

// Invokes the communicator's handler as if `code` had been raised by an MPI call on it.
XSIM_API int MPI_Comm_call_errhandler(MPI_Comm comm, int code) {
  return guarded("MPI_Comm_call_errhandler", comm, [&] {
    check_comm(comm);
    route_error("MPI_Comm_call_errhandler", comm, code, "error raised by the application");
  });
}

XSIM_API int MPI_Get_library_version(char* version, int* len) {
  char native[MPI_MAX_LIBRARY_VERSION_STRING] = "";
  int nlen = 0;
  PMPI_Get_library_version(native, &nlen);
  // The native string is MPICH's multi-line report; its first line names the version.
  std::string first(native, strnlen(native, sizeof native));
  if (size_t nl = first.find('\n'); nl != std::string::npos) first.resize(nl);
  std::string text = std::string("xsim ") + XSIM_VERSION_STRING + " (MPI simulator; virtual ranks over " + first + ")";
  if (text.size() >= MPI_MAX_LIBRARY_VERSION_STRING) text.resize(MPI_MAX_LIBRARY_VERSION_STRING - 1);
  std::memcpy(version, text.c_str(), text.size() + 1);
  *len = static_cast<int>(text.size());
  return MPI_SUCCESS;
}


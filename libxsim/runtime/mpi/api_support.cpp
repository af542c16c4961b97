#include "api_support.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "native/datatype.hpp"
#include "native/exchange.hpp"
#include "api_ext.hpp"
#include "handles.hpp"

namespace xsim {

namespace {
using handles::Kind;
}  // namespace

void fail(int code, std::string what) { throw MpiErr{code, std::move(what)}; }

namespace {
std::string seconds9(SimTime t) {  // as every other message prints a virtual time
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.9f", t.seconds());
  return buf;
}
}  // namespace

thread_local bool t_simulation_thread __attribute__((tls_model("initial-exec"))) = false;

int error_outside_simulation(const char* name) {
  if (g_engine && !t_simulation_thread) {  // another thread of the application, while the ranks run
    std::fprintf(stderr,
                 "xsim: %s called from a native thread of the application: only the thread that called MPI_Init "
                 "may call MPI, unless the rank asked MPI_Init_thread for MPI_THREAD_SERIALIZED or "
                 "MPI_THREAD_MULTIPLE before it created the thread; threads the OpenMP runtime creates may never "
                 "call MPI. The virtual ranks of a native process are fibers of one native thread; a call from "
                 "another would run the simulation engine at the same time as a rank. Ask for "
                 "MPI_THREAD_MULTIPLE (the rank's threads then run as fibers of the rank), or make the MPI calls "
                 "from the main thread (e.g. in OpenMP master regions); see docs/applications.md, \"Threads\". "
                 "The run stops.\n",
                 name);
    std::fflush(stderr);
    native::abort_all(1);
  }
  std::fprintf(stderr,
               "xsim: %s called outside a virtual rank (before the simulation started, after it ended, or from "
               "a thread the application created); xsim supports MPI calls from the rank's own thread only\n",
               name);
  return MPI_ERR_OTHER;
}

void check_init_state(const char* name) {
  const Rank& r = g_engine->current();
  if (g_forked_child) {  // engine.hpp: the child of a rank that forked; the simulation lives in the parent
    std::fflush(nullptr);
    std::fprintf(stderr,
                 "xsim: process %d, forked by rank %d, called %s: a process forked by a rank is not an MPI "
                 "rank (nor is it with a native MPI); it ends with exit code 1\n",
                 static_cast<int>(getpid()), r.world, name);
    _exit(1);
  }
  if (!std::strcmp(name, "MPI_Init") || !std::strcmp(name, "MPI_Init_thread") || !std::strcmp(name, "MPI_Finalize"))
    return;  // they check their own order
  if (!r.mpi_initialized)
    fail(MPI_ERR_OTHER, std::string(name) + " called before MPI_Init (call MPI_Init or MPI_Init_thread first)");
  fail(MPI_ERR_OTHER, std::string(name) + " called after MPI_Finalize (no MPI call but MPI_Initialized, "
                                          "MPI_Finalized, MPI_Get_version and MPI_Get_library_version may follow it)");
}

int route_error(const char* name, MPI_Comm comm, int code, const std::string& what) {
  Engine& e = *g_engine;
  Rank& r = e.current();
  // An error on no valid communicator (MPI_COMM_NULL, a freed or made-up handle) goes to MPI_COMM_WORLD's
  // handler, as in MPICH.
  const MPI_Comm where = comm == MPI_COMM_NULL || !comm_lookup(comm) ? MPI_COMM_WORLD : comm;
  MPI_Errhandler h = comm_errhandler(where);
  if (h == MPI_ERRORS_RETURN) return code;
  if (errhandler_is_user(h)) return errhandler_invoke(h, where, code);  // api_errh.cpp
  char text[MPI_MAX_ERROR_STRING] = "";
  int len = 0;
  PMPI_Error_string(code, text, &len);
  if (kErrProcFailed != MPI_ERR_OTHER && code == kErrProcFailed)  // MPICH 4.0.2 has no text for ULFM's classes
    std::snprintf(text, sizeof text, "MPIX_ERR_PROC_FAILED");
  else if (kErrRevoked != MPI_ERR_OTHER && code == kErrRevoked)
    std::snprintf(text, sizeof text, "MPIX_ERR_REVOKED");
  e.abort_simulation(1, "rank " + std::to_string(r.world) + " at virtual time " + seconds9(r.clock) + " s: " +
                            name + ": " + what + " (" + text +
                            "); the error handler is " +
                            (h == XSIM_ERRORS_ABORT ? "MPI_ERRORS_ABORT" : "MPI_ERRORS_ARE_FATAL"));
}

void internal_failure(const char* name, const char* what) {
  Rank& r = g_engine->current();
  g_engine->abort_simulation(1, "rank " + std::to_string(r.world) + " at virtual time " + seconds9(r.clock) +
                                    " s: " + name + ": " + what);
}

Comm& check_comm_other(MPI_Comm c) {
  if (c == MPI_COMM_NULL) fail(MPI_ERR_COMM, "the communicator is MPI_COMM_NULL");
  Comm* p = comm_lookup(c);
  if (!p) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "invalid communicator handle 0x%08llx", handles::shown(Kind::Comm, c));
    fail(MPI_ERR_COMM, buf);
  }
  return *p;
}

void check_count_failed(int count) { fail(MPI_ERR_COUNT, "negative count " + std::to_string(count)); }

void check_type_failed() { fail(MPI_ERR_TYPE, "the datatype is MPI_DATATYPE_NULL"); }

void check_buffer_failed(int count) { fail(MPI_ERR_BUFFER, "null buffer with count " + std::to_string(count)); }

void check_pointer_failed(int error_class, const char* what) {
  fail(error_class, std::string("null pointer for ") + what);
}

void check_tag_failed(int tag, bool recv) {
  fail(MPI_ERR_TAG, "invalid tag " + std::to_string(tag) +
                        (recv ? " (must be MPI_ANY_TAG or 0..MPI_TAG_UB)" : " (must be 0..MPI_TAG_UB)"));
}

void check_peer_failed(const Comm& c, int peer) {
  fail(MPI_ERR_RANK, "invalid rank " + std::to_string(peer) + " (" + describe_comm(c.handle) + " has " +
                         std::to_string(c.peer_size()) + (c.is_inter ? " ranks in its remote group)" : " ranks)"));
}


// Says why from_handle refused `h`: not a request handle at all, or a stale one (its request completed or
// freed, perhaps with a newer request in its place), or one whose request MPI_Request_free freed.
void invalid_request_handle(MPI_Request h) {
  char buf[320];
  const unsigned long long shown = handles::shown(Kind::Request, h);
  uint32_t field = 0;
  if (!handles::decode(Kind::Request, h, &field)) {
    std::snprintf(buf, sizeof buf, "invalid request handle 0x%08llx", shown);
    fail(MPI_ERR_REQUEST, buf);
  }
  const int id = request_handle::id_of(field);
  if (g_engine->valid_request(id) && g_engine->request(id).user_freed) {
    const Request& q = g_engine->request(id);
    const bool same = field >= request_handle::kLarge ||
                      ((q.gen ^ (field >> request_handle::kIdBits)) & request_handle::kGenMask) == 0;
    if (same) {
      std::snprintf(buf, sizeof buf,
                    "invalid request handle 0x%08llx: MPI_Request_free freed its request (it completes on its "
                    "own), so the handle must not be used again",
                    shown);
      fail(MPI_ERR_REQUEST, buf);
    }
  }
  std::snprintf(buf, sizeof buf,
                "invalid request handle 0x%08llx: a stale handle, whose request was already completed or freed "
                "(MPI_Wait, MPI_Test or MPI_Request_free)%s",
                shown, g_engine->valid_request(id) ? "; a newer request has taken its place" : "");
  fail(MPI_ERR_REQUEST, buf);
}

uint32_t large_request_field(int id) {
  if (static_cast<uint32_t>(id) >= request_handle::kLarge)
    fail(MPI_ERR_INTERN, "more than " + std::to_string(request_handle::kLarge) +
                             " requests are live in one native process, more than request handles can name "
                             "(use more native processes)");
  return request_handle::kLarge | static_cast<uint32_t>(id);
}

int from_large_handle(MPI_Request h, uint32_t field) {
  const int id = request_handle::id_of(field);
  if (static_cast<uint32_t>(id) <= request_handle::kIdMask || !g_engine->valid_request(id) ||
      g_engine->request(id).user_freed)
    invalid_request_handle(h);
  return id;
}

int completed_null_request(bool is_recv) {
  int id = g_engine->new_send_request(true);
  Request& q = g_engine->request(id);
  if (is_recv) {
    q.kind = Request::Kind::Recv;
    q.st_source = MPI_PROC_NULL;
    q.st_tag = MPI_ANY_TAG;
  }
  return id;
}

void fill_status_from_message(MPI_Status* st, const Message& m) {
  if (st == MPI_STATUS_IGNORE) return;
  st->MPI_SOURCE = m.src_in_comm;
  st->MPI_TAG = m.tag;
  st->MPI_ERROR = MPI_SUCCESS;
  native::set_status_count(st, m.bytes(), false);
}

void empty_status(MPI_Status* st) {
  if (st == MPI_STATUS_IGNORE) return;
  st->MPI_SOURCE = MPI_ANY_SOURCE;
  st->MPI_TAG = MPI_ANY_TAG;
  st->MPI_ERROR = MPI_SUCCESS;
  native::set_status_count(st, 0, false);
}

}  // namespace xsim

// Called by the generated stubs (unsupported.c) for every MPI function xsim does not implement yet.
extern "C" __attribute__((noreturn)) void xsim_unsupported(const char* name) {
  std::fflush(stdout);
  if (xsim::g_engine && xsim::g_engine->in_rank()) {
    xsim::Rank& r = xsim::g_engine->current();
    std::fprintf(stderr,
                 "xsim: %s is not supported by xsim yet (called by rank %d at virtual time %.9f s); "
                 "docs/mpi-support.md lists what is\n",
                 name, r.world, r.clock.seconds());
  } else {
    std::fprintf(stderr, "xsim: %s is not supported by xsim yet; docs/mpi-support.md lists what is\n", name);
  }
  xsim::native::abort_all(1);
}

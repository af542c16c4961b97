// Shared machinery of the MPI entry points: the call guard (compute-clock accounting, error routing to the
// communicator's error handler), argument checks, handle conversion for requests, and status filling.
// Layer: libxsim/runtime/mpi (xsim_mpi). Used only by the api_*.cpp files; runs on rank fibers.
#pragma once
#include <mpi.h>

#include <functional>
#include <string>

#include "coll/transport.hpp"
#include "comm.hpp"
#include "engine.hpp"
#include "handles.hpp"
#include "native/abi.hpp"
#include "native/datatype.hpp"
#include "observer.hpp"

#define XSIM_API extern "C" __attribute__((visibility("default")))

namespace xsim {

// True on the native thread that runs the simulation while it runs (startup.cpp sets it): the virtual ranks
// are fibers of that one thread, and MPI calls from any other thread are refused (MPI_THREAD_FUNNELED;
// error_outside_simulation says why). Initial-exec TLS: one load in the call guard.
extern thread_local bool t_simulation_thread __attribute__((tls_model("initial-exec")));

// An MPI usage error detected inside an entry point: routed once to the communicator's error handler.
struct MpiErr {
  int code;
  std::string what;
};
[[noreturn]] void fail(int code, std::string what);

// Runs `body` as MPI function `name` on behalf of the current rank: stops the compute clock on entry,
// restarts it on exit, tells the observer (if any) and turns MpiErr/native errors into the handler's action.
template <class F>
int guarded(const char* name, MPI_Comm comm, F&& body);
int error_outside_simulation(const char* name);
int route_error(const char* name, MPI_Comm comm, int code, const std::string& what);
[[noreturn]] void internal_failure(const char* name, const char* what);
// A call made before MPI_Init or after MPI_Finalize: fails with MPI_ERR_OTHER, except the calls MPI allows
// then (MPI_Init, MPI_Init_thread; MPI_Finalize reports its own misuse).
void check_init_state(const char* name);

template <class F>
int guarded(const char* name, MPI_Comm comm, F&& body) {
  Engine* e = g_engine;
  if (!e || !e->in_rank() || !t_simulation_thread) [[unlikely]]
    return error_outside_simulation(name);
  int rc = MPI_SUCCESS;
  try {
    e->mpi_enter();  // may throw: compute time beyond the virtual time range
  } catch (const std::exception& err) {
    internal_failure(name, err.what());
  }
  if (Observer* ob = e->observer()) [[unlikely]]  // trace / statistics (observer.hpp); null when off
    ob->enter(e->current(), name, comm);
  try {
    if (!e->current().mpi_active()) [[unlikely]]
      check_init_state(name);  // before MPI_Init or after MPI_Finalize
    body();
  } catch (const MpiErr& err) {
    rc = route_error(name, comm, err.code, err.what);
  } catch (const native::MpiError& err) {  // e.g. an invalid datatype or op, found by the native MPI
    rc = route_error(name, comm, err.code, err.what());
  } catch (const std::exception& err) {  // e.g. virtual time overflow: the run cannot go on
    internal_failure(name, err.what());
  }
  if (Observer* ob = e->observer()) [[unlikely]]
    ob->leave(e->current());
  e->mpi_leave();
  return rc;
}

// Checks shared by many entry points (each throws MpiErr with a precise message). The checks every
// message makes are inline: the test here, the message out of line (`*_failed`, cold).
Comm& check_comm_other(MPI_Comm c);  // any communicator but MPI_COMM_WORLD
inline Comm& check_comm(MPI_Comm c) {
  if (c == MPI_COMM_WORLD) [[likely]] return g_comm_world;
  return check_comm_other(c);
}
[[noreturn]] void check_count_failed(int count);
[[noreturn]] void check_type_failed();
[[noreturn]] void check_buffer_failed(int count);
[[noreturn]] void check_pointer_failed(int error_class, const char* what);
[[noreturn]] void check_tag_failed(int tag, bool recv);
[[noreturn]] void check_peer_failed(const Comm& c, int peer);
inline void check_count(int count) {
  if (count < 0) [[unlikely]] check_count_failed(count);
}
inline void check_counts(const int* counts, size_t n) {  // an array of n counts
  for (size_t i = 0; i < n; ++i) check_count(counts[i]);
}
inline void check_type(MPI_Datatype t) {
  if (t == MPI_DATATYPE_NULL) [[unlikely]] check_type_failed();
}
inline void check_buffer(const void* buf, int count) {
  if (buf == nullptr && count > 0 && buf != MPI_BOTTOM) [[unlikely]] check_buffer_failed(count);
}
// A pointer argument the call writes to or reads from (a request, an array of n requests, ...).
inline void check_pointer(const void* p, int error_class, const char* what) {
  if (p == nullptr) [[unlikely]] check_pointer_failed(error_class, what);
}
inline void check_send_tag(int tag) {
  if (tag < 0) [[unlikely]] check_tag_failed(tag, false);  // an int is never above MPI_TAG_UB (INT_MAX)
}
inline void check_recv_tag(int tag) {
  if (tag != MPI_ANY_TAG && tag < 0) [[unlikely]] check_tag_failed(tag, true);
}
// Checks a peer rank (allowing MPI_PROC_NULL, and MPI_ANY_SOURCE when `any_ok`).
inline void check_peer(const Comm& c, int peer, bool any_ok) {
  if (peer >= 0 && peer < c.peer_size()) [[likely]] return;
  if (peer == MPI_PROC_NULL || (any_ok && peer == MPI_ANY_SOURCE)) return;
  check_peer_failed(c, peer);  // on an intercommunicator: a rank of the remote group
}
inline int my_rank_in(const Comm& c) { return c.rank_of_world(g_engine->current().world); }

// Request handles as the application sees them. The handle's index field (handles::kIndexBits = 26 bits)
// holds the engine request id and, for ids below 2^20, the low 5 bits of the request's generation
// (Request::gen, bumped whenever the engine releases the request): a copy of a handle kept after its
// request was completed or freed is refused with MPI_ERR_REQUEST even once a newer request has taken the
// slot (unless the slot was reused a multiple of 32 times in between). Ids from 2^20 to 2^25 (more live
// requests in one native process than that) set bit 25 and carry no generation: only a freed slot is
// recognised there. Inline: every nonblocking call makes one and every completion call decodes one.
namespace request_handle {
inline constexpr uint32_t kIdBits = 20, kGenBits = 5;
inline constexpr uint32_t kIdMask = (1u << kIdBits) - 1, kGenMask = (1u << kGenBits) - 1;
inline constexpr uint32_t kLarge = 1u << (kIdBits + kGenBits);  // bit 25: a large id, no generation
static_assert(kIdBits + kGenBits + 1 == handles::kIndexBits, "the index field is id, generation and bit 25");
// The engine request id in a decoded index field.
inline int id_of(uint32_t field) { return static_cast<int>(field & (field & kLarge ? kLarge - 1 : kIdMask)); }
}  // namespace request_handle
[[noreturn, gnu::cold]] void invalid_request_handle(MPI_Request h);
[[gnu::cold]] uint32_t large_request_field(int id);  // kLarge | id (fails beyond 2^25 live requests)
[[gnu::cold]] int from_large_handle(MPI_Request h, uint32_t field);
inline MPI_Request to_handle(int id) {
  using namespace request_handle;
  uint32_t field = static_cast<uint32_t>(id);
  if (field <= kIdMask) [[likely]]
    field |= (g_engine->request(id).gen & kGenMask) << kIdBits;
  else
    field = large_request_field(id);
  return handles::make<MPI_Request>(handles::Kind::Request, field);
}
// -1 for MPI_REQUEST_NULL; throws MPI_ERR_REQUEST when invalid or stale (released, reused, or freed by
// MPI_Request_free while still active).
inline int from_handle(MPI_Request h) {
  using namespace request_handle;
  if (h == MPI_REQUEST_NULL) return -1;
  uint32_t u = 0;
  if (!handles::decode(handles::Kind::Request, h, &u)) [[unlikely]]
    invalid_request_handle(h);
  if (u >= kLarge) [[unlikely]]
    return from_large_handle(h, u);
  const int id = static_cast<int>(u & kIdMask);
  if (!g_engine->valid_request(id)) [[unlikely]]
    invalid_request_handle(h);
  const Request& q = g_engine->request(id);
  if (((q.gen ^ (u >> kIdBits)) & kGenMask) != 0 || q.user_freed) [[unlikely]]
    invalid_request_handle(h);
  return id;
}
// A request that is already complete (MPI_PROC_NULL operations).
int completed_null_request(bool is_recv);

// The status of a completed request (nothing with MPI_STATUS_IGNORE). Inline: every receive writes one.
inline void fill_status(MPI_Status* st, const Request& q) {
  if (st == MPI_STATUS_IGNORE) return;
  st->MPI_SOURCE = q.st_source;
  st->MPI_TAG = q.st_tag;
  st->MPI_ERROR = q.error();
  native::set_status_count(st, q.st_bytes, q.cancelled);
}
void fill_status_from_message(MPI_Status* st, const Message& m);
void empty_status(MPI_Status* st);

// Nonblocking collectives (nbc.cpp): starts `body`, a blocking algorithm over a Transport on `c`, as the
// nonblocking collective `call` and returns the request the application completes. Arguments must already
// be checked; `body` must own (capture by value) everything it needs once the call has returned, except
// the buffers and count arrays the application leaves alone until completion (MPI's rule).
MPI_Request start_nbc(Comm& c, const char* call, std::function<void(coll::Transport&)> body);
// Fails with the error a completed request carries (truncation, or an error of a nonblocking collective).
// Inline up to the usual answer, MPI_SUCCESS.
[[noreturn]] void request_error_failed(int err);
inline void check_request_error(int err) {
  if (err != MPI_SUCCESS) [[unlikely]] request_error_failed(err);
}

}  // namespace xsim

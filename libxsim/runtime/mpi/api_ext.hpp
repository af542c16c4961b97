// Hooks between the communicator entry points: per-rank communicator state (names, cached attributes,
// info hints: api_attr.cpp), user error handlers (api_errh.cpp) and intercommunicators (api_inter.cpp).
// Layer: libxsim/runtime/mpi (xsim_mpi). Every function runs on the calling rank's fiber, inside an entry
// point's guard (failures throw MpiErr).
//
// Per-rank state: a Comm object is shared by the local members of a communicator, but a communicator's
// name, attributes, info and error handler are each rank's own (MPI keeps them per process). They are kept
// by (world rank, handle) and dropped by comm_local_free, before the handle can be reused.
#pragma once
#include <mpi.h>

#include <functional>
#include <vector>

#include "coll/transport.hpp"
#include "comm.hpp"

namespace xsim {

// ---- per-rank communicator state (api_attr.cpp) ----------------------------------------------------------
// MPI_Comm_dup (and its variants): `dup` inherits `old`'s error handler and info hints, and `old`'s
// attributes go through their copy callbacks. A failing callback releases `dup` and fails with its code.
void comm_local_dup(MPI_Comm old, MPI_Comm dup, bool copy_info = true);
// Every other constructor: a new communicator inherits its parent's error handler (MPI 4.0 §9.3); nothing
// when `child` is MPI_COMM_NULL.
void comm_inherit_errhandler(MPI_Comm parent, MPI_Comm child);
// MPI_Comm_free: runs the delete callbacks (last set first), drops the name, info and error handler.
// A failing delete callback fails with its code and leaves the communicator as it is.
void comm_local_free(MPI_Comm c);
// MPI_Finalize: frees MPI_COMM_SELF's attributes (MPI 4.0 §11.2.4), last set first.
void comm_local_finalize();
// Info hints (a native MPI_Info owned by the state; MPI_INFO_NULL when none were set).
void comm_local_set_info(MPI_Comm c, MPI_Info info);

// ---- error handlers (api_errh.cpp) --------------------------------------------------------------------
bool errhandler_is_user(MPI_Errhandler e);
// Calls the user handler `e` as MPI does for an error `code` raised on `comm`; returns `code`.
int errhandler_invoke(MPI_Errhandler e, MPI_Comm comm, int code);
void errhandler_ref(MPI_Errhandler e);
void errhandler_unref(MPI_Errhandler e);

// ---- duplication (api_comm.cpp) ---------------------------------------------------------------------------
// MPI_Comm_dup and its variants: a new communicator with `comm`'s groups (intra or inter), its per-rank
// state copied (comm_local_dup). `agree`: model the context-id agreement (MPICH's allreduce); the
// nonblocking MPI_Comm_idup models it with a nonblocking collective of its own instead.
MPI_Comm comm_dup_impl(MPI_Comm comm, const char* call, bool agree, bool copy_info);

// ---- creating, splitting and comparing (api_comm.cpp) ---------------------------------------------------
// MPICH's context-id agreement, modelled (the ids themselves are derived without talking): an allreduce
// (MPI_MAX) of one int over `t`, or over `parent`'s members on its collective context.
void agree_on_context(coll::Transport& t);
void agree_on_context(Comm& parent, const char* call);
// MPI_Comm_split's exchange: every member's (color, key) over `t` (an allgather), two ints a rank, in rank order.
std::vector<int> exchange_color_key(coll::Transport& t, int color, int key);
// The members of `members` whose (color, key) entry in `ck` has `color`, ordered by key then rank.
std::vector<int32_t> of_color(const std::vector<int32_t>& members, const std::vector<int>& ck, int color);
// MPI_Comm_split's context id (also MPI_Cart_sub's) for colour `color`, from `next`, the parent's next id.
uint64_t split_id(uint64_t next, int color);
// Two member lists: MPI_IDENT (the same order), MPI_SIMILAR (the same ranks) or MPI_UNEQUAL.
int compare_members(std::vector<int32_t> a, std::vector<int32_t> b);

// ---- intercommunicators (api_inter.cpp) ------------------------------------------------------------------
// Creations from an intercommunicator `c` (collective over both groups); they return the new handle or
// MPI_COMM_NULL. `call` names the entry point in deadlock reports. The context ids are derived from `c`'s
// without talking; the messages only model MPICH's cost (`agree` = false: none).
MPI_Comm inter_dup(Comm& c, const char* call, bool agree);
MPI_Comm inter_split(Comm& c, int color, int key, const char* call);
int inter_compare(const Comm& a, const Comm& b);

// Collectives on intercommunicators: api_coll.cpp checks the arguments (the same checks serve both kinds
// of communicator) and runs the intercommunicator algorithm here, as `body(local, remote)` with the
// transports to the local group (its hidden intracommunicator) and to the remote group. Fails with
// MPI_ERR_COMM for the nonblocking forms (`nonblocking`) and for the collectives MPI does not define on
// intercommunicators (no `body`: scan, exscan).
void inter_collective(Comm& c, const char* name, bool nonblocking,
                      const std::function<void(coll::Transport& local, coll::Transport& remote)>& body);

// ---- ULFM (api_ulfm.cpp) -----------------------------------------------------------------------------------
// Installs the engine hook of revocations and agreement contributions (start-up, before any rank runs).
class Engine;
constexpr int kFamilyUlfm = 2;  // Message::src_in_comm of revocations and contributions (engine.hpp, families 0-3)
void ulfm_install(Engine& e);
// This native process's MPIX_Comm_revoke, MPIX_Comm_agree and MPIX_Comm_shrink calls, and the virtual time
// its ranks spent in agree and shrink, in ps (the run report).
void ulfm_counts(uint64_t* revokes, uint64_t* agreements, uint64_t* shrinks, uint64_t* agree_ps);

}  // namespace xsim

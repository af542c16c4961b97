// One-sided communication (RMA) inside the simulation: windows, their epochs, and the operations as
// engine-applied messages (engine.hpp, kind kApplied, family kFamilyRma). The semantics and costs are
// written down in docs/rma.md. Layer: libxsim/runtime/mpi/objects (xsim_mpi).
// Contract: every function without "hook" in its comment runs on the calling rank's fiber inside an entry
// point's guard and reports misuse by throwing MpiErr; the operations are applied at their target by the
// target's native process at their arrival time (the hook in rma.cpp), never by the target rank's fiber,
// so passive-target operations complete while the target computes. Window objects are shared by the local
// members of a window; everything a member owns is in its WinRank.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <deque>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include "comm.hpp"

namespace xsim::rma {

constexpr int kFamilyRma = 0;  // Message::src_in_comm of RMA messages (engine.hpp)

// Message::tag of RMA messages.
enum Op : int32_t {
  kPut = 1, kGet, kAcc, kGetAcc, kCas,  // origin -> target: data operations
  kAck, kReply,                         // target -> origin: an operation was applied / its data
  kLock, kGrant, kUnlock,               // passive target synchronization
  kPost, kComplete                      // generalized active target synchronization
};

struct LockHeld {    // an origin's passive-target epoch on one target
  int type = 0;      // MPI_LOCK_SHARED or MPI_LOCK_EXCLUSIVE
  bool granted = false;
  bool nocheck = false;  // MPI_MODE_NOCHECK: no lock messages
};

struct LockWait {    // a lock request queued at its target
  int32_t origin_world;
  int32_t origin;
  int type;
};

// One member's part of a window.
struct WinRank {
  int32_t world = 0;
  int32_t rank = 0;           // rank in the window's group
  char* base = nullptr;
  MPI_Aint size = 0;
  int disp_unit = 1;
  int flavor = MPI_WIN_FLAVOR_CREATE;
  int model = MPI_WIN_UNIFIED;
  bool owns_base = false;     // MPI_Win_allocate: freed with the window
  std::vector<std::pair<uintptr_t, uintptr_t>> attached;  // dynamic windows: [begin, end) regions
  MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
  std::string name;

  // --- as an origin ---
  std::unordered_map<int32_t, int64_t> pending;      // target -> operations not yet acknowledged/replied
  std::unordered_map<int32_t, int64_t> pending_get;  // target -> operations whose data has not come back
  int64_t pending_total = 0, pending_get_total = 0;
  bool fence_epoch = false;
  std::unordered_map<int32_t, LockHeld> locks;       // passive-target epochs by target
  bool lock_all = false, lock_all_nocheck = false;
  int32_t lock_all_granted = 0;                      // grants received for MPI_Win_lock_all
  bool access_epoch = false;                         // between MPI_Win_start and MPI_Win_complete
  std::vector<int32_t> access_group;
  std::unordered_map<int32_t, int32_t> posts;        // target -> MPI_Win_post messages not yet consumed

  // --- as a target ---
  int32_t shared_holders = 0;
  bool exclusive_held = false;
  std::deque<LockWait> lock_queue;
  bool exposure_epoch = false;                       // between MPI_Win_post and MPI_Win_wait/test
  std::vector<int32_t> exposure_group;
  std::unordered_map<int32_t, int32_t> completes;    // origin -> MPI_Win_complete messages not yet consumed
};

struct Window {
  uint64_t id = 0;                 // also the context of its internal communicator
  MPI_Win handle = MPI_WIN_NULL;
  Comm* comm = nullptr;            // internal communicator over the window's group (fence barriers)
  int flavor = MPI_WIN_FLAVOR_CREATE;
  std::vector<int64_t> sizes;      // per rank of the group: window size in bytes (from the creation)
  std::vector<int32_t> disp_units; // per rank: displacement unit
  char* segment = nullptr;         // MPI_Win_allocate_shared: the node's one allocation
  std::vector<int64_t> seg_offset; // per rank: where its part starts in `segment`
  std::unordered_map<int32_t, WinRank> local;  // local members by world rank
  int refs = 0;                    // local members that have not freed it
};

// The window behind `h` for the current rank (MPI_ERR_WIN when invalid or not a member), or nullptr.
Window* lookup(MPI_Win h);
Window& check(MPI_Win h);
WinRank& mine(Window& w);

// Collective over `c`: creates the window (flavor create/allocate/shared/dynamic) with this rank's memory.
// For MPI_WIN_FLAVOR_ALLOCATE and SHARED, `*base` receives the memory; otherwise it is the given memory.
MPI_Win create(Comm& c, int flavor, void** base, MPI_Aint size, int disp_unit, const char* call);
void free_window(Window& w, const char* call);  // collective; the handle is invalid afterwards

// Synchronization (docs/rma.md gives each one's cost).
void fence(Window& w, int assert_flags);
void lock(Window& w, int type, int rank, int assert_flags);
void unlock(Window& w, int rank);
void lock_all(Window& w, int assert_flags);
void unlock_all(Window& w);
// flush's rank for MPI_Win_flush_all / _flush_local_all: no MPI rank constant may serve (MPI_PROC_NULL is -1
// under MPICH, -2 under Open MPI; -1 made MPICH's flush_all return at once).
constexpr int kAllTargets = std::numeric_limits<int>::min();
// rank: one target, MPI_PROC_NULL (nothing) or kAllTargets. local: local completion only (the data of gets is there).
void flush(Window& w, int rank, bool local, const char* call);
void post(Window& w, const std::vector<int32_t>& group, int assert_flags);
void start(Window& w, const std::vector<int32_t>& group, int assert_flags);
void complete(Window& w);
void wait(Window& w);
bool test(Window& w);
void sync(Window& w);
// The window group's ranks of `group` (MPI_ERR_GROUP/MPI_ERR_RANK when one is not in the window).
std::vector<int32_t> ranks_of_group(Window& w, MPI_Group group);

// One data operation (op: kPut, kGet, kAcc, kGetAcc, kCas). `origin` is the data sent (put, accumulates,
// the new value of compare-and-swap), `result` where fetched data goes (get: the origin buffer), `compare`
// compare-and-swap's comparand. With `request`, returns an engine request id that completes at local
// completion (at once for put and accumulate; when the data is back for the fetching kinds), else -1.
struct Buf {
  const void* addr = nullptr;
  int count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
};
int operate(Window& w, Op op, Buf origin, Buf result, const void* compare, int target, MPI_Aint disp, Buf tgt,
            MPI_Op mop, bool request, const char* call);

// Installs the engine hook (once per process, idempotent).
void install_hook();

}  // namespace xsim::rma

// Virtual communicators and groups, and the translation between the application's handles (values that
// look like MPICH handles) and xsim's objects. Layer: libxsim/runtime/mpi/objects (xsim_mpi). A Comm object is shared
// by the local members of a communicator; its context id is derived deterministically from the parent's
// id and the creation sequence, so every native process agrees on it without talking.
// All functions run on the calling rank's fiber (single-threaded).
#pragma once
#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "xsim/simtime.hpp"


namespace xsim {

struct Rank;  // engine.hpp

namespace coll {
struct Topology;  // coll/topology.hpp
}
struct CollRendezvous;  // coll_replay.cpp

struct Comm {
  uint64_t id = 0;                  // context id: point-to-point traffic uses 2*id, collectives 2*id+1
  MPI_Comm handle = MPI_COMM_NULL;  // the handle the application holds
  int size = 0;
  std::vector<int32_t> members;     // world rank of each comm rank; empty means identity (the world)
  std::unordered_map<int32_t, int32_t> rank_of;  // world -> comm rank (non-identity comms)
  int local_refs = 0;               // local ranks holding this communicator
  bool is_self = false;
  std::string name;
  std::shared_ptr<coll::Topology> topo;  // Cartesian/graph/dist-graph topology (api_topo.cpp), or null
  // Fast path of blocking collectives (coll_replay.hpp): the local members that have entered the current
  // one, and whether every member is a rank of this native process (-1: not yet known).
  std::shared_ptr<CollRendezvous> rendezvous;
  int8_t all_local = -1;
  // Injected failures (docs/resilience.md): the member whose failure is detected first (world rank) and
  // when, for the collectives' waits; -2: not yet computed, -1: no member fails.
  int64_t first_failure = -2;
  SimTime first_detection = SimTime::infinity();

  // Intercommunicators (api_inter.cpp): `members`/`size` are the local group, `remote` the remote group.
  // Each side is its own object (own `id`); both sides' traffic uses the shared context `inter_id`, and
  // the collectives' intra-group steps run on `local`, a hidden intracommunicator over the local group.
  bool is_inter = false;
  bool low_group = false;           // the side whose leader has the lower world rank
  uint64_t inter_id = 0;
  std::vector<int32_t> remote;
  Comm* local = nullptr;            // owned: released when this object is deleted

  uint64_t p2p_ctx() const { return (is_inter ? inter_id : id) * 2; }
  uint64_t coll_ctx() const { return (is_inter ? inter_id : id) * 2 + 1; }
  // Point-to-point peers: the remote group on an intercommunicator, else the communicator itself.
  int peer_size() const { return is_inter ? static_cast<int>(remote.size()) : size; }
  int32_t peer_world(int r) const { return is_inter ? remote[static_cast<size_t>(r)] : world_of(r); }
  int32_t world_of(int r) const { return members.empty() ? r : members[static_cast<size_t>(r)]; }
  // The comm rank of world rank `w`, or -1 if not a member.
  int32_t rank_of_world(int32_t w) const {
    if (members.empty()) return w < size ? w : -1;
    if (w == last_world_) return last_rank_;  // a rank's calls on a communicator come in runs (polling loops)
    auto it = rank_of.find(w);
    last_world_ = w;
    last_rank_ = it == rank_of.end() ? -1 : it->second;
    return last_rank_;
  }
  mutable int32_t last_world_ = -1, last_rank_ = -1;  // rank_of_world's last answer (rank_of never changes)
};

struct Group {
  bool identity = false;            // the world group: members implicit
  int size = 0;
  std::vector<int32_t> members;     // world ranks in group order (unless identity)
  int32_t world_of(int r) const { return identity ? r : members[static_cast<size_t>(r)]; }
  int32_t rank_of_world(int32_t w) const;
};

// A rank's own MPI state that no communicator holds, made on first use (rank_extra): its MPI_COMM_SELF, its
// error handlers, the communicators it created (for context ids) and its attached buffered-send buffer.
// (libc's per-rank state is the process layer's: process/rank_libc.hpp.)
struct RankExtra {
  Comm* self = nullptr;
  std::vector<std::pair<MPI_Comm, MPI_Errhandler>> errhandlers;  // non-default handlers by comm
  std::vector<std::pair<uint64_t, uint32_t>> created;            // comms created from a parent id
  void* bsend_buf = nullptr;
  int bsend_size = 0;
  bool thread_single = false;  // MPI_Init_thread granted MPI_THREAD_SINGLE (MPI_Query_thread answers it)
  // ULFM (api_ulfm.cpp), by communicator id: the agreements and shrinks begun, the acknowledged failed
  // members (world ranks, MPIX_Comm_failure_ack).
  std::vector<std::pair<uint64_t, uint64_t>> agreements;
  std::vector<std::pair<uint64_t, std::vector<int32_t>>> acked;
};

void comm_init_world(int64_t world_size);
// MPI_COMM_WORLD's object, the same for every rank (check_comm's inline fast path).
extern Comm g_comm_world;
// The communicator behind `h` for the current rank, or nullptr when `h` is not a valid communicator.
Comm* comm_lookup(MPI_Comm h);
// Creates (or joins, for later local members) the communicator with context `id` and these members.
Comm* comm_join(uint64_t id, std::vector<int32_t> members);
void comm_release(Comm* c);
// At the end of the run: frees every communicator object still alive (not the world's; a rank's
// MPI_COMM_SELF goes with its RankExtra).
void comm_free_all();
// Next context id for a communicator created from `parent` by the current rank (same on every member).
uint64_t comm_next_id(const Comm& parent, uint64_t salt);
// Context ids are derived, never negotiated: values are mixed with splitmix64's finaliser, and an id
// has the form as_context_id gives (never the world's, 1, nor a rank's MPI_COMM_SELF's).
uint64_t context_mix(uint64_t x);
inline uint64_t as_context_id(uint64_t x) { return (x & ~(3ull << 62)) | 2; }
// The world ranks of `c`'s members (of an intercommunicator: of its local group), in rank order.
std::vector<int32_t> members_of(const Comm& c);
// The same, for a creation keyed by `parent_key` instead of a communicator's id (intercommunicators,
// MPI_Comm_create_group): the sequence counts creations per key.
uint64_t comm_next_id(uint64_t parent_key, uint64_t salt);
MPI_Errhandler comm_errhandler(MPI_Comm h);
void comm_set_errhandler(MPI_Comm h, MPI_Errhandler e);
std::string describe_comm(MPI_Comm c);

MPI_Group group_create(Group g);
Group* group_lookup(MPI_Group h);
void group_free(MPI_Group h);

RankExtra& rank_extra();
// Frees rank `r`'s RankExtra at teardown (set as the engine's Hooks::free_rank_state by start-up).
void rank_extra_free(Rank& r);

}  // namespace xsim

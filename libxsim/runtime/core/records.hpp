// The engine's records (docs/architecture.md §2): a message in flight, a request, what a blocked rank waits for,
// and one virtual rank's record with its clock, fiber and queues. Layer: libxsim/runtime/core (xsim_core); the
// MPI layer reads them through Engine. Not thread-safe: one native process = one OS thread.
#pragma once
#include <mpi.h>

#include <boost/context/fiber.hpp>
#include <cstddef>
#include <cstdint>

#include "small_vec.hpp"
#include "stack_pool.hpp"
#include "xsim/simtime.hpp"

namespace xsim {

struct RankExtra;  // rarely used per-rank state, allocated on first use (see the MPI layer)

constexpr int kAnySource = -1;  // engine-level wildcards (the API maps MPI_ANY_SOURCE/MPI_ANY_TAG to these)
constexpr int kAnyTag = -1;

// A message in flight or waiting at its receiver. Header and payload share one allocation: always create
// and destroy them with Message::create/destroy. The header is 56 bytes (the kind in the size word) and the blocks of small messages
// are cache-line aligned, so a payload of up to kLinePayload (8) bytes shares the header's line: a receive
// that finds the message no longer cached misses once, not twice. Small blocks (64 and 128 bytes) are
// recycled through free lists.
struct Message {
  SimTime t_arrive;     // virtual time the last byte is at the receiver
  uint64_t seq;         // sender's send counter: ties on t_arrive break by (src, seq)
  uint64_t ctx;         // communicator context the message was sent on
  int64_t ack_token;    // synchronous send: the sender's request to acknowledge on match, else -1
  int32_t src;          // sender, world rank
  int32_t dst;          // receiver, world rank
  int32_t src_in_comm;  // sender's rank in the communicator (what MPI_SOURCE reports)
  int32_t tag;
  uint64_t size_kind;   // low 56 bits: the payload size, set by create and never changed (destroy returns the
                        // block by it); top 8 bits: the kind, kData (create's) unless set_kind says otherwise
  // kApplied: applied by the destination's engine, not matched by a receive (one-sided operations, shared
  // file pointers): `ctx` names the object, `tag` the operation, `src_in_comm` the family whose hook applies it.
  // The rendezvous protocol (loggp model, messages above the eager limit; docs/network-model.md): kRts is
  // the request to send, matched like kData and carrying the payload along (its timing is a zero-byte
  // message's); the receiver's clear-to-send is a kApplied message of family kRendezvousFamily to the
  // sender (ack_token: the send request; ctx: the receive request's token); kRdata is the data's arrival
  // (ack_token: the receive request's token; ctx: the bytes it models; no payload).
  static constexpr int32_t kData = 0, kAck = 1, kApplied = 2, kRts = 3, kRdata = 4;
  static constexpr uint64_t kMaxBytes = (uint64_t{1} << 56) - 1;  // larger payloads cannot be created
  static constexpr uint64_t kLinePayload = 8;   // payloads up to this size share the header's cache line
  // Set (in the kind byte's top bits) on a message whose data the ejection link delays beyond t_arrive (loggp
  // endpoint contention): the time its last byte is at the receiver is in ack_token when that is free (a
  // data message that is not synchronous: kDelayInAckBit), else kept by its engine (Engine::delayed_).
  static constexpr uint64_t kDelayedBit = uint64_t{1} << 63, kDelayInAckBit = uint64_t{1} << 62;
  // Memory folding (-xsim-fold, docs/real-programs.md): a message sent from a folded buffer carries only the
  // first and last kFoldEdge bytes of its data (kFoldedPayload, head then tail); bytes() stays the full size
  // (matching, counts, timing). Messages::create_folded makes one; the payload is then always kFoldedPayload.
  static constexpr uint64_t kFoldedBit = uint64_t{1} << 61;
  static constexpr uint64_t kFoldEdge = 4096, kFoldedPayload = 2 * kFoldEdge;
  uint64_t bytes() const { return size_kind & kMaxBytes; }
  int32_t kind() const { return static_cast<int32_t>((size_kind >> 56) & 0x1f); }
  void set_kind(int32_t k) { size_kind = (size_kind & kFoldedBit) | bytes() | static_cast<uint64_t>(k) << 56; }
  bool folded() const { return (size_kind & kFoldedBit) != 0; }
  uint64_t stored_bytes() const { return folded() ? kFoldedPayload : bytes(); }  // the payload's own size
  bool delayed() const { return (size_kind & kDelayedBit) != 0; }
  // The bytes the network model times it by: the payload's, a rendezvous data message's model size, none
  // for the protocol's control messages.
  uint64_t model_bytes() const {
    const int32_t k = kind();
    return k == kData ? bytes() : k == kRdata ? ctx : 0;
  }
  char* payload() { return reinterpret_cast<char*>(this + 1); }
  const char* payload() const { return reinterpret_cast<const char*>(this + 1); }
  static Message* create(uint64_t bytes);
  static Message* create_folded(uint64_t bytes);  // bytes > kFoldedPayload: a folded message's block
  static void destroy(Message* m);
};
static_assert(sizeof(Message) + Message::kLinePayload == 64, "a small message is one cache line");

// One entry of the engine's request table. Besides sends and receives it holds the API layer's other
// request-like objects: a nonblocking collective in progress (Coll), a persistent request (Persistent:
// the arguments, and `inner`, the request of the operation MPI_Start began, or -1 while inactive), and a
// message taken by MPI_Mprobe/MPI_Improbe (Matched: `msg`, received later by MPI_Mrecv/MPI_Imrecv).
//
// Layout: cache-line aligned, and with MPICH's int handles everything a send or receive reads and writes
// from posting to release (kind, flags, generation, completion, receive arguments, status) lies in the
// first line: a receive completed after its rank slept (the request no longer cached) misses once. The
// other kinds' fields and an error code (read only when `failed`) follow.
struct alignas(64) Request {
  enum class Kind : uint8_t { Free, Send, Recv, Coll, Persistent, Matched };
  Kind kind = Kind::Free;
  bool complete : 1 = false;
  bool cancelled : 1 = false;
  bool user_freed : 1 = false;  // MPI_Request_free called while active: release on completion
  bool failed : 1 = false;      // the status carries an error (error_code); else MPI_SUCCESS
  bool awaiting_data : 1 = false;  // a receive matched to a rendezvous request to send, its data not yet here
  uint32_t gen = 0;             // bumped on release, so stale acks are recognised
  SimTime completion;           // virtual time the operation completed
  // receive arguments
  void* buf = nullptr;
  uint64_t ctx = 0;
  uint64_t st_bytes = 0;        // outcome: bytes received
  int count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  int source = kAnySource;      // rank in communicator, or kAnySource
  int tag = kAnyTag;
  // outcome (status)
  int st_source = MPI_ANY_SOURCE;
  int st_tag = MPI_ANY_TAG;
  // Persistent / Coll / Matched, errors
  int error_code = MPI_SUCCESS; // meaningful while `failed`
  int32_t inner = -1;           // Persistent: the active operation's request id, or -1 (inactive)
  int32_t peer_world = -1;      // send / receive: the peer's world rank when known (failure detection)
  uint8_t mode = 0;             // Persistent: the API layer's operation code
  MPI_Comm comm = MPI_COMM_NULL;  // Persistent / Coll: the communicator (for errors and reports)
  Message* msg = nullptr;       // Matched: the message, already removed from the unexpected queue
  void* state = nullptr;        // Coll: the API layer's progress state
  uint64_t rts_seq = 0;         // rendezvous send: its request to send's sequence number (names the data)
  int error() const { return failed ? error_code : MPI_SUCCESS; }  // the status's MPI_ERROR
  // The operation's arguments: a receive's, or those a persistent request keeps for MPI_Start.
  void set_args(void* b, int n, MPI_Datatype t, int peer, int tg) {
    buf = b;
    count = n;
    type = t;
    source = peer;
    tag = tg;
  }
  void set_error(int e) {
    error_code = e;
    failed = e != MPI_SUCCESS;
  }
};
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winvalid-offsetof"
static_assert(sizeof(MPI_Datatype) != 4 || offsetof(Request, st_tag) + sizeof(int) <= 64,
              "with int handles, a send or receive touches one line of its request");
#pragma GCC diagnostic pop

// The engine's requests by id: chunks of 256 that never move, so a Request& stays valid while the table
// grows (as a deque's would), with an index that is one shift and one mask (a deque's is not).
class RequestTable {
 public:
  Request& operator[](size_t id) { return chunks_[id >> kShift][id & kMask]; }
  const Request& operator[](size_t id) const { return chunks_[id >> kShift][id & kMask]; }
  size_t size() const { return size_; }
  Request& emplace_back() {
    if ((size_ & kMask) == 0) chunks_.push_back(std::make_unique<Request[]>(kMask + 1));
    return (*this)[size_++];
  }

 private:
  static constexpr size_t kShift = 8, kMask = (size_t{1} << kShift) - 1;
  std::vector<std::unique_ptr<Request[]>> chunks_;
  size_t size_ = 0;
};

// What a blocked rank waits for (for the deadlock report).
struct BlockInfo {
  const char* call = "";
  int peer = kAnySource;     // rank in the communicator, or kAnySource, or -3 for "several"
  int tag = kAnyTag;
  MPI_Comm comm = MPI_COMM_NULL;
};

struct RankStats {
  SimTime compute;           // virtual time charged by the processor model and xsim_compute
  SimTime mpi;               // virtual time spent inside MPI calls (communication and waiting)
  uint64_t messages = 0;     // messages sent
  uint64_t bytes = 0;        // payload bytes sent
};

enum class RankState : uint8_t { NotStarted, Running, Runnable, Blocked, Done };

// One virtual rank's record, cache-line aligned. Its first line holds what another rank's send to it
// reads and writes (deliver_local: the state, the run-queue key and generation, the arrival heap with its
// first three entries) and what the run queue's top check reads (clean_heap_top), so that a delivery to a
// rank whose record is not cached costs one miss; a sender prefetches that line as soon as it knows the
// destination (Engine::send). The fields the rank's own calls touch follow (the scheduler prefetches the
// whole record before the rank runs); statistics and rarely used state last.
struct alignas(64) Rank {
  // line 0: deliveries and the run queue
  SimTime queue_key;                  // key of the live heap entry when queued
  uint32_t queue_gen = 0;
  int32_t index = 0;                  // local index in this native process
  RankState state = RankState::NotStarted;
  bool queued = false;
  bool mpi_initialized : 1 = false;
  bool mpi_finalized : 1 = false;
  bool threaded : 1 = false;          // its application threads are fibers (rank_threads.hpp): the hooks below run
  int32_t world = 0;
  SmallVec<Message*, 3> arrivals;     // min-heap on (t_arrive, src, seq): not yet processed
  // the rank's own calls
  SimTime clock;
  boost::context::fiber fiber;
  const char* mpi_entry_sp = nullptr;  // stack pointer in the outermost MPI call (for prefetching only)
  int mpi_depth = 0;
  uint32_t pending_progress = 0;      // nonblocking collectives in progress (the progress hook runs while > 0)
  SimTime mpi_entry_clock;
  uint64_t send_seq = 0;
  int64_t host_resume_ns = 0;         // host clock when the rank last resumed application code
  SmallVec<int32_t, 4> posted;        // posted receive request ids, in posting order
  struct RecentSend { int32_t dst; SimTime t_arrive; };
  SmallVec<RecentSend, 2> recent;     // sends whose arrival could still be overtaken (FIFO per pair)
  SmallVec<Message*, 2> unexpected;   // arrived, unmatched, in arrival order
  bool mpi_active() const { return mpi_initialized && !mpi_finalized; }  // between MPI_Init and MPI_Finalize
  bool exited_via_exit = false;
  RankStats stats;
  BlockInfo block;
  int exit_code = 0;
  // clock reads in a row with the clock standing still (read_clock): through MPI_Wtime, and through libc's
  // gettimeofday/clock_gettime (which libraries and the sanitizers' runtime read too)
  uint32_t still_wtime_reads : 10 = 0;
  uint32_t still_libc_reads : 22 = 0;
  SimTime finish_time;
  RankExtra* extra = nullptr;
  [[no_unique_address]] FiberStack stack;  // the rank's own stack as ASan sees it (empty without ASan)
#if XSIM_ASAN
  FiberStack* on = nullptr;           // the stack the rank runs on: a nonblocking collective's, or null: its own
  FiberStack& running_stack() { return on ? *on : stack; }
#endif
};
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winvalid-offsetof"
static_assert(XSIM_ASAN || sizeof(Rank) <= 320, "five cache lines: prefetch_next loads the whole record");
static_assert(offsetof(Rank, arrivals) + sizeof(Rank::arrivals) == 64, "a delivery touches the record's first line");
#pragma GCC diagnostic pop

}  // namespace xsim

// Replay of collective algorithms on arrays: the fast path of blocking collectives whose ranks are all in
// one native process (runtime/mpi/objects/coll_replay.cpp). Layer: libxsim/coll; depends on native/datatype.hpp and
// xsim/simtime.hpp only.
// Contract: given every rank's virtual time on entry, each function walks the same message schedule as the
// point-to-point algorithm of collectives.cpp (same algorithm choice, same messages in the same per-rank
// order, same receive rule: a receive posted at the rank's clock completes at ReplayNet::receive, an eager
// send holds the sender for the send overhead only) and leaves in t[i] rank i's exit time, bit-identical to
// the point-to-point run. Data moves between the ranks' buffers as the messages would move it, and reductions apply each rank's operation to the same
// operands in the same order, so results are bit-identical too. Message timing (network model, per-pair
// FIFO order, the nodes' NICs, statistics) is the ReplayNet's business.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <vector>

#include "xsim/simtime.hpp"

namespace xsim::coll {

// One replayed message as its receiver sees it: its arrival (at the receiver's node), its transfer time over
// the route (the ejection link's share), its sender's send order (the tie-break of the arrival order), size.
struct ReplayMsg {
  SimTime arrive;
  SimTime xfer;
  uint64_t seq = 0;
  uint64_t bytes = 0;
};

class ReplayNet {
 public:
  virtual ~ReplayNet() = default;
  // A message of `bytes` from rank i to rank j of the communicator, sent by i when its clock reads `at`
  // (after the send overhead, which the caller adds: send_overhead()). Called in each sender's program
  // order; the NIC, per-pair FIFO order and statistics are the net's.
  virtual ReplayMsg send(int i, int j, SimTime at, uint64_t bytes) = 0;
  // The loggp model's send overhead: CPU time a send takes before its message leaves. Default: none.
  virtual SimTime send_overhead() const { return SimTime::zero(); }
  // Rank i completes the receive of message `m` from rank j that it posted at virtual time
  // `posted`: returns when the receive completes (after the ejection link and the loggp receive overhead).
  // Called, for each receiver, in the order the message path would time its messages; a net that cannot
  // prove that order notes it (EngineNet::ordered) and its times are not used. Default: at the match.
  virtual SimTime receive(int i, int j, SimTime posted, const ReplayMsg& m) {
    (void)i, (void)j;
    return max(posted, m.arrive);
  }
  // native::reduce_local(in, inout, count, type, op) with rank i's operation, on rank i's behalf.
  // Returns the virtual time the reduction takes rank i (the scaled processor model's charge for its host
  // time, as the message path's coll::reduce_local charges it; zero under the model none).
  virtual SimTime reduce(int i, const void* in, void* inout, int count, MPI_Datatype type) = 0;
};

// The algorithm coll::allreduce takes for p ranks (MPICH's default choice; docs/collectives.md).
enum class AllreduceAlgo { RecursiveDoubling, Rabenseifner };
AllreduceAlgo allreduce_algorithm(int p, int count, MPI_Datatype type, MPI_Op op);

// Dissemination barrier over t.size() ranks.
void replay_barrier(ReplayNet& net, std::vector<SimTime>& t);
// Allreduce of `count` elements of `type` (the same on every rank) where acc[i] is rank i's receive
// buffer, already holding its contribution (coll::allreduce's state after its MPI_IN_PLACE copy).
// `commutative` is the operation's (the same on every rank). Requires t.size() > 1 and count > 0.
void replay_allreduce(ReplayNet& net, std::vector<SimTime>& t, char* const* acc, int count, MPI_Datatype type,
                      bool commutative, AllreduceAlgo algo);

}  // namespace xsim::coll

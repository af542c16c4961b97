// Fast path of blocking collectives (docs/collectives.md "Fast path"): when every rank of an
// intracommunicator lives in this native process, MPI_Barrier and MPI_Allreduce do not run as fibers
// exchanging virtual messages. Each rank that enters waits (blocked, as in the point-to-point algorithm)
// until the last one has entered; that one replays the algorithm's message schedule on arrays
// (coll/replay.hpp) with the engine's timing of every message (network latency, per-pair FIFO order,
// loggp's overheads and nodes' NICs, statistics), moves the data, and resumes every rank at its exit time. Virtual times, results, message
// counts and per-rank statistics are those of the point-to-point run.
// Both collectives are "fully dependent": every rank's exit follows, through messages, every rank's entry,
// so no rank could have acted before the last one enters and waiting loses nothing (this is why Reduce,
// Bcast and the rooted collectives are not on the fast path: their leaves leave before the others enter).
// Falls back to the point-to-point algorithm (returns false) when -xsim-coll-replay is off, an observer
// (trace, statistics) is on, the communicator is an intercommunicator, has one rank or spans native
// processes; and, for every member at once, when a member has nonblocking collectives in progress (their
// progress happens at the steps of the blocking one) or the members' arguments differ (count, datatype,
// kind of operation): the ranks already waiting then restart at their entry time on the point-to-point
// path, which sends only on the collective's own context, so nothing else has seen them wait. Under loggp
// with a NIC the allreduce's replay checks that it timed each node's arrivals in the message path's order
// and falls back the same way, after the fact, when it did not; with endpoint contention its rendezvous is
// held so that such a fallback stays exact (coll_replay.cpp, arrive).
// Layer: libxsim/runtime/mpi/objects (xsim_mpi); runs on the calling rank's fiber.
#pragma once
#include <mpi.h>

#include "comm.hpp"

namespace xsim {

// True when the fast path completed the calling rank's part (its clock is at its exit time); false: the
// caller runs the point-to-point algorithm.
bool replay_barrier(Comm& c, const char* call);
bool replay_allreduce(Comm& c, const char* call, const void* sbuf, void* rbuf, int count, MPI_Datatype type,
                      MPI_Op op);

}  // namespace xsim

// Transport: the point-to-point operations collective algorithms are written against.
// Layer: libxsim/coll. The simulator implements it over virtual messages on a communicator's collective
// context (so collective traffic never matches user point-to-point traffic); unit tests implement it with
// threads. Ranks and tags are local to the communicator. All calls are made from the calling rank's own
// fiber/thread; a Transport object belongs to exactly one rank during one collective call.
#pragma once
#include <mpi.h>

namespace xsim::coll {

class Transport {
 public:
  virtual ~Transport() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Nonblocking send/receive of `count` elements of `type`; return a request id valid until waited on.
  // Sends are buffered (the buffer may be reused as soon as isend returns).
  virtual int isend(const void* buf, int count, MPI_Datatype type, int dest, int tag) = 0;
  virtual int irecv(void* buf, int count, MPI_Datatype type, int source, int tag) = 0;
  // Waits for all `n` requests in `ids` (any order of completion).
  virtual void waitall(int n, const int* ids) = 0;

  // Conveniences built on the three calls above.
  void send(const void* buf, int count, MPI_Datatype type, int dest, int tag) {
    int id = isend(buf, count, type, dest, tag);
    waitall(1, &id);
  }
  void recv(void* buf, int count, MPI_Datatype type, int source, int tag) {
    int id = irecv(buf, count, type, source, tag);
    waitall(1, &id);
  }
  void sendrecv(const void* sbuf, int scount, MPI_Datatype stype, int dest, int stag,
                void* rbuf, int rcount, MPI_Datatype rtype, int source, int rtag) {
    int ids[2] = {irecv(rbuf, rcount, rtype, source, rtag), isend(sbuf, scount, stype, dest, stag)};
    waitall(2, ids);
  }
};

}  // namespace xsim::coll

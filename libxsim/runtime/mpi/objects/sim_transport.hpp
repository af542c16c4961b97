// SimTransport and PeerTransport: the collective algorithms' Transport over virtual messages on a
// communicator's collective context. Layer: libxsim/runtime/mpi/objects (xsim_mpi). Lives for one collective
// call on the calling rank's fiber.
//  - SimTransport(c): the members of `c` (an intracommunicator, or an intercommunicator's hidden `local`).
//  - PeerTransport(c): the peers of `c`: the remote group of an intercommunicator (api_inter.cpp, and the
//    steps of the intercommunicator collectives that cross between the groups); on an intracommunicator the
//    same as SimTransport.
#pragma once
#include "api_support.hpp"
#include "coll/transport.hpp"

namespace xsim {

template <bool kPeers>
class CommTransport final : public coll::Transport {
 public:
  CommTransport(Comm& c, const char* call) : c_(c), me_(my_rank_in(c)), call_(call) {}
  int rank() const override { return me_; }
  int size() const override { return kPeers ? c_.peer_size() : c_.size; }
  int isend(const void* buf, int count, MPI_Datatype type, int dest, int tag) override {
    int id = g_engine->send(buf, count, type, kPeers ? c_.peer_world(dest) : c_.world_of(dest), tag, c_.coll_ctx(), me_, -1);
    return id >= 0 ? id : g_engine->new_send_request(true);  // a rendezvous send completes later
  }
  int irecv(void* buf, int count, MPI_Datatype type, int source, int tag) override {
    return g_engine->post_recv(buf, count, type, source, tag, c_.coll_ctx(),
                               source < 0 ? -1 : static_cast<int32_t>(kPeers ? c_.peer_world(source) : c_.world_of(source)));
  }
  void waitall(int n, const int* ids) override {
    if (g_engine->faults()) [[unlikely]] group_detection();
    for (int i = 0; i < n; ++i) {
      Request& q = g_engine->request(ids[i]);
      g_engine->wait(ids[i], BlockInfo{call_, q.kind == Request::Kind::Recv ? q.source : -3, q.tag, c_.handle});
      int err = q.error();
      g_engine->release_request(ids[i]);
      if (err == MPI_ERR_TRUNCATE)
        fail(MPI_ERR_TRUNCATE, "message truncated: the ranks passed inconsistent counts or datatypes");
      if (err == kErrProcFailed || err == kErrRevoked) {  // a member failed, or the communicator was revoked
                                                          // (docs/resilience.md): the collective reports it
        g_engine->set_group_detection(-1, SimTime::infinity());
        for (int k = i + 1; k < n; ++k) {  // abandoned: a receive is withdrawn before its request goes
          if (!g_engine->request(ids[k]).complete) g_engine->cancel(ids[k]);
          g_engine->release_request(ids[k]);
        }
        request_error_failed(err);
      }
    }
    if (g_engine->faults()) [[unlikely]] g_engine->set_group_detection(-1, SimTime::infinity());
  }
  // Any member's failure fails the collective's waits once detected (the point-to-point steps alone would
  // leave the ranks that wait for a member that gave up blocked).
  void group_detection() {
    Comm& g = c_;
    if (g.first_failure == -2) {
      g.first_failure = -1;
      const int n = kPeers ? g.peer_size() : g.size;
      for (int r = 0; r < n; ++r) {
        const int64_t w = kPeers ? g.peer_world(r) : g.world_of(r);
        const SimTime d = g_engine->detection_time(w);
        if (d < g.first_detection) {
          g.first_detection = d;
          g.first_failure = w;
        }
      }
    }
    if (g.first_failure >= 0) g_engine->set_group_detection(g.first_failure, g.first_detection);
  }

 private:
  Comm& c_;
  int me_;
  const char* call_;
};
using SimTransport = CommTransport<false>;
using PeerTransport = CommTransport<true>;

}  // namespace xsim

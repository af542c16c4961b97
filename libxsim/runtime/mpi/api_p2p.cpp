// MPI point-to-point entry points: blocking, nonblocking and persistent operations, completion (for every
// kind of request, nonblocking collectives included), probe and matched probe, buffered mode.
#include <cstdio>
#include <cstring>
#include <vector>

#include "api_support.hpp"
#include "handles.hpp"
#include "native/datatype.hpp"

using namespace xsim;

namespace {

Engine& E() { return *g_engine; }

// The arguments of a send (recv = false: to `peer`) or a receive (recv = true: from `peer`, which may be
// MPI_ANY_SOURCE, with a tag that may be MPI_ANY_TAG).
template <bool recv>
[[gnu::always_inline]] inline void check_p2p(MPI_Comm comm, const void* buf, int count, MPI_Datatype type, int peer, int tag, Comm*& c) {
  c = &check_comm(comm);
  check_count(count);
  check_type(type);
  check_buffer(buf, count);
  if constexpr (recv)
    check_recv_tag(tag);
  else
    check_send_tag(tag);
  check_peer(*c, peer, recv);
}
constexpr bool kSend = false, kRecv = true;

// Sends on the communicator's point-to-point context. Returns the request id of a synchronous or
// rendezvous send (complete later), or -1 for one complete on return. `buffered`: always eager.
[[gnu::always_inline]] inline int do_send(const void* buf, int count, MPI_Datatype type, int dest, int tag, Comm& c,
                                          bool sync, bool buffered = false) {
  if (dest == MPI_PROC_NULL) return -1;
  int sync_req = sync ? E().new_send_request(false) : -1;
  return E().send(buf, count, type, c.peer_world(dest), tag, c.p2p_ctx(), my_rank_in(c), sync_req, buffered);
}

[[gnu::always_inline]] inline int do_irecv(void* buf, int count, MPI_Datatype type, int source, int tag, Comm& c) {
  if (source == MPI_PROC_NULL) return completed_null_request(true);
  return E().post_recv(buf, count, type, source == MPI_ANY_SOURCE ? kAnySource : source,
                       tag == MPI_ANY_TAG ? kAnyTag : tag, c.p2p_ctx(),
                       source == MPI_ANY_SOURCE ? -1 : static_cast<int32_t>(c.peer_world(source)));
}

// Completes request `id` (already complete or waited for), fills the status and frees it.
[[gnu::always_inline]] inline int finish(int id, MPI_Status* st) {
  Request& q = E().request(id);
  fill_status(st, q);
  int err = q.error();
  E().release_request(id);
  return err;
}

[[gnu::always_inline]] inline void wait_id(int id, const char* call, int peer, int tag, MPI_Comm comm) {
  E().wait(id, BlockInfo{call, peer == MPI_ANY_SOURCE ? kAnySource : peer, tag == MPI_ANY_TAG ? kAnyTag : tag, comm});
}

inline int check_truncation(int err) {
  check_request_error(err);
  return err;
}

// The engine request an application handle stands for now: the request itself, or the operation a
// persistent request's MPI_Start began (-1 while it is inactive, like MPI_REQUEST_NULL).
// active_of: the same for a decoded, valid handle's request id.
int active_of(int id) {
  Request& q = E().request(id);
  if (q.kind == Request::Kind::Persistent) return q.inner;
  if (q.kind == Request::Kind::Matched) fail(MPI_ERR_REQUEST, "a matched message handle is not a request");
  return id;
}
int active_id(MPI_Request h) {
  int id = from_handle(h);
  return id < 0 ? -1 : active_of(id);
}

// Once the operation behind *h has completed (call before releasing it): the handle becomes MPI_REQUEST_NULL, except
// a persistent request's, which becomes inactive (MPI_Start may start it again).
// *h has already been checked (active_id), so it is only decoded here.
void retire(MPI_Request* h) {
  uint32_t field = 0;
  const int id = handles::decode(handles::Kind::Request, *h, &field) ? request_handle::id_of(field) : -1;
  if (id >= 0 && E().request(id).kind == Request::Kind::Persistent)
    E().request(id).inner = -1;
  else
    *h = MPI_REQUEST_NULL;
}

void bsend_check(const void* buf, int count, MPI_Datatype type) {
  (void)buf;
  RankExtra& x = rank_extra();
  uint64_t need = static_cast<uint64_t>(count) * native::type_size(type) + MPI_BSEND_OVERHEAD;
  if (!x.bsend_buf || need > static_cast<uint64_t>(x.bsend_size))
    fail(MPI_ERR_BUFFER, "MPI_Bsend needs " + std::to_string(need) + " bytes of attached buffer but " +
                             std::to_string(x.bsend_buf ? x.bsend_size : 0) +
                             " are attached (use MPI_Buffer_attach)");
}

// The comm a request belongs to is not kept; errors in completion calls use MPI_COMM_WORLD's handler.
const MPI_Comm kReqComm = MPI_COMM_WORLD;

// Request ids of an application's request array (-1 for MPI_REQUEST_NULL), and how many are active.
std::vector<int> ids_of(int n, const MPI_Request reqs[], int* active = nullptr) {
  check_count(n);
  if (n > 0) check_pointer(reqs, MPI_ERR_REQUEST, "the array of requests");
  std::vector<int> ids(static_cast<size_t>(n));
  int a = 0;
  for (int i = 0; i < n; ++i) {
    ids[static_cast<size_t>(i)] = active_id(reqs[i]);
    if (ids[static_cast<size_t>(i)] >= 0) ++a;
  }
  if (active) *active = a;
  return ids;
}

[[noreturn]] void truncated_in_status() { fail(MPI_ERR_IN_STATUS, "a message was truncated (see the statuses)"); }

// MPI_Waitall/MPI_Testall once every request is complete (`wait(id)` is called before each is finished):
// statuses[i] is request i's (empty for MPI_REQUEST_NULL and inactive requests), the handles are retired and
// the requests freed.
template <class Wait>
void finish_all(int n, MPI_Request reqs[], const std::vector<int>& ids, MPI_Status statuses[], Wait wait) {
  bool truncated = false;
  for (int i = 0; i < n; ++i) {
    MPI_Status* st = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
    int id = ids[static_cast<size_t>(i)];
    if (id < 0) {
      empty_status(st);
      continue;
    }
    wait(id);
    retire(&reqs[i]);
    if (finish(id, st) != MPI_SUCCESS) truncated = true;
  }
  if (truncated) truncated_in_status();
}

// MPI_Waitsome/MPI_Testsome: finishes the active requests that are `done`, in index order; the k-th one's
// index goes to indices[k] and its status to statuses[k], their number to *outcount.
template <class Done>
void finish_some(int n, MPI_Request reqs[], const std::vector<int>& ids, int* outcount, int indices[],
                 MPI_Status statuses[], Done done) {
  int out = 0;
  bool truncated = false;
  for (int i = 0; i < n; ++i) {
    int id = ids[static_cast<size_t>(i)];
    if (id < 0 || !done(E().request(id))) continue;
    indices[out] = i;
    MPI_Status* st = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[out];
    retire(&reqs[i]);
    if (finish(id, st) != MPI_SUCCESS) truncated = true;
    ++out;
  }
  *outcount = out;
  if (truncated) truncated_in_status();
}

// The status of a receive or probe from MPI_PROC_NULL.
void proc_null_status(MPI_Status* st) {
  empty_status(st);
  if (st != MPI_STATUS_IGNORE) st->MPI_SOURCE = MPI_PROC_NULL;
}

// MPI_Probe, MPI_Iprobe, MPI_Mprobe, MPI_Improbe: checks the arguments and returns the communicator, or
// nullptr for MPI_PROC_NULL, whose (empty) message has then been found: the status says so.
Comm* check_probe(MPI_Comm comm, int source, int tag, MPI_Status* status) {
  Comm& c = check_comm(comm);
  check_recv_tag(tag);
  check_peer(c, source, true);
  if (source != MPI_PROC_NULL) return &c;
  proc_null_status(status);
  return nullptr;
}

// All send modes share one implementation: sends are eager (the data is copied at once); buffered mode
// checks the attached buffer; synchronous mode completes when the receiver's match is acknowledged.
enum class SendMode { standard, ready, buffered, synchronous };

// One instance per mode and kind (blocking or not): each entry point keeps only its own branches.
template <SendMode mode, bool nonblocking>
int send_entry(const char* name, const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request* req) {
  return guarded(name, comm, [&] {
    Comm* c;
    check_p2p<kSend>(comm, buf, count, type, dest, tag, c);
    if constexpr (nonblocking) check_pointer(req, MPI_ERR_REQUEST, "the request");
    if constexpr (mode == SendMode::buffered) bsend_check(buf, count, type);
    int id = do_send(buf, count, type, dest, tag, *c, mode == SendMode::synchronous, mode == SendMode::buffered);
    if constexpr (nonblocking) {  // hand out a request (already complete unless synchronous)
      *req = to_handle(id >= 0 ? id : E().new_send_request(true));
    } else if (id >= 0) {
      wait_id(id, name, dest, tag, comm);
      const int err = E().request(id).error();  // a failed receiver (docs/resilience.md)
      E().release_request(id);
      check_request_error(err);
    }
  });
}

}  // namespace

XSIM_API int MPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return send_entry<SendMode::standard, false>("MPI_Send", buf, count, type, dest, tag, comm, nullptr);
}
XSIM_API int MPI_Rsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return send_entry<SendMode::ready, false>("MPI_Rsend", buf, count, type, dest, tag, comm, nullptr);
}
XSIM_API int MPI_Bsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return send_entry<SendMode::buffered, false>("MPI_Bsend", buf, count, type, dest, tag, comm, nullptr);
}
XSIM_API int MPI_Ssend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return send_entry<SendMode::synchronous, false>("MPI_Ssend", buf, count, type, dest, tag, comm, nullptr);
}
XSIM_API int MPI_Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                       MPI_Request* req) {
  return send_entry<SendMode::standard, true>("MPI_Isend", buf, count, type, dest, tag, comm, req);
}
XSIM_API int MPI_Irsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                        MPI_Request* req) {
  return send_entry<SendMode::ready, true>("MPI_Irsend", buf, count, type, dest, tag, comm, req);
}
XSIM_API int MPI_Ibsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                        MPI_Request* req) {
  return send_entry<SendMode::buffered, true>("MPI_Ibsend", buf, count, type, dest, tag, comm, req);
}
XSIM_API int MPI_Issend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                        MPI_Request* req) {
  return send_entry<SendMode::synchronous, true>("MPI_Issend", buf, count, type, dest, tag, comm, req);
}

XSIM_API int MPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                      MPI_Status* status) {
  return guarded("MPI_Recv", comm, [&] {
    Comm* c;
    check_p2p<kRecv>(comm, buf, count, type, source, tag, c);
    int id = do_irecv(buf, count, type, source, tag, *c);
    wait_id(id, "MPI_Recv", source, tag, comm);
    check_truncation(finish(id, status));
  });
}

XSIM_API int MPI_Irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                       MPI_Request* req) {
  return guarded("MPI_Irecv", comm, [&] {
    Comm* c;
    check_p2p<kRecv>(comm, buf, count, type, source, tag, c);
    check_pointer(req, MPI_ERR_REQUEST, "the request");
    *req = to_handle(do_irecv(buf, count, type, source, tag, *c));
  });
}

XSIM_API int MPI_Sendrecv(const void* sbuf, int scount, MPI_Datatype stype, int dest, int stag, void* rbuf,
                          int rcount, MPI_Datatype rtype, int source, int rtag, MPI_Comm comm, MPI_Status* status) {
  return guarded("MPI_Sendrecv", comm, [&] {
    Comm* c;
    check_p2p<kSend>(comm, sbuf, scount, stype, dest, stag, c);
    check_p2p<kRecv>(comm, rbuf, rcount, rtype, source, rtag, c);
    int id = do_irecv(rbuf, rcount, rtype, source, rtag, *c);
    int sid = do_send(sbuf, scount, stype, dest, stag, *c, false);
    wait_id(id, "MPI_Sendrecv", source, rtag, comm);
    if (sid >= 0) {  // a rendezvous send: complete when its data has left
      wait_id(sid, "MPI_Sendrecv", dest, stag, comm);
      E().release_request(sid);
    }
    check_truncation(finish(id, status));
  });
}

XSIM_API int MPI_Sendrecv_replace(void* buf, int count, MPI_Datatype type, int dest, int stag, int source, int rtag,
                                  MPI_Comm comm, MPI_Status* status) {
  return guarded("MPI_Sendrecv_replace", comm, [&] {
    Comm* c;
    check_p2p<kSend>(comm, buf, count, type, dest, stag, c);
    check_p2p<kRecv>(comm, buf, count, type, source, rtag, c);
    int sid = do_send(buf, count, type, dest, stag, *c, false);  // the data is copied before the receive
    int id = do_irecv(buf, count, type, source, rtag, *c);
    wait_id(id, "MPI_Sendrecv_replace", source, rtag, comm);
    if (sid >= 0) {  // a rendezvous send: complete when its data has left
      wait_id(sid, "MPI_Sendrecv_replace", dest, stag, comm);
      E().release_request(sid);
    }
    check_truncation(finish(id, status));
  });
}

XSIM_API int MPI_Wait(MPI_Request* req, MPI_Status* status) {
  return guarded("MPI_Wait", kReqComm, [&] {
    check_pointer(req, MPI_ERR_REQUEST, "the request");
    // The handle is decoded once. Usually it stands for a send or receive (or a nonblocking collective):
    // its own request is the one to complete and the handle becomes MPI_REQUEST_NULL, with no other look-up
    // (active_id/retire's). A persistent request's active operation (or a matched message's error) otherwise.
    const int handle_id = from_handle(*req);
    if (handle_id < 0) return empty_status(status);
    int id = handle_id;
    const Request::Kind kind = E().request(handle_id).kind;
    const bool persistent = kind == Request::Kind::Persistent;
    if (persistent || kind == Request::Kind::Matched) [[unlikely]] {
      id = active_of(handle_id);
      if (id < 0) return empty_status(status);
    }
    Request& q = E().request(id);
    if (q.complete)  // what it would block on (q.comm is outside the request's first line) is not needed
      E().wait(id, BlockInfo{});
    else
      wait_id(id, "MPI_Wait", q.kind == Request::Kind::Recv ? q.source : -3, q.tag, q.comm);
    if (persistent) [[unlikely]]
      E().request(handle_id).inner = -1;  // inactive: MPI_Start may start it again
    else
      *req = MPI_REQUEST_NULL;
    check_truncation(finish(id, status));
  });
}

XSIM_API int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status statuses[]) {
  return guarded("MPI_Waitall", kReqComm, [&] {
    std::vector<int> ids = ids_of(n, reqs);
    finish_all(n, reqs, ids, statuses, [](int id) {
      Request& q = E().request(id);
      if (q.complete)
        E().wait(id, BlockInfo{});
      else
        wait_id(id, "MPI_Waitall", q.kind == Request::Kind::Recv ? q.source : -3, q.tag, q.comm);
    });
  });
}

XSIM_API int MPI_Waitany(int n, MPI_Request reqs[], int* index, MPI_Status* status) {
  return guarded("MPI_Waitany", kReqComm, [&] {
    std::vector<int> ids = ids_of(n, reqs);
    int k = E().wait_any(n, ids.data(), BlockInfo{"MPI_Waitany", -3, kAnyTag, MPI_COMM_NULL});
    if (k < 0) {
      *index = MPI_UNDEFINED;
      return empty_status(status);
    }
    *index = k;
    retire(&reqs[k]);
    int err = finish(ids[static_cast<size_t>(k)], status);
    check_truncation(err);
  });
}

XSIM_API int MPI_Waitsome(int n, MPI_Request reqs[], int* outcount, int indices[], MPI_Status statuses[]) {
  return guarded("MPI_Waitsome", kReqComm, [&] {
    std::vector<int> ids = ids_of(n, reqs);
    int k = E().wait_any(n, ids.data(), BlockInfo{"MPI_Waitsome", -3, kAnyTag, MPI_COMM_NULL});
    if (k < 0) {
      *outcount = MPI_UNDEFINED;
      return;
    }
    finish_some(n, reqs, ids, outcount, indices, statuses,
                [](const Request& q) { return q.complete && q.completion <= E().current().clock; });
  });
}

XSIM_API int MPI_Test(MPI_Request* req, int* flag, MPI_Status* status) {
  return guarded("MPI_Test", kReqComm, [&] {
    check_pointer(req, MPI_ERR_REQUEST, "the request");
    check_pointer(flag, MPI_ERR_ARG, "the flag");
    int id = active_id(*req);
    if (id < 0) {
      *flag = 1;
      E().charge_poll();
      return empty_status(status);
    }
    *flag = E().test(id) ? 1 : 0;
    if (*flag) {
      retire(req);
      int err = finish(id, status);
      check_truncation(err);
    }
  });
}

XSIM_API int MPI_Testall(int n, MPI_Request reqs[], int* flag, MPI_Status statuses[]) {
  return guarded("MPI_Testall", kReqComm, [&] {
    std::vector<int> ids = ids_of(n, reqs);
    bool all = true;
    for (int id : ids)
      if (id >= 0 && !E().done_by_now(E().request(id))) all = false;
    if (!all) {
      E().refresh_arrivals();
      all = true;
      for (int id : ids)
        if (id >= 0 && !E().done_by_now(E().request(id))) all = false;
    }
    E().charge_poll();
    *flag = all ? 1 : 0;
    if (all) finish_all(n, reqs, ids, statuses, [](int) {});
  });
}

XSIM_API int MPI_Testany(int n, MPI_Request reqs[], int* index, int* flag, MPI_Status* status) {
  return guarded("MPI_Testany", kReqComm, [&] {
    int active = 0;
    std::vector<int> ids = ids_of(n, reqs, &active);
    E().refresh_arrivals();
    E().charge_poll();
    int best = -1;
    for (int i = 0; i < n; ++i) {
      int id = ids[static_cast<size_t>(i)];
      if (id >= 0 && E().done_by_now(E().request(id)) &&
          (best < 0 || E().request(id).completion < E().request(ids[static_cast<size_t>(best)]).completion))
        best = i;
    }
    if (active == 0) {
      *flag = 1;
      *index = MPI_UNDEFINED;
      return empty_status(status);
    }
    if (best < 0) {
      *flag = 0;
      *index = MPI_UNDEFINED;
      return;
    }
    *flag = 1;
    *index = best;
    retire(&reqs[best]);
    int err = finish(ids[static_cast<size_t>(best)], status);
    check_truncation(err);
  });
}

XSIM_API int MPI_Testsome(int n, MPI_Request reqs[], int* outcount, int indices[], MPI_Status statuses[]) {
  return guarded("MPI_Testsome", kReqComm, [&] {
    int active = 0;
    std::vector<int> ids = ids_of(n, reqs, &active);
    E().refresh_arrivals();
    E().charge_poll();
    if (active == 0) {
      *outcount = MPI_UNDEFINED;
      return;
    }
    finish_some(n, reqs, ids, outcount, indices, statuses, [](const Request& q) { return E().done_by_now(q); });
  });
}

XSIM_API int MPI_Request_free(MPI_Request* req) {
  return guarded("MPI_Request_free", kReqComm, [&] {
    check_pointer(req, MPI_ERR_REQUEST, "the request");
    int id = from_handle(*req);
    if (id < 0) fail(MPI_ERR_REQUEST, "MPI_Request_free on MPI_REQUEST_NULL");
    Request& q = E().request(id);
    if (q.kind == Request::Kind::Persistent) {  // free the record; an active operation completes unobserved
      int inner = q.inner;
      E().release_request(id);
      if (inner >= 0) {
        if (E().request(inner).complete)
          E().release_request(inner);
        else
          E().request(inner).user_freed = true;
      }
    } else if (q.complete) {
      E().release_request(id);
    } else {
      q.user_freed = true;
    }
    *req = MPI_REQUEST_NULL;
  });
}

XSIM_API int MPI_Cancel(MPI_Request* req) {
  return guarded("MPI_Cancel", kReqComm, [&] {
    check_pointer(req, MPI_ERR_REQUEST, "the request");
    if (*req == MPI_REQUEST_NULL) fail(MPI_ERR_REQUEST, "MPI_Cancel on MPI_REQUEST_NULL");
    int id = active_id(*req);
    if (id < 0) fail(MPI_ERR_REQUEST, "MPI_Cancel on an inactive persistent request");
    if (E().request(id).kind == Request::Kind::Coll)
      fail(MPI_ERR_REQUEST, "a nonblocking collective cannot be cancelled (MPI 4.0 section 6.12)");
    E().cancel(id);  // sends are eager and cannot be cancelled: they complete normally
  });
}

XSIM_API int MPI_Test_cancelled(const MPI_Status* status, int* flag) { return PMPI_Test_cancelled(status, flag); }

XSIM_API int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  return guarded("MPI_Probe", comm, [&] {
    Comm* c = check_probe(comm, source, tag, status);
    if (!c) return;
    Message* m = E().probe(source == MPI_ANY_SOURCE ? kAnySource : source, tag == MPI_ANY_TAG ? kAnyTag : tag,
                           c->p2p_ctx(), true, BlockInfo{"MPI_Probe", source, tag, comm});
    fill_status_from_message(status, *m);
  });
}

XSIM_API int MPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  return guarded("MPI_Iprobe", comm, [&] {
    Comm* c = check_probe(comm, source, tag, status);
    if (!c) {
      *flag = 1;
      return;
    }
    Message* m = E().iprobe(source == MPI_ANY_SOURCE ? kAnySource : source, tag == MPI_ANY_TAG ? kAnyTag : tag,
                            c->p2p_ctx());
    *flag = m ? 1 : 0;
    if (m) fill_status_from_message(status, *m);
  });
}

XSIM_API int MPI_Buffer_attach(void* buf, int size) {
  return guarded("MPI_Buffer_attach", MPI_COMM_WORLD, [&] {
    RankExtra& x = rank_extra();
    if (x.bsend_buf) fail(MPI_ERR_BUFFER, "a buffer is already attached (detach it first)");
    if (size < 0) fail(MPI_ERR_ARG, "negative buffer size");
    x.bsend_buf = buf;
    x.bsend_size = size;
  });
}

XSIM_API int MPI_Buffer_detach(void* buffer_addr, int* size) {
  return guarded("MPI_Buffer_detach", MPI_COMM_WORLD, [&] {
    RankExtra& x = rank_extra();
    *static_cast<void**>(buffer_addr) = x.bsend_buf;
    *size = x.bsend_size;
    x.bsend_buf = nullptr;
    x.bsend_size = 0;
  });
}

XSIM_API int MPI_Get_count(const MPI_Status* status, MPI_Datatype type, int* count) {
  return PMPI_Get_count(status, type, count);
}

XSIM_API int MPI_Get_elements(const MPI_Status* status, MPI_Datatype type, int* count) {
  return PMPI_Get_elements(status, type, count);
}

XSIM_API int MPI_Get_elements_x(const MPI_Status* status, MPI_Datatype type, MPI_Count* count) {
  return PMPI_Get_elements_x(status, type, count);
}

// --- persistent requests ----------------------------------------------------------------------------
// A persistent request keeps its arguments in an engine request of kind Persistent; MPI_Start begins the
// operation exactly as the matching nonblocking call would (a send at the virtual time of MPI_Start),
// and the completion calls complete that operation and leave the persistent request inactive.

namespace {

constexpr uint8_t kPersistentRecv = 4;  // modes 0..3 are SendMode values

int persistent_init(const char* name, uint8_t mode, void* buf, int count, MPI_Datatype type, int peer, int tag,
                    MPI_Comm comm, MPI_Request* req) {
  return guarded(name, comm, [&] {
    Comm* c;
    if (mode == kPersistentRecv)
      check_p2p<kRecv>(comm, buf, count, type, peer, tag, c);
    else
      check_p2p<kSend>(comm, buf, count, type, peer, tag, c);
    int id = E().new_request(Request::Kind::Persistent);
    Request& q = E().request(id);
    q.mode = mode;
    q.set_args(buf, count, type, peer, tag);
    q.comm = comm;
    q.complete = true;  // inactive
    *req = to_handle(id);
  });
}

// Starts persistent request `h` (MPI_Start's body).
void start_one(MPI_Request h) {
  int id = from_handle(h);
  if (id < 0) fail(MPI_ERR_REQUEST, "MPI_Start on MPI_REQUEST_NULL");
  if (E().request(id).kind != Request::Kind::Persistent)
    fail(MPI_ERR_REQUEST, "MPI_Start on a request that is not persistent");
  if (E().request(id).inner >= 0) fail(MPI_ERR_REQUEST, "MPI_Start on a persistent request that is already active");
  Request p = E().request(id);  // a copy: starting may grow the request table
  Comm& c = check_comm(p.comm);
  int inner;
  if (p.mode == kPersistentRecv) {
    inner = do_irecv(p.buf, p.count, p.type, p.source, p.tag, c);
  } else {
    SendMode mode = static_cast<SendMode>(p.mode);
    if (mode == SendMode::buffered) bsend_check(p.buf, p.count, p.type);
    inner = do_send(p.buf, p.count, p.type, p.source, p.tag, c, mode == SendMode::synchronous,
                    mode == SendMode::buffered);
    if (inner < 0) inner = E().new_send_request(true);
  }
  E().request(id).inner = inner;
}

}  // namespace

XSIM_API int MPI_Send_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                           MPI_Request* req) {
  return persistent_init("MPI_Send_init", static_cast<uint8_t>(SendMode::standard), const_cast<void*>(buf), count,
                         type, dest, tag, comm, req);
}
XSIM_API int MPI_Rsend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                            MPI_Request* req) {
  return persistent_init("MPI_Rsend_init", static_cast<uint8_t>(SendMode::ready), const_cast<void*>(buf), count,
                         type, dest, tag, comm, req);
}
XSIM_API int MPI_Bsend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                            MPI_Request* req) {
  return persistent_init("MPI_Bsend_init", static_cast<uint8_t>(SendMode::buffered), const_cast<void*>(buf), count,
                         type, dest, tag, comm, req);
}
XSIM_API int MPI_Ssend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                            MPI_Request* req) {
  return persistent_init("MPI_Ssend_init", static_cast<uint8_t>(SendMode::synchronous), const_cast<void*>(buf),
                         count, type, dest, tag, comm, req);
}
XSIM_API int MPI_Recv_init(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                           MPI_Request* req) {
  return persistent_init("MPI_Recv_init", kPersistentRecv, buf, count, type, source, tag, comm, req);
}

XSIM_API int MPI_Start(MPI_Request* req) {
  return guarded("MPI_Start", kReqComm, [&] {
    check_pointer(req, MPI_ERR_REQUEST, "the request");
    start_one(*req);
  });
}

XSIM_API int MPI_Startall(int n, MPI_Request reqs[]) {
  return guarded("MPI_Startall", kReqComm, [&] {
    check_count(n);
    if (n > 0) check_pointer(reqs, MPI_ERR_REQUEST, "the array of requests");
    for (int i = 0; i < n; ++i) start_one(reqs[i]);
  });
}

XSIM_API int MPI_Request_get_status(MPI_Request req, int* flag, MPI_Status* status) {
  return guarded("MPI_Request_get_status", kReqComm, [&] {
    check_pointer(flag, MPI_ERR_ARG, "the flag");
    int id = active_id(req);
    if (id < 0) {
      *flag = 1;
      E().charge_poll();
      return empty_status(status);
    }
    *flag = E().test(id) ? 1 : 0;
    if (*flag) fill_status(status, E().request(id));
  });
}

// --- matched probe ----------------------------------------------------------------------------------
// MPI_Mprobe/MPI_Improbe take the message out of the matching queue (no later receive or probe can see
// it); MPI_Mrecv/MPI_Imrecv receive exactly that message. Message handles look like MPICH handles of
// their own kind, distinct from requests.

namespace {

MPI_Message to_message(int id) { return handles::make<MPI_Message>(handles::Kind::Message, static_cast<uint32_t>(id)); }

int from_message(MPI_Message m) {
  if (m == MPI_MESSAGE_NULL) fail(MPI_ERR_REQUEST, "the message handle is MPI_MESSAGE_NULL");
  uint32_t u = 0;
  if (!handles::decode(handles::Kind::Message, m, &u) || !E().valid_request(static_cast<int>(u)) ||
      E().request(static_cast<int>(u)).kind != Request::Kind::Matched) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "invalid message handle 0x%08llx", handles::shown(handles::Kind::Message, m));
    fail(MPI_ERR_REQUEST, buf);
  }
  return static_cast<int>(u);
}

// Mprobe and Improbe: returns false when nonblocking and nothing matches.
bool matched_probe(const char* name, int source, int tag, MPI_Comm comm, bool blocking, MPI_Message* msg,
                   MPI_Status* status) {
  Comm* c = check_probe(comm, source, tag, status);
  if (!c) {
    *msg = MPI_MESSAGE_NO_PROC;
    return true;
  }
  int id = E().mprobe(source == MPI_ANY_SOURCE ? kAnySource : source, tag == MPI_ANY_TAG ? kAnyTag : tag,
                      c->p2p_ctx(), blocking, BlockInfo{name, source, tag, comm});
  if (!blocking) E().charge_poll();
  if (id < 0) return false;
  *msg = to_message(id);
  fill_status_from_message(status, *E().request(id).msg);
  return true;
}

// Mrecv and Imrecv: the request id of the completed receive, or -1 for MPI_MESSAGE_NO_PROC.
int matched_recv(void* buf, int count, MPI_Datatype type, MPI_Message* msg) {
  check_count(count);
  check_type(type);
  check_buffer(buf, count);
  if (*msg == MPI_MESSAGE_NO_PROC) {
    *msg = MPI_MESSAGE_NULL;
    return -1;
  }
  int id = from_message(*msg);
  E().mrecv(id, buf, count, type);
  *msg = MPI_MESSAGE_NULL;
  return id;
}

}  // namespace

XSIM_API int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message* msg, MPI_Status* status) {
  return guarded("MPI_Mprobe", comm, [&] { matched_probe("MPI_Mprobe", source, tag, comm, true, msg, status); });
}

XSIM_API int MPI_Improbe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* msg, MPI_Status* status) {
  return guarded("MPI_Improbe", comm, [&] {
    *flag = matched_probe("MPI_Improbe", source, tag, comm, false, msg, status) ? 1 : 0;
  });
}

XSIM_API int MPI_Mrecv(void* buf, int count, MPI_Datatype type, MPI_Message* msg, MPI_Status* status) {
  return guarded("MPI_Mrecv", kReqComm, [&] {
    int id = matched_recv(buf, count, type, msg);
    if (id < 0) return proc_null_status(status);
    E().wait(id, BlockInfo{"MPI_Mrecv", -3, kAnyTag, MPI_COMM_NULL});  // a rendezvous message's data, a receive overhead
    check_truncation(finish(id, status));
  });
}

XSIM_API int MPI_Imrecv(void* buf, int count, MPI_Datatype type, MPI_Message* msg, MPI_Request* req) {
  return guarded("MPI_Imrecv", kReqComm, [&] {
    int id = matched_recv(buf, count, type, msg);
    *req = to_handle(id >= 0 ? id : completed_null_request(true));
  });
}

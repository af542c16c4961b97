// A thread-backed coll::Transport for unit tests of the collective algorithms: one std::thread per rank,
// one FIFO mailbox per (source, destination, tag). A send packs its data at once; receives complete in
// waitall, earlier receives on the same (source, tag) first (MPI's non-overtaking rule), and must match
// the sent size exactly (stricter than MPI: it catches size bugs of the algorithms). run_ranks() fails
// when a rank throws, when a receive waits more than 20 s (deadlock) or when a message is left over.
// Needs MPI initialized (datatype packing is the native MPI's): see MpiTestEnvironment.
#pragma once
#include <gtest/gtest.h>
#include <mpi.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "coll/transport.hpp"
#include "native/datatype.hpp"

namespace xsim_test {

// Initializes MPI once for a test program (singleton init, no mpiexec) with errors returned, not fatal.
class MpiTestEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  }
  void TearDown() override { MPI_Finalize(); }
};

struct Mailboxes {
  explicit Mailboxes(int p) : size(p) {}
  const int size;
  std::mutex mu;
  std::condition_variable cv;
  std::map<std::tuple<int, int, int>, std::deque<std::vector<char>>> box;  // (src, dst, tag) -> messages
  std::atomic<long> sent{0};
};

class ThreadTransport final : public xsim::coll::Transport {
 public:
  ThreadTransport(Mailboxes& m, int rank) : m_(m), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return m_.size; }

  int isend(const void* buf, int count, MPI_Datatype type, int dest, int tag) override {
    check_peer(dest);
    std::vector<char> data(xsim::native::type_size(type) * static_cast<uint64_t>(count));
    xsim::native::pack(buf, count, type, data.data());
    {
      std::lock_guard<std::mutex> lock(m_.mu);
      m_.box[{rank_, dest, tag}].push_back(std::move(data));
    }
    m_.cv.notify_all();
    ++m_.sent;
    reqs_.push_back({false, false, nullptr, 0, type, dest, tag});
    return static_cast<int>(reqs_.size()) - 1;
  }

  int irecv(void* buf, int count, MPI_Datatype type, int source, int tag) override {
    check_peer(source);
    reqs_.push_back({true, false, buf, count, type, source, tag});
    return static_cast<int>(reqs_.size()) - 1;
  }

  void waitall(int n, const int* ids) override {
    for (int i = 0; i < n; ++i) complete(ids[i]);
  }

 private:
  struct Req {
    bool recv, done;
    void* buf;
    int count;
    MPI_Datatype type;
    int peer, tag;
  };

  void check_peer(int peer) const {
    if (peer < 0 || peer >= m_.size) throw std::logic_error("bad peer rank " + std::to_string(peer));
  }

  void complete(int id) {
    if (id < 0 || id >= static_cast<int>(reqs_.size())) throw std::logic_error("bad request id");
    Req& q = reqs_[static_cast<size_t>(id)];
    if (q.done) throw std::logic_error("request completed twice");
    if (q.recv) {
      for (int e = 0; e < id; ++e) {
        const Req& o = reqs_[static_cast<size_t>(e)];
        if (o.recv && !o.done && o.peer == q.peer && o.tag == q.tag) complete(e);
      }
      std::vector<char> data;
      {
        std::unique_lock<std::mutex> lock(m_.mu);
        auto& box = m_.box[{q.peer, rank_, q.tag}];
        if (!m_.cv.wait_for(lock, std::chrono::seconds(20), [&] { return !box.empty(); }))
          throw std::runtime_error("rank " + std::to_string(rank_) + ": receive from " + std::to_string(q.peer) +
                                   " tag " + std::to_string(q.tag) + " never matched (deadlock?)");
        data = std::move(box.front());
        box.pop_front();
      }
      const uint64_t expect = xsim::native::type_size(q.type) * static_cast<uint64_t>(q.count);
      if (data.size() != expect)
        throw std::runtime_error("rank " + std::to_string(rank_) + ": message from " + std::to_string(q.peer) +
                                 " has " + std::to_string(data.size()) + " bytes, the receive expects " +
                                 std::to_string(expect));
      xsim::native::unpack(data.data(), data.size(), q.buf, q.count, q.type);
    }
    q.done = true;
  }

  Mailboxes& m_;
  int rank_;
  std::vector<Req> reqs_;
};

// Runs body(transport) as `p` ranks on threads; returns the number of messages sent.
inline long run_ranks(int p, const std::function<void(xsim::coll::Transport&)>& body) {
  Mailboxes m(p);
  std::vector<std::exception_ptr> errors(static_cast<size_t>(p));
  std::vector<std::thread> threads;
  for (int r = 0; r < p; ++r)
    threads.emplace_back([&, r] {
      try {
        ThreadTransport t(m, r);
        body(t);
      } catch (...) {
        errors[static_cast<size_t>(r)] = std::current_exception();
      }
    });
  for (auto& th : threads) th.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
  for (auto& [key, box] : m.box)
    if (!box.empty())
      throw std::runtime_error("unreceived message from " + std::to_string(std::get<0>(key)) + " to " +
                               std::to_string(std::get<1>(key)) + " tag " + std::to_string(std::get<2>(key)));
  return m.sent.load();
}

}  // namespace xsim_test

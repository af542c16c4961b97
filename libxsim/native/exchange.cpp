#include "native/exchange.hpp"

#include "native/abi.hpp"
#include "native/check.hpp"

#include <mpi.h>
#include <unistd.h>

#include <time.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>

namespace xsim::native {

namespace {
// The header of every exchange message: the sender's next event time, its unfinished ranks, its messages
// sent so far, and the window's number (a check that both sides are at the same window).
constexpr int kHeaderWords = 4;
constexpr size_t kHeader = kHeaderWords * sizeof(int64_t);

int64_t clock_ns(clockid_t clock) {
  timespec ts;
  clock_gettime(clock, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

#if !XSIM_NATIVE_HAS_LARGE_COUNT
// An MPI-3 native MPI (Open MPI 4) has int counts only: one exchange message up to 2 GiB.
int int_count(size_t n) {
  if (n > static_cast<size_t>(INT_MAX))
    throw std::runtime_error("more than 2 GiB of messages from one native process to another in one window (the "
                             "native MPI has no large-count calls; use MPICH or more native processes)");
  return static_cast<int>(n);
}
#endif
}  // namespace

void Outbox::grow(size_t n) {
  if (n > std::numeric_limits<size_t>::max() / 2 - size_) throw std::bad_alloc();
  size_t cap = std::max({capacity_ * 2, size_ + n, size_t{4096}});
  std::unique_ptr<char[]> bigger(new char[cap]);  // uninitialised: every byte is written before it is sent
  if (size_) std::memcpy(bigger.get(), buf_.get(), size_);
  buf_ = std::move(bigger);
  capacity_ = cap;
}

Exchange::Exchange(int nprocs)
    : nprocs_(nprocs), out_(static_cast<size_t>(nprocs)), in_(static_cast<size_t>(nprocs)),
      sends_(static_cast<size_t>(nprocs), MPI_REQUEST_NULL) {
  check(PMPI_Comm_rank(MPI_COMM_WORLD, &me_), "MPI_Comm_rank");
  // A communicator of its own: the exchange's messages never meet anything else xsim sends natively.
  check(PMPI_Comm_dup(MPI_COMM_WORLD, &comm_), "MPI_Comm_dup");
  for (Outbox& o : out_) o.append(kHeader);
}

Exchange::~Exchange() {
  if (comm_ != MPI_COMM_NULL && !aborting()) PMPI_Comm_free(&comm_);
}

Exchange::Result Exchange::exchange(int64_t local_next_ps, int64_t unfinished, int64_t messages,
                                    std::vector<std::pair<const char*, size_t>>& received) {
  const int64_t t0 = clock_ns(CLOCK_MONOTONIC), cpu0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
  const int tag = static_cast<int>(window_ & 1);
  const int64_t header[kHeaderWords] = {local_next_ps, unfinished, messages, static_cast<int64_t>(window_)};
  for (int p = 0; p < nprocs_; ++p) {
    if (p == me_) continue;
    Outbox& o = out_[static_cast<size_t>(p)];
    std::memcpy(o.data(), header, kHeader);
#if XSIM_NATIVE_HAS_LARGE_COUNT
    check(PMPI_Isend_c(o.data(), static_cast<MPI_Count>(o.size()), MPI_BYTE, p, tag, comm_, &sends_[static_cast<size_t>(p)]),
          "MPI_Isend_c");
#else
    check(PMPI_Isend(o.data(), int_count(o.size()), MPI_BYTE, p, tag, comm_, &sends_[static_cast<size_t>(p)]),
          "MPI_Isend");
#endif
    ++native_messages_;
    bytes_sent_ += o.size();
  }
  Result r{local_next_ps, unfinished, messages};
  received.clear();
  for (int k = 1; k < nprocs_; ++k) {  // whoever is ready first
    MPI_Message msg;
    MPI_Status st;
    check(PMPI_Mprobe(MPI_ANY_SOURCE, tag, comm_, &msg, &st), "MPI_Mprobe");
    MPI_Count n = 0;
    check(PMPI_Get_elements_x(&st, MPI_BYTE, &n), "MPI_Get_elements_x");
    const int src = st.MPI_SOURCE;
    Outbox& in = in_[static_cast<size_t>(src)];
    in.truncate(0);
    char* buf = in.append(static_cast<size_t>(n));
#if XSIM_NATIVE_HAS_LARGE_COUNT
    check(PMPI_Mrecv_c(buf, n, MPI_BYTE, &msg, MPI_STATUS_IGNORE), "MPI_Mrecv_c");
#else
    check(PMPI_Mrecv(buf, int_count(static_cast<size_t>(n)), MPI_BYTE, &msg, MPI_STATUS_IGNORE), "MPI_Mrecv");
#endif
    int64_t h[kHeaderWords];
    if (static_cast<size_t>(n) < kHeader) throw std::runtime_error("window exchange: a message without its header");
    std::memcpy(h, buf, kHeader);
    if (h[3] != static_cast<int64_t>(window_))
      throw std::runtime_error("window exchange: native process " + std::to_string(src) + " sent window " +
                               std::to_string(h[3]) + " while this one is at window " + std::to_string(window_));
    r.next_event_ps = std::min(r.next_event_ps, h[0]);
    r.unfinished += h[1];
    r.messages += h[2];
  }
  // By source: the order the messages are delivered in must not depend on which process was ready first.
  for (int p = 0; p < nprocs_; ++p) {
    Outbox& in = in_[static_cast<size_t>(p)];
    if (p != me_ && in.size() > kHeader) received.emplace_back(in.data() + kHeader, in.size() - kHeader);
  }
  check(PMPI_Waitall(nprocs_, sends_.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
  for (Outbox& o : out_) o.truncate(kHeader);
  ++window_;
  native_ns_ += clock_ns(CLOCK_MONOTONIC) - t0;
  native_cpu_ns_ += clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0;
  return r;
}

void Exchange::allgather(const char* mine, size_t n, std::vector<char>& all, std::vector<size_t>& from) {
  const int64_t t0 = clock_ns(CLOCK_MONOTONIC), cpu0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
  std::vector<int64_t> sizes(static_cast<size_t>(nprocs_));
  const int64_t my_size = static_cast<int64_t>(n);
  check(PMPI_Allgather(&my_size, 1, MPI_INT64_T, sizes.data(), 1, MPI_INT64_T, comm_), "MPI_Allgather");
  from.assign(static_cast<size_t>(nprocs_) + 1, 0);
  auto as_int = [](size_t v) {
    if (v > static_cast<size_t>(INT_MAX))
      throw std::runtime_error("more than 2 GiB of link contention flows in one window");
    return static_cast<int>(v);
  };
  std::vector<int> counts(static_cast<size_t>(nprocs_)), displs(static_cast<size_t>(nprocs_));
  for (int p = 0; p < nprocs_; ++p) {
    from[static_cast<size_t>(p) + 1] = from[static_cast<size_t>(p)] + static_cast<size_t>(sizes[static_cast<size_t>(p)]);
    counts[static_cast<size_t>(p)] = as_int(static_cast<size_t>(sizes[static_cast<size_t>(p)]));
    displs[static_cast<size_t>(p)] = as_int(from[static_cast<size_t>(p)]);
  }
  all.resize(from.back());
  if (!all.empty())
    check(PMPI_Allgatherv(mine, as_int(n), MPI_BYTE, all.data(), counts.data(), displs.data(), MPI_BYTE, comm_),
          "MPI_Allgatherv");
  native_messages_ += 2 * static_cast<uint64_t>(nprocs_ - 1);
  bytes_sent_ += static_cast<uint64_t>(nprocs_ - 1) * (n + sizeof my_size);
  native_ns_ += clock_ns(CLOCK_MONOTONIC) - t0;
  native_cpu_ns_ += clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0;
}

int world_proc() {
  int r = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int world_procs() {
  int n = 1;
  PMPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}
void allreduce_min(int64_t* v, int n) { check(PMPI_Allreduce(MPI_IN_PLACE, v, n, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce"); }
void allreduce_max(int64_t* v, int n) { check(PMPI_Allreduce(MPI_IN_PLACE, v, n, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce"); }
void allreduce_sum(int64_t* v, int n) { check(PMPI_Allreduce(MPI_IN_PLACE, v, n, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce"); }
void allreduce_max(double* v, int n) { check(PMPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce"); }
void allreduce_sum(double* v, int n) { check(PMPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce"); }

namespace {
std::atomic<bool> g_aborting{false};
}

bool aborting() { return g_aborting.load(std::memory_order_relaxed); }

void abort_all(int code) {
  g_aborting.store(true, std::memory_order_relaxed);
  std::fflush(nullptr);
  // The launcher tears every process down as soon as it hears of the abort, and may do so before its
  // proxies have forwarded what this process just wrote: give them a moment, so no output is lost.
  usleep(200 * 1000);
  PMPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

}  // namespace xsim::native

// Exchange: the window barrier between native processes (docs/architecture.md §3). At the end of each window every
// process sends every other process exactly one native message on a communicator of its own: a fixed
// header (its earliest next event, its unfinished ranks, its messages sent so far) followed by the
// simulated messages it has for that process, packed back to back. No collective, no separate count
// exchange, no per-message native round trip: with N processes, N-1 nonblocking sends straight from the
// outboxes and N-1 matched probes and receives per window. All processes learn the start of the next
// window, how many virtual ranks are still unfinished and how many messages were sent so far (for the
// progress line). Two tags alternate by window parity: a process can be at most one window ahead of any
// other (it cannot finish a window's exchange before everybody sent theirs), so a receive by any source
// never takes the next window's message. Counts the native traffic and the time spent inside the native
// MPI for the run report. Layer: libxsim/native (PMPI_* only here). Called from the scheduler (never from
// a rank fiber).
#pragma once
#include <mpi.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

namespace xsim::native {

// A growable byte buffer that does not clear what it grows into (std::vector<char>::resize would
// zero-fill every byte before it is overwritten). Starts with room for the exchange's header.
class Outbox {
 public:
  size_t size() const { return size_; }
  char* data() { return buf_.get(); }
  // Room for `n` more bytes at the end; returns where they go.
  char* append(size_t n) {
    if (capacity_ - size_ < n) grow(n);
    char* at = buf_.get() + size_;
    size_ += n;
    return at;
  }
  void truncate(size_t n) { size_ = n; }

 private:
  void grow(size_t n);
  std::unique_ptr<char[]> buf_;
  size_t size_ = 0, capacity_ = 0;
};

class Exchange {
 public:
  explicit Exchange(int nprocs);  // collective over the native processes (duplicates MPI_COMM_WORLD)
  ~Exchange();
  Exchange(const Exchange&) = delete;
  Exchange& operator=(const Exchange&) = delete;

  // Appends `n` bytes for native process `proc` (not this one); returns where to write them.
  char* append(int proc, size_t n) { return out_[static_cast<size_t>(proc)].append(n); }

  struct Result {
    int64_t next_event_ps;    // global minimum of the processes' next event times (INT64_MAX: none)
    int64_t unfinished;       // virtual ranks not yet finished, all processes together
    int64_t messages;         // messages sent so far, all processes together
  };
  // Sends every outbox (then empties them) and receives what every other process sent here; `received`
  // gets one (data, bytes) span of packed messages per process that sent any, valid until the next call.
  Result exchange(int64_t local_next_ps, int64_t unfinished, int64_t messages,
                  std::vector<std::pair<const char*, size_t>>& received);

  // Every process's `n` bytes at `mine`, concatenated in process order into `all`; process p's start at
  // from[p], its end at from[p + 1]. Collective over the native processes.
  void allgather(const char* mine, size_t n, std::vector<char>& all, std::vector<size_t>& from);

  // For the run report: native messages sent, payload bytes sent (headers included), seconds inside
  // the native MPI (waiting for the other processes included).
  uint64_t native_messages() const { return native_messages_; }
  uint64_t bytes_sent() const { return bytes_sent_; }
  double native_seconds() const { return static_cast<double>(native_ns_) * 1e-9; }
  // CPU time of the calling thread inside the native MPI (MPICH polls while it waits: waiting costs CPU).
  double native_cpu_seconds() const { return static_cast<double>(native_cpu_ns_) * 1e-9; }

 private:
  int nprocs_, me_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  uint64_t window_ = 0;
  std::vector<Outbox> out_;                 // per destination; starts with the header's room
  std::vector<Outbox> in_;                  // per source: this window's message, reused
  std::vector<MPI_Request> sends_;
  uint64_t native_messages_ = 0, bytes_sent_ = 0;
  int64_t native_ns_ = 0, native_cpu_ns_ = 0;
};

// Process-level helpers used at start-up and for the report.
int world_proc();
int world_procs();
// Element-wise reductions over all native processes (into every process).
void allreduce_min(int64_t* v, int n);
void allreduce_max(int64_t* v, int n);
void allreduce_sum(int64_t* v, int n);
void allreduce_max(double* v, int n);
void allreduce_sum(double* v, int n);
[[noreturn]] void abort_all(int code);
// True once abort_all has begun: the native MPI's abort may call exit(), which must then end the process,
// not just the calling virtual rank (startup.cpp's exit() asks this).
bool aborting();

}  // namespace xsim::native

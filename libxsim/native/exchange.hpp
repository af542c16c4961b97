// Exchange: the window barrier between native processes (DESIGN.md §3). At the end of each window every
// process hands over the bytes it has for every other process and its earliest next event; all learn the
// start of the next window, how many virtual ranks are still unfinished and how many messages were sent so far
// (for the progress line). One PMPI_Alltoall of small
// fixed rows plus one PMPI_Alltoallv of the payload per window; no per-message native round trip.
// Layer: libxsim/native (PMPI_* only here). Called from the scheduler (never from a rank fiber).
#pragma once
#include <mpi.h>

#include <cstdint>
#include <vector>

namespace xsim::native {

class Exchange {
 public:
  explicit Exchange(int nprocs);
  std::vector<char>& outbox(int proc) { return out_[static_cast<size_t>(proc)]; }

  struct Result {
    int64_t next_event_ps;    // global minimum of the processes' next event times (INT64_MAX: none)
    int64_t unfinished;       // virtual ranks not yet finished, all processes together
    int64_t messages;         // messages sent so far, all processes together
  };
  // Sends every outbox (then clears them) and fills `inbox` with what the others sent here, concatenated.
  Result exchange(int64_t local_next_ps, int64_t unfinished, int64_t messages, std::vector<char>& inbox);

 private:
  int nprocs_;
  std::vector<std::vector<char>> out_;
  std::vector<int64_t> rows_out_, rows_in_;
  std::vector<MPI_Count> scounts_, rcounts_;  // 64-bit: MPI-4's large-count Alltoallv_c
  std::vector<MPI_Aint> sdispls_, rdispls_;
  std::vector<char> sendbuf_;
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

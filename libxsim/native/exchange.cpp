#include "native/exchange.hpp"

#include "native/abi.hpp"

#include <mpi.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

namespace xsim::native {

namespace {
void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) {
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    PMPI_Error_string(rc, msg, &len);
    throw std::runtime_error(std::string("native ") + what + " failed: " + msg);
  }
}
// bytes for the destination, sender's next event, unfinished ranks, messages sent, bytes the sender sends in all
constexpr int kRow = 5;
}  // namespace

Exchange::Exchange(int nprocs)
    : nprocs_(nprocs), out_(static_cast<size_t>(nprocs)), rows_out_(static_cast<size_t>(nprocs) * kRow),
      rows_in_(static_cast<size_t>(nprocs) * kRow), scounts_(static_cast<size_t>(nprocs)),
      sdispls_(static_cast<size_t>(nprocs)), rcounts_(static_cast<size_t>(nprocs)),
      rdispls_(static_cast<size_t>(nprocs)) {}

Exchange::Result Exchange::exchange(int64_t local_next_ps, int64_t unfinished, int64_t messages,
                                    std::vector<char>& inbox) {
  size_t total = 0;
  for (int p = 0; p < nprocs_; ++p) {
    size_t n = out_[static_cast<size_t>(p)].size();
    rows_out_[static_cast<size_t>(p) * kRow + 0] = static_cast<int64_t>(n);
    rows_out_[static_cast<size_t>(p) * kRow + 1] = local_next_ps;
    rows_out_[static_cast<size_t>(p) * kRow + 2] = unfinished;
    rows_out_[static_cast<size_t>(p) * kRow + 3] = messages;
    sdispls_[static_cast<size_t>(p)] = static_cast<MPI_Aint>(total);
    scounts_[static_cast<size_t>(p)] = static_cast<MPI_Count>(n);
    total += n;
  }
  for (int p = 0; p < nprocs_; ++p) rows_out_[static_cast<size_t>(p) * kRow + 4] = static_cast<int64_t>(total);
  check(PMPI_Alltoall(rows_out_.data(), kRow, MPI_INT64_T, rows_in_.data(), kRow, MPI_INT64_T, MPI_COMM_WORLD),
        "MPI_Alltoall");
  Result r{std::numeric_limits<int64_t>::max(), 0, 0};
  size_t rtotal = 0;
  bool any_bytes = false;  // anywhere: the payload exchange is collective, every process joins it or none
  for (int p = 0; p < nprocs_; ++p) {
    const int64_t* row = &rows_in_[static_cast<size_t>(p) * kRow];
    rcounts_[static_cast<size_t>(p)] = static_cast<MPI_Count>(row[0]);
    rdispls_[static_cast<size_t>(p)] = static_cast<MPI_Aint>(rtotal);
    rtotal += static_cast<size_t>(row[0]);
    if (row[1] < r.next_event_ps) r.next_event_ps = row[1];
    r.unfinished += row[2];
    r.messages += row[3];
    any_bytes = any_bytes || row[4] > 0;
  }
  if (any_bytes) {
    sendbuf_.resize(total);
    for (int p = 0; p < nprocs_; ++p) {
      auto& o = out_[static_cast<size_t>(p)];
      if (!o.empty()) std::memcpy(sendbuf_.data() + sdispls_[static_cast<size_t>(p)], o.data(), o.size());
    }
    inbox.resize(rtotal);
#if XSIM_NATIVE_HAS_LARGE_COUNT
    // Large counts: a window may carry more than 2 GiB (messages of any size, many of them).
    check(PMPI_Alltoallv_c(sendbuf_.data(), scounts_.data(), sdispls_.data(), MPI_BYTE, inbox.data(),
                           rcounts_.data(), rdispls_.data(), MPI_BYTE, MPI_COMM_WORLD),
          "MPI_Alltoallv_c");
#else
    // An MPI-3 native MPI (Open MPI 4) has int counts and displacements only: up to 2 GiB per window.
    if (total > static_cast<size_t>(INT_MAX) || rtotal > static_cast<size_t>(INT_MAX))
      throw std::runtime_error("more than 2 GiB of messages for one native process in one window (the native "
                               "MPI has no large-count MPI_Alltoallv_c; use MPICH or more native processes)");
    std::vector<int> sc(scounts_.begin(), scounts_.end()), sd(sdispls_.begin(), sdispls_.end());
    std::vector<int> rc(rcounts_.begin(), rcounts_.end()), rd(rdispls_.begin(), rdispls_.end());
    check(PMPI_Alltoallv(sendbuf_.data(), sc.data(), sd.data(), MPI_BYTE, inbox.data(), rc.data(), rd.data(),
                         MPI_BYTE, MPI_COMM_WORLD),
          "MPI_Alltoallv");
#endif
  } else {
    inbox.clear();
  }
  for (auto& o : out_) o.clear();
  return r;
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

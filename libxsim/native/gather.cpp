#include "native/gather.hpp"

#include <mpi.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

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

// A private copy of the native world, created by the first collective here (all processes reach it
// together, since every function of this file is collective).
MPI_Comm comm() {
  static MPI_Comm c = MPI_COMM_NULL;
  if (c == MPI_COMM_NULL) {
    check(PMPI_Comm_dup(MPI_COMM_WORLD, &c), "MPI_Comm_dup");
    PMPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
  }
  return c;
}

int size_of(MPI_Comm c) {
  int n = 1;
  PMPI_Comm_size(c, &n);
  return n;
}
int rank_of(MPI_Comm c) {
  int r = 0;
  PMPI_Comm_rank(c, &r);
  return r;
}

int as_count(size_t n) {
  if (n > static_cast<size_t>(std::numeric_limits<int>::max()))
    throw std::runtime_error("observation data over 2 GiB in one piece");
  return static_cast<int>(n);
}

constexpr int kStreamTag = 7;

}  // namespace

std::vector<std::string> gather_strings(const std::string& mine) {
  MPI_Comm c = comm();
  const int n = size_of(c), me = rank_of(c);
  int len = as_count(mine.size());
  std::vector<int> lens(static_cast<size_t>(me == 0 ? n : 0));
  check(PMPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, c), "MPI_Gather");
  std::vector<int> displs(lens.size());
  size_t total = 0;
  for (size_t p = 0; p < lens.size(); ++p) {
    displs[p] = as_count(total);
    total += static_cast<size_t>(lens[p]);
  }
  std::string all(total, '\0');
  check(PMPI_Gatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(), MPI_CHAR, 0, c),
        "MPI_Gatherv");
  std::vector<std::string> out;
  for (size_t p = 0; p < lens.size(); ++p) out.push_back(all.substr(static_cast<size_t>(displs[p]), static_cast<size_t>(lens[p])));
  return out;
}

std::string bcast_string(const std::string& s) {
  MPI_Comm c = comm();
  int64_t len = static_cast<int64_t>(s.size());
  check(PMPI_Bcast(&len, 1, MPI_INT64_T, 0, c), "MPI_Bcast");
  std::string out = rank_of(c) == 0 ? s : std::string(static_cast<size_t>(len), '\0');
  check(PMPI_Bcast(out.data(), as_count(out.size()), MPI_CHAR, 0, c), "MPI_Bcast");
  return out;
}

void reduce_sum_to_root(uint64_t* v, size_t n) {
  MPI_Comm c = comm();
  const bool root = rank_of(c) == 0;
  constexpr size_t kPiece = size_t{1} << 24;
  for (size_t at = 0; at < n; at += kPiece) {
    int k = as_count(std::min(kPiece, n - at));
    check(PMPI_Reduce(root ? MPI_IN_PLACE : v + at, v + at, k, MPI_UINT64_T, MPI_SUM, 0, c), "MPI_Reduce");
  }
}

std::vector<uint64_t> gather_u64(const std::vector<uint64_t>& mine) {
  MPI_Comm c = comm();
  const int n = size_of(c), me = rank_of(c);
  int len = as_count(mine.size());
  std::vector<int> lens(static_cast<size_t>(me == 0 ? n : 0));
  check(PMPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, c), "MPI_Gather");
  std::vector<int> displs(lens.size());
  size_t total = 0;
  for (size_t p = 0; p < lens.size(); ++p) {
    displs[p] = as_count(total);
    total += static_cast<size_t>(lens[p]);
  }
  std::vector<uint64_t> all(total);
  check(PMPI_Gatherv(mine.data(), len, MPI_UINT64_T, all.data(), lens.data(), displs.data(), MPI_UINT64_T, 0, c),
        "MPI_Gatherv");
  return all;
}

void stream_to_root(const std::function<bool(std::string& chunk)>& produce,
                    const std::function<void(const std::string& chunk)>& consume) {
  MPI_Comm c = comm();
  const int n = size_of(c), me = rank_of(c);
  std::string chunk;
  if (me != 0) {
    for (;;) {
      chunk.clear();
      bool more = produce(chunk);
      if (!chunk.empty())
        check(PMPI_Send(chunk.data(), as_count(chunk.size()), MPI_CHAR, 0, kStreamTag, c), "MPI_Send");
      if (!more) break;
    }
    check(PMPI_Send(nullptr, 0, MPI_CHAR, 0, kStreamTag, c), "MPI_Send");  // end of this process's part
    return;
  }
  for (;;) {
    chunk.clear();
    bool more = produce(chunk);
    if (!chunk.empty()) consume(chunk);
    if (!more) break;
  }
  for (int p = 1; p < n; ++p) {
    for (;;) {
      MPI_Status st;
      check(PMPI_Probe(p, kStreamTag, c, &st), "MPI_Probe");
      int len = 0;
      PMPI_Get_count(&st, MPI_CHAR, &len);
      chunk.assign(static_cast<size_t>(len), '\0');
      check(PMPI_Recv(chunk.data(), len, MPI_CHAR, p, kStreamTag, c, MPI_STATUS_IGNORE), "MPI_Recv");
      if (len == 0) break;
      consume(chunk);
    }
  }
}

bool any_true(bool mine) {
  int v = mine ? 1 : 0;
  check(PMPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_LOR, comm()), "MPI_Allreduce");
  return v != 0;
}

int64_t min_all(int64_t mine) {
  check(PMPI_Allreduce(MPI_IN_PLACE, &mine, 1, MPI_INT64_T, MPI_MIN, comm()), "MPI_Allreduce");
  return mine;
}

}  // namespace xsim::native

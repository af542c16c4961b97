#include "native/gather.hpp"

#include <mpi.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "native/check.hpp"

namespace xsim::native {

namespace {

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

// Each process's `mine` (elements of `type`), back to back in process order at process 0 (empty
// elsewhere); at process 0 `lens` and `displs` say how many elements each process sent and where they start.
template <class Buffer>
Buffer gather_parts(const Buffer& mine, MPI_Datatype type, std::vector<int>& lens, std::vector<int>& displs) {
  MPI_Comm c = comm();
  const int n = size_of(c), me = rank_of(c);
  int len = as_count(mine.size());
  lens.assign(static_cast<size_t>(me == 0 ? n : 0), 0);
  check(PMPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, c), "MPI_Gather");
  displs.assign(lens.size(), 0);
  size_t total = 0;
  for (size_t p = 0; p < lens.size(); ++p) {
    displs[p] = as_count(total);
    total += static_cast<size_t>(lens[p]);
  }
  Buffer all(total, typename Buffer::value_type{});
  check(PMPI_Gatherv(mine.data(), len, type, all.data(), lens.data(), displs.data(), type, 0, c), "MPI_Gatherv");
  return all;
}

}  // namespace

std::vector<std::string> gather_strings(const std::string& mine) {
  std::vector<int> lens, displs;
  const std::string all = gather_parts(mine, MPI_CHAR, lens, displs);
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
  std::vector<int> lens, displs;
  return gather_parts(mine, MPI_UINT64_T, lens, displs);
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

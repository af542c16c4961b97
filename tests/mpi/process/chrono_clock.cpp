// chrono_clock.cpp - C++'s clocks read the rank's virtual time under xsim (docs/virtual-clocks.md): libstdc++'s
// std::chrono::steady_clock and system_clock end in clock_gettime, which libxsim.so answers. Every rank reads
// both clocks and MPI_Wtime, passes a token around a ring, and reads them again; with the processor model
// none, steady_clock's interval must equal MPI_Wtime's to the nanosecond and system_clock's to its period.
// Prints one line per rank in rank order (rank 0 gathers them) and exits 1 on a mismatch.
#include <mpi.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me = 0, np = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  using namespace std::chrono;
  const auto s0 = steady_clock::now();
  const auto y0 = system_clock::now();
  const double w0 = MPI_Wtime();
  int token = me, got = -1;
  MPI_Sendrecv(&token, 1, MPI_INT, (me + 1) % np, 0, &got, 1, MPI_INT, (me + np - 1) % np, 0, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  const auto s1 = steady_clock::now();
  const auto y1 = system_clock::now();
  const double w1 = MPI_Wtime();
  const long long steady_ns = duration_cast<nanoseconds>(s1 - s0).count();
  const long long system_ns = duration_cast<nanoseconds>(y1 - y0).count();
  const long long wtime_ns = std::llround((w1 - w0) * 1e9);
  const int ok = steady_ns == wtime_ns && system_ns == wtime_ns;
  char line[160];
  std::snprintf(line, sizeof line, "rank %d: steady_clock %lld ns, system_clock %lld ns, MPI_Wtime %lld ns: %s", me,
                steady_ns, system_ns, wtime_ns, ok ? "the same" : "DIFFERENT");
  std::vector<char> all(me == 0 ? sizeof line * static_cast<size_t>(np) : 1);
  MPI_Gather(line, sizeof line, MPI_CHAR, all.data(), sizeof line, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (me == 0)
    for (int r = 0; r < np; ++r) std::printf("%s\n", all.data() + sizeof line * static_cast<size_t>(r));
  int bad = !ok, any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
  MPI_Finalize();
  return any;
}

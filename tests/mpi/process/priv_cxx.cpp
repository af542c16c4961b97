// priv_cxx.cpp - C++ static objects with constructors and destructors, per virtual rank
// (docs/privatization.md). The global `registry` is built by its constructor before main, with heap memory
// of its own; a function-local static object is built on first use, and so is a thread_local object. With
// privatization every rank gets its
// own, freshly constructed objects (the constructors run once per rank, on the rank's image) and its own
// destructors at its end: every check below holds. With shared globals a rank finds the objects as another
// rank left them, reports it and exits 1.
#include <mpi.h>

#include <cstdio>
#include <string>
#include <vector>

namespace {

int constructed = 0;  // how many times the constructor ran on this image

struct Registry {
  int owner;
  std::vector<int> items;
  std::string name;
  Registry() : owner(-1), items(3, 5), name("registry") { ++constructed; }
  ~Registry() {
    // Runs when the rank ends, on its own image: rank 0 says so.
    bool ok = items.size() == 4 && items[3] == owner && name == "registry of " + std::to_string(owner);
    if (owner == 0) std::printf("priv_cxx: rank 0 destructor %s\n", ok ? "ok" : "FAILED");
  }
};

Registry registry;

struct Tally {
  std::vector<int> seen;
  Tally() : seen(2, 1) {}
  ~Tally() { seen.clear(); }  // (a destructor: registered per rank through __cxa_thread_atexit)
};
thread_local Tally tally;  // constructed on first use in each rank's own TLS image

int next_ticket() {
  struct Counter {
    int value;
    Counter() : value(10) {}
  };
  static Counter counter;  // constructed on first use, in each rank
  return ++counter.value;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0, errors = 0, total = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  if (constructed != 1 || registry.owner != -1 || registry.items.size() != 3 || registry.name != "registry")
    ++errors;
  registry.owner = rank;
  registry.items.push_back(rank);  // grows the rank's own heap block
  registry.name += " of " + std::to_string(rank);
  if (next_ticket() != 11) ++errors;
  if (tally.seen.size() != 2) ++errors;
  tally.seen.push_back(rank);

  MPI_Barrier(MPI_COMM_WORLD);
  int token = rank, got = -1;
  MPI_Sendrecv(&token, 1, MPI_INT, (rank + 1) % size, 0, &got, 1, MPI_INT, (rank + size - 1) % size, 0,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Barrier(MPI_COMM_WORLD);

  if (registry.owner != rank || registry.items.size() != 4 || registry.items[3] != rank ||
      registry.name != "registry of " + std::to_string(rank) || next_ticket() != 12 || tally.seen.size() != 3 ||
      tally.seen[2] != rank)
    ++errors;

  MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    if (total == 0)
      std::printf("priv_cxx: %d ranks, per-rank static objects ok\n", size);
    else
      std::fprintf(stderr, "priv_cxx: FAILED: %d checks saw another rank's static objects\n", total);
    std::fflush(stdout);
  }
  MPI_Finalize();
  if (total != 0) registry.owner = -2;  // (keeps the destructor quiet when the objects were shared)
  return total == 0 ? 0 : 1;
}

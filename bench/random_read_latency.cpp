// Latency of one random read from an array of a given size on this machine (what a lookup table of that
// size costs per query when it misses the caches), with ordinary pages or with transparent huge pages
// (madvise MADV_HUGEPAGE, as netmodel/huge_page_bytes.hpp does). Prints, in thread CPU time, ns per read
// of a pointer chase (each read waits for the previous one: the full latency) and ns per iteration of
// independent pairs of random reads (the reads overlap: the machine's memory-level parallelism).
// Usage: random_read_latency MIB [huge 0|1] [reads]
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <numeric>
#include <random>
#include <vector>
#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace {
double cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s MIB [huge 0|1] [reads]\n", argv[0]);
    return 2;
  }
  const size_t page = size_t{2} << 20;
  const size_t bytes = std::max<size_t>(1, std::strtoull(argv[1], nullptr, 10)) << 20;
  const bool huge = argc > 2 && std::atoi(argv[2]) != 0;
  const long reads = argc > 3 ? std::atol(argv[3]) : 5'000'000;
  const size_t rounded = (bytes + page - 1) / page * page;
  auto* cells = static_cast<uint64_t*>(std::aligned_alloc(page, rounded));  // one cell per 64-byte line
  if (cells == nullptr) return 1;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (huge) (void)madvise(cells, rounded, MADV_HUGEPAGE);
#endif
  const size_t lines = bytes / 64;
  std::vector<uint32_t> order(lines);
  std::iota(order.begin(), order.end(), 0u);
  std::shuffle(order.begin(), order.end(), std::mt19937(1));
  for (size_t i = 0; i < lines; ++i) cells[static_cast<size_t>(order[i]) * 8] = order[(i + 1) % lines];
  uint64_t at = order[0];
  const double t0 = cpu_seconds();
  for (long i = 0; i < reads; ++i) at = cells[at * 8];
  const double chase = (cpu_seconds() - t0) * 1e9 / static_cast<double>(reads);
  uint64_t x = 88172645463325252ull, sum = 0;
  const double t1 = cpu_seconds();
  for (long i = 0; i < reads; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    sum += cells[(x % lines) * 8] + cells[((x >> 21) % lines) * 8];
  }
  const double pairs = (cpu_seconds() - t1) * 1e9 / static_cast<double>(reads);
  std::printf("%zu MiB, %s pages: chase %.1f ns per read, independent pairs %.1f ns per pair (%llu)\n", bytes >> 20,
              huge ? "huge" : "ordinary", chase, pairs, static_cast<unsigned long long>(at + sum));
  std::free(cells);
  return 0;
}

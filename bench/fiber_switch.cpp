// fiber_switch: the bare cost of a Boost.Context switch between fibers whose stacks come from xsim's
// StackPool (the sizes -xsim-stack auto gives as many ranks: the same layout, guard pages and page tables),
// as a function of the number of fibers (cache and TLB footprint), without xsim's scheduler.
// A driver resumes fibers 0..n-1 round-robin; each fiber yields straight back. One "switch" = driver ->
// fiber -> driver, the unit the engine counts.
// With --touch S R, each fiber also writes S cache lines of its own stack frame and R lines of its own
// record (in an array of per-fiber records, as xsim's Rank records are) every time it runs: the memory a
// resumed rank touches, with no other work, to separate a footprint's cost from a simulator's instructions.
// Usage: fiber_switch [--touch S R] [fibers...] (default 2 1024 16384 262144 1048576); each size runs about
// 4 million switches (at least 4 per fiber), the best of 3.
#include <boost/context/fiber.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "stack_pool.hpp"

namespace ctx = boost::context;

namespace {
struct PoolStack {
  xsim::StackPool* pool;
  size_t index;
  ctx::stack_context allocate() {
    ctx::stack_context sc;
    sc.size = pool->usable_size();
    sc.sp = pool->top(index);
    return sc;
  }
  void deallocate(ctx::stack_context&) noexcept {}
};

constexpr size_t kLine = 64, kMaxStackLines = 16, kMaxRecordLines = 16;

struct alignas(kLine) Line {
  long v;
};

double run(size_t n, size_t rounds, size_t stack_lines, size_t record_lines) {
  xsim::StackPool pool(n, xsim::StackPool::auto_size(n));  // the stacks xsim gives n ranks (-xsim-stack auto)
  std::vector<ctx::fiber> fibers(n);
  std::vector<Line> records(n * record_lines);
  volatile bool stop = false;
  for (size_t i = 0; i < n; ++i) {
    Line* rec = records.data() + i * record_lines;
    fibers[i] = ctx::fiber(std::allocator_arg, PoolStack{&pool, i},
                           [&stop, rec, stack_lines, record_lines](ctx::fiber&& driver) {
                             volatile Line frame[kMaxStackLines];
                             while (!stop) {
                               for (size_t j = 0; j < stack_lines; ++j) frame[j].v = frame[j].v + 1;
                               for (size_t j = 0; j < record_lines; ++j) ++rec[j].v;
                               driver = std::move(driver).resume();
                             }
                             return std::move(driver);
                           });
    fibers[i] = std::move(fibers[i]).resume();  // start: runs to its first yield
  }
  double best = 1e30;
  for (int rep = 0; rep < 3; ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    for (size_t k = 0; k < rounds; ++k)
      for (size_t i = 0; i < n; ++i) fibers[i] = std::move(fibers[i]).resume();
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (s < best) best = s;
  }
  stop = true;
  for (auto& f : fibers) f = std::move(f).resume();  // let every fiber return
  return best * 1e9 / static_cast<double>(rounds * n);
}

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr, "fiber_switch: %s\nusage: fiber_switch [--touch STACK_LINES RECORD_LINES] [fibers...]\n", why);
  std::exit(2);
}
}  // namespace

int main(int argc, char** argv) {
  std::vector<size_t> sizes;
  size_t stack_lines = 0, record_lines = 0;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--touch")) {
      if (i + 2 >= argc) usage("--touch needs two numbers");
      stack_lines = std::strtoull(argv[++i], nullptr, 10);
      record_lines = std::strtoull(argv[++i], nullptr, 10);
      if (stack_lines > kMaxStackLines || record_lines > kMaxRecordLines)
        usage("--touch: at most 16 stack lines and 16 record lines");
      continue;
    }
    char* end = nullptr;
    sizes.push_back(std::strtoull(argv[i], &end, 10));
    if (*end || sizes.back() == 0) usage("the number of fibers must be a positive integer");
  }
  if (sizes.empty()) sizes = {2, 1024, 16384, 262144, 1048576};
  std::printf("%10s %10s %12s\n", "fibers", "switches", "ns/switch");
  for (size_t n : sizes) {
    size_t rounds = std::max<size_t>(4, 4'000'000 / n);
    std::printf("%10zu %10zu %12.1f\n", n, rounds * n, run(n, rounds, stack_lines, record_lines));
    std::fflush(stdout);
  }
  return 0;
}

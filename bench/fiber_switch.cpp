// fiber_switch: the bare cost of a Boost.Context switch between fibers whose stacks come from xsim's
// StackPool, as a function of the number of fibers (cache and TLB footprint), without xsim's scheduler.
// A driver resumes fibers 0..n-1 round-robin; each fiber yields straight back. One "switch" = driver ->
// fiber -> driver, the unit the engine counts. Usage: fiber_switch [fibers...] (default 2 1024 16384
// 262144 1048576); each size runs about 4 million switches (at least 4 per fiber), the best of 3.
#include <boost/context/fiber.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
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

double run(size_t n, size_t rounds) {
  xsim::StackPool pool(n, 256 * 1024);
  std::vector<ctx::fiber> fibers(n);
  volatile bool stop = false;
  for (size_t i = 0; i < n; ++i) {
    fibers[i] = ctx::fiber(std::allocator_arg, PoolStack{&pool, i}, [&stop](ctx::fiber&& driver) {
      while (!stop) driver = std::move(driver).resume();
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
}  // namespace

int main(int argc, char** argv) {
  std::vector<size_t> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::strtoull(argv[i], nullptr, 10));
  if (sizes.empty()) sizes = {2, 1024, 16384, 262144, 1048576};
  std::printf("%10s %10s %12s\n", "fibers", "switches", "ns/switch");
  for (size_t n : sizes) {
    if (n == 0) {
      std::fprintf(stderr, "fiber_switch: the number of fibers must be positive\n");
      return 2;
    }
    size_t rounds = std::max<size_t>(4, 4'000'000 / n);
    std::printf("%10zu %10zu %12.1f\n", n, rounds * n, run(n, rounds));
    std::fflush(stdout);
  }
  return 0;
}

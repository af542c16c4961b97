// The host's peak, cache and node loops (host_probe.hpp).
#include "host_probe.hpp"

#include <immintrin.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>

namespace xsim::calibrate {
namespace {

double now() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);  // the thread's CPU time: not the time other processes run
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The value of "key : value" lines of the first processor block of /proc/cpuinfo.
std::string field(const std::string& text, const std::string& key) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) break;  // end of the first processor
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string k = line.substr(0, colon);
    while (!k.empty() && (k.back() == ' ' || k.back() == '\t')) k.pop_back();
    if (k == key) return line.substr(std::min(line.size(), colon + 2));
  }
  return "";
}

bool has_flag(const std::string& flags, const std::string& f) {
  return (" " + flags + " ").find(" " + f + " ") != std::string::npos;
}

}  // namespace

PeakInfo peak_from_cpuinfo(const std::string& cpuinfo) {
  PeakInfo p;
  const std::string flags = field(cpuinfo, "flags"), vendor = field(cpuinfo, "vendor_id");
  const int family = std::atoi(field(cpuinfo, "cpu family").c_str());
  if (has_flag(flags, "avx512f") && vendor == "AuthenticAMD" && family == 25) {
    p.flops_per_cycle = 16;
    p.flops_how = "AVX-512 on AMD family 25 (Zen 3/4: 512-bit operations run as two 256-bit halves): 16 flop/cycle";
  } else if (has_flag(flags, "avx512f")) {
    p.flops_per_cycle = 32;
    p.flops_how = "AVX-512 (two 512-bit FMA units): 32 flop/cycle";
  } else if (has_flag(flags, "avx2") && has_flag(flags, "fma")) {
    p.flops_per_cycle = 16;
    p.flops_how = "AVX2 + FMA (two 256-bit FMA units): 16 flop/cycle";
  } else {
    p.flops_per_cycle = 4;
    p.flops_how = "no AVX2+FMA (SSE2: a 128-bit add and multiply): 4 flop/cycle";
  }
  const std::string model = field(cpuinfo, "model name");
  const size_t at = model.find(" @ ");
  if (at != std::string::npos && model.find("GHz", at) != std::string::npos) {
    p.clock_hz = std::atof(model.c_str() + at + 3) * 1e9;
    p.clock_how = "the nominal clock in the model name (\"" + model + "\")";
  }
  if (!(p.clock_hz > 0)) {  // the largest "cpu MHz" of any processor
    std::istringstream in(cpuinfo);
    std::string line;
    double mhz = 0;
    while (std::getline(in, line))
      if (line.rfind("cpu MHz", 0) == 0 && line.find(':') != std::string::npos)
        mhz = std::max(mhz, std::atof(line.c_str() + line.find(':') + 1));
    p.clock_hz = mhz * 1e6;
    p.clock_how = "\"cpu MHz\" of /proc/cpuinfo (in a virtual machine: the nominal clock; on bare metal: the "
                  "clock when read)";
  }
  return p;
}

namespace {
double thread_seconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}
// 12 independent chains of vector FMAs: more than an FMA's latency times the FMA units, so the loop runs at
// the core's FMA throughput. Returns the flops done.
__attribute__((target("avx512f"))) double fma_loop_512(uint64_t iters) {
  const __m512d m = _mm512_set1_pd(0.9999999), c = _mm512_set1_pd(1e-9);
  __m512d a[12];
  for (int j = 0; j < 12; ++j) a[j] = _mm512_set1_pd(1.0 + j);
  for (uint64_t i = 0; i < iters; ++i)
    for (int j = 0; j < 12; ++j) a[j] = _mm512_fmadd_pd(a[j], m, c);
  for (int j = 0; j < 12; ++j) asm volatile("" ::"v"(a[j]));
  return static_cast<double>(iters) * 12 * 8 * 2;
}
__attribute__((target("avx2,fma"))) double fma_loop_256(uint64_t iters) {
  const __m256d m = _mm256_set1_pd(0.9999999), c = _mm256_set1_pd(1e-9);
  __m256d a[12];
  for (int j = 0; j < 12; ++j) a[j] = _mm256_set1_pd(1.0 + j);
  for (uint64_t i = 0; i < iters; ++i)
    for (int j = 0; j < 12; ++j) a[j] = _mm256_fmadd_pd(a[j], m, c);
  for (int j = 0; j < 12; ++j) asm volatile("" ::"x"(a[j]));
  return static_cast<double>(iters) * 12 * 4 * 2;
}
}  // namespace

double measured_fma_peak() {
  const std::string flags = field(read_text("/proc/cpuinfo"), "flags");
  const bool avx512 = has_flag(flags, "avx512f"), avx2 = has_flag(flags, "avx2") && has_flag(flags, "fma");
  if (!avx512 && !avx2) return 0;
  double best = 0;
  for (int r = 0; r < 7; ++r) {  // the best of several passes: other processes only slow a pass down
    const double t0 = thread_seconds();
    const double flops = avx512 ? fma_loop_512(2'000'000) : fma_loop_256(2'000'000);
    const double dt = thread_seconds() - t0;
    if (dt > 0) best = std::max(best, flops / dt);
  }
  return best;
}

PeakInfo host_peak() {
  PeakInfo p = peak_from_cpuinfo(read_text("/proc/cpuinfo"));
  if (!(p.clock_hz > 0)) {
    const double khz = std::atof(read_text("/sys/devices/system/cpu/cpu0/cpufreq/base_frequency").c_str());
    if (khz > 0) {
      p.clock_hz = khz * 1e3;
      p.clock_how = "sysfs cpufreq base_frequency";
    }
  }
  return p;
}

uint64_t last_level_cache() {
  uint64_t best = 0;
  for (int i = 0; i < 8; ++i) {
    const std::string s = read_text("/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/size");
    if (s.empty()) continue;
    uint64_t v = std::strtoull(s.c_str(), nullptr, 10);
    if (s.find('K') != std::string::npos) v <<= 10;
    if (s.find('M') != std::string::npos) v <<= 20;
    best = std::max(best, v);
  }
#ifdef _SC_LEVEL3_CACHE_SIZE
  if (!best) best = static_cast<uint64_t>(std::max(0L, sysconf(_SC_LEVEL3_CACHE_SIZE)));
#endif
  return best ? best : 32ull << 20;
}

std::vector<int> usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> v;
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) v.push_back(c);
  if (v.empty()) v.push_back(0);
  return v;
}

namespace {

void pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

// One thread's loop: `pass` run `repeats` times after a common start; returns the least pass time.
template <typename Pass>
double timed(Pass& pass, int repeats, std::atomic<int>& ready, int threads) {
  ready.fetch_add(1);
  while (ready.load() < threads) {
  }
  double best = 1e300;
  for (int r = 0; r < repeats; ++r) {
    const double t0 = now();
    pass();
    best = std::min(best, now() - t0);
  }
  return best;
}

// Runs `make()`'s pass on cpus[0] alone, then on every CPU at once.
template <typename Make>
LoopTimes one_and_all(const std::vector<int>& cpus, Make make, int repeats) {
  LoopTimes out;
  for (int round = 0; round < 2; ++round) {
    const size_t n = round == 0 ? 1 : cpus.size();
    std::vector<double> best(n);
    std::atomic<int> ready{0};
    std::vector<std::thread> th;
    for (size_t i = 0; i < n; ++i)
      th.emplace_back([&, i] {
        pin(cpus[i]);
        auto pass = make();  // allocated and first touched by the thread on its own core
        pass();              // warm-up
        best[i] = timed(pass, repeats, ready, static_cast<int>(n));
      });
    for (auto& t : th) t.join();
    std::sort(best.begin(), best.end());
    (round == 0 ? out.one : out.all) = best[n / 2];
  }
  return out;
}

}  // namespace

LoopTimes triad(const std::vector<int>& cpus, uint64_t doubles, int repeats) {
  auto make = [doubles] {
    auto a = std::shared_ptr<double[]>(new double[doubles]), b = std::shared_ptr<double[]>(new double[doubles]),
         c = std::shared_ptr<double[]>(new double[doubles]);
    for (uint64_t i = 0; i < doubles; ++i) a[i] = 0, b[i] = 1.0, c[i] = 2.0;
    return [a, b, c, doubles] {
      double* __restrict pa = a.get();
      const double* __restrict pb = b.get();
      const double* __restrict pc = c.get();
      for (uint64_t i = 0; i < doubles; ++i) pa[i] = pb[i] + 3.0 * pc[i];
      asm volatile("" ::"r"(pa) : "memory");
    };
  };
  return one_and_all(cpus, make, repeats);
}

LoopTimes fma_chains(const std::vector<int>& cpus, uint64_t iterations, int repeats) {
  auto make = [iterations] {
    return [iterations] {
      double x[16];
      for (int j = 0; j < 16; ++j) x[j] = 1.0 + j * 1e-3;
      for (uint64_t i = 0; i < iterations; ++i)
        for (int j = 0; j < 16; ++j) x[j] = x[j] * 0.999999 + 1e-6;
      for (int j = 0; j < 16; ++j) asm volatile("" ::"x"(x[j]));
    };
  };
  return one_and_all(cpus, make, repeats);
}

}  // namespace xsim::calibrate

// What xsim-calibrate --kernels/--node learns about the host without BLAS: the theoretical peak of one core
// (from /proc/cpuinfo), the last-level cache size, and the node loops (docs/real-programs.md "Node
// model"): a STREAM-like triad and independent FMA chains, timed on one core alone and on every core at
// once, threads pinned one per core. The /proc/cpuinfo reading is a pure function of its text, unit-tested.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace xsim::calibrate {

// One core's theoretical double-precision peak: flops per cycle from the vector extensions, times a clock.
struct PeakInfo {
  double flops_per_cycle = 0;
  double clock_hz = 0;
  std::string flops_how, clock_how;  // where each number came from, for the printout and the file
  double peak() const { return flops_per_cycle * clock_hz; }
};

// From /proc/cpuinfo's text (first processor): AVX-512 -> 32 flop/cycle (two 512-bit FMA units), except
// AMD family 25 (Zen 3/4), which executes AVX-512 as two 256-bit halves -> 16; AVX2 and FMA -> 16; else 4
// (SSE2: one 128-bit add and one multiply per cycle). The clock: "@ X.XXGHz" in the model name (the
// nominal base clock), else the largest "cpu MHz" (in a virtual machine the nominal clock the hypervisor
// reports, on bare metal whatever the core ran at when read). clock_hz = 0 when neither is there.
PeakInfo peak_from_cpuinfo(const std::string& cpuinfo);

// The same from this host: /proc/cpuinfo, else sysfs base_frequency for the clock.
PeakInfo host_peak();
// One core's attainable double-precision flop/s, measured: independent chains of AVX-512 (else AVX2) FMAs
// timed in the thread's CPU time, the best of several passes; 0 without AVX2+FMA. It runs at the clock the
// core really holds (turbo included), which /proc/cpuinfo does not give inside a virtual machine.
double measured_fma_peak();

// Bytes of the largest cache (sysfs, else sysconf); 32 MiB when neither says.
uint64_t last_level_cache();

// The CPUs this process may run on (its affinity mask), in order.
std::vector<int> usable_cpus();

// Seconds per pass of one loop, on one core alone and per core with every CPU in `cpus` running it at once
// (the median over the threads of each one's minimum over repeats).
struct LoopTimes {
  double one = 0, all = 0;
  double factor() const { return all / one; }
};

// Triad a[i] = b[i] + s c[i] over arrays of `doubles` elements per thread (24 bytes per element moved).
LoopTimes triad(const std::vector<int>& cpus, uint64_t doubles, int repeats);
// 16 independent chains of x = x * a + b, `iterations` times each (32 flops per iteration), in registers.
LoopTimes fma_chains(const std::vector<int>& cpus, uint64_t iterations, int repeats);

}  // namespace xsim::calibrate

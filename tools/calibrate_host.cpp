// xsim-calibrate --kernels / --node (calibrate_host.hpp).
#include "calibrate_host.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "blas_bench.hpp"
#include "host_probe.hpp"
#include "kernel_fit.hpp"

namespace xsim::calibrate {
namespace {

struct Args {
  bool kernels = false, node = false, quick = false;
  std::string out = "xsim-calibration.toml", blas = "libblas.so.3";
  double budget = 100, clock_ghz = 0, flops_per_cycle = 0;
};

[[noreturn]] void usage_error(const std::string& why) {
  std::fprintf(stderr, "xsim-calibrate: %s (see --help)\n", why.c_str());
  std::exit(2);
}

double positive(const char* opt, const char* v) {
  char* end = nullptr;
  const double d = std::strtod(v, &end);
  if (!*v || *end || !(d > 0) || !std::isfinite(d))
    usage_error(std::string(opt) + ": \"" + v + "\" is not a positive number");
  return d;
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    auto value = [&](const char* opt) -> const char* {
      if (i + 1 >= argc) usage_error(std::string(opt) + " needs a value");
      return argv[++i];
    };
    if (s == "--kernels") a.kernels = true;
    else if (s == "--node") a.node = true;
    else if (s == "--quick") a.quick = true;
    else if (s == "--out" || s == "-o") a.out = value("--out");
    else if (s.rfind("--out=", 0) == 0) a.out = s.substr(6);
    else if (s == "--blas") a.blas = value("--blas");
    else if (s == "--budget") a.budget = positive("--budget", value("--budget"));
    else if (s == "--clock") a.clock_ghz = positive("--clock", value("--clock"));
    else if (s == "--flops-per-cycle") a.flops_per_cycle = positive("--flops-per-cycle", value("--flops-per-cycle"));
    else usage_error("unknown argument \"" + s + "\" for --kernels/--node");
  }
  if (a.quick && a.budget == 100) a.budget = 20;
  return a;
}

std::string now_utc() {
  char b[64];
  const std::time_t t = std::time(nullptr);
  std::strftime(b, sizeof b, "%Y-%m-%d %H:%M UTC", std::gmtime(&t));
  return b;
}

// The fitted families, each printed shape by shape: measured, fitted (one core alone) and the error, and
// the file's time for a busy node.
std::vector<FamilyFit> fit_and_print(const std::vector<KernelSample>& samples, const Rates& alone,
                                     const Rates& node, std::vector<std::string>& comments) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<KernelSample>> by;
  for (const KernelSample& s : samples) {
    if (!by.count(s.family)) order.push_back(s.family);
    by[s.family].push_back(s);
  }
  std::vector<FamilyFit> fits;
  std::printf("  %-6s %-22s %13s %13s %8s %14s\n", "kernel", "shape", "measured_us", "fitted_us", "error", "busy_node_us");
  comments.push_back("kernel shape measured_us fitted_us (one core alone) error, and this file's time (busy node):");
  for (const std::string& fam : order) {
    const FamilyFit f = fit_family(by[fam], alone);
    fits.push_back(f);
    for (const KernelSample& s : by[fam]) {
      const double p = predict(f, s, alone), q = predict(f, s, node);
      char line[200];
      std::snprintf(line, sizeof line, "%-6s %-22s %13.3f %13.3f %+7.1f%% %14.3f", fam.c_str(), s.shape.c_str(),
                    s.seconds * 1e6, p * 1e6, (p / s.seconds - 1) * 100, q * 1e6);
      std::printf("  %s\n", line);
      comments.push_back(std::string("  ") + line);
    }
    char line[200];
    std::snprintf(line, sizeof line, "%s: efficiency %.4f%s, overhead %.3f us, R^2 %.6f, largest error %.1f%%",
                  fam.c_str(), f.efficiency,
                  compute_bound(fam) ? (", half_dim " + std::to_string(f.half_dim)).c_str() : "",
                  f.overhead * 1e6, f.r2, f.worst * 100);
    std::printf("  -> %s\n", line);
    comments.push_back(std::string("  -> ") + line);
  }
  return fits;
}

bool write_file(const std::string& path, const std::string& text) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  return f && std::fwrite(text.data(), 1, text.size(), f) == text.size() && std::fclose(f) == 0;
}

// The node loops: sets k's factors and busy-node rates, prints them; returns the lone core's rates.
Rates node_loops(const Args& a, const PeakInfo& peak, KernelFile& k) {
  const std::vector<int> cpus = usable_cpus();
  const uint64_t llc = last_level_cache();
  // The node loops: arrays of 2 x LLC each (three per thread), FMA chains of about 20 ms.
  const uint64_t doubles = llc / 4;
  const int reps = a.quick ? 3 : 7;
  const LoopTimes tri = triad(cpus, doubles, reps);
  const LoopTimes fma = fma_chains(cpus, 4'000'000, reps);
  // All-core per core faster than one alone is noise: the factors are at least 1.
  k.memory_factor = std::max(1.0, tri.factor());
  k.compute_factor = std::max(1.0, fma.factor());
  const double bytes = 24.0 * static_cast<double>(doubles);
  std::printf("xsim-calibrate: %zu CPUs (%s), last-level cache %llu KiB\n", cpus.size(), cpus.size() > 1 ? "threads pinned one per CPU" : "one",
              static_cast<unsigned long long>(llc >> 10));
  std::printf("  triad (3 x %.0f MiB per core): one core %.3f GB/s, every core at once %.3f GB/s each -> memory_factor %.4f\n",
              static_cast<double>(doubles) * 8 / (1 << 20), bytes / tri.one / 1e9, bytes / tri.all / 1e9, tri.factor());
  std::printf("  FMA chains: one core %.3f ms, every core at once %.3f ms per pass -> compute_factor %.4f\n", fma.one * 1e3,
              fma.all * 1e3, fma.factor());
  k.comments.push_back("node: " + std::to_string(cpus.size()) + " CPUs; triad " + std::to_string(bytes / tri.one / 1e9) +
                       " GB/s alone, " + std::to_string(bytes / tri.all / 1e9) + " GB/s per core when all stream");
  k.node = representable({peak.peak() / k.compute_factor, bytes / tri.one / k.memory_factor});
  return {peak.peak(), bytes / tri.one};
}

// Times the BLAS (first: a library that does not load fails before the node loops); false on failure.
bool time_blas(const Args& a, BlasBench& b) {
  BlasBenchOptions bo;
  bo.library = a.blas;
  bo.llc = last_level_cache();
  bo.budget = a.budget;
  bo.quick = a.quick;
  try {
    b = run_blas_bench(bo);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "xsim-calibrate: %s\n", e.what());
    return false;
  }
  return true;
}

// The kernels' part of the file: the peak and BLAS printed, the families fitted and printed.
bool fit_kernels(const Args& a, const PeakInfo& peak, const BlasBench& b, const Rates& alone, KernelFile& k) {
  std::printf("  peak of one core: %.3f GF/s = %g flop/cycle x %.3f GHz\n    flop/cycle: %s\n    clock: %s\n",
              peak.peak() / 1e9, peak.flops_per_cycle, peak.clock_hz / 1e9, peak.flops_how.c_str(), peak.clock_how.c_str());
  k.comments.push_back("peak: " + peak.flops_how + "; clock " + std::to_string(peak.clock_hz / 1e9) + " GHz from " +
                       peak.clock_how + "; divided by compute_factor for the all-core clock");
  std::printf("  BLAS: %s -> %s (one thread)\n", b.opened.c_str(), b.real_path.c_str());
  k.comments.push_back("BLAS: " + b.opened + " -> " + b.real_path + " (one thread); times: least of repeated calls");
  for (const std::string& s : b.skipped) std::printf("  skipped for the --budget of %g s: %s\n", a.budget, s.c_str());
  try {
    k.families = fit_and_print(b.samples, alone, k.node, k.comments);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "xsim-calibrate: the measurements cannot be fitted: %s\n", e.what());
    return false;
  }
  std::vector<double> ov;
  for (const FamilyFit& f : k.families) ov.push_back(f.overhead);
  std::sort(ov.begin(), ov.end());
  k.overhead = ov.empty() ? 0 : ov[ov.size() / 2];
  return true;
}

}  // namespace

bool host_mode(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (!std::strcmp(argv[i], "--kernels") || !std::strcmp(argv[i], "--node")) return true;
  return false;
}

int host_main(int argc, char** argv) {
  const Args a = parse(argc, argv);
  if (!write_file(a.out, "")) {  // writable before minutes of measuring, not found unwritable after them
    std::fprintf(stderr, "xsim-calibrate: cannot write %s: %s\n", a.out.c_str(), std::strerror(errno));
    return 1;
  }
  KernelFile k;
  char host[256] = "";
  gethostname(host, sizeof host);
  k.comments = {"xsim kernel and node calibration, written by xsim-calibrate on " + std::string(host) + ", " + now_utc(),
                "Load it with -xsim-config FILE (docs/real-programs.md)."};
  PeakInfo peak = host_peak();
  if (a.flops_per_cycle > 0) peak.flops_per_cycle = a.flops_per_cycle, peak.flops_how = "--flops-per-cycle";
  if (a.clock_ghz > 0) {
    peak.clock_hz = a.clock_ghz * 1e9, peak.clock_how = "--clock";
  } else if (a.kernels && peak.flops_per_cycle > 0) {
    // The clock the cores really run at: an FMA loop at full throughput does flops_per_cycle a cycle.
    const double fma = measured_fma_peak();
    if (fma > 0) {
      char how[160];
      std::snprintf(how, sizeof how, "an FMA loop at full throughput (%.3f GF/s; /proc/cpuinfo says %.3f GHz)", fma / 1e9,
                    peak.clock_hz / 1e9);
      peak.clock_hz = fma / peak.flops_per_cycle;
      peak.clock_how = how;
    }
  }
  if (a.kernels && !(peak.clock_hz > 0))
    usage_error("cannot find this CPU's clock in /proc/cpuinfo or sysfs; give it with --clock GHZ");
  BlasBench b;
  if (a.kernels && !time_blas(a, b)) return 1;
  const Rates alone = node_loops(a, peak, k);
  k.kernels = a.kernels;
  k.node_measured = a.node;
  if (a.kernels && !fit_kernels(a, peak, b, alone, k)) return 1;
  if (!write_file(a.out, kernel_toml(k))) {
    std::fprintf(stderr, "xsim-calibrate: cannot write %s: %s\n", a.out.c_str(), std::strerror(errno));
    return 1;
  }
  std::printf("  wrote %s (load it with -xsim-config %s)\n", a.out.c_str(), a.out.c_str());
  return 0;
}

}  // namespace xsim::calibrate
